"""The review tab: tonight's proposals, each with its evidence, approved or rejected by you."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from assistant.terminal import visible
from ui.format import clip, stamp
from ui.screens.dialogs import ConfirmDialog, TextDialog
from ui.screens.inspector.pane import InspectorPane
from ui.widgets import RecordTable
from ui.widgets.fact_filters import SOURCE_LABELS

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.admin.models import EvidenceView, ReviewItem
    from assistant.engine import Hippo

__all__ = ["ReviewPane", "review_detail"]

_KIND = {"conflict": "replaces", "reflection": "insight", "fact": "new"}


def _evidence_line(view: EvidenceView) -> Content:
    when = stamp(view.at) if view.at else "undated"
    if view.missing:
        return Content.assemble(("  • ", "dim"), (f"{view.kind} {view.ref_id} is gone", "red"))
    said = view.quote or clip(view.text, 240)
    source = visible(view.source)
    return Content.assemble(("  • ", "dim"), (f"{when} · {source}: ", "dim"), f"“{visible(said)}”")


def review_detail(item: ReviewItem) -> Content:
    """Everything needed to decide on one proposal, as plain (non-markup) content."""
    fact = item.fact
    lines = [
        Content.assemble(
            ("Proposed by ", "dim"),
            visible(item.proposed_by),
            ("  source ", "dim"),
            SOURCE_LABELS.get(fact.source_kind, fact.source_kind),
            ("  confidence ", "dim"),
            f"{fact.confidence:.2f}",
            ("  scope ", "dim"),
            visible(fact.scope) or "general",
        ),
    ]
    if item.replaces is not None:
        lines.append(Content.assemble(("- before: ", "red"), visible(item.before)))
        lines.append(Content.assemble(("+ after:  ", "green"), visible(item.after)))
    else:
        lines.append(Content.assemble(("+ ", "green"), visible(fact.statement)))
    lines.append(Content(f"Evidence ({len(item.evidence)}):"))
    lines.extend(_evidence_line(view) for view in item.evidence)
    return Content("\n").join(lines)


class ReviewPane(InspectorPane):
    """Pending facts, oldest first; decide with a, e, r (one) or A, R (all of its kind)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve"),
        Binding("e", "edit_approve", "Edit+approve"),
        Binding("r", "reject", "Reject"),
        Binding("A", "all('approve')", "Approve all of kind"),
        Binding("R", "all('reject')", "Reject all of kind"),
    ]

    def __init__(self, engine: Hippo, *, id: str | None = None) -> None:
        super().__init__(engine, id=id)
        self.items: dict[int, ReviewItem] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="review-title", classes="section")
        yield RecordTable(
            [("Kind", 8), ("Proposal", 52), ("Conf", 4), ("Source", 10), ("By", 6)],
            id="review-table",
        )
        with VerticalScroll(id="review-detail-box"):
            yield Static(id="review-detail")

    @property
    def table(self) -> RecordTable:
        """The table of proposals."""
        return self.query_one("#review-table", RecordTable)

    def focus_first(self) -> None:
        self.table.focus()

    def reload(self) -> None:
        queue = self.attempt(lambda: self.admin.review_queue()) or []
        self.items = {item.id: item for item in queue}
        self.table.show(
            (
                item.id,
                (
                    _KIND.get(item.proposal, item.proposal),
                    Text(clip(item.statement, 300)),
                    f"{item.confidence:.2f}",
                    SOURCE_LABELS.get(item.source_kind, item.source_kind),
                    item.proposed_by,
                ),
            )
            for item in queue
        )
        self.query_one("#review-title", Static).update(
            Content(
                f"{len(queue)} proposal(s) to review · a approve · e edit then approve · "
                "r reject · A/R all of this kind"
            )
            if queue
            else Content("Nothing to review: proposals from sleep and the model show up here.")
        )
        self._describe(self.table.selected_id)

    def _describe(self, fact_id: int | None) -> None:
        item = self.items.get(fact_id) if fact_id is not None else None
        self.query_one("#review-detail", Static).update(review_detail(item) if item else "")

    @on(RecordTable.RowHighlighted, "#review-table")
    def _highlighted(self, event: RecordTable.RowHighlighted) -> None:
        self._describe(int(event.row_key.value) if event.row_key.value else None)

    @on(RecordTable.RowSelected, "#review-table")
    def _selected(self, event: RecordTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.ShowFact(int(event.row_key.value)))

    def _item(self) -> ReviewItem | None:
        fact_id = self.table.selected_id
        item = self.items.get(fact_id) if fact_id is not None else None
        if item is None:
            self.notify("There is nothing here to review.", markup=False)
        return item

    def action_approve(self) -> None:
        """Approve the proposal: it becomes an active fact (replacing the old one, if any)."""
        if (item := self._item()) is not None:
            self.attempt(
                lambda: self.admin.approve(item.id), f"Approved: {clip(item.statement, 60)}"
            )

    def action_edit_approve(self) -> None:
        """Correct the proposal's wording, then approve it."""
        if (item := self._item()) is None:
            return

        def save(text: str | None) -> None:
            if text:
                done = f"Approved as: {clip(text, 60)}"
                self.attempt(lambda: self.admin.approve(item.id, statement=text), done)

        self.app.push_screen(TextDialog("Edit, then approve (Enter)", item.statement), save)

    def action_reject(self) -> None:
        """Reject the proposal; it is not proposed again from the same evidence."""
        if (item := self._item()) is not None:
            self.attempt(
                lambda: self.admin.reject(item.id), f"Rejected: {clip(item.statement, 60)}"
            )

    def action_all(self, verb: str) -> None:
        """Approve or reject every proposal of the selected one's kind, after asking."""
        if (item := self._item()) is None:
            return
        kind, name = item.proposal, _KIND.get(item.proposal, item.proposal)
        count = sum(1 for other in self.items.values() if other.proposal == kind)
        call = self.admin.approve_all if verb == "approve" else self.admin.reject_all
        done = f"{'Approved' if verb == 'approve' else 'Rejected'} {count} {name} proposal(s)."

        def answered(yes: bool | None) -> None:
            if yes:
                self.attempt(lambda: call(kind), done)

        question = f"{verb.title()} all {count} proposal(s) of kind {name!r}?"
        self.app.push_screen(ConfirmDialog(question, yes=verb.title()), answered)
