"""How long SQLite's quick check (run at every open of the app, `ask` and sleep) takes.

Usage: python bench/integrity.py [--messages 100000] [PATH]
Prints the file size and the time of ``PRAGMA quick_check`` and, for comparison, of the
full ``PRAGMA integrity_check``, on a file of N realistic messages (written first when no
PATH is given).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.integrity import file_problems
from bench.make_history import make_history
from data_schema.connect import connect


def _timed(conn, pragma: str) -> float:
    started = time.perf_counter()
    rows = list(conn.execute(pragma))
    assert rows == [("ok",)], rows
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", nargs="?", type=Path)
    parser.add_argument("--messages", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = args.path or Path(folder) / "hippo.db"
        if args.path is None:
            make_history(path, args.messages, 40)
        conn = connect(path)
        try:
            assert file_problems(conn) == []  # warms the page cache like a second open would
            quick = _timed(conn, "PRAGMA quick_check")
            full = _timed(conn, "PRAGMA integrity_check")
        finally:
            conn.close()
        size = path.stat().st_size / 1e6
        print(f"file {size:.1f} MB: quick_check {quick * 1000:.0f} ms, "
              f"integrity_check {full * 1000:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
