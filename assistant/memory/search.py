"""Fusing keyword and vector candidates into one ranked list, with each score kept."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["KEYWORD_WEIGHT", "VECTOR_WEIGHT", "fuse_hits"]

# Score-level fusion weighted towards keywords: plain 1:1 rank fusion let the weaker
# vector list push good keyword hits out (measured on LoCoMo, see DESIGN.md).
KEYWORD_WEIGHT = 0.6
VECTOR_WEIGHT = 0.4


def fuse_hits(
    keyword: Sequence[tuple[int, float]],
    vector: Sequence[tuple[int, float]],
    trust: float = 1.0,
) -> list[tuple[int, float, float, float | None]]:
    """Merge (id, bm25) and (id, cosine) lists into (id, fused, keyword, vector), best first.

    BM25 is scaled by the best BM25 in the list, so the top keyword hit scores 1; cosine
    similarity is kept as it is (clipped at 0), so a weak vector match stays weak.
    When no vector list was made, the keyword score alone ranks.

    ``trust`` is how far the embedding model reads the query's script (see ``reading``):
    the vector weight it does not earn goes to the keyword score, and a model trusted
    not at all brings no hit of its own (its similarities are still reported).
    """
    best = max((score for _, score in keyword), default=0.0)
    kw = {mid: (score / best if best > 0 else 0.0) for mid, score in keyword}
    vec = {mid: max(sim, 0.0) for mid, sim in vector}
    if not vector:
        return [(mid, score, score, None) for mid, score in kw.items()]
    earned = VECTOR_WEIGHT * trust
    kept = KEYWORD_WEIGHT + VECTOR_WEIGHT - earned
    fused = []
    for mid in kw.keys() | vec.keys() if trust > 0 else kw.keys():
        k, v = kw.get(mid, 0.0), vec.get(mid)
        fused.append((mid, kept * k + earned * (v or 0.0), k, v))
    fused.sort(key=lambda hit: (-hit[1], -hit[0]))
    return fused
