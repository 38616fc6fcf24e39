"""Carrying out a `PurgePlan` in one transaction, then the housekeeping that scrubs the file.

Deleting a row is not enough for a forget: FTS5 keeps deleted terms in its segments
until they are merged, SQLite keeps freed pages (with their old bytes) until a VACUUM,
and the write-ahead log keeps old page images until a checkpoint. So after the delete,
`housekeep` runs FTS5 ``optimize`` on every keyword index, checkpoints and truncates
the WAL, VACUUMs, and truncates the WAL again. Deletes also run with ``secure_delete``
on, so freed content is zeroed even if the VACUUM can't run (the file busy elsewhere).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import apsw

from assistant.clock import Clock, to_iso
from assistant.memory.facts import FactStore
from assistant.memory.messages import MessageStore
from assistant.memory.profile_data.purge_plan import (
    KINDS,
    PurgePlan,
    chunks,
    marks,
    mentions,
    vector_tables,
)
from data_schema.rows import one, scalar

__all__ = ["FTS_TABLES", "KEPT_ACTION", "PurgeRunner", "housekeep"]

KEPT_ACTION = "keep"
"""The history action of a fact the user kept while forgetting its evidence."""

FTS_TABLES = ("messages_fts", "episodes_fts", "facts_fts", "chunks_fts", "events_fts")
_TITLE_CHARS = 60


def housekeep(conn: apsw.Connection) -> tuple[str, ...]:
    """Scrub deleted text from the file: FTS optimize, WAL checkpoint, VACUUM; say what ran.

    Another connection reading at that moment can keep the VACUUM or the WAL truncation
    from running; the receipt then says so (deleted content was zeroed all the same).
    """
    done = []
    for table in FTS_TABLES:
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
    done.append("keyword indexes optimized")
    try:
        conn.execute("VACUUM")
        done.append("file vacuumed")
    except (apsw.BusyError, apsw.LockedError, apsw.SQLError) as exc:
        done.append(f"VACUUM postponed ({exc}); freed space was zeroed")
    (busy, *_) = one(conn, "PRAGMA wal_checkpoint(TRUNCATE)")
    done.append(
        "write-ahead log truncated"
        if not busy
        else "write-ahead log kept: another connection is reading (forget again when idle)"
    )
    return tuple(done)


@contextmanager
def _secure_delete(conn: apsw.Connection) -> Iterator[None]:
    before = scalar(conn, "PRAGMA secure_delete")
    conn.execute("PRAGMA secure_delete = ON")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA secure_delete = {int(before)}")


class PurgeRunner:
    """Deletes and rewrites what a plan lists, for one profile, in one transaction.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source (for rewritten core blocks).
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._conn = conn
        self._clock = clock
        self._messages = MessageStore(conn, clock)
        self._facts = FactStore(conn, clock)

    def run(self, plan: PurgePlan, profile_id: int) -> tuple[dict[str, int], int, int]:
        """Carry the plan out; return (rows per tier, vector rows, keyword index rows)."""
        conn = self._conn()
        counts: dict[str, int] = {}
        with _secure_delete(conn):
            conn.execute("BEGIN IMMEDIATE")
            try:
                vectors = self._vectors(conn, plan)
                self._side_rows(conn, plan, profile_id, counts)
                index_rows = self._items(conn, plan, profile_id, counts)
                self._sleep_rows(conn, plan, profile_id, counts)
                vectors += self._reindex_neighbours(conn, plan)
                index_rows += len(plan.neighbours)
                self._vouch(conn, plan.vouched)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        return {k: v for k, v in counts.items() if v}, vectors, index_rows

    def _vouch(self, conn: apsw.Connection, facts: Iterable[int]) -> None:
        """Record the user's choice as the evidence of kept facts that lost all theirs.

        The fact cites itself ("on the user's word") and its history says when it was
        kept; neither names what was forgotten, which would bring the words back.
        """
        for fact_id in sorted(facts):
            before = self._facts.reader.row(conn, fact_id)
            if before is None:
                continue
            conn.execute(
                "INSERT OR IGNORE INTO fact_evidence(fact_id, kind, ref_id, quote)"
                " VALUES (?, 'fact', ?, '')",
                (fact_id, fact_id),
            )
            after = {**before, "kept": "by you, when what it was drawn from was forgotten"}
            self._facts.changes.record(conn, fact_id, "user", KEPT_ACTION, before, after)

    def _exec(self, conn: apsw.Connection, sql: str, ids: Iterable[int], *before: object) -> int:
        """Run ``sql`` once per slice of ``ids`` (its IN list is ``{}``); rows changed."""
        changed = 0
        for part in chunks(ids):
            conn.execute(sql.format(marks(part)), (*before, *part))
            changed += conn.changes()
        return changed

    def _vectors(self, conn: apsw.Connection, plan: PurgePlan) -> int:
        removed = 0
        tables = vector_tables(conn)
        for kind, ids in plan.items.items():
            for table in tables.get(kind, []):
                removed += self._exec(conn, f"DELETE FROM {table} WHERE item_id IN ({{}})", ids)
        return removed

    def _side_rows(
        self, conn: apsw.Connection, plan: PurgePlan, pid: int, counts: dict[str, int]
    ) -> None:
        now = to_iso(self._clock.now())
        for label, value in plan.core.items():
            conn.execute(
                "UPDATE core_blocks SET value = ?, updated_at = ?"
                " WHERE profile_id = ? AND label = ?",
                (value, now, pid, label),
            )
        counts["core"] = len(plan.core) + self._exec(
            conn,
            "DELETE FROM core_proposals WHERE profile_id = ? AND id IN ({})",
            plan.core_proposals,
            pid,
        )
        conn.executemany(
            "DELETE FROM fact_evidence WHERE fact_id = ? AND kind = ? AND ref_id = ?",
            sorted(plan.evidence),
        )
        counts["evidence"] = len(plan.evidence)
        counts["history"] = self._exec(
            conn, "DELETE FROM fact_history WHERE id IN ({})", plan.fact_history
        ) + self._exec(
            conn,
            "DELETE FROM core_block_history WHERE profile_id = ? AND id IN ({})",
            plan.core_history,
            pid,
        )
        for kind, ids in plan.items.items():
            self._exec(
                conn, "DELETE FROM reply_memories WHERE kind = ? AND item_id IN ({})", ids, kind
            )
            self._exec(
                conn, "DELETE FROM entity_links WHERE kind = ? AND item_id IN ({})", ids, kind
            )
        counts["entities"] = self._exec(
            conn, "DELETE FROM entities WHERE profile_id = ? AND id IN ({})", plan.entities, pid
        )

    def _items(
        self, conn: apsw.Connection, plan: PurgePlan, pid: int, counts: dict[str, int]
    ) -> int:
        index_rows = 0
        for kind, table in KINDS.items():
            n = self._exec(
                conn,
                f"DELETE FROM {table} WHERE profile_id = ? AND id IN ({{}})",
                plan.items[kind],
                pid,
            )
            counts[table] = n
            index_rows += n
        counts["documents"] = self._exec(
            conn, "DELETE FROM documents WHERE profile_id = ? AND id IN ({})", plan.documents, pid
        )
        self._exec(
            conn,
            "DELETE FROM sleep_marks WHERE profile_id = ? AND item_id IN ({})",
            plan.sessions,
            pid,
        )
        counts["sessions"] = self._exec(
            conn, "DELETE FROM sessions WHERE profile_id = ? AND id IN ({})", plan.sessions, pid
        )
        for sid in plan.redact_sessions:
            counts["sessions"] += self._redact_session(conn, sid, plan.needle)
        return index_rows

    def _redact_session(self, conn: apsw.Connection, sid: int, needle: str) -> int:
        title, summary = one(conn, "SELECT title, summary FROM sessions WHERE id = ?", (sid,))
        if mentions(title, needle):
            first = conn.execute(
                "SELECT content FROM messages WHERE session_id = ? AND role = 'user'"
                " ORDER BY id LIMIT 1",
                (sid,),
            ).fetchone()
            line = " ".join(first[0].split()) if first else ""
            title = line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1] + "…"
        if mentions(summary, needle):
            conn.execute("UPDATE sessions SET summary = '', summary_upto = 0 WHERE id = ?", (sid,))
        conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, sid))
        return 1

    def _sleep_rows(
        self, conn: apsw.Connection, plan: PurgePlan, pid: int, counts: dict[str, int]
    ) -> None:
        sleep = self._exec(conn, "DELETE FROM dated_items WHERE id IN ({})", plan.dated)
        sleep += self._exec(conn, "DELETE FROM sleep_candidates WHERE id IN ({})", plan.candidates)
        for print_ in plan.rejections:
            conn.execute(
                "DELETE FROM sleep_rejections WHERE profile_id = ? AND fingerprint = ?",
                (pid, print_),
            )
            sleep += conn.changes()
        for key in plan.state_keys:
            conn.execute("DELETE FROM sleep_state WHERE profile_id = ? AND key = ?", (pid, key))
            sleep += conn.changes()
        for run_id in plan.runs:
            sleep += self._scrub_run(conn, run_id, pid, plan.needle)
        counts["sleep"] = sleep

    def _scrub_run(self, conn: apsw.Connection, run_id: int, pid: int, needle: str) -> int:
        """Drop this profile's proposals that mention it from a run report; blank such errors.

        Run reports are not per profile, so errors (which name no profile) are redacted in
        place rather than deleted, and other profiles' proposals are left alone.
        """
        proposals, errors = one(
            conn, "SELECT proposals, errors FROM sleep_runs WHERE id = ?", (run_id,)
        )
        kept = [
            p
            for p in json.loads(proposals)
            if p.get("profile_id") != pid or not mentions(json.dumps(p, ensure_ascii=False), needle)
        ]
        lines = [("(forgotten)" if mentions(e, needle) else e) for e in json.loads(errors)]
        conn.execute(
            "UPDATE sleep_runs SET proposals = ?, errors = ? WHERE id = ?",
            (json.dumps(kept, ensure_ascii=False), json.dumps(lines, ensure_ascii=False), run_id),
        )
        return 1

    def _reindex_neighbours(self, conn: apsw.Connection, plan: PurgePlan) -> int:
        """Re-index and re-queue the messages whose neighbour text went (their vectors too)."""
        found = self._messages.messages_by_id(sorted(plan.neighbours))
        for message in found.values():
            self._messages.update_message(
                message.id,
                content=message.content,
                thinking=message.thinking,
                status=message.status,
                error=message.error,
            )
        stale = PurgePlan()
        stale.items["message"] = set(found)
        return self._vectors(conn, stale)
