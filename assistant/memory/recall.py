"""Memory: the stores of one profile in one data file, and recall over every tier.

The chat turn, the memory tools, search and recall read and write memory through one
``Memory``; it holds no settings of the chat, and nothing of it calls back into the
engine. Stores other than messages and vectors are built on first use: `hippo log`
and the first frame need only those two.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import apsw

from assistant.clock import Clock
from assistant.memory.embedder import Embedder
from assistant.memory.messages import MessageStore
from assistant.memory.records import MessageHit, Profile
from assistant.memory.vectors import VectorStore
from data_schema.connect import Database

if TYPE_CHECKING:
    from assistant.memory.archival import ArchiveStore
    from assistant.memory.context import Stores
    from assistant.memory.core import CoreMemory
    from assistant.memory.core_proposals import CoreProposals
    from assistant.memory.entities import EntityStore
    from assistant.memory.episodes import EpisodeStore
    from assistant.memory.facts import FactStore
    from assistant.memory.retrieval import MemoryItem, Retriever
    from assistant.memory.scoring import RetrievalWeights
    from assistant.memory.script_probe import Reading
    from assistant.memory.sensory import EventStore
    from assistant.memory.usage import MemoryUse, UsageStore

__all__ = ["Memory"]

_SEARCH_CANDIDATES = 50
# How many of the latest corrections recall checks its memories against.
_CORRECTIONS = 50
# Memories recalled beyond the limit, to take the places of repeats dropped after ranking.
_SPARE = 4


class Memory:
    """The memory tiers of one profile, and recall over them.

    Args:
        db: the data file (one connection per thread).
        clock: the time source.
        profile: whose memory; nothing crosses profiles.
        messages: the message store.
        vectors: the vector store.
        embedder: embeds queries.
        weights: retrieval weights and thresholds.

    Thread safety: the stores hold no state but the connection getter, so the turn,
    embedder and UI threads share them; a store built twice by two threads at once is
    harmless. The retriever is built once under a lock: its ``weights`` (an immutable
    value) are swapped whole by the Settings tab. ``profile`` is an immutable value,
    replaced whole when the user switches profile.
    """

    def __init__(
        self,
        db: Database,
        clock: Clock,
        profile: Profile,
        *,
        messages: MessageStore,
        vectors: VectorStore,
        embedder: Embedder,
        weights: RetrievalWeights | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.profile = profile
        self.messages = messages
        self.vectors = vectors
        self.embedder = embedder
        self._weights = weights
        self._retriever_lock = threading.Lock()
        self._retriever: Retriever | None = None

    def _conn(self) -> apsw.Connection:
        """The calling thread's connection."""
        return self.db.conn

    # -- tiers, built on first use ----------------------------------------------
    # Each loads its module on first use: `hippo log` needs none of them.

    @functools.cached_property
    def usage(self) -> UsageStore:
        """Which memories went into each reply (an incognito reply's, in memory only)."""
        # The usage stores: first use only (start-up).
        from assistant.memory.incognito import RoutedMessages
        from assistant.memory.incognito_usage import RoutedUsage
        from assistant.memory.usage import UsageStore

        if isinstance(self.messages, RoutedMessages):
            return RoutedUsage(self._conn, self.messages.incognito)
        return UsageStore(self._conn)

    @functools.cached_property
    def episodes(self) -> EpisodeStore:
        """Mid-term memory: what happened in each session."""
        from assistant.memory.episodes import EpisodeStore  # first use only (start-up)

        return EpisodeStore(self._conn, self.clock)

    @functools.cached_property
    def archive(self) -> ArchiveStore:
        """Archival memory: documents and notes."""
        from assistant.memory.archival import ArchiveStore  # first use only (start-up)

        return ArchiveStore(self._conn, self.clock)

    @functools.cached_property
    def events(self) -> EventStore:
        """Sensory memory: events from outside the chat."""
        from assistant.memory.sensory import EventStore  # first use only (start-up)

        return EventStore(self._conn, self.clock)

    @functools.cached_property
    def facts(self) -> FactStore:
        """The long-term profile: facts with evidence and history."""
        from assistant.memory.facts import FactStore  # first use only (start-up)

        return FactStore(self._conn, self.clock)

    @functools.cached_property
    def core(self) -> CoreMemory:
        """Core memory: the human and persona blocks."""
        from assistant.memory.core import CoreMemory  # first use only (start-up)

        return CoreMemory(self._conn, self.clock)

    @functools.cached_property
    def core_proposals(self) -> CoreProposals:
        """The model's core memory edits awaiting the user's review."""
        from assistant.memory.core_proposals import CoreProposals  # first use only (start-up)

        return CoreProposals(self._conn, self.clock)

    @functools.cached_property
    def entities(self) -> EntityStore:
        """Entities and their links to memory items."""
        from assistant.memory.entities import EntityStore  # first use only (start-up)

        return EntityStore(self._conn, self.clock)

    @functools.cached_property
    def stores(self) -> Stores:
        """The tiers a turn's context reads."""
        from assistant.memory.context import Stores  # first use only (start-up)

        return Stores(self.core, self.facts, self.episodes, self.events, self.entities)

    @property
    def retriever(self) -> Retriever:
        """One retrieval over every tier."""
        with self._retriever_lock:
            if self._retriever is None:
                self._retriever = self._build_retriever()
            return self._retriever

    @property
    def weights(self) -> RetrievalWeights:
        """The retrieval weights in use (recall, search and the inspector rank with them)."""
        from assistant.settings import RetrievalWeights  # a small module, with the settings

        with self._retriever_lock:
            if self._retriever is not None:
                return self._retriever.weights
            return self._weights or RetrievalWeights()

    @weights.setter
    def weights(self, weights: RetrievalWeights) -> None:
        with self._retriever_lock:
            self._weights = weights
            if self._retriever is not None:  # built already: it holds the weights it was given
                self._retriever.weights = weights

    def _build_retriever(self) -> Retriever:
        # The tiers load the fact, episode, archive and event modules: first use only.
        from assistant.memory.retrieval import Retriever, Tier
        from assistant.memory.tiers import ChunkTier, EpisodeTier, EventTier, FactTier, MessageTier

        tiers: list[Tier] = [
            MessageTier(self.messages),
            FactTier(self.facts),
            EpisodeTier(self.episodes),
            ChunkTier(self.archive),
            EventTier(self.events),
        ]
        model = lambda: self.vectors.model(self.embedder.vector_key)  # noqa: E731
        return Retriever(tiers, self.vectors, model, self._weights)

    # -- recall ------------------------------------------------------------------

    def recall(
        self,
        text: str,
        *,
        limit: int = 10,
        kinds: tuple[str, ...] | None = None,
        as_of: datetime | None = None,
        scopes: tuple[str, ...] | None = None,
        exclude: frozenset[tuple[str, int]] = frozenset(),
        query_vector: Sequence[float] | None = None,
    ) -> list[MemoryItem]:
        """Memories from every tier that bear on ``text``, scored and de-duplicated.

        Args:
            text: what to recall for (usually the user's message).
            limit: how many memories at most.
            kinds: which tiers (default: all).
            as_of: recall as things stood at this past time.
            scopes: the session's scopes (None: all).
            exclude: (kind, id) items already in the prompt.
            query_vector: the text's embedding, if already made; otherwise it is made
                here, and on failure retrieval falls back to keywords.
        """
        if query_vector is None:
            query_vector, reading = self.embedder.query(text)
        else:
            reading = self.embedder.reading(text)
        from assistant.memory.retrieval import Query  # with the retriever: first use only

        retriever = self.retriever
        query = Query(
            text=text,
            profile_id=self.profile.id,
            now=self.clock.now(),
            limit=limit if as_of is not None else limit + _SPARE,
            kinds=kinds or tuple(retriever.tiers),
            scopes=scopes,
            as_of=as_of,
            exclude=exclude,
            vector=query_vector,
            vector_trust=reading.trust if reading else 1.0,
            vector_gap=reading.gap if reading else None,
        )
        found = retriever.retrieve(query)
        if as_of is not None:  # as things stood then: what was corrected since held then
            return found
        return self._current_first(found, text, limit)

    def _current_first(self, found: list[MemoryItem], text: str, limit: int) -> list[MemoryItem]:
        """What holds now before what was corrected, repeats once (see ``currency``)."""
        # With the retriever, which loads retrieval and scoring: first recall only.
        from assistant.memory.currency import Correction, current_first
        from assistant.memory.scoring import asks_about_now  # as currency: first recall only

        facts = self.facts
        replaced = facts.replaced(self.profile.id, limit=_CORRECTIONS)
        successors = {}
        for old in replaced:
            if old.superseded_by is not None and old.superseded_by not in successors:
                successors[old.superseded_by] = facts.get(old.superseded_by)
        corrections = [
            Correction(
                successors[old.superseded_by].statement,
                old.valid_to or successors[old.superseded_by].learned_at,
                frozenset(e.ref_id for e in old.evidence if e.kind == "message"),
            )
            for old in replaced
            if old.superseded_by is not None
        ]
        return current_first(found, corrections, now_question=asks_about_now(text), limit=limit)

    def nearest(self, kind: str, query: str, limit: int) -> tuple[list[tuple[int, float]], Reading]:
        """The ``kind`` items nearest to ``query`` in meaning, and how the model reads it.

        Returns (id, cosine) pairs, best first, and what the probe knows of the embedding
        model on the query's script (its trust and paraphrase gap, see ``reading``). No
        vector was ever made, an empty query, or an Ollama that can't embed: no pairs.
        """
        from assistant.memory.script_probe import UNKNOWN  # with the reading probe: first use

        model = self.vectors.model(self.embedder.vector_key)
        if model is None:
            return [], UNKNOWN
        query_vector, reading = self.embedder.query(query)
        if query_vector is None or reading is None:
            return [], UNKNOWN
        found = self.vectors.nearest(model, kind, self.profile.id, query_vector, limit)
        return found, reading

    def search_messages(self, query: str, limit: int = 10) -> list[MessageHit]:
        """Messages of the profile that match ``query`` by keyword or meaning.

        Keyword (FTS5 BM25, on each message's own words) and vector (sqlite-vec cosine)
        candidates are fused as recall fuses them, with the configured retrieval weights
        (see ``assistant.memory.search``); when Ollama can't embed the query, keyword hits
        alone are returned.
        """
        from assistant.memory.search import fuse_hits  # first search only (start-up)

        # Keyword hits match in the message itself: a match only in the turn before or
        # after would show an unrelated message as a keyword hit.
        keyword = self.messages.keyword_search(
            self.profile.id, query, _SEARCH_CANDIDATES, own_text=True
        )
        vector, reading = self.nearest("message", query, _SEARCH_CANDIDATES)
        weights = self.retriever.weights  # the configured ones, as recall ranks with them
        ranked = fuse_hits(keyword, vector, weights, reading.trust, reading.gap)[:limit]
        found = self.messages.messages_by_id([message_id for message_id, *_ in ranked])
        return [
            MessageHit(found[mid], score, kw, vec, reading.trust)
            for mid, score, kw, vec in ranked
            if mid in found
        ]

    def record_use(self, reply_id: int, used: Sequence[tuple[str, MemoryItem]]) -> None:
        """Remember which memories went into a reply, and count the use of each fact."""
        from assistant.memory.usage import memory_uses  # with the usage store: first use

        self.usage.record(memory_uses(reply_id, list(used)))
        self.facts.touch([m.item_id for _, m in used if m.kind == "fact"], self.clock.now())

    def memories_used(self, reply_id: int) -> list[MemoryUse]:
        """What memory went into a reply, with the scores it had then."""
        return self.usage.for_reply(reply_id)
