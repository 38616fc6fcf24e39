"""Core memory: the "human" and "persona" blocks that go into every prompt (MemGPT-style).

Each block has a character limit that is never silently exceeded or truncated: a write
that does not fit fails with a message saying how much room is left. Only the user may
write instruction-like text; the model (and any other non-user writer) is refused, so
a poisoned document or tool result cannot plant a standing rule in every prompt. Every
change is recorded with its actor and can be undone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import apsw

from assistant.clock import from_iso, to_iso
from assistant.errors import CoreMemoryError, NotFound
from assistant.memory.base import Store
from assistant.memory.core_undo import revert_edit
from assistant.memory.facts import ACTORS, Actor, looks_like_instruction

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_PERSONA",
    "LABELS",
    "CoreBlock",
    "CoreChange",
    "CoreMemory",
    "CoreMemoryError",
]

LABELS = ("human", "persona")
DEFAULT_LIMIT = 2000
DEFAULT_PERSONA = (
    "I am Hippo, a private assistant that remembers this user across sessions. I keep my "
    "memories on this computer, say where a memory came from, and treat a guess as a guess."
)
_DEFAULTS = {"human": "", "persona": DEFAULT_PERSONA}
_PREVIEW = 300


@dataclass(frozen=True, slots=True)
class CoreBlock:
    """One block of core memory; ``updated_at`` is None while it holds its default."""

    label: str
    value: str
    char_limit: int
    updated_at: datetime | None

    @property
    def remaining(self) -> int:
        """Characters that still fit."""
        return self.char_limit - len(self.value)


@dataclass(frozen=True, slots=True)
class CoreChange:
    """One recorded change of a block."""

    id: int
    profile_id: int
    label: str
    before: str
    after: str
    actor: Actor
    at: datetime


def _change(row: tuple[Any, ...]) -> CoreChange:
    # The leading columns, typed: mypy cannot check a spread of a variable-length row.
    head: tuple[int, int, str, str, str, Actor] = row[:6]
    return CoreChange(*head, at=from_iso(row[6]))


def _label(label: str) -> str:
    if label not in LABELS:
        raise CoreMemoryError(f"There is no core memory block {label!r}; use 'human' or 'persona'.")
    return label


def _new_lines(before: str, after: str) -> str:
    """The lines of ``after`` that ``before`` did not have (what a rewrite adds)."""
    old = set(before.splitlines())
    return "\n".join(line for line in after.splitlines() if line not in old)


Edit = Callable[[CoreBlock], tuple[str, str]]  # block -> (new value, text it adds)


class CoreMemory(Store):
    """Reads and edits the core memory blocks of each profile.

    Built with ``(conn, clock)``: see `Store`.
    """

    def blocks(self, profile_id: int) -> dict[str, CoreBlock]:
        """Both blocks of the profile, by label (defaults where never written)."""
        return {label: self.block(profile_id, label) for label in LABELS}

    def block(self, profile_id: int, label: str) -> CoreBlock:
        """One block of the profile."""
        row = (
            self._conn()
            .execute(
                "SELECT value, char_limit, updated_at FROM core_blocks"
                " WHERE profile_id = ? AND label = ?",
                (profile_id, _label(label)),
            )
            .fetchone()
        )
        if row is None:
            return CoreBlock(label, _DEFAULTS[label], DEFAULT_LIMIT, None)
        return CoreBlock(label, row[0], row[1], from_iso(row[2]))

    def append(
        self, profile_id: int, label: str, text: str, *, actor: Actor, dry_run: bool = False
    ) -> CoreBlock:
        """Add ``text`` to the end of a block, on a new line.

        With ``dry_run``, nothing is stored: the block it would make is returned, or the
        error it would raise is raised (to check a proposal before it waits for review).

        Raises:
            CoreMemoryError: it would not fit, or a non-user tried to add an instruction.
        """
        text = text.strip()
        if not text:
            raise CoreMemoryError("Nothing to append: the text is empty.")

        def edit(block: CoreBlock) -> tuple[str, str]:
            return (f"{block.value}\n{text}" if block.value else text), text

        return self._edit(profile_id, label, actor, edit, dry_run=dry_run)

    def replace(
        self,
        profile_id: int,
        label: str,
        old: str,
        new: str,
        *,
        actor: Actor,
        dry_run: bool = False,
    ) -> CoreBlock:
        """Replace the one occurrence of ``old`` in a block by ``new`` (empty ``new`` deletes).

        ``dry_run``: as for `append`.

        Raises:
            CoreMemoryError: ``old`` is empty, missing or not unique; or the result would not
                fit; or a non-user tried to write an instruction.
        """
        if not old:
            raise CoreMemoryError("Say which text to replace: `old` is empty.")

        def edit(block: CoreBlock) -> tuple[str, str]:
            found = block.value.count(old)
            if found == 0:
                raise CoreMemoryError(
                    f"The {label} block does not contain {old!r}, so nothing was changed. Copy "
                    f"the exact text to replace from the block as it is now: "
                    f"{block.value[:_PREVIEW]!r}{'...' if len(block.value) > _PREVIEW else ''}"
                )
            if found > 1:
                raise CoreMemoryError(
                    f"{old!r} occurs {found} times in the {label} block, so nothing was changed; "
                    "include more of the surrounding text so that it matches once."
                )
            return block.value.replace(old, new), new

        return self._edit(profile_id, label, actor, edit, dry_run=dry_run)

    def set(self, profile_id: int, label: str, value: str, *, actor: Actor) -> CoreBlock:
        """Rewrite a whole block.

        Raises:
            CoreMemoryError: it would not fit, or a non-user tried to add an instruction.
        """
        return self._edit(profile_id, label, actor, lambda b: (value, _new_lines(b.value, value)))

    def set_limit(self, profile_id: int, label: str, char_limit: int, *, actor: Actor) -> CoreBlock:
        """Change a block's character limit (never below what it holds; not by the model).

        Raises:
            CoreMemoryError: the block holds more than ``char_limit``, the limit is not
                positive, or the actor is the model.
        """
        block = self.block(profile_id, label)
        if actor == "agent":
            raise CoreMemoryError("Only the user can change a core memory block's size limit.")
        if char_limit < max(1, len(block.value)):
            raise CoreMemoryError(
                f"The {label} block holds {len(block.value)} characters, so its limit can't be "
                f"{char_limit}; condense it first, or choose a limit of at least that many."
            )
        self._store(self._conn(), profile_id, label, block.value, char_limit)
        return self.block(profile_id, label)

    def history(self, profile_id: int, label: str | None = None) -> list[CoreChange]:
        """The profile's recorded block changes (of ``label`` only, when given), oldest first."""
        sql = "SELECT id, profile_id, label, before, after, actor, at FROM core_block_history"
        params: tuple[Any, ...] = (profile_id,) if label is None else (profile_id, _label(label))
        where = " WHERE profile_id = ?" + ("" if label is None else " AND label = ?")
        rows = self._conn().execute(sql + where + " ORDER BY id", params)
        return [_change(row) for row in rows]

    def recent_changes(self, profile_id: int, limit: int) -> list[CoreChange]:
        """The profile's latest block changes, newest first, ``limit`` at most."""
        rows = self._conn().execute(
            "SELECT id, profile_id, label, before, after, actor, at FROM core_block_history"
            " WHERE profile_id = ? ORDER BY id DESC LIMIT ?",
            (profile_id, limit),
        )
        return [_change(row) for row in rows]

    def undo(
        self, history_id: int, *, actor: Actor = "user", profile_id: int | None = None
    ) -> CoreBlock:
        """Take change ``history_id`` out of its block, keeping later edits (recorded as a change).

        Raises:
            NotFound: there is no such change (in ``profile_id``, when given).
            UndoConflict: a later change rewrote the text this one wrote (it is named).
            CoreMemoryError: the old text no longer fits the block's limit, or a non-user
                tried to restore an instruction.
        """
        row = (
            self._conn()
            .execute(
                "SELECT profile_id, label, before, after FROM core_block_history WHERE id = ?",
                (history_id,),
            )
            .fetchone()
        )
        if row is None or (profile_id is not None and row[0] != profile_id):
            raise NotFound(f"There is no core memory change {history_id} in this profile.")
        owner, label, before, after = row

        def edit(block: CoreBlock) -> tuple[str, str]:
            # Only this change is taken out; later edits of the block stay.
            history = self.history(owner, label)
            later = [(c.id, c.actor, c.at) for c in history if c.id > history_id]
            value = revert_edit(history_id, label, before, after, block.value, later)
            return value, _new_lines(block.value, value)

        return self._edit(owner, label, actor, edit)

    def _edit(
        self, profile_id: int, label: str, actor: Actor, edit: Edit, *, dry_run: bool = False
    ) -> CoreBlock:
        """Apply ``edit`` to a block inside one transaction, after the limit and trust checks.

        With ``dry_run``, only the checks run; the block the edit would make is returned.
        """
        _label(label)
        if actor not in ACTORS:
            raise ValueError(f"Unknown actor {actor!r}; use one of: {', '.join(ACTORS)}.")
        conn = self._conn()
        with conn:
            block = self.block(profile_id, label)
            value, added = edit(block)
            if actor != "user" and looks_like_instruction(added):
                raise CoreMemoryError(
                    f"Refused: the text for the {label} block reads like an instruction to the "
                    f"assistant ({added[:80]!r}). Core memory holds facts about the user and the "
                    "assistant's persona; only the user can add standing instructions."
                )
            if len(value) > block.char_limit:
                raise CoreMemoryError(
                    f"The {label} block would be {len(value)} characters, over its limit of "
                    f"{block.char_limit} ({len(block.value)} used, {block.remaining} left), so "
                    "nothing was written. Replace or condense existing text first, then retry."
                )
            if dry_run:
                return CoreBlock(label, value, block.char_limit, block.updated_at)
            if value != block.value:
                self._store(conn, profile_id, label, value, block.char_limit)
                conn.execute(
                    "INSERT INTO core_block_history(profile_id, label, before, after, actor, at)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (profile_id, label, block.value, value, actor, to_iso(self._clock.now())),
                )
        return self.block(profile_id, label)

    def _store(
        self, conn: apsw.Connection, profile_id: int, label: str, value: str, char_limit: int
    ) -> None:
        conn.execute(
            "INSERT INTO core_blocks(profile_id, label, value, char_limit, updated_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT(profile_id, label) DO UPDATE SET"
            " value = excluded.value, char_limit = excluded.char_limit,"
            " updated_at = excluded.updated_at",
            (profile_id, label, value, char_limit, to_iso(self._clock.now())),
        )
