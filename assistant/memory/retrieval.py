"""One retrieval call over every memory tier: candidates, fusion, scoring, de-duplication.

Each tier (messages, episodes, facts, chunks, events) offers keyword candidates and
loads its eligible rows as ``MemoryItem`` values; vector candidates come from sqlite-vec.
Every hit carries its score breakdown, so the UI can show why it was recalled.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol, runtime_checkable

from assistant.memory.reference import pronoun_antecedents
from assistant.memory.scoring import (
    RetrievalWeights,
    asks_about_now,
    coverage,
    coverage_terms,
    coverage_terms_of,
    names,
    recency,
    relevance,
    similar,
    terms,
    terms_of,
)
from assistant.memory.vectors import EmbeddingModel, VectorStore

__all__ = ["MemoryItem", "Query", "Retriever", "Tier"]


@dataclass(frozen=True, slots=True)
class MemoryItem:
    """A remembered item, as retrieval hands it to the context and the UI.

    ``at`` is when it was said or learned (what recency decays from, unless it was
    used since: ``last_used``); ``source`` says where it came from in words. A message
    also carries its role ("user" or "assistant"), who said it (``speaker``, where
    known), and the ids and text of the messages just before and after it in its
    session (``neighbours``, ``context``).
    ``vector_trust`` is the share of the vector weight that ``vector`` was given (how far
    the embedding model reads the query's script).
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
    vector_trust: float = 1.0
    relevance: float = 0.0
    recency: float = 0.0
    score: float = 0.0
    role: str = ""
    speaker: str = ""
    neighbours: tuple[int, ...] = ()
    context: str = ""

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
    # How far the embedding model reads the text's script, 0 to 1, and how far in cosine
    # it puts a paraphrase above unrelated text (None: not measured; see ``reading``).
    vector_trust: float = 1.0
    vector_gap: float | None = None


class Tier(Protocol):
    """A memory tier as retrieval sees it."""

    kind: str

    def keyword(self, query: Query, limit: int) -> list[tuple[int, float]]:
        """(id, positive BM25) candidates for the query, best first."""
        ...

    def load(self, ids: Sequence[int], query: Query) -> dict[int, MemoryItem]:
        """The eligible items among ``ids`` (in profile, in scope, not expired...)."""
        ...


@runtime_checkable
class SessionOrder(Protocol):
    """A tier whose items are said in sessions, one after another (messages)."""

    def previous_sessions(self, session_ids: Sequence[int], profile_id: int) -> dict[int, int]:
        """The session each of these follows; one with nothing before it is left out."""
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

    def retrieve(self, query: Query) -> list[MemoryItem]:
        """The best memories for ``query``, best first, at most ``query.limit``."""
        query_terms = coverage_terms(query.text)
        # Which model's vectors to search, read once: every tier searches the same ones.
        model = self._model() if query.vector is not None else None
        scored: list[MemoryItem] = []
        for kind in query.kinds:
            tier = self.tiers.get(kind)
            if tier is not None:
                scored.extend(self._score_tier(tier, query, query_terms, model))
        # The assistant's own replies are not evidence about the user: they come after
        # everything else, so that one never outranks, or takes the place of, the user's
        # own words (a small model's confident nonsense would otherwise be recalled first).
        scored.sort(key=lambda m: (_is_reply(m), -m.score, -m.at.timestamp()))
        return self._deduplicate(scored, query.limit)

    def _candidates(
        self, tier: Tier, query: Query, model: EmbeddingModel | None
    ) -> tuple[dict[int, float], dict[int, float], float]:
        """Keyword and vector scores of both candidate lists, and the vector background.

        A keyword candidate outside the vector top-n keeps its real similarity (scored
        directly), rather than none at all. The background is the median similarity of
        the vector top-n. ``model``: whose vectors to search (None: keywords only).
        """
        n = self.weights.candidates
        keyword = dict(tier.keyword(query, n))
        if model is None or query.vector is None:
            return keyword, {}, 0.0
        nearest = self._vectors.nearest(model, tier.kind, query.profile_id, query.vector, n)
        vector = dict(nearest)
        if missing := [i for i in keyword if i not in vector]:
            vector |= self._vectors.similarities(model, tier.kind, missing, query.vector)
        background = statistics.median(sim for _, sim in nearest) if nearest else 0.0
        return keyword, vector, background

    def _score_tier(
        self,
        tier: Tier,
        query: Query,
        query_terms: frozenset[str],
        model: EmbeddingModel | None,
    ) -> list[MemoryItem]:
        keyword, vector, background = self._candidates(tier, query, model)
        ids = [i for i in keyword.keys() | vector.keys() if (tier.kind, i) not in query.exclude]
        if not ids:
            return []
        # BM25 is scaled by the best eligible hit: an excluded one (the message being
        # answered matches itself best of all) would push every other hit down.
        best = max((keyword[i] for i in ids if i in keyword), default=0.0)
        searched_vectors = query.vector is not None and model is not None
        w = self.weights
        rated: dict[int, MemoryItem] = {}
        for item_id, memory in tier.load(ids, query).items():
            # BM25 is relative to this query; coverage makes it absolute (a hit on one
            # minor word of a long question stays weak). The speaker counts as said.
            bm25 = keyword.get(item_id, 0.0) / best if best > 0 else 0.0
            kw = 0.0  # coverage scales BM25, so without a keyword hit it is never computed
            if bm25 > 0:
                kw = bm25 * self._coverage(query_terms, (memory,), memory.context)
            vec = vector.get(item_id, 0.0) if searched_vectors else None
            rel = relevance(kw, vec, w, background, query.vector_trust, query.vector_gap)
            rated[item_id] = replace(
                memory, keyword=kw, vector=vec, vector_trust=query.vector_trust, relevance=rel
            )
        self._resolve_pronouns(tier, query, query_terms, rated, keyword, best, background)
        # Nothing is recalled unless something clears the floor; once something does,
        # weaker memories that still bear on the query may follow it.
        top = max((m.relevance for m in rated.values()), default=0.0)
        if top < w.min_relevance:
            return []
        kept = [m for m in rated.values() if m.relevance >= max(top * w.tail_relevance, 1e-9)]
        bonus = self._context_bonus(kept, query)
        words = terms(query.text)  # names match as words (bigrams in CJK), not characters
        return [self._score(m, rated, query, words, bonus[m.item_id]) for m in kept]

    def _coverage(
        self, query_terms: frozenset[str], said: Sequence[MemoryItem], context: str
    ) -> float:
        """Coverage of the query by what ``said`` says (their speakers count as said).

        A message's date counts as said too ("9 November 2022"), as the keyword index
        holds it (`message_index_columns`): "What did Nate make on 9 November, 2022?"
        asks about what was said that day, and the turn itself rarely repeats the date.
        """
        own = coverage_terms_of([part for m in said for part in _said(m)], query_terms)
        around = coverage_terms_of((context,), query_terms)
        return coverage(query_terms, own, around, self.weights.context_coverage)

    def _resolve_pronouns(
        self,
        tier: Tier,
        query: Query,
        query_terms: frozenset[str],
        rated: dict[int, MemoryItem],
        keyword: dict[int, float],
        best: float,
        background: float,
    ) -> None:
        """A turn that says "she" for someone the question names is read with that name.

        The turn that names them (the speaker's latest, in the same session or the one
        it resumed: see ``reference.pronoun_antecedents``) and the turn that refers to
        them are read as one statement: together they cover the question's terms that either says,
        match its keywords as well as the better of the two, and are as similar to it
        as the more similar one (the name is what the pronoun turn's own vector lacks).
        The pronoun turn takes that relevance if higher.
        """

        def follows(sessions: Sequence[int]) -> dict[int, int]:
            if isinstance(tier, SessionOrder):
                return tier.previous_sessions(sessions, query.profile_id)
            return {}

        pairs = pronoun_antecedents(query.text, rated.values(), follows)
        if not pairs:
            return
        w = self.weights
        for item_id, named_id in pairs.items():
            memory, named = rated[item_id], rated[named_id]
            share = max(keyword.get(item_id, 0.0), keyword.get(named_id, 0.0))
            share = share / best if best > 0 else 0.0
            kw = share * self._coverage(query_terms, (memory, named), memory.context)
            vectors = [v for v in (memory.vector, named.vector) if v is not None]
            vec = max(vectors) if vectors else None
            rel = relevance(kw, vec, w, background, query.vector_trust, query.vector_gap)
            if rel > memory.relevance:
                rated[item_id] = replace(memory, keyword=max(kw, memory.keyword), relevance=rel)

    def _context_bonus(self, kept: Sequence[MemoryItem], query: Query) -> dict[int, float]:
        """Priors that depend on the other candidates: their session, their time."""
        w = self.weights
        # A conversation that clearly bears on the query lends its other turns weight
        # (the evidence is often a turn or two away from the best-matching one).
        session_best: dict[int, float] = {}
        for m in kept:
            if m.session_id is not None:
                session_best[m.session_id] = max(session_best.get(m.session_id, 0.0), m.relevance)
        newness = _newness(kept) if asks_about_now(query.text) else {}
        return {
            m.item_id: w.session * session_best.get(m.session_id or -1, 0.0)
            + w.present * newness.get(m.item_id, 0.0)
            for m in kept
        }

    def _score(
        self,
        memory: MemoryItem,
        rated: dict[int, MemoryItem],
        query: Query,
        words: frozenset[str],
        bonus: float,
    ) -> MemoryItem:
        """Relevance, the priors, recency and importance, summed."""
        w = self.weights
        # A reply's relevance often shows in the turn before or after it, so a memory
        # takes a share of its best neighbour's relevance.
        around = max((rated[n].relevance for n in memory.neighbours if n in rated), default=0.0)
        prior = w.neighbour * around + w.speaker * names(words, memory.speaker) + bonus
        rec = recency(memory.last_used or memory.at, query.now, w.decay_per_hour)
        score = (
            w.relevance * memory.relevance
            + prior
            + w.recency * rec
            + w.importance * memory.importance / 10
        )
        return replace(memory, recency=rec, score=score)

    def _deduplicate(self, ranked: list[MemoryItem], limit: int) -> list[MemoryItem]:
        """The best of each group of near-duplicates, in rank order, at most ``limit``.

        Of a reply that repeats what the user said and the user's words, the user's
        are kept (at the better rank of the two): they are the evidence, the reply a
        restatement that may have shifted the meaning.
        """
        kept: list[MemoryItem] = []
        kept_terms: list[frozenset[str]] = []
        for memory in ranked:
            if len(kept) == limit and (
                memory.role != "user" or all(k.role != "assistant" for k in kept)
            ):
                continue  # full: only the user's words for a reply's may still come in
            t = terms_of((memory.text,))
            twin = next(
                (
                    i
                    for i, other in enumerate(kept_terms)
                    if similar(t, other, self.weights.duplicate_overlap)
                ),
                None,
            )
            if twin is not None:
                if memory.role == "user" and kept[twin].role == "assistant":
                    kept[twin], kept_terms[twin] = memory, t
            elif len(kept) < limit:
                kept.append(memory)
                kept_terms.append(t)
        return kept


def _said(memory: MemoryItem) -> tuple[str, ...]:
    """What a memory says for coverage: its speaker, its text, and a message's date."""
    if memory.kind != "message":
        return (memory.speaker, memory.text)
    return (memory.speaker, memory.text, f"{memory.at.day} {memory.at:%B %Y}")


def _is_reply(memory: MemoryItem) -> bool:
    return memory.kind == "message" and memory.role == "assistant"


def _newness(memories: Sequence[MemoryItem]) -> dict[int, float]:
    """Each memory's place in time among these, from 0 (oldest) to 1 (newest)."""
    ordered = sorted(memories, key=lambda m: (m.at, m.item_id))
    last = max(len(ordered) - 1, 1)
    return {m.item_id: i / last for i, m in enumerate(ordered)}
