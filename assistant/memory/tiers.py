"""Adapters that let retrieval search each memory tier the same way: messages, facts,
episodes, documents and events."""

from __future__ import annotations

from collections.abc import Sequence

from assistant.errors import HippoError
from assistant.memory.archival import ArchiveStore
from assistant.memory.episodes import Episode, EpisodeStore
from assistant.memory.facts import Fact, FactStore
from assistant.memory.long_text import MESSAGE_PREFIX
from assistant.memory.messages import MessageStore
from assistant.memory.retrieval import MemoryItem, Query
from assistant.memory.sensory import EventStore

__all__ = [
    "ChunkTier",
    "EpisodeTier",
    "EventTier",
    "FactTier",
    "MessageTier",
    "episode_memory",
    "fact_memory",
]


class MessageTier:
    """The recall archive: every message exchanged (failed and streaming ones excluded)."""

    kind = "message"

    def __init__(self, store: MessageStore) -> None:
        self._store = store

    def keyword(self, query: Query, limit: int) -> list[tuple[int, float]]:
        return self._store.keyword_search(query.profile_id, query.text, limit, collapse=True)

    def load(self, ids: Sequence[int], query: Query) -> dict[int, MemoryItem]:
        # An incognito chat keeps nothing: its words are never recalled elsewhere.
        found = self._store.recall_candidates(ids, query.profile_id)
        if query.scopes is not None:
            # Scope creep defence: a scoped session recalls unscoped sessions and its scopes.
            found = {mid: c for mid, c in found.items() if c.scope in ("", *query.scopes)}
        return {
            mid: MemoryItem(
                kind="message",
                item_id=mid,
                text=m.content,
                at=m.created_at,
                source=m.speaker or ("you said" if m.role == "user" else "Hippo said"),
                importance=m.importance,
                session_id=m.session_id,
                source_id=m.source_id,
                role=m.role,
                speaker=m.speaker,
                neighbours=tuple(n for n, _ in around),
                context="\n".join(text for _, text in around),
            )
            for mid, (m, _, around) in found.items()
            if m.status in ("complete", "cut", "cancelled")
            and (query.as_of is None or m.created_at <= query.as_of)
        }

    def previous_sessions(self, session_ids: Sequence[int], profile_id: int) -> dict[int, int]:
        """The session each of these follows (see `MessageStore.previous_sessions`)."""
        return self._store.previous_sessions(session_ids, profile_id)


def episode_memory(episode: Episode) -> MemoryItem:
    """An episode as retrieval and the context see it: Hippo's summary, with its dates.

    Its text may say "I" (a model's summary can slip into the speaker's voice), so its
    source says whose words it is, lest the chat model quote it as the user's own.
    """
    first, last = (f"{t.astimezone():%Y-%m-%d}" for t in (episode.started_at, episode.ended_at))
    since = f" from {first}" if first != last else ""
    return MemoryItem(
        kind="episode",
        item_id=episode.id,
        text=f"{episode.title}: {episode.summary}" if episode.title else episode.summary,
        at=episode.ended_at,
        source=f"Hippo's summary of a conversation{since}, not the user's words",
        importance=episode.importance,
        session_id=episode.session_id,
    )


class EpisodeTier:
    """Mid-term memory: what happened in each recent session."""

    kind = "episode"

    def __init__(self, store: EpisodeStore) -> None:
        self._store = store

    def keyword(self, query: Query, limit: int) -> list[tuple[int, float]]:
        return self._store.keyword_search(query.profile_id, query.text, limit)

    def load(self, ids: Sequence[int], query: Query) -> dict[int, MemoryItem]:
        out = {}
        for eid, ep in self._store.get_many(ids, query.profile_id).items():
            if query.scopes is not None and ep.scope and ep.scope not in query.scopes:
                continue
            if query.as_of is not None and ep.created_at > query.as_of:
                continue
            out[eid] = episode_memory(ep)
        return out


class ChunkTier:
    """Archival memory: documents and notes the user handed over."""

    kind = "chunk"

    def __init__(self, store: ArchiveStore) -> None:
        self._store = store

    def keyword(self, query: Query, limit: int) -> list[tuple[int, float]]:
        return self._store.keyword_search(query.profile_id, query.text, limit)

    def load(self, ids: Sequence[int], query: Query) -> dict[int, MemoryItem]:
        chunks = self._store.get_chunks(ids, query.profile_id)
        documents = self._store.documents(query.profile_id)
        # A long message's chunks are the user's words (see long_text), not a document's.
        titles = {d.id: d.title for d in documents}
        said = {d.id for d in documents if d.path.startswith(MESSAGE_PREFIX)}
        out = {}
        for cid, chunk in chunks.items():
            if query.as_of is not None and chunk.created_at > query.as_of:
                continue
            title = titles.get(chunk.document_id, "document")
            # The heading is part of what the index matched, so it is part of the text.
            text = f"[{chunk.heading}] {chunk.content}" if chunk.heading else chunk.content
            out[cid] = MemoryItem(
                kind="chunk",
                item_id=cid,
                text=text,
                at=chunk.created_at,
                source=f"you said, in {title}"
                if chunk.document_id in said
                else f"document: {title}",
                importance=chunk.importance,
            )
        return out


class EventTier:
    """Sensory memory: signals from outside the chat; expired ones are never recalled."""

    kind = "event"

    def __init__(self, store: EventStore) -> None:
        self._store = store

    def keyword(self, query: Query, limit: int) -> list[tuple[int, float]]:
        return self._store.keyword_search(
            query.profile_id, query.text, limit, now=query.as_of or query.now
        )

    def load(self, ids: Sequence[int], query: Query) -> dict[int, MemoryItem]:
        moment = query.as_of or query.now
        out = {}
        for eid, event in self._store.get_many(ids, query.profile_id).items():
            if event.occurred_at > moment:
                continue
            if event.expires_at is not None and event.expires_at <= moment:
                continue
            out[eid] = MemoryItem(
                kind="event",
                item_id=eid,
                text=event.text,
                at=event.occurred_at,
                source=f"event from {event.source}",
                importance=event.importance,
            )
        return out


_FACT_SOURCES = {
    "user_stated": "fact you stated",
    "assistant_inferred": "fact Hippo inferred",
    "document": "fact from a document",
    "event": "fact from an event",
    "reflection": "Hippo's reflection",
    "pasted": "fact from text you pasted",
}


def fact_memory(fact: Fact) -> MemoryItem:
    """A fact as retrieval and the context see it."""
    return MemoryItem(
        kind="fact",
        item_id=fact.id,
        text=fact.statement,
        at=fact.learned_at,
        source=_FACT_SOURCES.get(fact.source_kind, fact.source_kind),
        importance=fact.importance,
        last_used=fact.last_accessed_at,
    )


class FactTier:
    """The long-term profile: active facts (or, as of a past date, the facts valid then)."""

    kind = "fact"

    def __init__(self, store: FactStore) -> None:
        self._store = store

    def keyword(self, query: Query, limit: int) -> list[tuple[int, float]]:
        statuses = ("active",) if query.as_of is None else ("active", "superseded", "expired")
        return self._store.keyword_search(query.profile_id, query.text, limit, statuses=statuses)

    def load(self, ids: Sequence[int], query: Query) -> dict[int, MemoryItem]:
        out = {}
        for fact_id in ids:
            try:
                fact = self._store.get(fact_id, profile_id=query.profile_id)
            except HippoError:
                continue
            if _fact_applies(fact, query):
                out[fact_id] = fact_memory(fact)
        return out


def _fact_applies(fact: Fact, query: Query) -> bool:
    if query.scopes is not None and fact.scope and fact.scope not in query.scopes:
        return False
    if query.as_of is None:
        current = fact.valid_to is None or fact.valid_to > query.now
        return fact.status == "active" and current
    moment = query.as_of
    return (
        fact.status in ("active", "superseded", "expired")
        and fact.learned_at <= moment
        and (fact.valid_from is None or fact.valid_from <= moment)
        and (fact.valid_to is None or fact.valid_to > moment)
    )
