"""Reading one profile out of the file, completely, as plain JSON-able dicts (raw ids).

`portable.py` then renumbers the ids, so an export names no internal row id.
Incognito sessions are left out: they keep nothing after the session.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import apsw

__all__ = ["FORMAT", "VERSION", "Dumper"]

FORMAT = "hippo-export"
VERSION = 1

_MESSAGE = (
    "id, role, content, thinking, status, error, model, created_at, tokens, importance,"
    " speaker, source_id, recalled, last_accessed_at, origin"
)
_FACT = (
    "id, statement, subject, predicate, scope, source_kind, confidence, importance, status,"
    " valid_from, valid_to, learned_at, last_accessed_at, access_count, pinned, superseded_by,"
    " depth"
)


class Dumper:
    """Reads everything of one profile.

    Args:
        conn: returns the calling thread's connection.
    """

    def __init__(self, conn: Callable[[], apsw.Connection]) -> None:
        self._conn = conn

    def _dicts(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        cursor = self._conn().cursor()
        cursor.execute(sql, list(params))
        try:
            names = [d[0] for d in cursor.getdescription()]
        except apsw.ExecutionCompleteError:  # no rows
            return []
        return [dict(zip(names, row, strict=True)) for row in cursor]

    def dump(self, profile_id: int) -> dict[str, Any]:
        """The profile's whole memory, with the file's own ids."""
        profile = self._dicts("SELECT name, created_at FROM profiles WHERE id = ?", [profile_id])
        return {
            "profile": profile[0],
            "sessions": self.sessions(profile_id),
            "core": self.core(profile_id),
            "facts": self.facts(profile_id),
            "episodes": self.episodes(profile_id),
            "documents": self.documents(profile_id),
            "events": self._dicts(
                "SELECT id, text, source, occurred_at, expires_at, importance, consolidated_at,"
                " created_at, last_accessed_at FROM events WHERE profile_id = ? ORDER BY id",
                [profile_id],
            ),
            "entities": self.entities(profile_id),
            "memories_used": self._dicts(
                "SELECT r.message_id, r.kind, r.item_id, r.section, r.rank, r.score, r.relevance,"
                " r.recency, r.importance FROM reply_memories r JOIN messages m"
                " ON m.id = r.message_id JOIN sessions s ON s.id = m.session_id"
                " WHERE m.profile_id = ? AND s.incognito = 0"
                " ORDER BY r.message_id, r.rank, r.kind, r.item_id",
                [profile_id],
            ),
            "dated_items": self._dicts(
                "SELECT id, episode_id, message_id, text, phrase, due_on, status, created_at"
                " FROM dated_items WHERE profile_id = ? ORDER BY id",
                [profile_id],
            ),
            "sleep_state": {
                row["key"]: row["value"]
                for row in self._dicts(
                    "SELECT key, value FROM sleep_state WHERE profile_id = ?"
                    " AND key = 'reflected_at'",
                    [profile_id],
                )
            },
        }

    def sessions(self, profile_id: int) -> list[dict[str, Any]]:
        """Kept sessions with their messages and sleep's progress marks."""
        sessions = self._dicts(
            "SELECT id, title, scope, started_at, last_active_at, ended_at, summary, summary_upto"
            " FROM sessions WHERE profile_id = ? AND incognito = 0 ORDER BY id",
            [profile_id],
        )
        for session in sessions:
            session["messages"] = self._dicts(
                f"SELECT {_MESSAGE} FROM messages WHERE session_id = ? ORDER BY id",
                [session["id"]],
            )
            session["sleep_marks"] = self._dicts(
                "SELECT step, upto, attempts, state, at FROM sleep_marks"
                " WHERE item_id = ? AND profile_id = ? ORDER BY step",
                [session["id"], profile_id],
            )
        return sessions

    def core(self, profile_id: int) -> dict[str, list[dict[str, Any]]]:
        """Core blocks and their change history."""
        return {
            "blocks": self._dicts(
                "SELECT label, value, char_limit, updated_at FROM core_blocks"
                " WHERE profile_id = ? ORDER BY label",
                [profile_id],
            ),
            "history": self._dicts(
                "SELECT id, label, before, after, actor, at FROM core_block_history"
                " WHERE profile_id = ? ORDER BY id",
                [profile_id],
            ),
        }

    def facts(self, profile_id: int) -> list[dict[str, Any]]:
        """Facts with their evidence and history."""
        facts = self._dicts(
            f"SELECT {_FACT} FROM facts WHERE profile_id = ? ORDER BY id", [profile_id]
        )
        for fact in facts:
            fact["pinned"] = bool(fact["pinned"])
            fact["evidence"] = self._dicts(
                "SELECT kind, ref_id, quote FROM fact_evidence WHERE fact_id = ?"
                " ORDER BY kind, ref_id",
                [fact["id"]],
            )
            history = self._dicts(
                "SELECT id, actor, action, before, after, at FROM fact_history"
                " WHERE fact_id = ? ORDER BY id",
                [fact["id"]],
            )
            for change in history:
                for side in ("before", "after"):
                    change[side] = json.loads(change[side]) if change[side] else None
            fact["history"] = history
        return facts

    def episodes(self, profile_id: int) -> list[dict[str, Any]]:
        """Episodes with the ids of the messages they summarise."""
        episodes = self._dicts(
            "SELECT id, session_id, title, summary, topics, scope, importance, started_at,"
            " ended_at, created_at, last_accessed_at FROM episodes WHERE profile_id = ?"
            " ORDER BY id",
            [profile_id],
        )
        for episode in episodes:
            episode["topics"] = json.loads(episode["topics"])
            episode["message_ids"] = [
                row["message_id"]
                for row in self._dicts(
                    "SELECT message_id FROM episode_messages WHERE episode_id = ?"
                    " ORDER BY message_id",
                    [episode["id"]],
                )
            ]
        return episodes

    def documents(self, profile_id: int) -> list[dict[str, Any]]:
        """Documents with their chunks."""
        documents = self._dicts(
            "SELECT id, path, title, sha256, size, ingested_at FROM documents"
            " WHERE profile_id = ? ORDER BY id",
            [profile_id],
        )
        for document in documents:
            document["chunks"] = self._dicts(
                "SELECT id, ordinal, heading, content, tokens, importance, created_at,"
                " last_accessed_at FROM chunks WHERE document_id = ? ORDER BY id",
                [document["id"]],
            )
        return documents

    def entities(self, profile_id: int) -> list[dict[str, Any]]:
        """Entities with the items linked to them."""
        entities = self._dicts(
            "SELECT id, name, norm, kind FROM entities WHERE profile_id = ? ORDER BY id",
            [profile_id],
        )
        for entity in entities:
            entity["links"] = self._dicts(
                "SELECT kind, item_id FROM entity_links WHERE entity_id = ? ORDER BY kind, item_id",
                [entity["id"]],
            )
        return entities
