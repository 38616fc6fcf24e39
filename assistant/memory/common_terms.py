"""Which query terms are too common in a keyword index to rank by.

BM25 reads every matching row, so a word in a large share of an index ("today",
"about"; or "committee" in every chunk of a pasted 50 MB report) costs tens or hundreds
of ms while adding little (its IDF is low). Such words are left out of the search where
rarer ones remain, and still count in coverage. Small indexes keep every term. The
stores of messages and of chunks each hold one, over their own FTS5 table.
"""

from __future__ import annotations

import time

import apsw

from data_schema.rows import scalar

__all__ = ["COMMON_MIN", "COMMON_SHARE", "CommonTerms"]

COMMON_SHARE = 0.05
"""A term in more than this share of an index's rows (and at least `COMMON_MIN`) is common."""
COMMON_MIN = 2_000
# How long a term's commonness is trusted before it is counted again (seconds): a
# count costs ~1 ms at 100k rows, and the same words come back query after query.
_TTL = 600.0
_KEPT = 10_000


class CommonTerms:
    """Counts, and remembers for a while, how common each term is in one FTS5 table.

    Args:
        index: the FTS5 table (a fixed name, never input).
        table: the table it indexes, whose largest id stands for its size.
        share: see `COMMON_SHARE`.
        minimum: see `COMMON_MIN`.

    Thread safety: the remembered counts are a dict replaced entry by entry; a count
    made twice by two threads at once is harmless.
    """

    def __init__(
        self, index: str, table: str, share: float = COMMON_SHARE, minimum: int = COMMON_MIN
    ) -> None:
        self._index, self._table = index, table
        self._share, self._minimum = share, minimum
        self._known: dict[str, tuple[bool, float]] = {}

    def common(self, conn: apsw.Connection, term: str) -> bool:
        """Whether ``term`` is in so many rows that ranking by it costs more than it tells."""
        now = time.monotonic()
        known = self._known.get(term)
        if known is not None and now - known[1] < _TTL:
            return known[0]
        last = scalar(conn, f"SELECT coalesce(max(id), 0) FROM {self._table}")
        cap = max(self._minimum, int(last * self._share))
        if last <= cap:
            return False
        count: int = scalar(
            conn,
            f"SELECT count(*) FROM (SELECT 1 FROM {self._index} WHERE {self._index} MATCH ?"
            " LIMIT ?)",
            ('"' + term.replace('"', '""') + '"', cap + 1),
        )
        if len(self._known) > _KEPT:
            self._known.clear()
        self._known[term] = (count > cap, now)
        return count > cap
