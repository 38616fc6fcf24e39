"""One huge message, then a short question: what each `hippo ask` costs.

Runs the real `hippo` command as child processes against the project's fake Ollama (in
this process): `hippo ask - < FILE` with a message of --mb MB (prose with a rare word in
its middle), the background embedding it asks for, then `hippo ask "..."` with a short
question that shares that word and a common one with it, and a short `ask` before the
huge message for comparison. Each line gives the command's wall time, its own CPU time
(Hippo's time: the fake Ollama runs in this process, not the child's) and its peak
resident memory, and for the huge message how many texts went to the embedder and the
longest, and the largest prompt sent to the chat model.

Targets (issue 26): after a 50 MB message the next `ask` takes at most 1 s of Hippo's own
time and 200 MB peak memory; no embed input and no prompt larger than the model reads.

Usage: python bench/huge_message.py [--mb 50] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.reliability_lab import Lab, _connect, look  # noqa: E402
from tests.fake_ollama import Reply  # noqa: E402

__all__ = ["AskCost", "run_huge_message"]

RARE = "quokkaburrow"
_SENTENCES = (
    "The committee reviewed the harbour budget and the plans for the northern pier.",
    "Rain kept the market quiet, so the bakers sold their bread at half price by noon.",
    "A long letter from the museum described the restoration of the old clock tower.",
    "Engineers measured the bridge again and found the cables in good condition.",
)


@dataclass
class AskCost:
    """What one `hippo ask` cost: its wall and CPU time, and its peak resident memory."""

    label: str
    rc: int
    wall_s: float
    cpu_s: float
    peak_mb: float
    err: str

    def line(self) -> str:
        ok = "ok" if self.rc == 0 else f"exit {self.rc}: {self.err.strip()[-200:]}"
        return (
            f"  {self.label}: {self.wall_s:.2f} s wall, {self.cpu_s:.2f} s CPU,"
            f" {self.peak_mb:.0f} MB peak ({ok})"
        )


def huge_text(megabytes: float) -> str:
    """About ``megabytes`` MB of numbered lines of prose, with ``RARE`` said once in the middle.

    Each line differs (its number, and words drawn by it), as the lines of a log or a
    long document do: no cache of line-by-line work can serve one line for another.
    """
    rows: list[str] = []
    size, target, n = 0, int(megabytes * 1_000_000), 0
    middle_at = target // 2
    while size < target:
        sentence = _SENTENCES[n % len(_SENTENCES)]
        line = f"{n}. {sentence} Item w{n * 7919 % 100_003} and w{n * 104_729 % 99_991}.\n"
        if size < middle_at <= size + len(line):
            line += f"The ferry to {RARE} island leaves from the northern pier at seven.\n"
        rows.append(line)
        size += len(line)
        n += 1
    return "".join(rows)


# Runs `hippo` as its console script does, and writes its peak resident memory (VmHWM)
# at exit. Not wait4's ru_maxrss: posix_spawn's child shares the bench's memory until
# it execs, and Linux counts the bench's peak (the message, the fake's records) as its.
_WRAPPED = """
import atexit, os, sys
def _peak():
    with open("/proc/self/status") as status:
        kib = next(line.split()[1] for line in status if line.startswith("VmHWM"))
    with open(os.environ["HIPPO_BENCH_PEAK"], "w") as out:
        out.write(kib)
atexit.register(_peak)
sys.argv[0] = "hippo"
from assistant.cli import main
sys.exit(main())
"""


def _ask(lab: Lab, label: str, args: list[str], stdin: Path | None = None) -> AskCost:
    """Run `hippo ARGS` with stdin from a file; its CPU time by wait4, its peak by itself."""
    peak = lab.folder / "peak.txt"
    command = [sys.executable, "-c", _WRAPPED]
    with (
        open(stdin or os.devnull, "rb") as source,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
    ):
        started = time.perf_counter()
        pid = os.posix_spawn(
            command[0],
            [*command, *args],
            {**lab.env, "HIPPO_BENCH_PEAK": str(peak)},
            file_actions=[
                (os.POSIX_SPAWN_DUP2, source.fileno(), 0),
                (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
            ],
        )
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - started
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    rc = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    kib = int(peak.read_text()) if peak.exists() else 0
    peak.unlink(missing_ok=True)
    return AskCost(label, rc, wall, cpu, kib / 1024, text)


def _embed_inputs(lab: Lab, since: int) -> list[int]:
    """The length of each text sent to /api/embed since request ``since``."""
    lengths = []
    for request in lab.ollama.requests[since:]:
        if request.path == "/api/embed" and request.body:
            texts = request.body.get("input")
            texts = [texts] if isinstance(texts, str) else texts or []
            lengths += [len(t) for t in texts]
    return lengths


def _largest_prompt(lab: Lab, since: int) -> int:
    """The largest chat request since request ``since``, in characters of message text."""
    sizes = [
        sum(len(str(m.get("content", ""))) for m in request.body.get("messages", []))
        for request in lab.ollama.requests[since:]
        if request.path == "/api/chat" and request.body
    ]
    return max(sizes, default=0)


def run_huge_message(megabytes: float, *, keep: bool = False) -> list[str]:
    """Run the case; return its lines."""
    lab = Lab("huge", keep=keep)
    lines = [f"one {megabytes:g} MB message, then a short ask (issue 26 §4):"]
    try:
        lab.ollama.reply_delay = 0.0
        lab.ollama.script(*(Reply(content="Noted.") for _ in range(3)))
        message = lab.folder / "huge.txt"
        message.write_text(huge_text(megabytes), encoding="utf-8")
        costs = [_ask(lab, "short ask, before", ["ask", "Where does the ferry leave from?"])]
        mark = len(lab.ollama.requests)
        costs.append(_ask(lab, f"ask - < {megabytes:g} MB", ["ask", "-"], message))
        embeds = _embed_inputs(lab, mark)
        prompt = _largest_prompt(lab, mark)
        mark = len(lab.ollama.requests)
        question = f"What did the committee say about the ferry to {RARE}?"
        costs.append(_ask(lab, "short ask, after", ["ask", question]))
        found = _recalled(lab, mark)
        lines += [cost.line() for cost in costs]
        lines.append(
            f"  the huge message: {len(embeds)} texts embedded, longest"
            f" {max(embeds, default=0):,} characters; largest prompt {prompt:,} characters"
        )
        lines.append(f"  the next ask's prompt quotes the rare word's passage: {found}")
        lines.append(_kept(lab, len(message.read_text(encoding="utf-8"))))
    finally:
        lab.close()
    return lines


def _kept(lab: Lab, size: int) -> str:
    """Whether the message was kept whole, and what an independent look at the file finds."""
    conn = _connect(lab.db_path)
    try:
        longest = conn.execute("SELECT max(length(content)) FROM messages").fetchone()[0]
    finally:
        conn.close()
    found = look(lab.db_path)
    half = ", ".join(found.half_applied) or "none half-applied"
    whole = "kept whole" if longest == size else f"NOT kept whole ({longest:,} of {size:,})"
    return f"  the message {whole}; integrity {found.integrity}; {half}"


def _recalled(lab: Lab, since: int) -> bool:
    """Whether the chat request since ``since`` carries the passage with ``RARE``."""
    for request in lab.ollama.requests[since:]:
        if request.path == "/api/chat" and request.body:
            system = json.dumps(request.body.get("messages", [])[:1])
            if f"ferry to {RARE} island" in system:
                return True
    return False


def main(argv: list[str] | None = None) -> None:
    """Run the case and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="the message's size (50 MB)")
    parser.add_argument("--keep", action="store_true", help="keep the data folder")
    args = parser.parse_args(argv)
    for line in run_huge_message(args.mb, keep=args.keep):
        print(line, flush=True)


if __name__ == "__main__":
    main()
