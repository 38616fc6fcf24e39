"""Time from launching `hippo` to its first usable frame, with an empty and a 100k-message file.

Runs the real console command in tmux through ../shared/tools/tui_first_frame.sh (the way
start-up is judged), against the project's fake Ollama started as a separate process.
Prints one line per case: first_frame_ms median/min/max over the runs. The first case is
a bare Textual app of the same shape (bench/bare_app.py), the floor to compare with; the
last times the 100k start until the resumed history is drawn too (it follows the first
frame: the data file is opened after it). Then, per case, the first frame against the bare
app's (target: at most 1.2x) and the time from the first frame to the status line showing
whether Ollama is up (target: at most 1 s), each marked ok or MISSED.

The data file is encrypted, as Hippo keeps it (a fixed bench key in HIPPO_DB_KEY; the
cached history file stays plaintext and an encrypted copy is made). ``--encryption`` also
runs each Hippo case with encryption off (bench/hippo_as.py, the same start-up path for
both) and prints how the encrypted start compares.

Usage: python bench/startup.py [--runs 7] [--messages 100000] [--tool PATH] [--encryption]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.make_history import make_history  # noqa: E402
from data_schema.cipher import DataKey, NoEncryption, copy_into  # noqa: E402
from data_schema.connect import connect  # noqa: E402
from data_schema.migrations import apply_migrations  # noqa: E402

# The chat input's placeholder: on screen only once the chat can take a message.
READY = "Message Hippo"
# A message's header in the conversation (its left border, then who wrote it).
HISTORY = "▌ (You|Hippo)"
# The status line once it knows Ollama's state (it says "checking" before).
OLLAMA_KNOWN = "Ollama [^ ]+ (up|down)"
# The targets of issue 14: a first frame at most this many times a bare Textual app's,
# and Ollama's state on the status line at most this long after the first frame.
FRAME_RATIO_TARGET = 1.2
STATUS_AFTER_TARGET_MS = 1000.0
CACHE = ROOT / "bench" / "out"
BENCH_KEY = "b3" * 32


def _default_tool() -> Path:
    """The timing script beside the repository (a worktree's is one folder further up)."""
    tail = Path("shared", "tools", "tui_first_frame.sh")
    found = (folder / tail for folder in (ROOT.parent, ROOT.parent.parent))
    return next((path for path in found if path.exists()), ROOT.parent / tail)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _hippo() -> str:
    found = Path(sys.executable).with_name("hippo")
    return str(found) if found.exists() else shutil.which("hippo") or "hippo"


def _history_file(messages: int) -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"history-{messages}.db"
    if not path.exists():
        started = time.perf_counter()
        make_history(path, messages, per_session=40)
        print(f"(generated {messages} messages in {time.perf_counter() - started:.1f} s)")
    # A file made by an older version is upgraded once, here, and the upgrade timed on
    # its own: otherwise every run would start the upgrade after its first frame, be
    # stopped (rolling it back) and compete with the next run's first frame.
    started = time.perf_counter()
    conn = connect(path, migrate=False, keys=NoEncryption())
    try:
        if upgraded := apply_migrations(conn):
            took = time.perf_counter() - started
            print(f"(upgraded the cached file once: {', '.join(upgraded)} in {took:.1f} s)")
    finally:
        conn.close()
    return path


def _measure(tool: Path, runs: int, data_dir: Path, host: str, app: list[str], pattern: str) -> str:
    env = dict(
        os.environ,
        HIPPO_DATA_DIR=str(data_dir),
        HIPPO_CONFIG_DIR=str(data_dir / "cfg"),
        OLLAMA_HOST=host,
        HIPPO_DB_KEY=BENCH_KEY,
        TFF_LINGER_S="0.3",
    )
    command = [str(tool), str(runs), pattern, "--", *app]
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return f"FAILED: {result.stderr.strip()[-600:]}"
    return result.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--tool", type=Path, default=_default_tool())
    parser.add_argument(
        "--encryption", action="store_true", help="also start with encryption off, and compare"
    )
    args = parser.parse_args()
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_ollama", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    host = f"http://127.0.0.1:{port}"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            history = _history_file(args.messages)
            bare = [sys.executable, str(ROOT / "bench" / "bare_app.py")]
            _measure(args.tool, 1, Path(tmp, "bare"), host, bare, READY)  # warm the OS caches
            result = _measure(args.tool, args.runs, Path(tmp, "bare"), host, bare, READY)
            print(f"{'bare Textual app (reference)':<52} {result}")
            modes = ("encrypted", "plain") if args.encryption else ("encrypted",)
            figures = {mode: _cases(args, Path(tmp, mode), history, host, mode) for mode in modes}
            _targets(result, figures["encrypted"])
            if args.encryption:
                for label, encrypted in figures["encrypted"].items():
                    ratio = _ratio(encrypted, figures["plain"][label])
                    print(f"{label + ': encrypted/plain':<52} {ratio}")
    finally:
        server.terminate()
        server.wait(5)


def _cases(
    args: argparse.Namespace, folder: Path, history: Path, host: str, mode: str
) -> dict[str, str]:
    """Time the Hippo cases with the data file ``mode`` (encrypted or plain)."""
    empty, full = folder / "empty", folder / "full"
    full.mkdir(parents=True)
    _copy(history, full / "hippo.db", encrypted=mode == "encrypted")
    hippo = [sys.executable, str(ROOT / "bench" / "hippo_as.py"), mode]
    if not args.encryption:
        hippo = [_hippo()]  # the installed command, as users start it
    resumed = f"{args.messages} messages, --continue"
    results = {}
    for label, data_dir, app, pattern in (
        ("empty file", empty, hippo, READY),
        ("empty file, Ollama's state shown", empty, hippo, OLLAMA_KNOWN),
        (resumed, full, [*hippo, "--continue"], READY),
        (f"{resumed}, Ollama's state shown", full, [*hippo, "--continue"], OLLAMA_KNOWN),
        (f"{resumed}, history shown", full, [*hippo, "--continue"], HISTORY),
    ):
        _measure(args.tool, 1, data_dir, host, app, pattern)  # warm the OS caches
        results[label] = _measure(args.tool, args.runs, data_dir, host, app, pattern)
        print(f"{label + f' ({mode})':<52} {results[label]}", flush=True)
    return results


def _copy(source: Path, target: Path, *, encrypted: bool) -> None:
    """A compacted copy of ``source``, encrypted with the bench key or not."""
    import apsw

    conn = apsw.Connection(str(source), flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_URI)
    try:
        key = DataKey(bytes.fromhex(BENCH_KEY), "bench") if encrypted else None
        copy_into(conn, target, key=key)
    finally:
        conn.close()


def _median(line: str) -> float | None:
    """The median of a "first_frame_ms median=..." line (None if the run failed)."""
    import re

    found = re.search(r"median[=: ]+([0-9.]+)", line)
    return float(found.group(1)) if found else None


def _ratio(encrypted: str, plain: str) -> str:
    """The ratio of two "first_frame_ms median=..." lines' medians."""
    a, b = _median(encrypted), _median(plain)
    if a is None or b is None:
        return "n/a"
    return f"{a / b:.3f}x ({a:.0f} vs {b:.0f} ms)"


def _targets(bare: str, results: dict[str, str]) -> None:
    """Print each case against the targets: frame ratio to bare, status after first frame."""
    floor = _median(bare)
    for label, line in results.items():
        if label.endswith(("Ollama's state shown", "history shown")):
            continue
        frame = _median(line)
        if frame is not None and floor:
            ratio = frame / floor
            mark = "ok" if ratio <= FRAME_RATIO_TARGET else "MISSED"
            print(f"{label + ': first frame / bare':<52} {ratio:.2f}x "
                  f"(target <= {FRAME_RATIO_TARGET}x) {mark}")  # fmt: skip
        status = _median(results.get(f"{label}, Ollama's state shown", ""))
        if frame is not None and status is not None:
            after = status - frame
            mark = "ok" if after <= STATUS_AFTER_TARGET_MS else "MISSED"
            print(f"{label + ': Ollama state after first frame':<52} {after:.0f} ms "
                  f"(target <= {STATUS_AFTER_TARGET_MS:.0f} ms) {mark}")  # fmt: skip


if __name__ == "__main__":
    main()
