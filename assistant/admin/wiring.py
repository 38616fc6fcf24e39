"""Building ``engine.admin``: each part gets only the stores and callables it uses.

This is the one place that knows both the engine's memory and the admin parts; the
parts know neither the engine nor each other beyond what they are handed, and this
module does not know the engine either: it is handed the parts it wires.
"""

from __future__ import annotations

from collections.abc import Callable

from assistant.admin import (
    ActivityAdmin,
    BrowseAdmin,
    ExportAdmin,
    FactsAdmin,
    ForgetAdmin,
    HistoryAdmin,
    MemoryAdmin,
    ReviewAdmin,
    StorageAdmin,
)
from assistant.admin.facts import Sessions
from assistant.admin.provenance import EvidenceReader
from assistant.conversations import Conversations
from assistant.memory.core_follow import CoreFollows
from assistant.memory.profile_data import Purge
from assistant.memory.recall import Memory
from assistant.memory.sleep_candidates import CandidateStore
from assistant.memory.sleep_runs import RunStore

__all__ = ["build_admin"]


def build_admin(
    memory: Memory, conversations: Conversations, wake: Callable[[], None]
) -> MemoryAdmin:
    """The admin API over ``memory``'s stores, working in its current profile.

    Args:
        memory: the stores, retrieval and search of the profile worked in.
        conversations: starts and ends the sessions an import or a note needs.
        wake: wakes the background work (new text to embed).
    """
    db, clock = memory.db, memory.clock
    conn = lambda: db.conn  # noqa: E731 - a getter: one connection per thread
    profile = lambda: memory.profile  # noqa: E731 - the profile may change (tests, imports)
    runs = RunStore(conn)
    evidence = EvidenceReader(
        memory.messages, memory.episodes, memory.archive, memory.events, memory.facts
    )
    forget = ForgetAdmin(Purge(conn, clock), memory.messages, profile, db.path, db.keys, clock)
    facts = FactsAdmin(
        facts=memory.facts,
        messages=memory.messages,
        usage=memory.usage,
        candidates=CandidateStore(conn, clock),
        evidence=evidence,
        forget=forget,
        nearest=memory.nearest,
        weights=lambda: memory.weights,
        sessions=Sessions(
            lambda scope: conversations.new_session(scope=scope),
            conversations.end_session,
            wake,
        ),
        atomic=conn,
        profile=profile,
        clock=clock,
        follows=CoreFollows(memory.core, memory.core_proposals),
    )
    return MemoryAdmin(
        facts=facts,
        review=ReviewAdmin(
            facts=facts,
            store=memory.facts,
            core=memory.core,
            proposals=memory.core_proposals,
            runs=runs,
            evidence=evidence,
            profile=profile,
        ),
        history=HistoryAdmin(memory.facts, memory.core, profile),
        forget=forget,
        export=ExportAdmin(conn, db.path, profile, wake, clock),
        activity=ActivityAdmin(
            messages=memory.messages,
            facts=memory.facts,
            episodes=memory.episodes,
            vectors=memory.vectors,
            runs=runs,
            conn=conn,
            data_file=db.path,
            profile=profile,
            clock=clock,
        ),
        browse=BrowseAdmin(
            messages=memory.messages,
            episodes=memory.episodes,
            events=memory.events,
            archive=memory.archive,
            core=memory.core,
            usage=memory.usage,
            evidence=evidence,
            search=lambda query, limit: memory.search_messages(query, limit=limit),
            profile=profile,
        ),
        storage=StorageAdmin(
            conn=conn,
            vectors=memory.vectors,
            data_file=db.path,
            in_use=lambda: memory.embedder.vector_key,
        ),
        current_profile=profile,
        db=db,
    )
