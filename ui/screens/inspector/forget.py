"""The forget tab: preview every row in every tier that mentions X, delete it, show the receipt."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from assistant.errors import HippoError
from assistant.terminal import visible
from ui.format import clip, stamp
from ui.screens.dialogs import ConfirmDialog
from ui.screens.inspector.pane import InspectorPane
from ui.widgets import RecordTable

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.admin.views import ForgetPreview, ForgetReceipt
    from assistant.engine import Hippo

__all__ = ["ForgetPane"]


class ForgetPane(InspectorPane):
    """ "Forget everything about X": Enter previews, f deletes (after asking), for real."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_input", "New forget"),
        Binding("f", "forget", "Forget all shown"),
    ]

    class Forgot(Message):
        """The forget finished (posted from its thread), with its receipt or why it failed."""

        def __init__(self, text: str, receipt: ForgetReceipt | None, error: str = "") -> None:
            super().__init__()
            self.text, self.receipt, self.error = text, receipt, error

    def __init__(self, engine: Hippo, *, id: str | None = None) -> None:
        super().__init__(engine, id=id)
        self.previewed: ForgetPreview | None = None

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="Forget everything about… (Enter previews what would go)", id="forget-text"
        )
        yield Static(
            Content(
                "/ to type what to forget. Nothing is deleted until you confirm. Forgetting "
                "removes the rows, their search index and vectors, then compacts the file."
            ),
            id="forget-summary",
            classes="hint",
        )
        yield RecordTable(
            [("Tier", 9), ("Id", 6), ("When", 16), ("Text", 46), ("Why", 26)],
            flex="Text",
            id="forget-table",
        )
        with VerticalScroll(id="forget-receipt-box"):
            yield Static(id="forget-receipt")

    @property
    def home(self) -> Widget | None:
        # The preview (f forgets it), or the receipt once it has taken the preview's place.
        table = self.query_one("#forget-table", RecordTable)
        return table if table.display else self.query_one("#forget-receipt-box")

    def action_focus_input(self) -> None:
        """Put the keyboard in the box, to preview something else."""
        self.query_one("#forget-text", Input).focus()

    @on(Input.Submitted, "#forget-text")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.preview(event.value)

    def preview(self, text: str) -> None:
        """Show every row that forgetting ``text`` would delete or rewrite, per tier."""
        text = text.strip()
        self.query_one("#forget-text", Input).value = text
        if not text:
            self.notify("Type what to forget first.", markup=False)
            return
        preview = self.attempt(lambda: self.admin.forget.preview(text))
        if preview is None:
            return
        self.previewed = preview
        self.query_one("#forget-receipt", Static).update("")
        rows, key = [], 0
        for tier in preview.counts:  # every tier, in the order the admin API lists them
            for hit in preview.hits.get(tier, ()):
                key += 1
                rows.append(
                    (key, (tier, str(hit.item_id), stamp(hit.at), clip(hit.text, 200), hit.why))
                )
        table = self.query_one("#forget-table", RecordTable)
        table.display = True
        table.show(rows)
        self.query_one("#forget-summary", Static).update(self._summary(preview))
        if rows:
            table.focus()

    @staticmethod
    def _summary(preview: ForgetPreview) -> Content:
        if preview.empty:
            said = visible(repr(preview.text))
            return Content(f"Nothing mentions {said} {preview.where}: there is nothing to forget.")
        counts = ", ".join(f"{tier} {n}" for tier, n in preview.counts.items() if n)
        return Content.assemble(
            (
                f"{preview.total} row(s) mention {visible(repr(preview.text))} {preview.where}: ",
                "bold",
            ),
            counts,
            (visible(_elsewhere(preview)), "yellow"),
            (" · f forgets them all (you will be asked)", "dim"),
        )

    def action_forget(self) -> None:
        """Delete everything previewed, once confirmed, and show the receipt."""
        preview = self.previewed
        if preview is None or preview.empty:
            self.notify(
                "Preview something to forget first: type it above and press Enter.", markup=False
            )
            return
        question = (
            f"Forget everything about {preview.text!r}? {preview.total} row(s) in "
            f"{sum(1 for n in preview.counts.values() if n)} tier(s) are deleted for good; "
            "this can't be undone."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.query_one("#forget-summary", Static).update(Content("Forgetting…"))
                self._forget(preview.text)

        self.app.push_screen(ConfirmDialog(question, yes="Forget"), answered)

    @work(thread=True, exclusive=True, group="forget", exit_on_error=False)
    def _forget(self, text: str) -> None:
        # Deleting and scrubbing the file (and its backups) can take a while on a big file.
        try:
            receipt = self.admin.forget.text(text)
        except HippoError as exc:
            self.post_message(self.Forgot(text, None, str(exc)))
            return
        self.post_message(self.Forgot(text, receipt))

    def on_forget_pane_forgot(self, message: Forgot) -> None:
        summary = self.query_one("#forget-summary", Static)
        if message.receipt is None:
            summary.update(Content(visible(f"Nothing was forgotten: {message.error}")))
            self.notify(message.error, title="Not done", severity="error", markup=False)
            return
        self.previewed = None
        table = self.query_one("#forget-table", RecordTable)
        table.clear()
        table.display = False  # the receipt takes its place
        self.focus_first()
        summary.update(Content("Done. The receipt:"))
        receipt = Content(visible(message.receipt.text()))
        self.query_one("#forget-receipt", Static).update(receipt)
        self.changed(f"Forgot {message.text!r}: {message.receipt.total} row(s).")


def _elsewhere(preview: ForgetPreview) -> str:
    """Other profiles that still mention it (this tab forgets in the profile in use only)."""
    if not preview.elsewhere:
        return ""
    held = ", ".join(f"{name!r} {n}" for name, n in preview.elsewhere.items())
    return f" · left in other profiles: {held} (`hippo memory forget TEXT --all-profiles`)"
