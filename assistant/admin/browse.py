"""Browsing for the inspector's other screens: listings, core blocks, archive search, replies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from assistant.admin.views import EvidenceView
from assistant.errors import NotFound
from assistant.memory.archival import Document
from assistant.memory.core import CoreBlock
from assistant.memory.episodes import Episode
from assistant.memory.facts import Evidence
from assistant.memory.records import Message, MessageHit, Profile, Session
from assistant.memory.sensory import Event
from assistant.memory.usage import MemoryUse

if TYPE_CHECKING:
    from assistant.admin.provenance import EvidenceReader
    from assistant.memory.archival import ArchiveStore
    from assistant.memory.core import CoreMemory
    from assistant.memory.episodes import EpisodeStore
    from assistant.memory.messages import MessageStore
    from assistant.memory.sensory import EventStore
    from assistant.memory.usage import UsageStore

__all__ = ["BrowseAdmin", "ClientUse", "SearchMessages", "UsedMemory"]

_OVERFETCH = 5

# (query, limit) -> the profile's messages by keyword and meaning, best first
SearchMessages = Callable[[str, int], list[MessageHit]]


@dataclass(frozen=True, slots=True)
class UsedMemory:
    """A memory that went into a reply: its scores then, and the item as it is now."""

    use: MemoryUse
    item: EvidenceView


@dataclass(frozen=True, slots=True)
class ClientUse:
    """What one MCP client wrote into this profile.

    Attributes:
        name: the client's name from its handshake.
        proposals: the facts it proposed (each kept with its words as evidence).
        events: the events it logged.
        last_at: its latest write.
    """

    name: str
    proposals: int
    events: int
    last_at: datetime


class BrowseAdmin:
    """Listings of every tier, core memory, the message archive, and what replies used.

    Args:
        messages: sessions, messages and profiles.
        episodes: the episodes store.
        events: the events store.
        archive: the documents store.
        core: core memory.
        usage: which memories went into each reply.
        evidence: reads the items a reply's memories are.
        search: the profile's messages by keyword and meaning.
        profile: returns the profile every call works in.
    """

    def __init__(
        self,
        *,
        messages: MessageStore,
        episodes: EpisodeStore,
        events: EventStore,
        archive: ArchiveStore,
        core: CoreMemory,
        usage: UsageStore,
        evidence: EvidenceReader,
        search: SearchMessages,
        profile: Callable[[], Profile],
    ) -> None:
        self._messages = messages
        self._episodes = episodes
        self._events = events
        self._archive = archive
        self._core = core
        self._usage = usage
        self._evidence = evidence
        self._search = search
        self._profile = profile

    @property
    def _pid(self) -> int:
        return self._profile().id

    # -- listings ---------------------------------------------------------------------

    def profiles(self) -> list[Profile]:
        """Every profile of the data file, by name."""
        return self._messages.profiles()

    def sessions(self, limit: int = 50) -> list[Session]:
        """Recent sessions, newest first (incognito ones included, marked)."""
        return self._messages.sessions(self._pid, limit)

    def episodes(self, limit: int = 50) -> list[Episode]:
        """Recent episodes, newest first."""
        return self._episodes.recent(self._pid, limit=limit)

    def session_episodes(self, session_id: int) -> list[Episode]:
        """A session's episodes, in time order."""
        return self._episodes.for_session(session_id)

    def events(self, limit: int = 50) -> list[Event]:
        """Recent events (current and expired), newest first."""
        return self._events.latest(self._pid, limit)

    def event(self, event_id: int) -> Event:
        """One event of the profile.

        Raises:
            NotFound: there is no such event in this profile.
        """
        found = self._events.get_many([event_id], self._pid)
        if event_id not in found:
            raise NotFound(f"There is no event {event_id} in this profile.")
        return found[event_id]

    def mcp_clients(self) -> list[ClientUse]:
        """Every MCP client that wrote into this profile, the latest first."""
        prefix = "mcp:"
        said = {s: (n, at) for s, n, at in self._messages.sources(self._pid, prefix)}
        logged = {s: (n, at) for s, n, at in self._events.sources(self._pid, prefix)}
        uses = []
        for source in said.keys() | logged.keys():
            proposals, said_at = said.get(source, (0, None))
            events, logged_at = logged.get(source, (0, None))
            last = max(at for at in (said_at, logged_at) if at is not None)
            uses.append(ClientUse(source.removeprefix(prefix), proposals, events, last))
        return sorted(uses, key=lambda use: use.last_at, reverse=True)

    def documents(self) -> list[Document]:
        """Ingested documents with their chunk counts."""
        return self._archive.documents(self._pid)

    # -- core memory -------------------------------------------------------------------

    def core_blocks(self) -> dict[str, CoreBlock]:
        """The human and persona blocks, with their size limits."""
        return self._core.blocks(self._pid)

    def edit_core(self, label: str, value: str, *, char_limit: int | None = None) -> CoreBlock:
        """Rewrite a core block as the user (recorded, undoable); optionally change its limit.

        Raises:
            CoreMemoryError: an unknown label, or the text is over the (new) limit.
        """
        core, pid = self._core, self._pid
        if char_limit is not None and char_limit > core.block(pid, label).char_limit:
            core.set_limit(pid, label, char_limit, actor="user")
        block = core.set(pid, label, value, actor="user")
        if char_limit is not None and char_limit != block.char_limit:
            block = core.set_limit(pid, label, char_limit, actor="user")
        return block

    # -- messages and replies -------------------------------------------------------------

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
        hits = self._search(query, wide)
        kept = [
            hit
            for hit in hits
            if (since is None or hit.message.created_at >= since)
            and (until is None or hit.message.created_at <= until)
        ]
        return kept[:limit]

    def message(self, message_id: int) -> Message:
        """One message of the profile.

        Raises:
            NotFound: there is no such message in this profile.
        """
        found = self._messages.messages_by_id([message_id], self._pid)
        if message_id not in found:
            raise NotFound(f"There is no message {message_id} in this profile.")
        return found[message_id]

    def memories_used(self, reply_id: int) -> list[UsedMemory]:
        """What went into a reply, in prompt order, with scores and the item's text and date.

        Raises:
            NotFound: there is no such reply in this profile.
        """
        self.message(reply_id)
        uses = self._usage.for_reply(reply_id)
        items = self._evidence.views(
            self._pid,
            [Evidence(u.kind, u.item_id) for u in uses],  # type: ignore[arg-type]
        )
        return [UsedMemory(use, item) for use, item in zip(uses, items, strict=True)]
