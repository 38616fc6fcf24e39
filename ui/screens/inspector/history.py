"""The history tab: every memory change with who made it and when, undo, and the as-of view."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Static

from assistant.errors import InvalidInput
from assistant.terminal import visible
from ui.format import clip, day, parse_day, stamp
from ui.screens.inspector.pane import InspectorPane
from ui.widgets import RecordTable

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.admin.views import Change
    from assistant.engine import Hippo

__all__ = ["ACTOR_NAMES", "HistoryPane"]

LIMIT = 300
ACTOR_NAMES = {"user": "you", "agent": "the model", "sleep": "sleep", "system": "system"}


def _row_key(change: Change) -> int:
    # Fact and core changes are numbered separately; core ones get negative keys.
    return change.id if change.kind == "fact" else -change.id


def _item(change: Change) -> str:
    return f"fact {change.target}" if change.kind == "fact" else f"{change.target} block"


def _fields(change: Change) -> str:
    """The fields a change set, other than the statement: "pinned → True, scope → work"."""
    after = change.after or {}
    said = [
        ("pinned" if after.get(name) else "unpinned")
        if name == "pinned"
        else f"{name} → {after.get(name)}"
        for name in change.fields
        if name != "statement"
    ]
    return ", ".join(said)


def _what(change: Change) -> Text:
    """One line for the table: what the item says now, and what else the change set."""
    text = Text(clip(change.after_text or change.before_text, 200))
    if fields := _fields(change):
        text.append(f"  ({visible(fields)})", style="dim")
    return text


def change_detail(change: Change) -> Content:
    """A change in full: before and after, and the fields it set."""
    lines = [Content(f"{stamp(change.at)} · {ACTOR_NAMES.get(change.actor, change.actor)} · "
                     f"{change.action} · {visible(_item(change))}")]  # fmt: skip
    if change.before_text != change.after_text:
        if change.before_text:
            lines.append(Content.assemble(("- before: ", "red"), visible(change.before_text)))
        lines.append(Content.assemble(("+ after:  ", "green"), visible(change.after_text)))
    if fields := _fields(change):
        lines.append(Content.assemble(("set: ", "dim"), visible(fields)))
    return Content("\n").join(lines)


class HistoryPane(InspectorPane):
    """Changes newest first (u undoes the one under the cursor), and what Hippo believed when."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "undo", "Undo change"),
        Binding("b", "focus_believed", "Believed on…"),
    ]

    def __init__(self, engine: Hippo, *, id: str | None = None) -> None:
        super().__init__(engine, id=id)
        self.changes: dict[int, Change] = {}

    def compose(self) -> ComposeResult:
        with Horizontal(classes="filters"):
            yield Static(Content("What did Hippo believe about"), classes="label")
            yield Input(placeholder="anything (empty: all)", id="asof-query", compact=True)
            yield Static(Content("on"), classes="label")
            yield Input(placeholder="YYYY-MM-DD", id="asof-date", classes="date", compact=True)
        yield Static(id="asof-answer", classes="detail")
        yield Static(id="history-title", classes="section")
        yield RecordTable(
            [("When", 16), ("Who", 9), ("Action", 10), ("Item", 14), ("Change", 64)],
            flex="Change",
            id="history-table",
        )
        yield Static(id="history-detail", classes="detail")

    @property
    def table(self) -> RecordTable:
        """The table of changes."""
        return self.query_one("#history-table", RecordTable)

    @property
    def home(self) -> Widget | None:
        return self.table

    def reload(self) -> None:
        changes = self.attempt(lambda: self.admin.history.changes(limit=LIMIT)) or []
        self.changes = {_row_key(change): change for change in changes}
        self.table.show(
            (
                _row_key(change),
                (
                    stamp(change.at),
                    ACTOR_NAMES.get(change.actor, change.actor),
                    change.action,
                    _item(change),
                    _what(change),
                ),
            )
            for change in changes
        )
        self.query_one("#history-title", Static).update(
            Content(f"Last {len(changes)} change(s), newest first · u undoes the one selected")
        )
        self.query_one("#asof-answer", Static).display = False
        self._describe(self.table.selected_id)

    def _describe(self, key: int | None) -> None:
        change = self.changes.get(key) if key is not None else None
        self.query_one("#history-detail", Static).update(change_detail(change) if change else "")

    @on(RecordTable.RowHighlighted, "#history-table")
    def _highlighted(self, event: RecordTable.RowHighlighted) -> None:
        self._describe(int(event.row_key.value) if event.row_key.value else None)

    def action_undo(self) -> None:
        """Undo the change under the cursor (the undo is itself a change, so it can be undone)."""
        key = self.table.selected_id
        change = self.changes.get(key) if key is not None else None
        if change is None:
            self.notify("There is no change here to undo.", markup=False)
            return
        done = f"Undid {change.action} of {_item(change)}."
        self.attempt(lambda: self.admin.history.undo(change.id, kind=change.kind), done)

    def action_focus_believed(self) -> None:
        """Ask what Hippo believed on a date."""
        self.query_one("#asof-query", Input).focus()

    @on(Input.Submitted)
    def _believed(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "asof-query":
            self.query_one("#asof-date", Input).focus()
            if not self.query_one("#asof-date", Input).value.strip():
                return
        query = self.query_one("#asof-query", Input).value.strip()
        try:
            when = parse_day(self.query_one("#asof-date", Input).value, end=True)
        except InvalidInput as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        when = when or self.engine.clock.now()
        facts = self.attempt(lambda: self.admin.history.believed(query, when))
        if facts is None:
            return
        about = f"about {query!r} " if query else ""
        head = f"On {stamp(when)} Hippo believed {len(facts)} fact(s) {about}"
        lines = [
            f"  • {clip(fact.statement, 100)}  (since {day(fact.learned_at)})"
            for fact in facts[:12]
        ]
        more = [f"  … and {len(facts) - 12} more"] if len(facts) > 12 else []
        answer = self.query_one("#asof-answer", Static)
        if not facts:
            lines = [f"On {stamp(when)} Hippo believed nothing {about}yet."]
        else:
            lines = [head.rstrip() + ":", *lines, *more]
        answer.update(Content(visible("\n".join(lines))))
        answer.display = True
