"""The filter bar over the facts table: status, source, scope, a search box, and "by meaning"."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from textual import on
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Checkbox, Input, Select

from assistant.memory.facts import SOURCE_KINDS, STATUSES

if TYPE_CHECKING:
    from textual.app import ComposeResult

__all__ = ["ORDERS", "SOURCE_LABELS", "FactFilters", "FactQuery"]

ORDERS: tuple[str | None, ...] = (None, "importance", "recent", "confidence", "accessed")
"""The sort orders, in the order ``s`` cycles them; None: best match for a search, else
importance (pinned first)."""
SOURCE_LABELS = {
    "user_stated": "you said",
    "assistant_inferred": "inferred",
    "document": "document",
    "event": "event",
    "reflection": "reflection",
    "pasted": "pasted",
}
_ANY = ""


@dataclass(frozen=True, slots=True)
class FactQuery:
    """Which facts to list: the filters, the search, the order and the page."""

    status: str | None = None
    source_kind: str | None = None
    scope: str | None = None
    text: str = ""
    semantic: bool = False
    order: str | None = None
    page: int = 0

    def with_changes(self, **changes: object) -> FactQuery:
        """A copy with some fields changed."""
        return replace(self, **changes)  # type: ignore[arg-type]


class FactFilters(Horizontal):
    """Filters for the facts table; posts `Changed` with the new query (back on page 1)."""

    class Changed(Message):
        """The user changed a filter or submitted a search."""

        def __init__(self, query: FactQuery, *, searched: bool = False) -> None:
            super().__init__()
            self.fact_query = query
            self.searched = searched  # Enter in a text box (not a pick from a list)

    def __init__(self, query: FactQuery, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="filters")
        self.fact_query = query

    def compose(self) -> ComposeResult:
        statuses = [("any status", _ANY), *((status, status) for status in STATUSES)]
        sources = [("any source", _ANY), *((SOURCE_LABELS[k], k) for k in SOURCE_KINDS)]
        yield Select(
            statuses,
            value=self.fact_query.status or _ANY,
            allow_blank=False,
            id="filter-status",
            compact=True,
        )
        yield Select(
            sources,
            value=self.fact_query.source_kind or _ANY,
            allow_blank=False,
            id="filter-source",
            compact=True,
        )
        yield Input(placeholder="scope", id="filter-scope", classes="scope", compact=True)
        yield Input(placeholder="Search facts (Enter)", id="filter-text", compact=True)
        yield Checkbox(
            _meaning_label(self.fact_query.semantic),
            self.fact_query.semantic,
            id="filter-semantic",
            compact=True,
        )

    @on(Select.Changed)
    def _selected(self, event: Select.Changed) -> None:
        event.stop()
        value = event.value if isinstance(event.value, str) and event.value else None
        if event.select.id == "filter-status":
            self._post(status=value)
        else:
            self._post(source_kind=value)

    @on(Input.Submitted)
    def _typed(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "filter-scope":
            scope = event.value.strip()
            # General facts are stored with no scope; "general" is what the table shows.
            self._post(searched=True, scope="" if scope.lower() == "general" else scope or None)
        else:
            self._post(searched=True, text=event.value.strip())

    @on(Checkbox.Changed)
    def _toggled(self, event: Checkbox.Changed) -> None:
        event.stop()
        event.checkbox.label = _meaning_label(event.value)
        self._post(semantic=event.value)

    def _post(self, *, searched: bool = False, **changes: object) -> None:
        self.fact_query = self.fact_query.with_changes(**changes, page=0)
        self.post_message(self.Changed(self.fact_query, searched=searched))


def _meaning_label(on: bool) -> str:
    # The compact checkbox's mark looks much the same either way, so the label says it.
    return "meaning: on" if on else "meaning: off"
