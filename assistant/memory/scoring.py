"""How a candidate memory is scored: relevance (keyword + vector), recency, importance.

Generative Agents scores a memory by recency (0.99 per hour since it was last used or
made), importance (1-10) and relevance; Hippo's relevance is itself a fusion of BM25
keyword evidence and vector similarity, and anything below a relevance floor is
dropped, so that nothing is injected when nothing is relevant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from assistant.memory.textindex import query_terms

__all__ = ["RetrievalWeights", "coverage", "recency", "relevance", "similar", "terms"]

_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")


@dataclass(frozen=True, slots=True)
class RetrievalWeights:
    """Tunable weights and thresholds of retrieval (config: ``[retrieval]``)."""

    relevance: float = 1.0
    recency: float = 0.3
    importance: float = 0.3
    keyword: float = 0.6
    vector: float = 0.4
    decay_per_hour: float = 0.99
    min_relevance: float = 0.25
    # Cosine similarities at or below this are treated as no similarity at all.
    vector_floor: float = 0.2
    duplicate_overlap: float = 0.8
    candidates: int = 50


def terms(text: str) -> frozenset[str]:
    """A text's content terms, crudely stemmed, for overlap measures."""
    return frozenset(_SUFFIX.sub("", t) if t.isascii() and len(t) > 4 else t
                     for t in query_terms(text))


def coverage(query: frozenset[str], text: frozenset[str]) -> float:
    """Share of the query's terms that the text contains."""
    return len(query & text) / len(query) if query else 0.0


def recency(moment: datetime, now: datetime, decay_per_hour: float) -> float:
    """``decay_per_hour`` to the power of the hours since ``moment`` (1.0 for the future)."""
    hours = max((now - moment).total_seconds() / 3600.0, 0.0)
    return decay_per_hour**hours


def relevance(keyword: float, vector: float | None, weights: RetrievalWeights) -> float:
    """Fuse a keyword score in [0, 1] with a cosine similarity (None: no vector search ran)."""
    if vector is None:
        return keyword
    span = 1.0 - weights.vector_floor
    scaled = min(max((vector - weights.vector_floor) / span, 0.0), 1.0)
    return weights.keyword * keyword + weights.vector * scaled


def similar(a: frozenset[str], b: frozenset[str], overlap: float) -> bool:
    """Whether two term sets are near-duplicates (Jaccard overlap at least ``overlap``)."""
    if not a or not b:
        return False
    return len(a & b) / len(a | b) >= overlap
