"""One retrieval call over every memory tier: candidates, fusion, scoring, de-duplication.

Each tier (messages, episodes, facts, chunks, events) offers keyword candidates and
loads its eligible rows as ``Memory`` values; vector candidates come from sqlite-vec.
Every hit carries its score breakdown, so the UI can show why it was recalled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol

from assistant.memory.scoring import RetrievalWeights, coverage, recency, relevance, similar, terms
from assistant.memory.vectors import EmbeddingModel, VectorStore

__all__ = ["Memory", "Query", "Retriever", "Tier"]


@dataclass(frozen=True, slots=True)
class Memory:
    """A remembered item, as retrieval hands it to the context and the UI.

    ``at`` is when it was said or learned (what recency decays from, unless it was
    used since: ``last_used``); ``source`` says where it came from in words.
    """

    kind: str
    item_id: int
    text: str
    at: datetime
    source: str
    importance: float = 5.0
    last_used: datetime | None = None
    session_id: int | None = None
    source_id: str = ""
    keyword: float = 0.0
    vector: float | None = None
    relevance: float = 0.0
    recency: float = 0.0
    score: float = 0.0

    @property
    def key(self) -> tuple[str, int]:
        """(kind, id): unique across tiers."""
        return (self.kind, self.item_id)


@dataclass(frozen=True, slots=True)
class Query:
    """What to retrieve for, and under which limits."""

    text: str
    profile_id: int
    now: datetime
    limit: int = 10
    kinds: tuple[str, ...] = ("fact", "episode", "message", "chunk", "event")
    scopes: tuple[str, ...] | None = None
    as_of: datetime | None = None
    exclude: frozenset[tuple[str, int]] = field(default_factory=frozenset)
    vector: Sequence[float] | None = None


class Tier(Protocol):
    """A memory tier as retrieval sees it."""

    kind: str

    def keyword(self, query: Query, limit: int) -> list[tuple[int, float]]:
        """(id, positive BM25) candidates for the query, best first."""
        ...

    def load(self, ids: Sequence[int], query: Query) -> dict[int, Memory]:
        """The eligible items among ``ids`` (in profile, in scope, not expired...)."""
        ...


class Retriever:
    """Runs a query over the tiers and returns scored, de-duplicated memories.

    Args:
        tiers: the tiers to search, by kind.
        vectors: the vector store.
        model: returns the embedding model whose vectors to search (None: keywords only).
        weights: retrieval weights and thresholds.
    """

    def __init__(
        self,
        tiers: Iterable[Tier],
        vectors: VectorStore,
        model: Callable[[], EmbeddingModel | None],
        weights: RetrievalWeights | None = None,
    ) -> None:
        self.tiers = {tier.kind: tier for tier in tiers}
        self._vectors = vectors
        self._model = model
        self.weights = weights or RetrievalWeights()

    def retrieve(self, query: Query) -> list[Memory]:
        """The best memories for ``query``, best first, at most ``query.limit``."""
        query_terms = terms(query.text)
        scored: list[Memory] = []
        for kind in query.kinds:
            tier = self.tiers.get(kind)
            if tier is not None:
                scored.extend(self._score_tier(tier, query, query_terms))
        scored.sort(key=lambda m: (-m.score, -m.at.timestamp()))
        return self._deduplicate(scored, query.limit)

    def _candidates(self, tier: Tier, query: Query) -> tuple[dict[int, float], dict[int, float]]:
        n = self.weights.candidates
        keyword = dict(tier.keyword(query, n))
        vector: dict[int, float] = {}
        model = self._model() if query.vector is not None else None
        if model is not None and query.vector is not None:
            vector = dict(self._vectors.nearest(model, tier.kind, query.profile_id,
                                                query.vector, n))
        return keyword, vector

    def _score_tier(self, tier: Tier, query: Query, query_terms: frozenset[str]) -> list[Memory]:
        keyword, vector = self._candidates(tier, query)
        ids = [i for i in keyword.keys() | vector.keys() if (tier.kind, i) not in query.exclude]
        if not ids:
            return []
        best = max(keyword.values(), default=0.0)
        searched_vectors = query.vector is not None and self._model() is not None
        w = self.weights
        out = []
        for item_id, memory in tier.load(ids, query).items():
            # BM25 is relative to this query; coverage makes it absolute (a hit on one
            # minor word of a long question stays weak).
            bm25 = keyword.get(item_id, 0.0) / best if best > 0 else 0.0
            kw = bm25 * coverage(query_terms, terms(memory.text)) ** 0.5
            vec = vector.get(item_id) if searched_vectors else None
            if searched_vectors and vec is None:
                vec = 0.0
            rel = relevance(kw, vec, w)
            if rel < w.min_relevance:
                continue
            rec = recency(memory.last_used or memory.at, query.now, w.decay_per_hour)
            score = w.relevance * rel + w.recency * rec + w.importance * memory.importance / 10
            out.append(replace(memory, keyword=kw, vector=vec, relevance=rel, recency=rec,
                               score=score))
        return out

    def _deduplicate(self, ranked: list[Memory], limit: int) -> list[Memory]:
        kept: list[Memory] = []
        kept_terms: list[frozenset[str]] = []
        for memory in ranked:
            t = terms(memory.text)
            if any(similar(t, other, self.weights.duplicate_overlap) for other in kept_terms):
                continue
            kept.append(memory)
            kept_terms.append(t)
            if len(kept) == limit:
                break
        return kept
