"""The review tab: tonight's proposals, each with its evidence, approved or rejected by you.

Pending facts and the model's proposed core memory edits share one table; a core edit's
row key is its proposal id negated, so the two kinds of id never collide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from assistant.admin.views import CoreReviewItem, ReviewItem
from assistant.terminal import visible
from ui.format import clip, stamp
from ui.screens.dialogs import ConfirmDialog, TextDialog
from ui.screens.inspector.pane import InspectorPane
from ui.widgets import RecordTable
from ui.widgets.fact_filters import SOURCE_LABELS

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.admin.views import EvidenceView
    from assistant.engine import Hippo

Item = ReviewItem | CoreReviewItem

__all__ = ["ReviewPane", "review_detail"]

_KIND = {"conflict": "replaces", "reflection": "insight", "fact": "new", "core": "core"}
_CORE = "core"


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
    if item.why:
        lines.append(Content.assemble(("Why it waits: ", "dim"), visible(item.why)))
    lines.append(Content(f"Evidence ({len(item.evidence)}):"))
    lines.extend(_evidence_line(view) for view in item.evidence)
    return Content("\n").join(lines)


def core_detail(item: CoreReviewItem) -> Content:
    """A proposed core memory edit, why it waits, and the turn that caused it."""
    proposal = item.proposal
    lines = [
        Content.assemble(
            ("Proposed by ", "dim"),
            "agent",
            ("  edit of the ", "dim"),
            f"{proposal.label} block",
            ("  (core memory: in every prompt once approved)", "dim"),
        )
    ]
    if proposal.action == "replace":
        lines.append(Content.assemble(("- ", "red"), visible(proposal.old_content)))
    lines.append(Content.assemble(("+ ", "green"), visible(proposal.content)))
    lines.append(Content.assemble(("Why it waits: ", "dim"), visible(item.why)))
    lines.append(Content(f"The turn it came from ({len(item.evidence)}):"))
    lines.extend(_evidence_line(view) for view in item.evidence)
    return Content("\n").join(lines)


def _kind(item: Item) -> str:
    return _CORE if isinstance(item, CoreReviewItem) else item.proposal


def _key(item: Item) -> int:
    return -item.id if isinstance(item, CoreReviewItem) else item.id


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
        self.items: dict[int, Item] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="review-title", classes="section")
        yield RecordTable(
            [("Kind", 8), ("Proposal", 52), ("Conf", 4), ("Source", 10), ("By", 6)],
            flex="Proposal",
            id="review-table",
        )
        with VerticalScroll(id="review-detail-box"):
            yield Static(id="review-detail")

    @property
    def table(self) -> RecordTable:
        """The table of proposals."""
        return self.query_one("#review-table", RecordTable)

    @property
    def home(self) -> Widget | None:
        return self.table

    def reload(self) -> None:
        queue: list[Item] = [
            *(self.attempt(lambda: self.admin.review.queue()) or []),
            *(self.attempt(lambda: self.admin.review.core_queue()) or []),
        ]
        self.items = {_key(item): item for item in queue}
        self.table.show((_key(item), self._cells(item)) for item in queue)
        self.query_one("#review-title", Static).update(
            Content(
                f"{len(queue)} proposal(s) to review · a approve · e edit then approve · "
                "r reject · A/R all of this kind"
            )
            if queue
            else Content("Nothing to review: proposals from sleep and the model show up here.")
        )
        self._describe(self.table.selected_id)

    @staticmethod
    def _cells(item: Item) -> tuple[str | Text, ...]:
        if isinstance(item, CoreReviewItem):
            return ("core", Text(clip(item.statement, 300)), "", "agent", "agent")
        return (
            _KIND.get(item.proposal, item.proposal),
            Text(clip(item.statement, 300)),
            f"{item.confidence:.2f}",
            SOURCE_LABELS.get(item.source_kind, item.source_kind),
            item.proposed_by,
        )

    def _describe(self, key: int | None) -> None:
        item = self.items.get(key) if key is not None else None
        detail = (
            ""
            if item is None
            else core_detail(item)
            if isinstance(item, CoreReviewItem)
            else review_detail(item)
        )
        self.query_one("#review-detail", Static).update(detail)

    @on(RecordTable.RowHighlighted, "#review-table")
    def _highlighted(self, event: RecordTable.RowHighlighted) -> None:
        self._describe(int(event.row_key.value) if event.row_key.value else None)

    @on(RecordTable.RowSelected, "#review-table")
    def _selected(self, event: RecordTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None and int(event.row_key.value) > 0:
            self.post_message(self.ShowFact(int(event.row_key.value)))

    def _item(self) -> Item | None:
        key = self.table.selected_id
        item = self.items.get(key) if key is not None else None
        if item is None:
            self.notify("There is nothing here to review.", markup=False)
        return item

    def action_approve(self) -> None:
        """Approve the proposal: it becomes an active fact (replacing the old one, if any)."""
        if (item := self._item()) is not None:
            review = self.admin.review
            approve = review.approve_core if isinstance(item, CoreReviewItem) else review.approve
            self.attempt(lambda: approve(item.id), f"Approved: {clip(item.statement, 60)}")

    def action_edit_approve(self) -> None:
        """Correct the proposal's wording, then approve it."""
        if (item := self._item()) is None:
            return
        if isinstance(item, CoreReviewItem):
            self.notify(
                "A core memory edit is approved as proposed: approve it (a) or reject it (r), "
                "then change the block in the Core tab.",
                markup=False,
            )
            return

        def save(text: str | None) -> None:
            if text:
                done = f"Approved as: {clip(text, 60)}"
                self.attempt(lambda: self.admin.review.approve(item.id, statement=text), done)

        self.app.push_screen(TextDialog("Edit, then approve (Enter)", item.statement), save)

    def action_reject(self) -> None:
        """Reject the proposal; it is not proposed again from the same evidence."""
        if (item := self._item()) is not None:
            review = self.admin.review
            reject = review.reject_core if isinstance(item, CoreReviewItem) else review.reject
            self.attempt(lambda: reject(item.id), f"Rejected: {clip(item.statement, 60)}")

    def action_all(self, verb: str) -> None:
        """Approve or reject every proposal of the selected one's kind, after asking."""
        if (item := self._item()) is None:
            return
        kind = _kind(item)
        name = _KIND.get(kind, kind)
        count = sum(1 for other in self.items.values() if _kind(other) == kind)
        call = self.admin.review.approve_all if verb == "approve" else self.admin.review.reject_all
        done = f"{'Approved' if verb == 'approve' else 'Rejected'} {count} {name} proposal(s)."

        def answered(yes: bool | None) -> None:
            if yes:
                self.attempt(lambda: call(kind), done)

        question = f"{verb.title()} all {count} proposal(s) of kind {name!r}?"
        self.app.push_screen(ConfirmDialog(question, yes=verb.title()), answered)
