"""Random unit vectors for vector-index tests, clustered as embeddings of topics are."""

from __future__ import annotations

import random

__all__ = ["clustered", "unit"]


def unit(rng: random.Random, dim: int) -> list[float]:
    """A random direction in ``dim`` dimensions, of length 1."""
    v = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    norm = sum(x * x for x in v) ** 0.5
    return [x / norm for x in v]


def clustered(
    rng: random.Random, n: int, dim: int, *, centres: int, spread: float
) -> list[list[float]]:
    """``n`` unit vectors around ``centres`` random directions, each pushed ``spread`` off
    its centre in a random direction."""
    directions = [unit(rng, dim) for _ in range(centres)]
    rows = []
    for i in range(n):
        noise = unit(rng, dim)
        v = [c + spread * x for c, x in zip(directions[i % centres], noise, strict=True)]
        norm = sum(x * x for x in v) ** 0.5
        rows.append([x / norm for x in v])
    return rows
