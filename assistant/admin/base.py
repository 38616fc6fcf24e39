"""What every part of `MemoryAdmin` shares: the engine, the current profile, the stores."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.admin.fact_queries import FactQueries
from assistant.memory.models import Profile
from assistant.sleep.candidates import CandidateStore

if TYPE_CHECKING:
    from assistant.engine import Hippo

__all__ = ["AdminBase"]


class AdminBase:
    """The engine and the stores the admin mixins use; every call works in one profile.

    Args:
        engine: the engine whose current profile is inspected and changed.
    """

    def __init__(self, engine: Hippo) -> None:
        self._engine = engine
        conn = lambda: engine.db.conn  # noqa: E731 - a getter: one connection per thread
        self._conn = conn
        self._queries = FactQueries(conn)
        self._candidates = CandidateStore(conn, engine.clock)

    @property
    def engine(self) -> Hippo:
        """The engine this admin works on."""
        return self._engine

    @property
    def profile(self) -> Profile:
        """The profile every call reads and changes (the engine's current one)."""
        return self._engine.profile

    @property
    def _pid(self) -> int:
        return self._engine.profile.id
