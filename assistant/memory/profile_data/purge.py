"""`Purge`: the planning, carrying out and housekeeping of forgets over one connection.

The admin's forget composes this; it holds no SQL itself. One `Purge` works on the data
file, another (`Purge.opened`) on each backup a forget scrubs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from assistant.clock import Clock
from assistant.memory.profile_data.purge_find import PurgeFinder
from assistant.memory.profile_data.purge_plan import PlanBuilder, PurgePlan
from assistant.memory.profile_data.purge_run import PurgeRunner, housekeep
from assistant.memory.profile_data.purge_select import PlanSelector
from assistant.memory.profiles import ProfileStore

if TYPE_CHECKING:
    from data_schema.cipher import KeySource

__all__ = ["Purge"]


class Purge:
    """Plans (by text, sessions or items) and carries out forgets in one file.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._conn = conn
        self.plans = PlanBuilder(conn)
        self.selector = PlanSelector(self.plans)
        self.finder = PurgeFinder(conn, self.plans)
        self._runner = PurgeRunner(conn, clock)
        self._profiles = ProfileStore(conn, clock)

    @classmethod
    @contextmanager
    def opened(cls, path: Path, keys: KeySource | None, clock: Clock) -> Iterator[Purge]:
        """A `Purge` over another file (a backup, which has the data file's key), closed after."""
        from data_schema.connect import connect

        conn = connect(path, keys=keys)
        try:
            yield cls(lambda: conn, clock)
        finally:
            conn.close()

    def profiles(self) -> list[tuple[int, str]]:
        """(id, name) of every profile, in the order they were made."""
        return [(p.id, p.name) for p in self._profiles.all()]

    def profile_id(self, name: str) -> int | None:
        """The id of the profile called ``name`` in this file, or None."""
        return self._profiles.find(name)

    def run(self, plan: PurgePlan, profile_id: int) -> tuple[dict[str, int], int, int]:
        """Carry a plan out (see `PurgeRunner.run`): rows per tier, vectors, index rows."""
        return self._runner.run(plan, profile_id)

    def housekeep(self) -> tuple[str, ...]:
        """Scrub deleted text from the file's bytes (see `purge_run.housekeep`)."""
        return housekeep(self._conn())
