"""What every store shares: the thread's connection, the clock, and id-list clauses."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import apsw

from assistant.clock import Clock

__all__ = ["Store", "ids_clause"]


class Store:
    """Base of the stores: SQL for one part of the data file in, dataclasses out.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for every timestamp written.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._conn = conn
        self._clock = clock


def ids_clause(ids: Sequence[int], profile_id: int | None = None) -> tuple[str, list[object]]:
    """``id IN (...)`` (and the profile, if given) with its parameters, for a WHERE."""
    where = f"id IN ({','.join('?' * len(ids))})"
    params: list[object] = list(ids)
    if profile_id is not None:
        where += " AND profile_id = ?"
        params.append(profile_id)
    return where, params
