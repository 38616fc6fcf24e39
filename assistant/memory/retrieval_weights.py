"""Retrieval's tunable weights and thresholds (light: config.toml's ``[retrieval]`` is read
at every start, before the ranking code in ``assistant.memory.scoring`` is needed)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RetrievalWeights"]


@dataclass(frozen=True, slots=True)
class RetrievalWeights:
    """Tunable weights and thresholds of retrieval (config: ``[retrieval]``)."""

    relevance: float = 1.0
    recency: float = 0.0
    importance: float = 0.3
    keyword: float = 0.5
    vector: float = 0.5
    decay_per_hour: float = 0.99
    # Nothing is recalled for a query unless its best memory reaches this; the others
    # need this share of the best one's relevance.
    min_relevance: float = 0.15
    tail_relevance: float = 0.0
    # Cosine similarities at or below this are treated as no similarity at all.
    vector_floor: float = 0.2
    duplicate_overlap: float = 0.8
    candidates: int = 50
    # Added to the score of a memory said by someone the query names.
    speaker: float = 0.1
    # Share of the best neighbour's relevance a memory receives (the turns around it).
    neighbour: float = 0.1
    # What a query term found only in a message's neighbours counts for in coverage.
    context_coverage: float = 0.3
    # Share of the best relevance in a memory's session that the memory receives.
    session: float = 0.2
    # For a question about the present: added in proportion to how new a memory is
    # among the candidates (the newest gets all of it).
    present: float = 0.1
