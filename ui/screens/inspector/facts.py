"""The facts tab: every fact of the profile, filtered, searched, sorted, paged and corrected."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from assistant.errors import HippoError
from ui.format import clip, day
from ui.screens.inspector.fact_actions import FactActions
from ui.widgets import RecordTable
from ui.widgets.fact_filters import ORDERS, SOURCE_LABELS, FactFilters, FactQuery

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.engine import Hippo
    from assistant.memory.facts import Fact

__all__ = ["PAGE", "FactsPane", "columns_for", "fact_cells"]

PAGE = 100
"""Facts per page: a page is read at a time, so 50k facts list as fast as 50."""

STATUS_STYLE = {
    "pending": "yellow",
    "active": "green",
    "superseded": "dim",
    "expired": "dim",
    "rejected": "red",
}
COLUMNS: tuple[tuple[str, int], ...] = (
    ("Statement", 30),
    ("Scope", 8),
    ("Source", 10),
    ("Conf", 4),
    ("Status", 10),
    ("From", 10),
    ("To", 10),
    ("Last used", 10),
)
WIDE = 150
"""Below this many columns the table leaves out the validity dates (the fact's own
screen, Enter, shows them): the statement gets the width instead."""
NARROW_COLUMNS = tuple(column for column in COLUMNS if column[0] not in ("From", "To"))


def columns_for(width: int) -> tuple[tuple[str, int], ...]:
    """The facts table's columns on a screen ``width`` cells wide."""
    return COLUMNS if width >= WIDE else NARROW_COLUMNS


def fact_cells(
    fact: Fact, columns: tuple[tuple[str, int], ...] = COLUMNS
) -> tuple[Text | str, ...]:
    """A fact as a row of plain-text cells (its statement is never read as markup)."""
    statement = Text(no_wrap=True, overflow="ellipsis")
    if fact.pinned:
        statement.append("★ ", style="bold yellow")
    statement.append(clip(fact.statement, 300))
    cells: dict[str, Text | str] = {
        "Statement": statement,
        "Scope": fact.scope or "general",
        "Source": SOURCE_LABELS.get(fact.source_kind, fact.source_kind),
        "Conf": f"{fact.confidence:.2f}",
        "Status": Text(fact.status, style=STATUS_STYLE.get(fact.status, "")),
        "From": day(fact.valid_from),
        "To": day(fact.valid_to),
        "Last used": day(fact.last_accessed_at) or "never",
    }
    return tuple(cells[label] for label, _ in columns)


class FactsPane(FactActions):
    """A page of facts under a filter bar; the keys in the footer change the fact under the cursor.

    Args:
        engine: the engine whose facts to show.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_search", "Search"),
        Binding("s", "sort", "Sort"),
        Binding("right_square_bracket", "page(1)", "Next page"),
        Binding("left_square_bracket", "page(-1)", "Prev page"),
    ]

    class Loaded(Message):
        """A page of facts arrived (read in a thread: a search by meaning asks Ollama)."""

        def __init__(self, query: FactQuery, facts: list[Fact], total: int) -> None:
            super().__init__()
            self.query, self.facts, self.total = query, facts, total

    def __init__(self, engine: Hippo, *, id: str | None = None) -> None:
        super().__init__(engine, id=id)
        self.fact_query = FactQuery()
        self.total = 0
        self.columns = COLUMNS

    def compose(self) -> ComposeResult:
        yield FactFilters(self.fact_query, id="fact-filters")
        self.columns = columns_for(self.app.size.width)
        yield RecordTable(self.columns, flex="Statement", id="facts-table")
        yield Static(id="facts-status", classes="hint")

    @property
    def table(self) -> RecordTable:
        """The facts table."""
        return self.query_one("#facts-table", RecordTable)

    @property
    def home(self) -> Widget | None:
        return self.table

    def reload(self) -> None:
        self._load(self.fact_query)

    @work(thread=True, exclusive=True, group="facts-load", exit_on_error=False)
    def _load(self, query: FactQuery) -> None:
        facts_admin, text = self.admin.facts, query.text or None
        try:
            facts = facts_admin.list(
                status=query.status,
                scope=query.scope,
                source_kind=query.source_kind,
                query=text,
                semantic=query.semantic,
                order=query.order,
                limit=PAGE,
                offset=query.page * PAGE,
            )
            total = facts_admin.count(
                status=query.status,
                scope=query.scope,
                source_kind=query.source_kind,
                query=text,
                semantic=query.semantic,
            )
        except HippoError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error", markup=False)
            return
        self.post_message(self.Loaded(query, facts, total))

    def on_facts_pane_loaded(self, message: Loaded) -> None:
        if message.query != self.fact_query:
            return  # an older page, overtaken by a newer filter
        self.total = message.total
        self.table.show((fact.id, fact_cells(fact, self.columns)) for fact in message.facts)
        first = message.query.page * PAGE
        shown = f"{first + 1}-{first + len(message.facts)}" if message.facts else "none"
        query = message.query
        how = " by meaning" if query.semantic and query.text else ""
        order = query.order or ("best match" if query.text else "importance")
        self.query_one("#facts-status", Static).update(
            Content(
                f"{shown} of {message.total} fact(s){how} · sorted by {order} (s) · "
                "Enter: where it came from · [ ] pages"
            )
        )

    @on(FactFilters.Changed)
    def _filtered(self, event: FactFilters.Changed) -> None:
        event.stop()
        self.fact_query = event.fact_query.with_changes(order=self.fact_query.order)
        self.reload()
        if event.searched:
            self.table.focus()  # typed and pressed Enter: the results are next

    def action_focus_search(self) -> None:
        """Put the keyboard in the search box."""
        self.query_one("#filter-text").focus()

    def action_sort(self) -> None:
        """Sort by the next order: importance, recent, confidence, last used."""
        order = ORDERS[(ORDERS.index(self.fact_query.order) + 1) % len(ORDERS)]
        self.fact_query = self.fact_query.with_changes(order=order, page=0)
        self.reload()

    def action_page(self, step: int) -> None:
        """Show the next (1) or previous (-1) page."""
        last = max(0, (self.total - 1) // PAGE)
        page = min(max(self.fact_query.page + step, 0), last)
        if page != self.fact_query.page:
            self.fact_query = self.fact_query.with_changes(page=page)
            self.reload()

    @on(RecordTable.RowSelected, "#facts-table")
    def _selected(self, event: RecordTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.ShowFact(int(event.row_key.value)))
