"""Undo exactly one core-block change: its own edit taken out, later edits kept.

A block is text, so a change is the span it replaced. Undo puts that span back where it
still stands (found with a little of the text around it); when a later change rewrote that
span or its surroundings, undo refuses and names that change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.errors import UndoConflict

__all__ = ["revert_edit"]

_CONTEXT = 16  # characters either side that must still be there to find the span


def _span(before: str, after: str) -> tuple[int, int]:
    """Lengths of the common prefix and (non-overlapping) common suffix."""
    prefix = 0
    limit = min(len(before), len(after))
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and before[-1 - suffix] == after[-1 - suffix]:
        suffix += 1
    return prefix, suffix


def reverted(before: str, after: str, current: str) -> str | None:
    """``current`` with the edit ``before`` -> ``after`` taken out, or None if it can't be found.

    Args:
        before: the block's text before the change.
        after: its text after the change.
        current: its text now.
    """
    if current == after:
        return before
    prefix, suffix = _span(before, after)
    left = after[max(0, prefix - _CONTEXT) : prefix]
    right = after[len(after) - suffix : len(after) - suffix + _CONTEXT]
    written = left + after[prefix : len(after) - suffix] + right
    if not written or current.count(written) != 1:
        return None
    return current.replace(written, left + before[prefix : len(before) - suffix] + right, 1)


def revert_edit(
    change_id: int,
    label: str,
    before: str,
    after: str,
    current: str,
    later: Sequence[tuple[Any, ...]],
) -> str:
    """The block's text with change ``change_id`` undone.

    Args:
        change_id: the change's id.
        label: the block's label.
        before: the block's text before the change; ``after``, after it; ``current``, now.
        later: (id, actor, at) of the block's changes since, oldest first.

    Raises:
        UndoConflict: a later change rewrote the text this change wrote; names it.
    """
    text = reverted(before, after, current)
    if text is not None:
        return text
    if not later:
        raise UndoConflict(f"Can't undo core#{change_id}: the {label} block changed since.")
    last_id, actor, at = later[-1]
    raise UndoConflict(
        f"Can't undo core#{change_id} ({label} block): core#{last_id} (by {actor}, "
        f"{at:%Y-%m-%d %H:%M}) changed the same text since. Undo core#{last_id} first, or "
        "edit the block instead."
    )
