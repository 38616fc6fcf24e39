"""Hippo's reliability, in figures: crashes, concurrent writers, Ollama faults, injection.

Runs the real `hippo` command as child processes against the project's fake Ollama
(tests/fake_ollama, in this process), each part in its own temporary data folder:

1. kill -9 at random moments during `ask`, `log`, `sleep --now`, `memory forget` and
   `ingest` (--kills, 200): acknowledged writes lost, integrity_check failures,
   half-applied operations.
2. four writers for --seconds (120): two `hippo log` loops, an `ask` loop and
   `sleep --now`: "database is locked" errors, lost writes, `hippo log` p50/p95 alone and
   under that load.
3. each Ollama fault (500, junk JSON, closed mid-stream, stall, never answering, an
   embedding dimension that changes, bad tool arguments): outcome, time to a clear message.
4. injection: bench/injection.py's figures, where that bench exists.
5. the data file in trouble (bench/reliability_integrity.py): damaged (a byte flipped,
   then doctor, writes, restore), a disk another program filled, read-only media (a
   small tmpfs, full or remounted read-only, where mounting is allowed), a key file
   open to others: one line each, acknowledged writes lost and what Hippo said.
6. one huge message (--huge-mb, 50), then a short `ask` (bench/huge_message.py): each
   `ask`'s time, CPU and peak memory, the longest text embedded, the largest prompt.
7. a burst (bench/reliability_burst.py): 3,000 events imported at once, half important,
   expired, one sleep: how many review items, and how many important events they cite.

Targets: 0 lost, 0 integrity failures, 0 half-applied, 0 lock errors, every fault ends
with a clear message within its timeout, 0 injected claims trusted without approval,
every trouble with the file named for what it is, the `ask` after a 50 MB message within
1 s of Hippo's own time and 200 MB.

Usage: python bench/reliability.py [--kills 200] [--seconds 120] [--fault-cap 60]
       [--only kills,load,faults,injection,integrity,huge,burst] [--huge-mb 50] [--seed 1]
       [--keep]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.huge_message import run_huge_message  # noqa: E402
from bench.reliability_burst import run_burst  # noqa: E402
from bench.reliability_faults import run_faults  # noqa: E402
from bench.reliability_integrity import run_integrity  # noqa: E402
from bench.reliability_kills import run_kills  # noqa: E402
from bench.reliability_load import run_load  # noqa: E402

PARTS = ("kills", "load", "faults", "injection", "integrity", "huge", "burst")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200, help="killed runs in all (200)")
    parser.add_argument("--seconds", type=float, default=120, help="four writers for (120 s)")
    parser.add_argument("--log-runs", type=int, default=20, help="`hippo log` timed alone (20)")
    parser.add_argument(
        "--fault-cap", type=float, default=60, help="kill a command still waiting after (60 s)"
    )
    parser.add_argument("--only", default=",".join(PARTS), help="parts to run, comma-separated")
    parser.add_argument("--huge-mb", type=float, default=50, help="the huge message's size (50)")
    parser.add_argument("--seed", type=int, default=1, help="for the kill moments (1)")
    parser.add_argument("--keep", action="store_true", help="keep the data folders")
    return parser


def _injection() -> list[str]:
    """bench/injection.py's own figures, if that bench exists in this checkout."""
    script = ROOT / "bench" / "injection.py"
    if not script.exists():
        return ["injection: not available (no bench/injection.py in this checkout)"]
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    lines = [f"  {line}" for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0:
        lines.append(f"  (bench/injection.py exited {done.returncode}: {done.stderr[-300:]})")
    return ["injection (bench/injection.py, the fooled model through each channel):", *lines]


def _machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, load {load:.1f},"
        f" Python {platform.python_version()}"
    )


def main(argv: list[str] | None = None) -> None:
    """Run the chosen parts and print their figures."""
    args = _parser().parse_args(argv)
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    print(f"Hippo reliability ({_machine()})")
    started = time.perf_counter()
    if "kills" in parts:
        for line in run_kills(args.kills, args.seed, keep=args.keep).lines():
            print(line, flush=True)
    if "load" in parts:
        for line in run_load(args.seconds, args.log_runs, keep=args.keep).lines():
            print(line, flush=True)
    if "faults" in parts:
        outcomes, note = run_faults(args.fault_cap, keep=args.keep)
        print(f"Ollama faults, each against `hippo ask` ({note}):")
        for outcome in outcomes:
            print(outcome.line(), flush=True)
    if "injection" in parts:
        for line in _injection():
            print(line, flush=True)
    if "integrity" in parts:
        print("The data file in trouble, each against the `hippo` command:")
        for outcome in run_integrity(keep=args.keep):
            print(outcome.line(), flush=True)
    if "huge" in parts:
        for line in run_huge_message(args.huge_mb, keep=args.keep):
            print(line, flush=True)
    if "burst" in parts:
        print("A burst of events from outside, against the `hippo` command:")
        print(run_burst(keep=args.keep).line(), flush=True)
    print(f"({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
