"""Every table of the data file, and what a forget and an export do with it.

The whole-profile operations (forget and purge, export and import, a profile's counts,
`hippo doctor`'s census) live in this package; this list is where each table's part in
them is written down. ``tests/assistant/memory/test_profile_data_tables.py`` checks it
against ``sqlite_master`` of a freshly migrated file, so a table added by a migration
fails the suite until it is placed here: forgotten or exported, or excluded with its
reason. It also checks each claim: a table said to be deleted by the plan is named in
the purge modules, one said to cascade has that foreign key, one said to be exported
is named in both `dump` and `restore`.

Keyword indexes (``*_fts``) and vector tables (``vec*``) are virtual: they are not
listed here; the purge clears and re-indexes them (`purge_run`), and an import rebuilds
them (`restore`) and queues the vectors.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DUMP", "PLAN", "TABLES", "TableRole", "cascade", "trigger"]

# What a forget does with a table's rows that mention the words (or belong to what goes).
PLAN = "plan"  # the purge plan finds, deletes or rewrites them (`purge_*`)
DUMP = "dump"  # an export writes them (`dump`) and an import restores them (`restore`)


def cascade(parent: str) -> str:
    """A table whose rows go with their ``parent`` row (ON DELETE CASCADE)."""
    return f"cascade:{parent}"


def trigger(parent: str) -> str:
    """A table cleared by a trigger when an item of ``parent`` is deleted."""
    return f"trigger:{parent}"


@dataclass(frozen=True, slots=True)
class TableRole:
    """A table's part in a forget and in an export.

    Attributes:
        forget: `PLAN`, `cascade(...)`, `trigger(...)`, or why a forget leaves it alone.
        export: `DUMP`, or why an export leaves it out.
    """

    forget: str
    export: str


_FILE_WIDE = "file-wide, not a profile's"
_NO_TEXT = "holds no memory text"

TABLES: dict[str, TableRole] = {
    "profiles": TableRole(f"a forget works inside profiles; {_NO_TEXT}", DUMP),
    "sessions": TableRole(PLAN, DUMP),
    "messages": TableRole(PLAN, DUMP),
    "episodes": TableRole(PLAN, DUMP),
    "episode_messages": TableRole(cascade("messages"), DUMP),
    "facts": TableRole(PLAN, DUMP),
    "fact_evidence": TableRole(PLAN, DUMP),
    "fact_history": TableRole(PLAN, DUMP),
    "documents": TableRole(PLAN, DUMP),
    "chunks": TableRole(PLAN, DUMP),
    "events": TableRole(PLAN, DUMP),
    "entities": TableRole(PLAN, DUMP),
    "entity_links": TableRole(PLAN, DUMP),
    "core_blocks": TableRole(PLAN, DUMP),
    "core_block_history": TableRole(PLAN, DUMP),
    "core_proposals": TableRole(
        PLAN, "the model's edits awaiting review are not memory yet; they stay behind"
    ),
    "reply_memories": TableRole(PLAN, DUMP),
    "dated_items": TableRole(PLAN, DUMP),
    "sleep_marks": TableRole(PLAN, DUMP),
    "sleep_state": TableRole(PLAN, DUMP),
    "sleep_candidates": TableRole(
        PLAN, "sleep's working list; the next sleep rebuilds it from the imported memory"
    ),
    "sleep_rejections": TableRole(
        PLAN, "fingerprints of the source file's proposals; sleep's bookkeeping, not memory"
    ),
    "sleep_runs": TableRole(PLAN, f"run reports are {_FILE_WIDE}"),
    "sleep_lock": TableRole(_NO_TEXT, "a lock held by a running sleep"),
    "embedding_queue": TableRole(trigger("messages"), "an import queues every item again"),
    "embeddings": TableRole(trigger("messages"), "vectors are made again after an import"),
    "embedding_models": TableRole(_NO_TEXT, f"{_FILE_WIDE}: the models that made vectors"),
    "vector_cells": TableRole(_NO_TEXT, f"{_FILE_WIDE}: the vector index's layout"),
    "model_reading": TableRole(_NO_TEXT, f"{_FILE_WIDE}: how well each model reads a script"),
    "_migrations": TableRole(_NO_TEXT, "the schema's record, written by the migrations"),
}
