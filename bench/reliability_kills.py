"""Kill -9 at random moments during `ask`, `log`, `sleep --now`, `memory forget` and `ingest`.

Each run is killed after a random share of that command's usual duration (some finish
first). After each, the data file is checked: SQLite's integrity check, rows half
written (see `reliability_lab.look`), a forget that removed only some mentions, a file
whose ingest stored only some of its paragraphs. At the end every acknowledged write
(a command that said it was done) is looked for: none may be lost.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.reliability_lab import Lab, look, mentions

__all__ = ["KillReport", "run_kills"]

OPS = ("ask", "log", "sleep", "forget", "ingest")
_PARAGRAPHS = 6


@dataclass
class KillReport:
    """What the kills did and what they broke."""

    runs: Counter[str] = field(default_factory=Counter)
    killed: Counter[str] = field(default_factory=Counter)
    acked: Counter[str] = field(default_factory=Counter)
    lost: Counter[str] = field(default_factory=Counter)
    integrity_failures: int = 0
    half_applied: list[str] = field(default_factory=list)
    tracebacks: int = 0
    after: str = ""

    def lines(self) -> list[str]:
        total = sum(self.runs.values())
        killed = sum(self.killed.values())
        per_op = ", ".join(
            f"{op} {self.runs[op]} ({self.killed[op]} killed, {self.acked[op]} acknowledged,"
            f" {self.lost[op]} lost)"
            for op in OPS
            if self.runs[op]
        )
        shown = "; ".join(sorted(set(self.half_applied))[:6]) or "none"
        return [
            f"kill -9 at random moments: {total} runs, {killed} killed mid-run,"
            f" {total - killed} finished first",
            f"  acknowledged writes lost: {sum(self.lost.values())} of {sum(self.acked.values())}",
            f"  integrity_check failures: {self.integrity_failures}",
            f"  half-applied operations: {len(self.half_applied)} ({shown})",
            f"  tracebacks printed: {self.tracebacks}",
            f"  per command: {per_op}",
            f"  afterwards: {self.after}",
        ]


@dataclass
class _Ledger:
    """What the commands acknowledged, to be looked for at the end."""

    events: dict[int, str] = field(default_factory=dict)
    asks: list[str] = field(default_factory=list)
    ingests: list[str] = field(default_factory=list)  # a word in every acknowledged file
    forgets: list[str] = field(default_factory=list)
    sessions_for_sleep: list[int] = field(default_factory=list)


class _Trials:
    def __init__(self, lab: Lab, rng: random.Random) -> None:
        self.lab = lab
        self.rng = rng
        self.ledger = _Ledger()
        self.report = KillReport()
        self.usual: dict[str, float] = {}

    # -- the commands, each with what to do before and how to read its output ----------

    def trial(self, op: str, kill: bool) -> None:
        args, check = getattr(self, f"_{op}")()
        delay = self.rng.uniform(0.05, 1.1) * self.usual[op] if kill else None
        run = self.lab.run(*args, kill_after=delay)
        if not kill:
            self.usual[op] = run.seconds
        self.report.runs[op] += 1
        self.report.killed[op] += run.killed
        self.report.tracebacks += run.traceback and not run.killed
        acked = check(run)
        self.report.acked[op] += acked
        self._look(op)

    def _look(self, op: str) -> None:
        found = look(self.lab.db_path)
        if not found.intact:
            self.report.integrity_failures += 1
        self.report.half_applied += [f"{what} (after {op})" for what in found.half_applied]

    def _log(self) -> tuple[list[str], Any]:
        text = f"bench event {secrets.token_hex(4)}"

        def check(run: Any) -> bool:
            for line in run.out.splitlines():
                if line.startswith("Logged event "):
                    self.ledger.events[int(line.split()[2])] = text
                    return True
            return False

        return ["log", text], check

    def _ask(self) -> tuple[list[str], Any]:
        text = f"please note {secrets.token_hex(4)}"

        def check(run: Any) -> bool:
            if run.rc == 0 and f"Noted: {text}" in run.out:
                self.ledger.asks.append(text)
                return True
            return False

        return ["ask", text], check

    def _sleep(self) -> tuple[list[str], Any]:
        self.ledger.sessions_for_sleep.append(self._past_conversation())

        def check(run: Any) -> bool:
            return run.rc == 0

        return ["sleep", "--now"], check

    def _forget(self) -> tuple[list[str], Any]:
        word = f"zq{secrets.token_hex(4)}"
        self._mention(word)
        before = mentions(self.lab.db_path, word)

        def check(run: Any) -> bool:
            left = mentions(self.lab.db_path, word)
            if left not in (0, before):
                self.report.half_applied.append(
                    f"forget removed {before - left} of {before} mentions"
                )
            if run.rc == 0:
                self.ledger.forgets.append(word)
                return True
            return False

        return ["memory", "forget", word, "--yes"], check

    def _ingest(self) -> tuple[list[str], Any]:
        folder = self.lab.folder / f"docs-{secrets.token_hex(3)}"
        folder.mkdir()
        words = [f"doc{secrets.token_hex(4)}" for _ in range(3)]
        for word in words:
            (folder / f"{word}.md").write_text(_document(word), encoding="utf-8")

        def check(run: Any) -> bool:
            for word in words:
                stored = mentions(self.lab.db_path, f"{word}p0")
                if stored and any(
                    not mentions(self.lab.db_path, f"{word}p{n}") for n in range(_PARAGRAPHS)
                ):
                    self.report.half_applied.append("a document stored in part")
            if run.rc == 0:
                self.ledger.ingests += words
                return True
            return False

        return ["ingest", str(folder)], check

    # -- material, written in-process while no command runs ---------------------------

    def _engine(self) -> Any:
        from assistant.factory import open_engine

        return open_engine(self.lab.config())

    def _past_conversation(self) -> int:
        """A finished conversation from yesterday, for sleep to consolidate."""
        engine = self._engine()
        try:
            at = datetime.now(UTC) - timedelta(days=1)
            session = engine.memory.messages.create_session(engine.memory.profile.id, started_at=at)
            topic = secrets.token_hex(3)
            for n, (role, text) in enumerate(
                [
                    ("user", f"I started learning topic{topic} this week."),
                    ("assistant", "That sounds fun."),
                    ("user", f"My teacher for topic{topic} is called Ana."),
                    ("assistant", "Good to know."),
                ]
            ):
                engine.memory.messages.add_message(
                    session.id, role, text, created_at=at + timedelta(minutes=n)
                )
            return session.id
        finally:
            engine.close()

    def _mention(self, word: str) -> None:
        """Put ``word`` in a chat, an event and a document."""
        engine = self._engine()
        try:
            session = engine.conversations.new_session()
            engine.memory.messages.add_message(session.id, "user", f"my neighbour {word} is moving")
            engine.memory.messages.add_message(session.id, "assistant", f"Noted about {word}.")
            engine.intake.log_event(f"helped {word} carry boxes")
            note = self.lab.folder / f"note-{word}.md"
            note.write_text(f"# Note\n\n{word} lent me a ladder.\n", encoding="utf-8")
            engine.intake.ingest(note)
        finally:
            engine.close()

    # -- the end -----------------------------------------------------------------------

    def count_lost(self) -> None:
        from assistant.factory import open_engine

        engine = open_engine(self.lab.config())
        try:
            stored = engine.memory.events.get_many(list(self.ledger.events))
            for event_id, text in self.ledger.events.items():
                self.report.lost["log"] += event_id not in stored or stored[event_id].text != text
        finally:
            engine.close()
        path = self.lab.db_path
        for text in self.ledger.asks:
            self.report.lost["ask"] += mentions(path, text.split()[-1]) < 2  # asked + replied
        for word in self.ledger.ingests:
            self.report.lost["ingest"] += not all(
                mentions(path, f"{word}p{n}") for n in range(_PARAGRAPHS)
            )
        for word in self.ledger.forgets:
            self.report.lost["forget"] += mentions(path, word) != 0  # a forget undone
        self._after()

    def _after(self) -> None:
        """A clean `sleep --now` after the kills: it must take over and finish the work."""
        run = self.lab.run("sleep", "--now")
        engine = self._engine()
        try:
            unsummarised = [
                s
                for s in self.ledger.sessions_for_sleep
                if not engine.memory.episodes.for_session(s)
            ]
        finally:
            engine.close()
        self.report.lost["sleep"] += len(unsummarised)
        said = next((line for line in run.err.splitlines() if line.startswith("hippo: ")), "")
        if run.rc != 0 and not said:
            said = " / ".join((run.err.strip() or run.out.strip()).splitlines()[-3:])
        self.report.after = (
            f"a clean `hippo sleep --now` exited {run.rc}{f' ({said[:150]})' if said else ''};"
            f" conversations left unconsolidated: {len(unsummarised)}"
            f" of {len(self.ledger.sessions_for_sleep)}"
        )
        self._look("the clean sleep")


def _document(word: str) -> str:
    paragraphs = [
        f"Paragraph {word}p{n}. " + " ".join(f"line{n}x{k}" for k in range(60))
        for n in range(_PARAGRAPHS)
    ]
    return f"# {word}\n\n" + "\n\n".join(paragraphs) + "\n"


def run_kills(kills: int, seed: int, *, keep: bool = False) -> KillReport:
    """Run ``kills`` killed commands, spread evenly over the five operations."""
    rng = random.Random(seed)
    lab = Lab("kills", keep=keep)
    try:
        trials = _Trials(lab, rng)
        for op in OPS:  # an unkilled run of each: its usual duration, and the file made
            trials.trial(op, kill=False)
        for n in range(kills):
            trials.trial(OPS[n % len(OPS)], kill=True)
        trials.count_lost()
        return trials.report
    finally:
        lab.close()


if __name__ == "__main__":
    for line in run_kills(10, 1, keep=True).lines():
        print(line)
