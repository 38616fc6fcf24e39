"""Adapters that let retrieval search each memory tier the same way."""

from __future__ import annotations

from collections.abc import Sequence

from assistant.memory.retrieval import MemoryItem, Query
from assistant.memory.store import MessageStore

__all__ = ["MessageTier"]


class MessageTier:
    """The recall archive: every message exchanged (failed and streaming ones excluded)."""

    kind = "message"

    def __init__(self, store: MessageStore) -> None:
        self._store = store

    def keyword(self, query: Query, limit: int) -> list[tuple[int, float]]:
        return self._store.keyword_search(query.profile_id, query.text, limit)

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
            if m.status in ("complete", "cancelled")
            and (query.as_of is None or m.created_at <= query.as_of)
        }
