"""Writing an export into a new profile: rows with fresh ids, then their indexes and queues.

Everything happens in one ``BEGIN IMMEDIATE`` transaction: the ids are chosen above every
id the file ever handed out (``sqlite_sequence``), so none is reused, and a damaged
export leaves the file unchanged. Imported sessions keep sleep's progress marks, so
sleep does not summarise again what the export already holds as episodes and facts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import apsw

from assistant.clock import Clock
from assistant.errors import InvalidInput
from assistant.memory.facts.table import index_statement
from assistant.memory.messages import MessageStore
from assistant.memory.profile_data.portable import rank_maps, rewrite
from assistant.memory.records import Profile
from assistant.memory.textindex import index_text
from assistant.memory.vectors import enqueue
from data_schema.rows import scalar

__all__ = ["Restorer"]

_TABLES = {
    "session": "sessions",
    "message": "messages",
    "episode": "episodes",
    "fact": "facts",
    "fact_change": "fact_history",
    "document": "documents",
    "chunk": "chunks",
    "event": "events",
    "entity": "entities",
    "core_change": "core_block_history",
    "dated": "dated_items",
}


def _insert(conn: apsw.Connection, table: str, row: dict[str, Any]) -> None:
    names = list(row)
    conn.execute(
        f"INSERT INTO {table}({', '.join(names)}) VALUES ({','.join('?' * len(names))})",
        [row[name] for name in names],
    )


class Restorer:
    """Restores an export into a new profile of the file.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], clock: Clock) -> None:
        self._conn = conn
        self._messages = MessageStore(conn, clock)

    def restore(self, data: dict[str, Any], name: str) -> tuple[Profile, dict[str, int], list[str]]:
        """Write ``data`` as the new profile ``name``; return it, counts and warnings.

        Raises:
            HippoError: a profile called ``name`` exists already.
        """
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM profiles WHERE name = ?", (name,)).fetchone():
                raise InvalidInput(
                    f"There is already a profile called {name!r}, and an import never "
                    "writes into one: import into a new name (`hippo profile import FILE "
                    "NEW-NAME`; `hippo profile list` shows the names taken). Nothing was "
                    "imported."
                )
            conn.execute(
                "INSERT INTO profiles(name, created_at) VALUES (?, ?)",
                (name, data["profile"]["created_at"]),
            )
            pid = conn.last_insert_rowid()
            maps = rank_maps(data, lambda kind: self._base(conn, _TABLES[kind]))
            rows, dropped = rewrite(data, maps, pid)
            counts = self._write(conn, pid, rows)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return Profile(pid, name), counts, dropped

    @staticmethod
    def _base(conn: apsw.Connection, table: str) -> int:
        """The highest id the table ever handed out (new ids go above it)."""
        row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)).fetchone()
        top: int = scalar(conn, f"SELECT coalesce(max(id), 0) FROM {table}")
        seq: int = row[0] if row else 0
        return max(top, seq)

    def _write(self, conn: apsw.Connection, pid: int, data: dict[str, Any]) -> dict[str, int]:
        self._sessions(conn, pid, data["sessions"])
        self._core(conn, pid, data["core"])
        self._episodes(conn, pid, data["episodes"])
        self._documents(conn, pid, data["documents"])
        for event in data["events"]:
            _insert(conn, "events", {**event, "profile_id": pid})
            conn.execute(
                "INSERT INTO events_fts(rowid, body) VALUES (?, ?)",
                (event["id"], index_text(event["text"])),
            )
            enqueue(conn, "event", event["id"], pid)
        self._facts(conn, pid, data["facts"])
        self._links(conn, pid, data)
        return {
            "sessions": len(data["sessions"]),
            "messages": sum(len(s["messages"]) for s in data["sessions"]),
            "episodes": len(data["episodes"]),
            "facts": len(data["facts"]),
            "documents": len(data["documents"]),
            "chunks": sum(len(d["chunks"]) for d in data["documents"]),
            "events": len(data["events"]),
            "entities": len(data["entities"]),
        }

    def _sessions(self, conn: apsw.Connection, pid: int, sessions: list[dict[str, Any]]) -> None:
        for session in sessions:
            row = {k: v for k, v in session.items() if k not in ("messages", "sleep_marks")}
            _insert(conn, "sessions", {**row, "profile_id": pid})
            for message in session["messages"]:
                _insert(conn, "messages", {**message, "profile_id": pid, "session_id": row["id"]})
            for mark in session["sleep_marks"]:
                _insert(conn, "sleep_marks", {**mark, "item_id": row["id"], "profile_id": pid})
        for session in sessions:
            for message in session["messages"]:
                self._reindex(conn, message)

    def _reindex(self, conn: apsw.Connection, message: dict[str, Any]) -> None:
        """Index a message with its neighbours and queue its vector (through its store)."""
        self._messages.update_message(
            message["id"],
            content=message["content"],
            thinking=message["thinking"],
            status=message["status"],
            error=message["error"],
        )
        conn.execute(
            "UPDATE messages SET tokens = ? WHERE id = ?", (message["tokens"], message["id"])
        )

    def _core(self, conn: apsw.Connection, pid: int, core: dict[str, list[dict[str, Any]]]) -> None:
        for block in core["blocks"]:
            _insert(conn, "core_blocks", {**block, "profile_id": pid})
        for change in core["history"]:
            _insert(conn, "core_block_history", {**change, "profile_id": pid})

    def _episodes(self, conn: apsw.Connection, pid: int, episodes: list[dict[str, Any]]) -> None:
        for episode in episodes:
            row = {k: v for k, v in episode.items() if k != "message_ids"}
            row["topics"] = json.dumps(episode["topics"], ensure_ascii=False)
            _insert(conn, "episodes", {**row, "profile_id": pid})
            conn.executemany(
                "INSERT INTO episode_messages(episode_id, message_id) VALUES (?, ?)",
                [(episode["id"], mid) for mid in episode["message_ids"]],
            )
            body = "\n".join((episode["title"], episode["summary"], " ".join(episode["topics"])))
            conn.execute(
                "INSERT INTO episodes_fts(rowid, body) VALUES (?, ?)",
                (episode["id"], index_text(body)),
            )
            enqueue(conn, "episode", episode["id"], pid)

    def _documents(self, conn: apsw.Connection, pid: int, documents: list[dict[str, Any]]) -> None:
        for document in documents:
            row = {k: v for k, v in document.items() if k != "chunks"}
            _insert(conn, "documents", {**row, "profile_id": pid})
            for chunk in document["chunks"]:
                _insert(conn, "chunks", {**chunk, "profile_id": pid, "document_id": row["id"]})
                conn.execute(
                    "INSERT INTO chunks_fts(rowid, body) VALUES (?, ?)",
                    (chunk["id"], index_text(f"{chunk['heading']}\n{chunk['content']}")),
                )
                enqueue(conn, "chunk", chunk["id"], pid)

    def _facts(self, conn: apsw.Connection, pid: int, facts: list[dict[str, Any]]) -> None:
        for fact in facts:
            row = {k: v for k, v in fact.items() if k not in ("evidence", "history")}
            _insert(conn, "facts", {**row, "superseded_by": None, "profile_id": pid})
            for item in fact["evidence"]:
                _insert(conn, "fact_evidence", {**item, "fact_id": fact["id"]})
            for change in fact["history"]:
                states = {
                    s: json.dumps(change[s], ensure_ascii=False) if change[s] else None
                    for s in ("before", "after")
                }
                _insert(conn, "fact_history", {**change, **states, "fact_id": fact["id"]})
            index_statement(conn, fact["id"], pid, fact["statement"])
        for fact in facts:
            if fact["superseded_by"] is not None:
                conn.execute(
                    "UPDATE facts SET superseded_by = ? WHERE id = ?",
                    (fact["superseded_by"], fact["id"]),
                )

    def _links(self, conn: apsw.Connection, pid: int, data: dict[str, Any]) -> None:
        for entity in data["entities"]:
            row = {k: v for k, v in entity.items() if k != "links"}
            _insert(conn, "entities", {**row, "profile_id": pid})
            for link in entity["links"]:
                _insert(conn, "entity_links", {**link, "entity_id": entity["id"]})
        for use in data["memories_used"]:
            _insert(conn, "reply_memories", use)
        for item in data["dated_items"]:
            _insert(conn, "dated_items", {**item, "profile_id": pid})
        self._sleep_state(conn, pid, data)

    @staticmethod
    def _sleep_state(conn: apsw.Connection, pid: int, data: dict[str, Any]) -> None:
        """Mark what the export holds as consolidated, so sleep does not redo it."""
        state = dict(data["sleep_state"])
        tops = {
            "linked_fact_upto": max((f["id"] for f in data["facts"]), default=0),
            "linked_episode_upto": max((e["id"] for e in data["episodes"]), default=0),
            "usage_upto": max((u["message_id"] for u in data["memories_used"]), default=0),
        }
        state.update({key: str(value) for key, value in tops.items() if value})
        conn.executemany(
            "INSERT INTO sleep_state(profile_id, key, value) VALUES (?, ?, ?)",
            [(pid, key, value) for key, value in state.items()],
        )
