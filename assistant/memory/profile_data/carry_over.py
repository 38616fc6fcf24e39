"""After a restore: the rows the replaced file holds that the backup does not, carried over.

A backup is older than the file it replaces: whatever was saved after it (an event,
a chat, a fact stated) lives only in the replaced file, which may be damaged. Each
table's rows with ids above the highest the restored file holds are read from the
replaced file and written into the restored one with their ids (no id above the
backup's is taken there yet, so references between them hold), then indexed and queued
for vectors as when they were first saved. What the damage keeps from being read is
counted, not guessed; a row whose parent did not come across is left behind and counted.

Carried: the records of what the user said and stored (profiles, sessions, messages,
events, documents and their chunks, facts with their evidence and history). Sleep's own
derived work (episodes, reflections) is made again by the next sleep run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import apsw

from assistant.clock import SystemClock
from assistant.memory.facts.table import index_statement
from assistant.memory.messages import MessageStore
from assistant.memory.textindex import index_text
from assistant.memory.vectors import enqueue
from data_schema.rows import scalar

__all__ = ["CarriedOver", "carry_over"]

# Parents first, so that each row's references are in place when it is written.
_CARRIED = (
    "profiles",
    "sessions",
    "messages",
    "events",
    "documents",
    "chunks",
    "facts",
    "fact_history",
)
_BATCH = 500


@dataclass
class CarriedOver:
    """What a carry-over brought across, per table, and what it could not."""

    rows: dict[str, int] = field(default_factory=dict)
    left: dict[str, int] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)

    def text(self) -> str:
        """In words, for the restore's receipt."""
        said = ", ".join(f"{n} {table}" for table, n in self.rows.items() if n)
        lines = [
            f"Carried over from it what the backup lacked: {said}."
            if said
            else "It held nothing newer than the backup."
        ]
        if self.left:
            left = ", ".join(f"{n} {table}" for table, n in self.left.items())
            lines.append(f"Left behind (their parent row could not be read): {left}.")
        if self.unreadable:
            where = "; ".join(f"{table}: {why}" for table, why in self.unreadable.items())
            lines.append(f"The damage kept some rows from being read ({where}).")
        return " ".join(lines)


def _columns(conn: apsw.Connection, table: str, schema: str = "main") -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA {schema}.table_info({table})")]


def _newer(
    old: apsw.Connection, table: str, cols: list[str], above: int
) -> Iterator[tuple[Any, ...]]:
    """The rows of ``table`` in the old file with ids above ``above``, in id order."""
    last = above
    while True:
        batch: list[tuple[Any, ...]] = old.execute(
            f"SELECT {', '.join(cols)} FROM {table} WHERE id > ? ORDER BY id LIMIT {_BATCH}",
            (last,),
        ).fetchall()
        if not batch:
            return
        yield from batch
        last = int(batch[-1][cols.index("id")])


def carry_over(new: apsw.Connection, old: apsw.Connection) -> CarriedOver:
    """Write into ``new`` (the restored file) the rows of ``old`` it lacks; index them.

    Args:
        new: the restored file, migrated (nothing else may write to it meanwhile).
        old: the file it replaced, read only.
    """
    done = CarriedOver()
    carried: dict[str, list[dict[str, Any]]] = {}
    with new:
        for table in _CARRIED:
            cols = [c for c in _columns(new, table) if c in set(_columns(old, table))]
            above = int(scalar(new, f"SELECT coalesce(max(id), 0) FROM {table}"))
            rows = carried.setdefault(table, [])
            try:
                for values in _newer(old, table, cols, above):
                    row = dict(zip(cols, values, strict=True))
                    if _write(new, table, row):
                        rows.append(row)
                    else:
                        done.left[table] = done.left.get(table, 0) + 1
            except apsw.Error as exc:  # the damage: what was read before it is kept
                done.unreadable[table] = f"{type(exc).__name__}: {str(exc)[:80]}"
            done.rows[table] = len(rows)
        _evidence(new, old, [row["id"] for row in carried["facts"]], done)
        _index(new, carried)
    return done


def _write(conn: apsw.Connection, table: str, row: dict[str, Any]) -> bool:
    """Insert ``row`` as it was; False where a reference of it did not come across."""
    names = list(row)
    try:
        with conn:  # a savepoint: one refused row leaves the rest
            conn.execute(
                f"INSERT INTO {table}({', '.join(names)}) VALUES ({','.join('?' * len(names))})",
                [row[name] for name in names],
            )
    except apsw.ConstraintError:
        return False
    return True


def _evidence(
    new: apsw.Connection, old: apsw.Connection, fact_ids: list[int], done: CarriedOver
) -> None:
    """The evidence rows of the carried facts (keyed by fact, not by an id of their own)."""
    cols = _columns(new, "fact_evidence")
    count = 0
    try:
        for fact_id in fact_ids:
            for values in old.execute(
                f"SELECT {', '.join(cols)} FROM fact_evidence WHERE fact_id = ?", (fact_id,)
            ).fetchall():
                count += _write(new, "fact_evidence", dict(zip(cols, values, strict=True)))
    except apsw.Error as exc:
        done.unreadable["fact_evidence"] = f"{type(exc).__name__}: {str(exc)[:80]}"
    done.rows["fact_evidence"] = count


def _index(conn: apsw.Connection, carried: dict[str, list[dict[str, Any]]]) -> None:
    """Index the carried rows for keyword search and queue them for vectors."""
    messages = MessageStore(lambda: conn, SystemClock())
    for row in carried["messages"]:
        with contextlib.suppress(KeyError):
            messages.update_message(
                row["id"],
                content=row["content"],
                thinking=row.get("thinking", ""),
                status=row["status"],
                error=row.get("error", ""),
            )
    for row in carried["events"]:
        conn.execute(
            "INSERT INTO events_fts(rowid, body) VALUES (?, ?)",
            (row["id"], index_text(row["text"])),
        )
        enqueue(conn, "event", row["id"], row["profile_id"])
    for row in carried["chunks"]:
        body = index_text(f"{row.get('heading', '')}\n{row['content']}")
        conn.execute("INSERT INTO chunks_fts(rowid, body) VALUES (?, ?)", (row["id"], body))
        enqueue(conn, "chunk", row["id"], row["profile_id"])
    for row in carried["facts"]:
        index_statement(conn, row["id"], row["profile_id"], row["statement"])
