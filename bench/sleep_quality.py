"""What sleep extracts from LoCoMo conversations, scored against LoCoMo's own observations.

    python -m tests.real_ollama --port 11500 &      # or any Ollama
    python bench/sleep_quality.py --host http://127.0.0.1:11500 --model smollm2:135m \\
        --embedding multilingual-e5-small --sessions 3

Each conversation's sessions are stored at their real dates in a fresh data file and
consolidated by one sleep run. LoCoMo lists gold observations per session, each with the
turns (`dia_id`) it rests on. Figures:

* evidence recall: share of gold observations whose evidence turn some extracted fact cites;
* evidence precision: share of extracted facts citing a turn some gold observation cites;
* facts per session, turns each cites (a fact citing a whole session would cover every
  observation in it, so recall is read beside it), malformed (and repaired) answers,
  model calls and tokens per session, wall time; and what each step did (counts).

Facts are every fact the run proposed (pending or active). `--real` starts the real small
models in-process instead of using `--host`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.clock import ManualClock
from assistant.engine import Hippo
from assistant.errors import OllamaError
from assistant.llm.gateway import OllamaGateway
from assistant.sleep import SleepReport, SleepSettings
from bench.locomo_data import DEFAULT_DATA, Conversation, load, write_sessions
from tests.real_ollama.models import ModelRefused
from tests.real_ollama.options import add_model_options, serve_real

STAGES = (
    "sessions_summarised", "episodes", "summarise_failed", "sessions_extracted", "candidates",
    "candidates_rejected", "extract_failed", "candidates_added", "candidates_reinforced",
    "candidates_ignored", "update_failed", "reflections", "reflect_failed", "sessions_given_up",
    "clean_answers", "repaired_answers", "malformed_answers", "dropped_items",
)  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", help="Ollama host, e.g. http://127.0.0.1:11434")
    parser.add_argument("--model", default="smollm2:135m", help="the model sleep asks")
    parser.add_argument("--embedding", default="multilingual-e5-small", help="embedding model")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON")
    parser.add_argument("--conversations", type=int, default=0, help="first N (0: all)")
    parser.add_argument("--sessions", type=int, default=0, help="first N of each (0: all)")
    parser.add_argument("--real", action="store_true", help="start the real small models here")
    add_model_options(parser)  # with --real: --gguf PATH [--name NAME] [--chat-template FILE]
    parser.add_argument(
        "--timeout", type=float, default=900.0,
        help="seconds to wait for an answer (a tiny model on a busy CPU is slow)",
    )  # fmt: skip
    return parser


def _consolidate(conv: Conversation, args: argparse.Namespace, folder: Path) -> dict:
    sessions = conv.sessions[: args.sessions or None]
    clock = ManualClock(sessions[-1].turns[-1].at + timedelta(days=1))
    engine = Hippo(
        folder / f"{conv.name}.db",
        OllamaGateway(args.host, load_timeout=args.timeout, stall_timeout=args.timeout),
        chat_model=args.model,
        embedding_model=args.embedding,
        clock=clock,
    )
    try:
        ids = write_sessions(engine, sessions)
        started = time.perf_counter()
        report = engine.consolidate(tz=UTC, settings=SleepSettings(max_llm_calls=100_000))
        seconds = time.perf_counter() - started
        dia = {message_id: dia_id for dia_id, message_id in ids.items()}
        cited = [
            {dia[e.ref_id] for e in fact.evidence if e.kind == "message" and e.ref_id in dia}
            for fact in engine.memory.facts.list(engine.memory.profile.id, limit=10_000)
            if fact.source_kind != "reflection"
        ]
    finally:
        engine.close()
    gold = [set(o.evidence) for s in sessions for o in s.observations]
    return {
        "sessions": len(sessions),
        "gold": gold,
        "cited": cited,
        "report": report,
        "seconds": seconds,
    }


def _scores(runs: list[dict]) -> dict[str, float]:
    gold = [g for run in runs for g in run["gold"]]
    cited = [c for run in runs for c in run["cited"]]
    all_cited = set().union(*cited) if cited else set()
    all_gold = set().union(*gold) if gold else set()
    recall = sum(1 for g in gold if g & all_cited) / max(len(gold), 1)
    precision = sum(1 for c in cited if c & all_gold) / max(len(cited), 1)
    widest = max((len(c) for c in cited), default=0)
    return {
        "recall": recall,
        "precision": precision,
        "facts": len(cited),
        "gold": len(gold),
        "cites": sum(len(c) for c in cited) / max(len(cited), 1),
        "widest": widest,
    }


def _print(runs: list[dict], args: argparse.Namespace) -> None:
    sessions = sum(run["sessions"] for run in runs)
    reports: list[SleepReport] = [run["report"] for run in runs]
    counts: Counter[str] = Counter()
    for report in reports:
        counts.update(report.counts)
    calls = sum(r.llm_calls for r in reports)
    tokens = sum(r.prompt_tokens + r.completion_tokens for r in reports)
    s = _scores(runs)
    print(f"Sleep quality: {args.model} on {len(runs)} LoCoMo conversations, {sessions} sessions")
    print(f"  evidence recall     {s['recall']:6.1%}  ({s['gold']:.0f} gold observations)")
    print(f"  evidence precision  {s['precision']:6.1%}  ({s['facts']:.0f} facts)")
    print(f"  facts per session   {s['facts'] / max(sessions, 1):6.2f}")
    # A fact citing a whole session would score every observation in it: say how wide.
    print(f"  turns cited a fact  {s['cites']:6.1f}  (at most {s['widest']:.0f})")
    print(f"  model calls/session {calls / max(sessions, 1):6.2f}")
    print(f"  tokens per session  {tokens / max(sessions, 1):8.0f}")
    print(f"  malformed answers   {counts['malformed_answers']:6d} of {calls} calls")
    print(f"  wall time           {sum(run['seconds'] for run in runs):8.1f} s")
    print("  run status          " + ", ".join(r.status for r in reports))
    print("What each step did:")
    for key in STAGES:
        print(f"  {key:<22} {counts.get(key, 0)}")


def main(argv: list[str] | None = None) -> int:
    """Run the bench; print figures."""
    args = _parser().parse_args(argv)
    server = None
    if args.real:
        try:
            server = serve_real(args, max_tokens=256)
        except ModelRefused as exc:
            print(f"sleep_quality: {exc}", file=sys.stderr)
            return 1
    if not args.host:
        print("sleep_quality: give --host URL (an Ollama) or --real", file=sys.stderr)
        return 2
    try:
        OllamaGateway(args.host).probe()
        conversations = load(args.data)[: args.conversations or None]
        with tempfile.TemporaryDirectory(prefix="hippo-sleep-quality-") as folder:
            runs = []
            for conv in conversations:
                runs.append(_consolidate(conv, args, Path(folder)))
                print(f"{conv.name}: {runs[-1]['report'].summary()}", flush=True)
        _print(runs, args)
    except OllamaError as exc:
        print(f"sleep_quality: {exc}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
