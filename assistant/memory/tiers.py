"""Adapters that let retrieval search each memory tier the same way."""

from __future__ import annotations

from collections.abc import Sequence

from assistant.memory.retrieval import Memory, Query
from assistant.memory.store import MessageStore

__all__ = ["MessageTier"]


class MessageTier:
    """The recall archive: every message exchanged (failed and streaming ones excluded)."""

    kind = "message"

    def __init__(self, store: MessageStore) -> None:
        self._store = store

    def keyword(self, query: Query, limit: int) -> list[tuple[int, float]]:
        return self._store.keyword_search(query.profile_id, query.text, limit)

    def load(self, ids: Sequence[int], query: Query) -> dict[int, Memory]:
        found = self._store.messages_by_id(ids, query.profile_id)
        # An incognito chat keeps nothing: its words are never recalled elsewhere.
        hidden = self._store.incognito_sessions({m.session_id for m in found.values()})
        found = {mid: m for mid, m in found.items() if m.session_id not in hidden}
        if query.scopes is not None:
            # Scope creep defence: a scoped session recalls unscoped sessions and its scopes.
            scopes = self._store.session_scopes({m.session_id for m in found.values()})
            found = {
                mid: m
                for mid, m in found.items()
                if scopes.get(m.session_id, "") in ("", *query.scopes)
            }
        around = self._store.neighbour_ids(list(found))
        missing = {n for ns in around.values() for n in ns} - found.keys()
        texts = {mid: m.content for mid, m in found.items()}
        texts |= {mid: m.content for mid, m in self._store.messages_by_id(list(missing)).items()}
        return {
            mid: Memory(
                kind="message",
                item_id=mid,
                text=m.content,
                at=m.created_at,
                source=m.speaker or ("you said" if m.role == "user" else "Hippo said"),
                importance=m.importance,
                session_id=m.session_id,
                source_id=m.source_id,
                speaker=m.speaker,
                neighbours=around.get(mid, ()),
                context="\n".join(texts.get(n, "") for n in around.get(mid, ())),
            )
            for mid, m in found.items()
            if m.status in ("complete", "cancelled")
            and (query.as_of is None or m.created_at <= query.as_of)
        }
