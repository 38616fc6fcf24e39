"""The model's edits of core memory, waiting for the user's approval.

Core memory goes into every prompt, so a model fooled by injected text could plant a
standing belief there. Its ``core_memory_append`` and ``core_memory_replace`` calls are
therefore proposals (unless the user chose ``[memory] model_core_edits = "apply"``): each
is kept with the message of the turn that caused it and why it waits, and only the
user's approval applies it to the block. Nothing of a pending proposal reaches a prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from assistant.clock import from_iso, to_iso
from assistant.errors import MemoryWriteError, NotFound
from assistant.memory.base import Store
from assistant.memory.core import CoreBlock, CoreMemory
from data_schema.rows import scalar

__all__ = ["CORE_EDIT_MODES", "CoreEditMode", "CoreProposal", "CoreProposals"]

CoreEditMode = Literal["review", "apply"]
CORE_EDIT_MODES: tuple[CoreEditMode, ...] = ("review", "apply")
_COLUMNS = (
    "id, profile_id, label, action, content, old_content, message_id, reason, status,"
    " proposed_at, decided_at"
)


@dataclass(frozen=True, slots=True)
class CoreProposal:
    """One proposed edit of a core memory block.

    Attributes:
        action: ``append`` (``content`` as a new line) or ``replace`` (``old_content`` by
            ``content``).
        message_id: the user message of the turn that caused it (None once deleted).
        reason: why it waits for the user.
        status: ``pending``, ``approved`` or ``rejected``.
    """

    id: int
    profile_id: int
    label: str
    action: str
    content: str
    old_content: str
    message_id: int | None
    reason: str
    status: str
    proposed_at: datetime
    decided_at: datetime | None

    @property
    def description(self) -> str:
        """The edit in words, e.g. ``add to the human block: "..."``."""
        if self.action == "replace":
            return f"in the {self.label} block, replace {self.old_content!r} by {self.content!r}"
        return f"add to the {self.label} block: {self.content!r}"


def _proposal(row: tuple[Any, ...]) -> CoreProposal:
    # The leading columns, typed: mypy cannot check a spread of a variable-length row.
    head: tuple[int, int, str, str, str, str, int | None, str, str] = row[:9]
    return CoreProposal(
        *head,
        proposed_at=from_iso(row[9]),
        decided_at=from_iso(row[10]) if row[10] else None,
    )


class CoreProposals(Store):
    """Stores, lists and decides proposed core memory edits.

    Built with ``(conn, clock)``: see `Store`.
    """

    def propose(
        self,
        profile_id: int,
        label: str,
        action: str,
        content: str,
        *,
        old_content: str = "",
        message_id: int | None,
        reason: str,
    ) -> CoreProposal:
        """Keep an edit for review; return it."""
        conn = self._conn()
        conn.execute(
            "INSERT INTO core_proposals(profile_id, label, action, content, old_content,"
            " message_id, reason, proposed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                profile_id,
                label,
                action,
                content,
                old_content,
                message_id,
                reason,
                to_iso(self._clock.now()),
            ),
        )
        return self.get(conn.last_insert_rowid(), profile_id)

    def get(self, proposal_id: int, profile_id: int) -> CoreProposal:
        """One proposal of the profile.

        Raises:
            NotFound: there is no such proposal in this profile.
        """
        row = (
            self._conn()
            .execute(
                f"SELECT {_COLUMNS} FROM core_proposals WHERE id = ? AND profile_id = ?",
                (proposal_id, profile_id),
            )
            .fetchone()
        )
        if row is None:
            raise NotFound(
                f"There is no core memory proposal {proposal_id} in this profile; "
                "`hippo review list` lists them."
            )
        return _proposal(row)

    def pending(self, profile_id: int) -> list[CoreProposal]:
        """The profile's proposals awaiting review, newest first."""
        rows = self._conn().execute(
            f"SELECT {_COLUMNS} FROM core_proposals WHERE profile_id = ? AND status = 'pending'"
            " ORDER BY id DESC",
            (profile_id,),
        )
        return [_proposal(row) for row in rows]

    def count_pending(self, profile_id: int) -> int:
        """How many proposals await review."""
        return int(
            scalar(
                self._conn(),
                "SELECT count(*) FROM core_proposals WHERE profile_id = ? AND status = 'pending'",
                (profile_id,),
            )
        )

    def approve(self, proposal_id: int, core: CoreMemory, *, profile_id: int) -> CoreBlock:
        """Apply a pending proposal to its block, as the user's own edit; return the block.

        Raises:
            NotFound: there is no such proposal in this profile.
            MemoryWriteError: it was decided before.
            CoreMemoryError: the edit no longer fits or no longer applies (it stays pending).
        """
        conn = self._conn()
        with conn:
            found = self._pending(proposal_id, profile_id)
            if found.action == "replace":
                block = core.replace(
                    profile_id, found.label, found.old_content, found.content, actor="user"
                )
            else:
                block = core.append(profile_id, found.label, found.content, actor="user")
            self._decide(found.id, "approved")
        return block

    def reject(self, proposal_id: int, *, profile_id: int) -> CoreProposal:
        """Reject a pending proposal: the block stays as it is.

        Raises:
            NotFound: there is no such proposal in this profile.
            MemoryWriteError: it was decided before.
        """
        with self._conn():
            self._decide(self._pending(proposal_id, profile_id).id, "rejected")
        return self.get(proposal_id, profile_id)

    def _pending(self, proposal_id: int, profile_id: int) -> CoreProposal:
        found = self.get(proposal_id, profile_id)
        if found.status != "pending":
            raise MemoryWriteError(
                f"Core memory proposal {proposal_id} was already {found.status}; "
                "nothing was changed."
            )
        return found

    def _decide(self, proposal_id: int, status: str) -> None:
        self._conn().execute(
            "UPDATE core_proposals SET status = ?, decided_at = ? WHERE id = ?",
            (status, to_iso(self._clock.now()), proposal_id),
        )
