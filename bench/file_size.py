"""How large a new user's data file is after a day of chat, and where its bytes go.

Simulates a day against the fake Ollama, through the engine as the app drives it: a
fresh data file, ``--messages`` messages in a few chats (half from the user, each
answered by the model), a few facts stated with ``/remember``, every message embedded,
then one sleep run (episodes, facts, its backup); ``--days N`` repeats that N times.
Then prints the data file's size
(after a checkpoint, as it rests on disk), its split (text, keyword index, vectors,
cells, other, free pages) and the largest tables, and the backups' count and size.

Run once per embedder: ``all-minilm`` (384-d) and ``embeddinggemma`` (768-d). With
``--tried`` the day also tries the other embedder briefly (its vectors made, then the
first one chosen again), as a user comparing models does, and at the end deletes them
(``hippo db vectors delete``) and prints the file's size before and after.

Targets (issue 14): the file under 2 MB after such a day; the backups together at most
three times the compacted file.

Usage: python bench/file_size.py [--messages 100] [--days 1] [--tried] [--embedder NAME]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.admin import VectorsDropped  # noqa: E402
from assistant.clock import ManualClock  # noqa: E402
from assistant.engine import Hippo  # noqa: E402
from assistant.llm.gateway import OllamaGateway  # noqa: E402
from assistant.memory.profile_data.space import FileSpace, file_space  # noqa: E402
from assistant.sleep import SleepSettings, backups  # noqa: E402
from bench.sleep import STATEMENTS, WeekModel  # noqa: E402

START = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
EMBEDDERS = ("all-minilm", "embeddinggemma")
TARGET_MB = 2.0
DAY = 100
_QUESTIONS = [
    "Can you help me plan my week?",
    "What should I cook tonight with rice and leeks?",
    "Explain how a Python generator differs from a list, briefly.",
    "Thanks, that helps a lot.",
]


def _user_text(n: int) -> str:
    if n % 5 == 0:
        return STATEMENTS[(n // 5) % len(STATEMENTS)][0]
    return _QUESTIONS[n % len(_QUESTIONS)]


def simulate_day(engine: Hippo, clock: ManualClock, messages: int) -> None:
    """``messages`` messages over four chats, three remembered facts, all embedded."""
    turns = max(messages // 2, 1)
    per_chat = max(turns // 4, 1)
    session = engine.conversations.new_session()
    for n in range(turns):
        if n and n % per_chat == 0:
            engine.conversations.end_session(session.id)
            clock.advance(hours=2)
            session = engine.conversations.new_session()
        for _ in engine.send(session.id, _user_text(n)):
            pass
        clock.advance(minutes=2)
        if n % max(turns // 3, 1) == 0:
            engine.admin.facts.remember(f"I like fact number {n}", session.id)
    engine.conversations.end_session(session.id)
    engine.background.embed_pending(max_batches=None)


def _try_other(engine: Hippo, other: str, first: str) -> None:
    """Choose ``other`` as the embedder, let it embed everything, then go back."""
    engine.live_settings.use_models(embedding=other)
    engine.background.embed_pending(max_batches=None)
    engine.live_settings.use_models(embedding=first)
    engine.background.embed_pending(max_batches=None)


@dataclass
class Figures:
    """What one run measured."""

    embedder: str
    messages: int
    file_bytes: int
    space: FileSpace
    backups: int
    backup_bytes: int
    slept: dict[str, int]
    dropped: VectorsDropped | None = None


def _night(engine: Hippo, clock: ManualClock) -> dict[str, int]:
    clock.advance(hours=12)
    slept = engine.consolidate(tz=UTC, settings=SleepSettings(max_llm_calls=1000))
    engine.background.embed_pending(max_batches=None)  # what sleep wrote, as the app's worker does
    clock.advance(hours=12)
    return {k: v for k, v in slept.counts.items() if not k.startswith("llm_") and v}


def measure(embedder: str, messages: int, tried: bool, days: int) -> Figures:
    """``days`` days of chat with ``embedder``, each with its night; the file's figures."""
    with tempfile.TemporaryDirectory() as folder, WeekModel() as model:
        clock = ManualClock(START)
        path = Path(folder) / "hippo.db"
        engine = Hippo(
            path,
            OllamaGateway(model.host),
            chat_model="qwen3:1.7b",
            embedding_model=embedder,
            clock=clock,
        )
        other = next(e for e in EMBEDDERS if e != embedder)
        try:
            for day in range(days):
                simulate_day(engine, clock, messages)
                if tried and day == 0:
                    _try_other(engine, other, embedder)
                slept = _night(engine, clock)
            conn = engine.memory.db.conn
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            size, space = path.stat().st_size, file_space(conn)
            dropped = engine.admin.storage.drop_vectors(other) if tried else None
        finally:
            engine.close()
        copies = backups(path)
        total = sum(p.stat().st_size for p in copies)
        return Figures(embedder, messages * days, size, space, len(copies), total, slept, dropped)


def report(found: Figures) -> str:
    """The figures of one run, as lines."""
    size, space = found.file_bytes, found.space
    mb = size / 1e6
    lines = [
        f"{found.embedder}: {found.messages} messages -> file {mb:.2f} MB"
        f" ({size / found.messages / 1e3:.1f} KB/message"
        + (
            f"; target < {TARGET_MB:.0f} MB after a day: {'met' if mb < TARGET_MB else 'MISSED'})"
            if found.messages <= DAY
            else ")"
        ),
        "  split: " + ", ".join(f"{k} {v / 1e3:.0f} KB" for k, v in space.by_group().items()),
        "  largest: " + ", ".join(f"{t.name} {t.bytes / 1e3:.0f} KB" for t in space.largest(6)),
        f"  last night: {found.slept}",
        f"  backups: {found.backups}, {found.backup_bytes / 1e6:.2f} MB"
        f" ({found.backup_bytes / max(size, 1):.1f}x the file; target <= 3x)",
    ]
    if found.dropped is not None:
        d = found.dropped
        lines.append(
            f"  dropped {d.vectors} vectors of {d.name}: {d.before_bytes / 1e6:.2f} MB"
            f" -> {d.after_bytes / 1e6:.2f} MB"
        )
    return "\n".join(lines)


def main() -> None:
    """Run the bench and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=DAY, help="a day's messages (100)")
    parser.add_argument("--days", type=int, default=1, help="days, each with its night (1)")
    parser.add_argument("--tried", action="store_true", help="also try the other embedder")
    parser.add_argument("--embedder", choices=EMBEDDERS, action="append")
    args = parser.parse_args()
    for embedder in args.embedder or EMBEDDERS:
        print(report(measure(embedder, args.messages, args.tried, args.days)), flush=True)


if __name__ == "__main__":
    main()
