"""The archive search tab: every message, by keyword and meaning, within optional dates."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from assistant.errors import HippoError, InvalidInput
from assistant.terminal import visible
from ui.format import clip, parse_day, stamp
from ui.screens.inspector.pane import InspectorPane, Place
from ui.widgets import RecordTable

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from textual.app import ComposeResult

    from assistant.engine import Hippo
    from assistant.memory.records import MessageHit

__all__ = ["ArchiveSearchPane"]

_CANDIDATES = 200
# A hit found by meaning alone must be at least this similar to be worth showing (the
# fused list tails off into near-zero scores otherwise); as for facts in the admin API.
_MIN_SIMILARITY = 0.25
_WHO = {"user": "you", "assistant": "Hippo"}


class ArchiveSearchPane(InspectorPane):
    """Search all messages (keyword + semantic); Enter on a hit opens its session in the chat."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("slash", "focus_search", "Search")]

    class Found(Message):
        """Search hits arrived from the worker thread."""

        def __init__(self, query: str, hits: list[MessageHit], titles: dict[int, str]) -> None:
            super().__init__()
            self.query, self.hits, self.titles = query, hits, titles

    def __init__(self, engine: Hippo, *, id: str | None = None) -> None:
        super().__init__(engine, id=id)
        self._sessions: dict[int, int] = {}  # message id -> its session id

    def compose(self) -> ComposeResult:
        with Horizontal(classes="filters"):
            yield Input(
                placeholder="Search every message (Enter)", id="archive-query", compact=True
            )
            yield Input(placeholder="from YYYY-MM-DD", id="archive-from", classes="date",
                        compact=True)  # fmt: skip
            yield Input(placeholder="until YYYY-MM-DD", id="archive-until", classes="date",
                        compact=True)  # fmt: skip
        yield Static(
            Content("Keyword and meaning, fused; Enter on a hit opens its session."),
            id="archive-status",
            classes="hint",
        )
        yield RecordTable(
            [("When", 16), ("Session", 22), ("Who", 5), ("Message", 44), ("Score", 5)],
            flex="Message",
            id="archive-table",
        )

    @property
    def home(self) -> Widget | None:
        return self.query_one("#archive-table", RecordTable)

    def action_focus_search(self) -> None:
        """Put the keyboard in the search box."""
        self.query_one("#archive-query", Input).focus()

    @on(Input.Submitted)
    def _search(self, event: Input.Submitted) -> None:
        event.stop()
        query = self.query_one("#archive-query", Input).value.strip()
        if not query:
            self.notify("Type what to look for first.", markup=False)
            return
        try:
            start = parse_day(self.query_one("#archive-from", Input).value)
            until = parse_day(self.query_one("#archive-until", Input).value, end=True)
        except InvalidInput as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        searching = visible(f"Searching for {query!r}…")
        self.query_one("#archive-status", Static).update(Content(searching))
        self._run_search(query, start, until)

    @work(thread=True, exclusive=True, group="archive-search", exit_on_error=False)
    def _run_search(self, query: str, start: datetime | None, until: datetime | None) -> None:
        try:
            hits = self.admin.browse.search_messages(
                query, since=start, until=until, limit=_CANDIDATES
            )
        except HippoError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error", markup=False)
            return
        hits = [hit for hit in hits if hit.keyword > 0 or (hit.vector or 0.0) >= _MIN_SIMILARITY]
        titles = {}
        for session_id in {hit.message.session_id for hit in hits}:
            titles[session_id] = self.engine.conversations.session(session_id).title or "(untitled)"
        self.post_message(self.Found(query, hits, titles))

    def on_archive_search_pane_found(self, message: Found) -> None:
        self._sessions = {hit.message.id: hit.message.session_id for hit in message.hits}
        self.query_one("#archive-table", RecordTable).show(
            (
                hit.message.id,
                (
                    stamp(hit.message.created_at),
                    clip(message.titles[hit.message.session_id], 22),
                    _WHO.get(hit.message.role, hit.message.role),
                    clip(hit.message.content, 200),
                    f"{hit.score:.2f}",
                ),
            )
            for hit in message.hits
        )
        how = _how(message.hits)
        self.query_one("#archive-status", Static).update(
            Content(
                visible(f"{len(message.hits)} message(s) for {message.query!r} ({how}) · ")
                + "Enter opens the session"
            )
        )
        if message.hits:
            self.query_one("#archive-table", RecordTable).focus()

    @on(RecordTable.RowSelected, "#archive-table")
    def _open(self, event: RecordTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            message_id = int(event.row_key.value)
            self.post_message(self.OpenSession(Place(self._sessions[message_id], message_id)))


def _how(hits: Sequence[MessageHit]) -> str:
    """How the hits were found, for the status line."""
    searched = [hit for hit in hits if hit.vector is not None]
    if not searched:
        return "keyword"
    if searched[0].vector_trust <= 0:
        return "keyword: the embedding model does not read this script"
    return "keyword + meaning"
