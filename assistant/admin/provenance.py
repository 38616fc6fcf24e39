"""A fact's evidence as the inspector shows it: the cited text, its date, its session."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from assistant.admin.views import EvidenceView
from assistant.errors import NotFound
from assistant.memory.facts import Evidence

if TYPE_CHECKING:
    from assistant.memory.archival import ArchiveStore
    from assistant.memory.episodes import EpisodeStore
    from assistant.memory.facts import FactStore
    from assistant.memory.messages import MessageStore
    from assistant.memory.sensory import EventStore

__all__ = ["KEPT_TEXT", "MCP_SPEAKER", "YOURS", "EvidenceReader", "proposer"]

YOURS = "your choice"
KEPT_TEXT = (
    "You kept this fact when what it was drawn from was forgotten; your choice is its "
    "evidence (what was forgotten is not recorded, so that it stays forgotten)."
)

MCP_SPEAKER = " (via MCP)"
"""How the words of another AI tool are marked: its name, then this (see `proposer`)."""


def proposer(actor: str, evidence: Sequence[EvidenceView]) -> str:
    """Who proposed a fact: the AI tool whose words it cites (an MCP client), else the
    actor of its creation (``sleep``, ``agent``, ``user``, ``system``)."""
    for view in evidence:
        if view.source.endswith(MCP_SPEAKER):
            return view.source.removesuffix(MCP_SPEAKER)
    return actor


# (text, date, session id, source) of a cited item.
_Found = dict[tuple[str, int], tuple[str, datetime | None, int | None, str]]


class EvidenceReader:
    """Reads the items evidence (or a reply's memories) cite, through each tier's store.

    Args:
        messages: the messages store.
        episodes: the episodes store.
        archive: the documents store (for chunks and their document's title).
        events: the events store.
        facts: the facts store (facts may cite facts).
    """

    def __init__(
        self,
        messages: MessageStore,
        episodes: EpisodeStore,
        archive: ArchiveStore,
        events: EventStore,
        facts: FactStore,
    ) -> None:
        self._messages = messages
        self._episodes = episodes
        self._archive = archive
        self._events = events
        self._facts = facts

    def views(
        self,
        profile_id: int,
        evidence: Sequence[Evidence],
        *,
        fact_id: int | None = None,
        kept_at: datetime | None = None,
    ) -> tuple[EvidenceView, ...]:
        """Each piece of evidence with the text it cites.

        Evidence whose item is gone (forgotten, or in another profile) is kept and marked
        ``missing``, so a fact's provenance never silently shrinks. A fact ``fact_id``
        citing itself stands on the user's word: they kept it when its evidence was
        forgotten (at ``kept_at``), and it is shown so.
        """
        wanted: dict[str, list[int]] = {}
        for item in evidence:
            wanted.setdefault(item.kind, []).append(item.ref_id)
        found = self._load(profile_id, wanted)
        views = []
        for item in evidence:
            if item.kind == "fact" and item.ref_id == fact_id:
                views.append(EvidenceView("fact", fact_id, "", KEPT_TEXT, kept_at, None, YOURS))
                continue
            hit = found.get((item.kind, item.ref_id))
            if hit is None:
                views.append(
                    EvidenceView(item.kind, item.ref_id, item.quote, "", None, missing=True)
                )
            else:
                views.append(EvidenceView(item.kind, item.ref_id, item.quote, *hit))
        return tuple(views)

    def _load(self, pid: int, wanted: dict[str, list[int]]) -> _Found:
        found: _Found = {}
        for mid, m in self._messages.messages_by_id(wanted.get("message", []), pid).items():
            source = m.speaker or ("you said" if m.role == "user" else "Hippo said")
            found["message", mid] = (m.content, m.created_at, m.session_id, source)
        for eid, ep in self._episodes.get_many(wanted.get("episode", []), pid).items():
            text = f"{ep.title}: {ep.summary}" if ep.title else ep.summary
            found["episode", eid] = (text, ep.ended_at, ep.session_id, "episode")
        chunks = self._archive.get_chunks(wanted.get("chunk", []), pid)
        titles = {d.id: d.title or d.path for d in self._archive.documents(pid)} if chunks else {}
        for cid, chunk in chunks.items():
            title = titles.get(chunk.document_id, "document")
            found["chunk", cid] = (chunk.content, chunk.created_at, None, title)
        for vid, event in self._events.get_many(wanted.get("event", []), pid).items():
            found["event", vid] = (event.text, event.occurred_at, None, f"event ({event.source})")
        for fid in wanted.get("fact", []):
            try:
                fact = self._facts.get(fid, profile_id=pid)
            except NotFound:  # gone, or another profile's: shown as missing
                continue
            found["fact", fid] = (
                fact.statement,
                fact.learned_at,
                None,
                f"fact ({fact.source_kind})",
            )
        return found
