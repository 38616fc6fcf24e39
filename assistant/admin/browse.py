"""Browsing for the inspector's other screens: core blocks, archive search, memories used."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from assistant.admin.activity import ActivityAdmin
from assistant.admin.models import EvidenceView
from assistant.admin.provenance import evidence_views
from assistant.errors import NotFound
from assistant.memory.core import CoreBlock
from assistant.memory.facts import Evidence
from assistant.memory.models import MessageHit
from assistant.memory.usage import MemoryUse

__all__ = ["BrowseAdmin", "UsedMemory"]

_OVERFETCH = 5


@dataclass(frozen=True, slots=True)
class UsedMemory:
    """A memory that went into a reply: its scores then, and the item as it is now."""

    use: MemoryUse
    item: EvidenceView


class BrowseAdmin(ActivityAdmin):
    """Core memory, the message archive, and the provenance of replies."""

    def core_blocks(self) -> dict[str, CoreBlock]:
        """The human and persona blocks, with their size limits."""
        return self._engine.core.blocks(self._pid)

    def edit_core(self, label: str, value: str, *, char_limit: int | None = None) -> CoreBlock:
        """Rewrite a core block as the user (recorded, undoable); optionally change its limit.

        Raises:
            CoreMemoryError: an unknown label, or the text is over the (new) limit.
        """
        core = self._engine.core
        if char_limit is not None and char_limit > core.block(self._pid, label).char_limit:
            core.set_limit(self._pid, label, char_limit, actor="user")
        block = core.set(self._pid, label, value, actor="user")
        if char_limit is not None and char_limit != block.char_limit:
            block = core.set_limit(self._pid, label, char_limit, actor="user")
        return block

    def search_messages(
        self,
        query: str,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 20,
    ) -> list[MessageHit]:
        """Messages by keyword and meaning, said between ``since`` and ``until`` if given."""
        wide = limit * _OVERFETCH if since or until else limit
        hits = self._engine.search_messages(query, limit=wide)
        kept = [
            hit
            for hit in hits
            if (since is None or hit.message.created_at >= since)
            and (until is None or hit.message.created_at <= until)
        ]
        return kept[:limit]

    def memories_used(self, reply_id: int) -> list[UsedMemory]:
        """What went into a reply, in prompt order, with scores and the item's text and date.

        Raises:
            StorageError: there is no such reply in this profile.
        """
        if not self._engine.messages.messages_by_id([reply_id], self._pid):
            raise NotFound(f"There is no message {reply_id} in this profile.")
        uses = self._engine.memories_used(reply_id)
        items = evidence_views(
            self._engine,
            self._pid,
            [Evidence(u.kind, u.item_id) for u in uses],  # type: ignore[arg-type]
        )
        return [UsedMemory(use, item) for use, item in zip(uses, items, strict=True)]
