"""Seeding a forget from a text: every row of a profile that mentions it, in every table.

Matching is case- and width-insensitive (NFKC + casefold), on every text column of every
tier and side table: evidence quotes, history before/after JSON, core block lines,
session titles and running summaries, and sleep's candidates, rejections, dated items,
bookmarks and run reports. `PlanBuilder` then adds what goes with the matches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import apsw

from assistant.memory.profile_data.purge_plan import (
    PlanBuilder,
    PurgePlan,
    evidence_ref,
    mentions,
    register_mentions,
)

__all__ = ["PurgeFinder"]

_ITEM_COLUMNS = (
    ("message", "messages", ("content", "thinking", "error", "speaker"), "content", "created_at"),
    ("episode", "episodes", ("title", "summary", "topics"), "summary", "ended_at"),
    ("fact", "facts", ("statement", "subject", "predicate"), "statement", "learned_at"),
    ("chunk", "chunks", ("content", "heading"), "content", "created_at"),
    ("event", "events", ("text", "source"), "text", "occurred_at"),
)
_SLEEP_COLUMNS = (
    ("dated_items", "dated", ("text", "phrase"), "text"),
    (
        "sleep_candidates",
        "candidates",
        ("statement", "subject", "predicate", "evidence", "note"),
        "statement",
    ),
)


def _test(columns: Sequence[str]) -> str:
    return " OR ".join(f"hippo_mentions({c}, ?)" for c in columns)


class PurgeFinder:
    """Finds the rows of one profile that a forget must remove or rewrite.

    Args:
        conn: returns the calling thread's connection.
        plans: completes a plan seeded here with what goes with the matches.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], plans: PlanBuilder) -> None:
        self._conn = conn
        self._plans = plans

    def _rows(self, sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        return list(self._conn().execute(sql, list(params)))

    def by_text(self, profile_id: int, needle: str) -> PurgePlan:
        """The rows of the profile that mention ``needle``, and what goes with them."""
        register_mentions(self._conn())
        plan = PurgePlan(needle=needle)
        for kind, table, columns, shown, at in _ITEM_COLUMNS:
            for item_id, text, when in self._matching(
                table, columns, shown, at, profile_id, needle
            ):
                plan.items[kind].add(item_id)
                plan.hit(f"{kind}s", item_id, text, when)
        for doc_id, title in self._matching_docs(profile_id, needle):
            plan.documents.add(doc_id)
            plan.hit("documents", doc_id, title, None)
        for eid, name in self._rows(
            "SELECT id, name FROM entities WHERE profile_id = ?"
            " AND (hippo_mentions(name, ?) OR hippo_mentions(norm, ?))",
            (profile_id, needle, needle),
        ):
            plan.entities.add(eid)
            plan.hit("entities", eid, name, None)
        self._side_tables(plan, profile_id, needle)
        return self._plans.complete(plan, profile_id)

    def _matching(
        self, table: str, columns: Sequence[str], shown: str, at: str, pid: int, needle: str
    ) -> list[tuple[Any, ...]]:
        return self._rows(
            f"SELECT id, {shown}, {at} FROM {table} WHERE profile_id = ? AND ({_test(columns)})",
            (pid, *[needle] * len(columns)),
        )

    def _matching_docs(self, pid: int, needle: str) -> list[tuple[Any, ...]]:
        return self._rows(
            "SELECT id, coalesce(nullif(title, ''), path) FROM documents WHERE profile_id = ?"
            " AND (hippo_mentions(title, ?) OR hippo_mentions(path, ?))",
            (pid, needle, needle),
        )

    def _side_tables(self, plan: PurgePlan, pid: int, needle: str) -> None:
        for fact_id, kind, ref_id, quote in self._rows(
            "SELECT e.fact_id, e.kind, e.ref_id, e.quote FROM fact_evidence e"
            " JOIN facts f ON f.id = e.fact_id"
            " WHERE f.profile_id = ? AND hippo_mentions(e.quote, ?)",
            (pid, needle),
        ):
            row = (fact_id, kind, ref_id)
            plan.evidence.add(row)
            plan.quoted.add(row)
            why = f"a quote in fact {fact_id}'s evidence"
            ref = evidence_ref(*row)
            plan.hit("evidence", fact_id, quote, None, why, target=("evidence", row), ref=ref)
        for hid, fact_id, at in self._rows(
            "SELECT h.id, h.fact_id, h.at FROM fact_history h JOIN facts f ON f.id = h.fact_id"
            " WHERE f.profile_id = ?"
            " AND (hippo_mentions(h.before, ?) OR hippo_mentions(h.after, ?))",
            (pid, needle, needle),
        ):
            plan.fact_history.add(hid)
            what = f"change {hid} of fact {fact_id}"
            plan.hit("history", hid, what, at, target=("fact_history", hid), ref=f"fact:{hid}")
        for hid, label, at in self._rows(
            "SELECT id, label, at FROM core_block_history WHERE profile_id = ?"
            " AND (hippo_mentions(before, ?) OR hippo_mentions(after, ?))",
            (pid, needle, needle),
        ):
            plan.core_history.add(hid)
            what = f"change {hid} of the {label} block"
            plan.hit("history", hid, what, at, target=("core_history", hid), ref=f"core:{hid}")
        for proposal_id, label, content, at in self._rows(
            "SELECT id, label, content, proposed_at FROM core_proposals WHERE profile_id = ?"
            " AND (hippo_mentions(content, ?) OR hippo_mentions(old_content, ?))",
            (pid, needle, needle),
        ):
            plan.core_proposals.add(proposal_id)
            plan.hit(
                "core",
                proposal_id,
                content,
                at,
                f"a proposed edit of the {label} block",
                target=("core_proposals", proposal_id),
                ref=f"proposal:{proposal_id}",
            )
        for label, value in self._rows(
            "SELECT label, value FROM core_blocks WHERE profile_id = ?", (pid,)
        ):
            lines = value.splitlines()
            kept = [line for line in lines if not mentions(line, needle)]
            if len(kept) != len(lines):  # one rewritten block: one line of the preview
                plan.core[label] = "\n".join(kept)
                gone = " / ".join(line for line in lines if mentions(line, needle))
                why = f"lines of the {label} block"
                target = ("core", label)
                plan.hit("core", 0, gone, None, why, target=target, ref=f"block:{pid}:{label}")
        for sid, title, at in self._rows(
            "SELECT id, title, started_at FROM sessions WHERE profile_id = ?"
            " AND (hippo_mentions(title, ?) OR hippo_mentions(summary, ?))",
            (pid, needle, needle),
        ):
            plan.redact_sessions.add(sid)
            why = "its title or running summary"
            plan.hit("sessions", sid, title, at, why, target=("redact_sessions", sid))
        self._sleep_records(plan, pid, needle)

    def _sleep_records(self, plan: PurgePlan, pid: int, needle: str) -> None:
        for table, target, columns, shown in _SLEEP_COLUMNS:
            for row_id, text in self._rows(
                f"SELECT id, {shown} FROM {table} WHERE profile_id = ? AND ({_test(columns)})",
                (pid, *[needle] * len(columns)),
            ):
                getattr(plan, target).add(row_id)
                why = f"a {table.replace('_', ' ')} row"
                ref = f"{target}:{row_id}"
                plan.hit("sleep", row_id, text, None, why, target=(target, row_id), ref=ref)
        for print_, detail in self._rows(
            "SELECT fingerprint, detail FROM sleep_rejections WHERE profile_id = ?"
            " AND (hippo_mentions(detail, ?) OR hippo_mentions(reason, ?))",
            (pid, needle, needle),
        ):
            plan.rejections.add(print_)
            why = "a record of a rejected proposal"
            ref = f"rejection:{pid}:{print_}"
            plan.hit("sleep", 0, detail, None, why, target=("rejections", print_), ref=ref)
        for (key,) in self._rows(
            "SELECT key FROM sleep_state WHERE profile_id = ? AND hippo_mentions(value, ?)",
            (pid, needle),
        ):
            plan.state_keys.add(key)
        for (run_id,) in self._rows(
            "SELECT id FROM sleep_runs WHERE hippo_mentions(proposals, ?)"
            " OR hippo_mentions(errors, ?)",
            (needle, needle),
        ):
            plan.runs.add(run_id)
            plan.hit(
                "sleep",
                run_id,
                f"sleep run {run_id}'s report",
                None,
                "a run report",
                target=("runs", run_id),
                ref=f"run:{pid}:{run_id}",
            )
