"""The forget tab: preview every row in every tier that mentions X, deselect the rows to keep,
delete the rest, show the receipt."""

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

    from assistant.admin.views import ForgetHit, ForgetPreview, ForgetReceipt
    from assistant.engine import Hippo

__all__ = ["ForgetPane"]


class ForgetPane(InspectorPane):
    """ "Forget everything about X": Enter previews every row; space keeps or forgets the
    row under the cursor (a selects all, n none); f deletes the selected (after asking)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_input", "New forget"),
        Binding("space", "toggle_row", "Keep/forget row"),
        Binding("a", "select_all", "Select all"),
        Binding("n", "select_none", "Select none"),
        Binding("f", "forget", "Forget selected"),
    ]

    class Forgot(Message):
        """The forget finished (posted from its thread), with its receipt or why it failed."""

        def __init__(self, text: str, receipt: ForgetReceipt | None, error: str = "") -> None:
            super().__init__()
            self.text, self.receipt, self.error = text, receipt, error

    def __init__(self, engine: Hippo, *, id: str | None = None) -> None:
        super().__init__(engine, id=id)
        self.previewed: ForgetPreview | None = None
        self.keep: set[str] = set()
        """Keys of the lines the user deselected (what stays with them is in ``kept``)."""
        self._ids: dict[str, int] = {}  # line key -> the table's row id, stable per preview

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
            [("", 3), ("#", 4), ("Tier", 9), ("Id", 6), ("When", 16), ("Text", 40), ("Why", 30)],
            flex="Text",
            id="forget-table",
        )
        # The row under the cursor in full: its reason and text are cut in the table.
        yield Static(id="forget-detail", classes="detail")
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
        """Show every row that forgetting ``text`` would delete or rewrite, all selected."""
        text = text.strip()
        self.query_one("#forget-text", Input).value = text
        if not text:
            self.notify("Type what to forget first.", markup=False)
            return
        preview = self.attempt(lambda: self.admin.forget.preview(text))
        if preview is None:
            return
        self.keep, self._ids = set(), {}
        self.query_one("#forget-receipt", Static).update("")
        table = self.query_one("#forget-table", RecordTable)
        table.display = True
        self._show(preview)
        if preview.rows:
            table.focus()

    def _show(self, preview: ForgetPreview) -> None:
        """Draw the lines, each marked selected [x] or kept [ ], and the counts."""
        self.previewed = preview
        numbers = {hit.key: n for n, hit in preview.numbered().items()}
        rows = []
        for hit in preview.rows:
            row_id = self._ids.setdefault(hit.key, len(self._ids) + 1)
            chosen = preview.selected(hit)
            why = hit.why if chosen else f"kept: {preview.kept[hit.key]}"
            number = str(numbers[hit.key])
            cells = (hit.tier, str(hit.item_id), stamp(hit.at), clip(hit.text, 200), why)
            rows.append((row_id, ("[x]" if chosen else "[ ]", number, *cells)))
        table = self.query_one("#forget-table", RecordTable)
        table.show(rows)
        self.query_one("#forget-summary", Static).update(self._summary(preview))
        self._describe()

    def _describe(self) -> None:
        """Show the row under the cursor whole: why it is listed and all of its text."""
        hit, preview = self._line(), self.previewed
        detail = self.query_one("#forget-detail", Static)
        if hit is None or preview is None:
            detail.update("")
            return
        chosen = preview.selected(hit)
        why = f"forgets it: {hit.why}" if chosen else f"keeps it: {preview.kept[hit.key]}"
        when = f" · {stamp(hit.at)}" if hit.at else ""
        head = f"{hit.tier} {hit.item_id}{when} · {why}"
        detail.update(Content(visible(f"{head}\n{hit.text}")))

    @on(RecordTable.RowHighlighted, "#forget-table")
    def _highlighted(self, event: RecordTable.RowHighlighted) -> None:
        event.stop()
        self._describe()

    def _line(self) -> ForgetHit | None:
        """The preview line under the table's cursor."""
        table = self.query_one("#forget-table", RecordTable)
        if self.previewed is None or not table.display or table.selected_id is None:
            return None
        keys = {row_id: key for key, row_id in self._ids.items()}
        key = keys.get(table.selected_id)
        return next((hit for hit in self.previewed.rows if hit.key == key), None)

    def action_toggle_row(self) -> None:
        """Keep the row under the cursor, or forget it again."""
        hit, preview = self._line(), self.previewed
        if hit is None or preview is None:
            return
        if hit.key in self.keep:
            self.keep.discard(hit.key)
        elif preview.selected(hit):
            self.keep.add(hit.key)
        else:  # it stays because a kept row needs it: that row decides
            self.notify(
                f"This row stays because {preview.kept[hit.key]}: forget that one too to "
                "select it.",
                markup=False,
            )
            return
        self._reselect()

    def action_select_all(self) -> None:
        """Select every row: forget all of it."""
        self.keep.clear()
        self._reselect()

    def action_select_none(self) -> None:
        """Deselect every row: keep all of it (then select rows with space)."""
        # Keeping a fact lists the evidence it would lose (new rows): keep those too.
        while self.previewed is not None and not self.previewed.nothing_selected:
            rows = {hit.key for hit in self.previewed.rows}
            if rows <= self.keep:
                break
            self.keep |= rows
            self._reselect()

    def _reselect(self) -> None:
        previewed = self.previewed
        if previewed is None or previewed.empty:
            return
        preview = self.attempt(lambda: self.admin.forget.reselect(previewed, self.keep))
        if preview is not None:
            self._show(preview)

    @staticmethod
    def _summary(preview: ForgetPreview) -> Content:
        if preview.empty:
            said = visible(repr(preview.text))
            return Content(f"Nothing mentions {said} {preview.where}: there is nothing to forget.")
        counts = ", ".join(f"{tier} {n}" for tier, n in preview.counts.items() if n)
        rows, said = len(preview.rows), visible(repr(preview.text))
        head = f"{rows} row(s) mention {said} {preview.where}: "
        if preview.total < rows:
            head += f"{preview.total} selected, {rows - preview.total} kept; forgets "
        vouched = ", ".join(str(fact_id) for fact_id in preview.vouched)
        return Content.assemble(
            (head, "bold"),
            counts or "nothing",
            (
                f" · kept fact(s) {vouched} lose all their evidence: your choice becomes it"
                if vouched
                else "",
                "yellow",
            ),
            (visible(_elsewhere(preview)), "yellow"),
            (" · space keeps/forgets a row, a all, n none · f forgets the selected", "dim"),
        )

    def action_forget(self) -> None:
        """Delete the selected rows, once confirmed, and show the receipt."""
        preview = self.previewed
        if preview is None or preview.empty:
            self.notify(
                "Preview something to forget first: type it above and press Enter.", markup=False
            )
            return
        if preview.nothing_selected:
            self.notify(
                "Every row is kept: select the rows to forget (space, or a for all).",
                markup=False,
            )
            return
        kept = len(preview.rows) - preview.total
        question = (
            f"Forget {preview.total} selected row(s) about {preview.text!r} in "
            f"{sum(1 for n in preview.counts.values() if n)} tier(s)? They are deleted for "
            f"good; this can't be undone." + (f" The {kept} row(s) you kept stay." if kept else "")
        )
        keep = frozenset(self.keep)

        def answered(yes: bool | None) -> None:
            if yes:
                self.query_one("#forget-summary", Static).update(Content("Forgetting…"))
                self._forget(preview.text, keep)

        self.app.push_screen(ConfirmDialog(question, yes="Forget"), answered)

    @work(thread=True, exclusive=True, group="forget", exit_on_error=False)
    def _forget(self, text: str, keep: frozenset[str]) -> None:
        # Deleting and scrubbing the file (and its backups) can take a while on a big file.
        try:
            receipt = self.admin.forget.text(text, keep=keep)
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
        self.previewed, self.keep = None, set()
        table = self.query_one("#forget-table", RecordTable)
        table.clear()
        table.display = False  # the receipt takes its place
        self.query_one("#forget-detail", Static).update("")
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
