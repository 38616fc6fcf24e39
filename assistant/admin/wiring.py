"""Building ``engine.admin``: each part gets only the stores and callables it uses.

This is the one place that knows both the engine and the admin parts; the parts know
neither the engine nor each other beyond what they are handed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
from assistant.memory.profile_data import Purge
from assistant.memory.sleep_candidates import CandidateStore
from assistant.memory.sleep_runs import RunStore

if TYPE_CHECKING:
    from assistant.engine import Hippo

__all__ = ["build_admin"]


def build_admin(engine: Hippo) -> MemoryAdmin:
    """The admin API over ``engine``'s stores, working in its current profile.

    The engine's methods are handed on as late-bound callables, so a part always calls
    what the engine has at that moment.
    """
    db, clock = engine.db, engine.clock
    conn = lambda: db.conn  # noqa: E731 - a getter: one connection per thread
    profile = lambda: engine.profile  # noqa: E731 - the profile may change (tests, imports)
    runs = RunStore(conn)
    evidence = EvidenceReader(
        engine.messages, engine.episodes, engine.archive, engine.events, engine.facts
    )
    forget = ForgetAdmin(Purge(conn, clock), engine.messages, profile, db.path, db.keys, clock)
    facts = FactsAdmin(
        facts=engine.facts,
        messages=engine.messages,
        usage=engine.usage,
        candidates=CandidateStore(conn, clock),
        evidence=evidence,
        forget=forget,
        nearest=lambda kind, query, limit: engine.nearest(kind, query, limit),
        weights=lambda: engine.retriever.weights,
        sessions=Sessions(
            lambda scope: engine.new_session(scope=scope),
            lambda session_id: engine.end_session(session_id),
            lambda: engine.wake(),
        ),
        atomic=conn,
        profile=profile,
        clock=clock,
    )
    return MemoryAdmin(
        facts=facts,
        review=ReviewAdmin(
            facts=facts,
            store=engine.facts,
            core=engine.core,
            proposals=engine.core_proposals,
            runs=runs,
            evidence=evidence,
            profile=profile,
        ),
        history=HistoryAdmin(engine.facts, engine.core, profile),
        forget=forget,
        export=ExportAdmin(conn, db.path, profile, lambda: engine.wake(), clock),
        activity=ActivityAdmin(
            messages=engine.messages,
            facts=engine.facts,
            episodes=engine.episodes,
            vectors=engine.vectors,
            runs=runs,
            conn=conn,
            data_file=db.path,
            profile=profile,
            clock=clock,
        ),
        browse=BrowseAdmin(
            messages=engine.messages,
            episodes=engine.episodes,
            events=engine.events,
            archive=engine.archive,
            core=engine.core,
            usage=engine.usage,
            evidence=evidence,
            search=lambda query, limit: engine.search_messages(query, limit=limit),
            profile=profile,
        ),
        storage=StorageAdmin(
            conn=conn, vectors=engine.vectors, data_file=db.path, in_use=lambda: engine.vector_key
        ),
        current_profile=profile,
        db=db,
    )
