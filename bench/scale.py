"""Context-assembly latency and file size as the archive grows, no LLM.

Writes N synthetic messages through the engine's write path, gives each a random unit
vector (384-d, as MiniLM's), then times ``Hippo.recall`` with a precomputed query vector.
Prints p50/p95 latency, the data file's size and the process's peak memory.

Usage: python bench/scale.py [--messages 10000 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.clock import ManualClock
from assistant.engine import Hippo
from bench.make_history import make_history

DIM = 384
MODEL = "random-384"


class RandomVectors:
    """An ``llm`` whose ``embed`` returns random unit vectors (seeded)."""

    def __init__(self, seed: int = 7) -> None:
        self._rng = random.Random(seed)

    def embed(self, model: str, texts: Sequence[str], *, batch_size: int = 32) -> list[list[float]]:
        """One random unit vector per text."""
        return [self._unit() for _ in texts]

    def _unit(self) -> list[float]:
        v = [self._rng.gauss(0.0, 1.0) for _ in range(DIM)]
        norm = sum(x * x for x in v) ** 0.5
        return [x / norm for x in v]


def measure(messages: int, queries: int, folder: Path) -> dict[str, float]:
    """Build a file of ``messages`` messages and time ``queries`` recalls over it."""
    path = folder / f"scale-{messages}.db"
    started = time.perf_counter()
    make_history(path, messages, per_session=40)
    llm = RandomVectors()
    engine = Hippo(path, llm, chat_model="none", embedding_model=MODEL, clock=ManualClock())  # type: ignore[arg-type]
    engine.embed_pending(batch_size=512)
    built_s = time.perf_counter() - started
    words = ["sourdough", "Lisbon", "budget", "dentist", "Kyoto", "北京出差", "guitar", "dog"]
    latencies = []
    for i in range(queries):
        text = f"What did we say about {words[i % len(words)]}?"
        (vector,) = llm.embed(MODEL, [text])
        t0 = time.perf_counter()
        engine.recall(text, kinds=("message",), limit=10, query_vector=vector)
        latencies.append((time.perf_counter() - t0) * 1000)
    engine.close()
    cuts = statistics.quantiles(latencies, n=20)
    return {
        "messages": messages,
        "build_s": round(built_s, 1),
        "p50_ms": round(statistics.median(latencies), 2),
        "p95_ms": round(cuts[18], 2),
        "file_mb": round(sum(p.stat().st_size for p in folder.glob(f"{path.name}*")) / 2**20, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args(argv)
    print(f"{'messages':>9} {'build s':>8} {'p50 ms':>7} {'p95 ms':>7} {'file MB':>8}")
    with tempfile.TemporaryDirectory(prefix="hippo-scale-") as tmp:
        for n in args.messages:
            r = measure(n, args.queries, Path(tmp))
            print(
                f"{r['messages']:9} {r['build_s']:8} {r['p50_ms']:7} {r['p95_ms']:7}"
                f" {r['file_mb']:8}",
                flush=True,
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
