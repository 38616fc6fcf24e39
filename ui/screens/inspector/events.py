"""The events and documents tab: recent events with their expiry, ingested documents."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from ui.format import clip, human_size, stamp
from ui.screens.dialogs import ConfirmDialog
from ui.screens.inspector.pane import InspectorPane
from ui.widgets import RecordTable

if TYPE_CHECKING:
    from textual.app import ComposeResult

__all__ = ["EventsDocsPane"]

_LIMIT = 200


class EventsDocsPane(InspectorPane):
    """Recent events (expired ones dimmed) and every ingested document.

    ``d`` or Delete removes the event or document under the cursor, after asking.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d,delete", "remove", "Remove"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="events-title", classes="section")
        yield RecordTable(
            [("Happened", 16), ("Event", 44), ("Source", 10), ("Expires", 16), ("Imp.", 4)],
            flex="Event",
            id="events-table",
        )
        yield Static(id="documents-title", classes="section")
        yield RecordTable(
            [("Title", 28), ("Path", 38), ("Chunks", 6), ("Size", 9), ("Ingested", 16)],
            flex="Path",
            id="documents-table",
        )

    def reload(self) -> None:
        now = self.engine.clock.now()
        events = self.admin.browse.events(limit=_LIMIT)
        rows = []
        for event in events:
            gone = event.expires_at is not None and event.expires_at <= now
            text = Text(clip(event.text, 200), style="dim" if gone else "")
            expires = (
                Text(f"expired {event.expires_at.astimezone():%b %d}", "dim")
                if event.expires_at is not None and gone
                else None
            )
            cells = (stamp(event.occurred_at), text, event.source,
                     expires or stamp(event.expires_at), f"{event.importance:.0f}")  # fmt: skip
            rows.append((event.id, cells))
        self.query_one("#events-table", RecordTable).show(rows)
        self.query_one("#events-title", Static).update(
            Content(f"Recent events ({len(events)}), expired ones dimmed · d removes one")
        )
        documents = self.admin.browse.documents()
        self.query_one("#documents-table", RecordTable).show(
            (
                doc.id,
                (
                    doc.title,
                    doc.path,
                    str(doc.chunk_count),
                    human_size(doc.size),
                    stamp(doc.ingested_at),
                ),
            )
            for doc in documents
        )
        self.query_one("#documents-title", Static).update(
            Content(f"Documents ({len(documents)}) · add with `hippo document add PATH`")
        )

    def action_remove(self) -> None:
        """Remove the event or document under the cursor, once confirmed."""
        table = self.screen.focused
        if not isinstance(table, RecordTable) or table.selected_id is None:
            self.notify("Move to an event or a document first.", markup=False)
            return
        record_id = table.selected_id
        if table.id == "events-table":
            event = self.engine.admin.browse.event(record_id)
            question = (
                f"Remove the event {clip(event.text, 80)!r} (and facts resting on it alone)? "
                "It can't be undone."
            )
            remove = lambda: self.admin.forget.delete_event(record_id)  # noqa: E731
        else:
            document = next(d for d in self.admin.browse.documents() if d.id == record_id)
            question = (
                f"Remove the document {document.title!r} with its {document.chunk_count} chunks "
                "(and facts resting on them alone)? The file on disk is not touched."
            )
            remove = lambda: self.admin.forget.delete_document(record_id)  # noqa: E731

        def answered(yes: bool | None) -> None:
            if yes:
                self.attempt(remove, "Removed.")

        self.app.push_screen(ConfirmDialog(question, yes="Remove"), answered)
