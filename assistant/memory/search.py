"""Ranking search hits by keyword and meaning, as recall fuses them, with each score kept.

`hippo message search`, the archive tab and fact search rank with the same fusion as recall
(`scoring.relevance`) and the same configured weights (``[retrieval]`` in config.toml):
one ranker, so a changed weight moves both. Search leaves out what only recall needs
(recency, importance, the priors): it ranks by how well an item matches.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from assistant.memory.scoring import RetrievalWeights, relevance

__all__ = ["fuse_hits"]

# (id, fused score, keyword score in [0, 1], cosine similarity or None)
FusedHit = tuple[int, float, float, float | None]


def fuse_hits(
    keyword: Sequence[tuple[int, float]],
    vector: Sequence[tuple[int, float]],
    weights: RetrievalWeights,
    trust: float = 1.0,
    gap: float | None = None,
) -> list[FusedHit]:
    """Merge (id, bm25) and (id, cosine) lists into (id, fused, keyword, vector), best first.

    BM25 is scaled by the best BM25 in the list, so the top keyword hit scores 1; the
    similarity counts as recall counts it: above the query's background (the median of
    its nearest), in units of the model's paraphrase ``gap``, weighted by ``weights``.
    When no vector list was made, the keyword score alone ranks.

    ``trust`` is how far the embedding model reads the query's script (see ``reading``):
    the vector weight it does not earn goes to the keyword score, and a model trusted
    not at all brings no hit of its own (its similarities are still reported).
    """
    best = max((score for _, score in keyword), default=0.0)
    kw = {mid: (score / best if best > 0 else 0.0) for mid, score in keyword}
    if not vector:
        return [(mid, score, score, None) for mid, score in kw.items()]
    vec = {mid: max(sim, 0.0) for mid, sim in vector}
    background = statistics.median(vec.values())
    fused: list[FusedHit] = []
    for mid in kw.keys() | vec.keys() if trust > 0 else kw.keys():
        k, v = kw.get(mid, 0.0), vec.get(mid)
        score = relevance(k, v or 0.0, weights, background, trust, gap)
        fused.append((mid, score, k, v))
    # Ties (hits below the background score no similarity) go to the nearer in meaning.
    fused.sort(key=lambda hit: (-hit[1], -(hit[3] or 0.0), -hit[0]))
    return fused
