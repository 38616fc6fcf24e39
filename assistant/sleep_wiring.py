"""Building sleep from the engine's parts, and the same over a copy for a dry run.

Sleep never sees the engine (see ``assistant.sleep.deps``): it is handed the memory's
stores, the gateway and a view of the models. A dry run works on a copy of the data
file; ``SleepDeps.copy`` opens the memory over that copy here, with the settings and
the Ollama host of the running engine, so that the preview asks the model as the real
run would. No engine is built for it.
"""

from __future__ import annotations

import contextlib
import functools
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import apsw

from assistant.live_settings import LiveSettings
from assistant.memory.facts.sleep_reads import SleepFactReads
from assistant.memory.recall import Memory
from assistant.memory.sleep_candidates import CandidateStore
from assistant.memory.sleep_marks import SleepMarks
from assistant.memory.sleep_runs import LockTable, RunStore
from assistant.ollama_host import OllamaHost
from assistant.sleep.deps import ModelView, SleepDeps
from assistant.sleep.facade import Sleep
from assistant.wiring import open_memory
from data_schema.connect import Database

__all__ = ["build_sleep", "sleep_deps"]


def build_sleep(
    memory: Memory, host: OllamaHost, settings: LiveSettings, *, backup: bool = True
) -> Sleep:
    """The consolidation over ``memory``'s stores and the models as they are now, with the
    user's ``[sleep]`` settings unless a call names others; ``backup``: see ``Sleep``."""
    return Sleep(sleep_deps(memory, host, settings), settings=settings.sleep, backup=backup)


def sleep_deps(memory: Memory, host: OllamaHost, settings: LiveSettings) -> SleepDeps:
    """What a sleep run over ``memory`` uses (see ``SleepDeps``)."""
    turn = settings.turn
    models = ModelView(
        turn.chat_model,
        memory.embedder.model,
        turn.context_tokens,
        host.context_window,
        host.model_capabilities,
        host.model_options,
    )
    db = memory.db

    def conn() -> apsw.Connection:  # the calling thread's: one connection per thread
        return db.conn

    return SleepDeps(
        memory.db,
        host.gateway,
        memory.clock,
        memory.profile,
        memory.messages,
        memory.facts,
        memory.episodes,
        memory.events,
        memory.entities,
        memory.vectors,
        memory.usage,
        memory.retriever.retrieve,
        models,
        RunStore(conn),
        LockTable(conn),
        SleepMarks(conn, memory.clock),
        CandidateStore(conn, memory.clock),
        SleepFactReads(conn, memory.clock),
        functools.partial(_over_copy, memory, host, settings),
    )


@contextlib.contextmanager
def _over_copy(
    memory: Memory, host: OllamaHost, settings: LiveSettings, path: Path
) -> Iterator[SleepDeps]:
    """Sleep's dependencies over the copy of the data file at ``path``, closed on exit:
    the same profile, embedding model, retrieval weights, models and settings."""
    twin = open_memory(
        Database(path, memory.db.keys),
        host.gateway,
        embedding_model=memory.embedder.model,
        profile=memory.profile.name,
        clock=memory.clock,
        notices=deque(),  # a preview tells the user nothing of its own
        weights=memory.weights,
    )
    try:
        yield sleep_deps(twin, host, settings)
    finally:
        twin.db.close()
