"""Corrections of the fact under the cursor: edit, scope, importance, pin, wrong, outdated, delete.

Every one is a user change recorded with its before and after, so History can undo it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType

from ui.format import clip
from ui.screens.dialogs import ConfirmDialog, TextDialog
from ui.screens.inspector.pane import InspectorPane

if TYPE_CHECKING:
    from assistant.memory.facts import Fact
    from ui.widgets import RecordTable

__all__ = ["FactActions"]


class FactActions(InspectorPane):
    """A pane whose `table` lists facts, with the keys that correct the one under the cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Edit"),
        Binding("c", "scope", "Scope"),
        Binding("i", "importance", "Importance", show=False),
        Binding("p", "pin", "Pin"),
        Binding("w", "wrong", "Reject"),
        Binding("o", "outdated", "Expire"),
        Binding("d,delete", "delete", "Delete"),
    ]

    @property
    def table(self) -> RecordTable:
        """The table whose cursor picks the fact."""
        raise NotImplementedError

    def _fact(self) -> Fact | None:
        fact_id = self.table.selected_id
        if fact_id is None:
            self.notify("There is no fact here to change.", markup=False)
            return None
        return self.attempt(lambda: self.admin.facts.get(fact_id))

    def action_edit(self) -> None:
        """Rewrite the fact's statement (it becomes a fact you stated)."""
        if (fact := self._fact()) is None:
            return

        def save(text: str | None) -> None:
            if text and text != fact.statement:
                self.attempt(
                    lambda: self.admin.facts.edit(fact.id, statement=text), "Fact updated."
                )

        self.app.push_screen(
            TextDialog("Edit the fact (saved as what you said)", fact.statement), save
        )

    def action_scope(self) -> None:
        """Move the fact to another scope (empty: general, used in every session)."""
        if (fact := self._fact()) is None:
            return

        def save(scope: str | None) -> None:
            if scope is not None and scope != fact.scope:
                where = scope or "general"
                self.attempt(
                    lambda: self.admin.facts.edit(fact.id, scope=scope), f"Scope: {where}."
                )

        dialog = TextDialog(
            "Scope (e.g. work, health; empty for general)",
            fact.scope,
            placeholder="general",
            allow_empty=True,
        )
        self.app.push_screen(dialog, save)

    def action_importance(self) -> None:
        """Set how important the fact is, 1-10."""
        if (fact := self._fact()) is None:
            return

        def save(text: str | None) -> None:
            if text is None:
                return
            try:
                value = float(text)
            except ValueError:
                self.notify(
                    f"{text!r} is not a number from 1 to 10.", severity="error", markup=False
                )
                return
            self.attempt(
                lambda: self.admin.facts.edit(fact.id, importance=value), "Importance set."
            )

        self.app.push_screen(TextDialog("Importance, 1-10", f"{fact.importance:g}"), save)

    def action_pin(self) -> None:
        """Pin the fact (always in the prompt, listed first) or unpin it."""
        if (fact := self._fact()) is None:
            return
        done = "Unpinned." if fact.pinned else "Pinned: always kept in mind."
        self.attempt(lambda: self.admin.facts.pin(fact.id, not fact.pinned), done)

    def action_wrong(self) -> None:
        """Reject the fact as wrong: it is no longer used (undoable from History)."""
        if (fact := self._fact()) is None:
            return
        if fact.status == "rejected":
            self.notify("Already rejected.", markup=False)
            return
        done = "Rejected: wrong, no longer used (History can undo it)."
        self.attempt(lambda: self.admin.facts.mark_wrong(fact.id), done)

    def action_outdated(self) -> None:
        """Expire the fact: it was true, and is not any more."""
        if (fact := self._fact()) is None:
            return
        if fact.status == "expired":
            self.notify("Already expired.", markup=False)
            return
        done = "Expired: no longer true, kept as history."
        self.attempt(lambda: self.admin.facts.mark_outdated(fact.id), done)

    def action_delete(self) -> None:
        """Delete the fact for good, after asking."""
        if (fact := self._fact()) is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.attempt(lambda: self.admin.facts.delete(fact.id), "Fact deleted.")

        question = (
            f"Delete the fact {clip(fact.statement, 120)!r} with its evidence links and history? "
            "This can't be undone (reject it instead, w, to keep it undoable)."
        )
        self.app.push_screen(ConfirmDialog(question, yes="Delete"), answered)
