"""Undo exactly one change of a fact: its own fields back, or a refusal naming what is in the way.

Restoring a change's whole "before" snapshot would silently revert every later change too
(a scope edit undone after "wrong" made the fact active again; an edit undone dropped a
later pin). Instead only the fields that change set are put back, and only while they still
hold the values it wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.errors import UndoConflict
from assistant.memory.facts.fact import FactChange
from assistant.memory.facts.table import EDITABLE

__all__ = ["changed_fields", "revert_fields"]


def changed_fields(change: FactChange) -> list[str]:
    """The editable fields ``change`` set to a new value."""
    before, after = change.before or {}, change.after or {}
    return [key for key in EDITABLE if key in before and before.get(key) != after.get(key)]


def revert_fields(
    change: FactChange, current: dict[str, Any], history: Sequence[FactChange]
) -> dict[str, Any]:
    """The values that undo ``change``: its fields as they were before it.

    Args:
        change: the change to undo (not a create).
        current: the fact's stored row now.
        history: the fact's changes, oldest first.

    Returns:
        Field -> value to write.

    Raises:
        UndoConflict: a field the change set no longer holds what it wrote, because a later
            change set it; the message names the latest such change.
    """
    fields = changed_fields(change)
    after = change.after or {}
    moved = [key for key in fields if current.get(key) != after.get(key)]
    if moved:
        raise UndoConflict(_conflict(change, moved, history))
    return {key: (change.before or {})[key] for key in fields}


def _conflict(change: FactChange, moved: list[str], history: Sequence[FactChange]) -> str:
    later = [c for c in history if c.id > change.id and set(changed_fields(c)) & set(moved)]
    fields = ", ".join(moved)
    if not later:  # written outside the history (should not happen); still refuse
        return (
            f"Can't undo fact#{change.id}: fact {change.fact_id}'s {fields} changed "
            "since. Edit the fact instead."
        )
    last = later[-1]
    touched = ", ".join(k for k in changed_fields(last) if k in moved)
    return (
        f"Can't undo fact#{change.id} ({change.action} of fact {change.fact_id}): "
        f"fact#{last.id} ({last.action} by {last.actor}, {last.at:%Y-%m-%d %H:%M}) changed "
        f"its {touched} since. Undo fact#{last.id} first, or edit the fact instead."
    )
