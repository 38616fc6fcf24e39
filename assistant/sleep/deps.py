"""What sleep receives: the data file, the stores, the gateway, the clock, the models.

Sleep never sees the engine. It is handed these (``assistant.sleep_wiring``), so data
flows one way (engine -> sleep -> stores) and sleep can be built and tested alone. The
stores only sleep uses (its marks, candidates, run records and lock) sleep builds itself
over the same data file, with `SleepDeps.conn`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from assistant.clock import Clock
from assistant.memory.records import Profile

if TYPE_CHECKING:
    from assistant.llm.backend import ChatBackend
    from assistant.memory.entities import EntityStore
    from assistant.memory.episodes import EpisodeStore
    from assistant.memory.facts import FactStore
    from assistant.memory.facts.sleep_reads import SleepFactReads
    from assistant.memory.messages import MessageStore
    from assistant.memory.retrieval import MemoryItem, Query
    from assistant.memory.sensory import EventStore
    from assistant.memory.sleep_candidates import CandidateStore
    from assistant.memory.sleep_marks import SleepMarks
    from assistant.memory.sleep_runs import LockTable, RunStore
    from assistant.memory.usage import UsageStore
    from assistant.memory.vectors import VectorStore
    from data_schema.connect import Database

__all__ = ["ModelView", "SleepDeps"]


@dataclass(frozen=True)
class ModelView:
    """What sleep needs to know of the models, as the engine knows them now.

    Attributes:
        chat: the chat model (sleep's, unless ``model`` under [sleep] names another).
        embedding: the embedding model (its vectors find facts similar to a candidate).
        context_tokens: the context window Hippo fills.
        window: the tokens Hippo fills for a model (fewer where the model reads fewer).
        capabilities: what a model can do (``thinking``, ``tools``...), empty if unknown.
        options: the Ollama options for calls to a model (its ``num_ctx``).
    """

    chat: str
    embedding: str
    context_tokens: int
    window: Callable[[str], int]
    capabilities: Callable[[str], frozenset[str]]
    options: Callable[[str], dict[str, int]]


@dataclass(frozen=True)
class SleepDeps:
    """Everything a sleep run uses, and nothing more.

    Attributes:
        db: the data file (its backup, integrity check and dry-run copy).
        gateway: the Ollama gateway.
        clock: the time source.
        profile: the profile the user works in (for what the user is told).
        messages: sessions and messages.
        facts: facts, their evidence and history.
        episodes: episodes.
        events: events from outside the chat.
        entities: entities and their links.
        vectors: the embeddings.
        usage: which memories went into which reply.
        retrieve: the retrieval over every tier (reflection's questions).
        models: the models and their windows.
        runs: the record of sleep runs.
        locks: the file's sleep lock.
        marks: which sessions are consolidated, and sleep's own state.
        candidates: fact candidates, rejections and dated items.
        fact_reads: what sleep reads of facts (similar ones, supersessions).
        copy: the same over a copy of the data file at a path, closed on exit (for a dry
            run, which must read as the real run would, with the same settings; no
            engine is built for it).
    """

    db: Database
    gateway: ChatBackend
    clock: Clock
    profile: Profile
    messages: MessageStore
    facts: FactStore
    episodes: EpisodeStore
    events: EventStore
    entities: EntityStore
    vectors: VectorStore
    usage: UsageStore
    retrieve: Callable[[Query], list[MemoryItem]]
    models: ModelView
    runs: RunStore
    locks: LockTable
    marks: SleepMarks
    candidates: CandidateStore
    fact_reads: SleepFactReads
    copy: Callable[[Path], AbstractContextManager[SleepDeps]]

    def conn(self) -> apsw.Connection:
        """The calling thread's connection to the data file."""
        return self.db.conn
