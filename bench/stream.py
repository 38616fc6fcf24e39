"""What drawing a streamed reply costs: CPU per 1,000 tokens, lag to the last token, frames/s.

For each case (a reply's shape, its size in KB, the rate in tokens/s), a fake Ollama
(tests.fake_ollama, in its own process, so its work is not counted) streams the reply
in 4-character chunks (one "token" each) at the rate, and a child process runs the app
through Textual's `run_test` with a driver that is headless but still renders every
frame to its terminal output (which it drops), so a frame costs what it costs in a
terminal. The child records when each token arrives (as the engine yields it), each
frame it writes, and the process's CPU time (getrusage: every thread), and reports:

- ``cpu/1k``: CPU seconds per 1,000 tokens, from the first token's arrival to the first
  frame after the reply has settled (its final render included);
- ``core``: that CPU time over that wall time (1.0 is a whole core);
- ``lag_ms``: from the last token's arrival to the first frame that shows it (the
  terminal output contains the reply's last word); ``done_ms``: to the settled frame;
- ``fps``: frames written per second while the reply streamed.

Beside Hippo (``hippo``), in the same run, minimal Textual apps fed the same stream:
``plain`` (one Static, its text replaced at each token: Textual's own frame coalescing
and nothing else) and, with ``--references plain markdown``, ``markdown`` (Textual's
Markdown widget through `MarkdownStream`, Textual's way to stream Markdown; slow).

Usage: python bench/stream.py [--shapes sections] [--sizes 10] [--rates 100 500]
       [--references plain] [--size 100x40]
Shapes: prose, lists, code, tables, sections (the issue's: heading, paragraph, list,
code block), paragraph (one paragraph that never ends).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stream_text import SHAPES, reply_text  # noqa: E402

COLUMNS = ("case", "app", "tokens", "tok/s", "cpu_s", "cpu/1k", "core", "lag_ms", "done_ms", "fps")


def _serve(text: str, rate: float) -> None:
    """Serve one scripted reply at ``rate`` tokens/s until stdin closes (child process)."""
    from tests.fake_ollama import FakeOllama, Reply

    with FakeOllama(port=0) as server:
        server.script(Reply(content=text, chunk_size=4, delay=1 / rate))
        print(server.host, flush=True)
        sys.stdin.read()


def _run_case(kind: str, shape: str, size_kb: int, rate: float, term: str) -> dict[str, float]:
    text = reply_text(shape, size_kb * 1024)
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", shape, str(size_kb), str(rate)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        host = server.stdout.readline().strip()
        child = subprocess.run(
            [sys.executable, "-m", "bench.stream_child", kind, host, term],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
            timeout=60 + 3 * len(text) / 4 / rate,
        )
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(10)
    if child.returncode != 0:
        raise SystemExit(f"{kind} failed:\n{child.stderr[-3000:]}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def _row(case: str, kind: str, r: dict[str, float]) -> str:
    cells = (
        case,
        kind,
        r["tokens"],
        f"{r['rate']:.0f}",
        f"{r['cpu_s']:.2f}",
        f"{r['cpu_per_1k']:.2f}",
        f"{r['core']:.2f}",
        f"{r['lag_ms']:.0f}",
        f"{r['done_ms']:.0f}",
        f"{r['fps']:.1f}",
    )
    return " ".join(
        f"{c:>9}" if i > 1 else f"{c:<22}" if i == 0 else f"{c:<9}" for i, c in enumerate(cells)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=["sections"], choices=sorted(SHAPES))
    parser.add_argument("--sizes", nargs="+", type=int, default=[10], help="KB")
    parser.add_argument("--rates", nargs="+", type=float, default=[100, 500], help="tokens/s")
    parser.add_argument("--references", nargs="*", default=["plain"], choices=["plain", "markdown"])
    parser.add_argument("--size", default="100x40", help="terminal WIDTHxHEIGHT")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        shape, size_kb, rate = args.serve
        _serve(reply_text(shape, int(size_kb) * 1024), float(rate))
        return 0
    print(
        " ".join(
            f"{c:>9}" if i > 1 else f"{c:<22}" if i == 0 else f"{c:<9}"
            for i, c in enumerate(COLUMNS)
        )
    )
    results = []
    for shape in args.shapes:
        for size_kb in args.sizes:
            for rate in args.rates:
                case = f"{shape} {size_kb}KB {rate:.0f}/s"
                for kind in ("hippo", *args.references):
                    r = _run_case(kind, shape, size_kb, rate, args.size)
                    results.append({"case": case, "app": kind, **r})
                    print(_row(case, kind, r), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
