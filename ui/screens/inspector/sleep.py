"""The sleep tab: the last consolidation's report, when the next one runs, and "run now"."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, ProgressBar, Static

from assistant.errors import HippoError
from assistant.terminal import visible
from ui.format import stamp
from ui.screens.inspector.pane import InspectorPane

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.sleep import Progress, SleepReport

__all__ = ["SleepPane"]

_DETAILS = 20  # per-session problem lines shown under the report


def report_text(report: SleepReport | None) -> str:
    """The last run in a few lines (plain text)."""
    if report is None:
        return "Hippo has not consolidated memory yet. Press r to run it now."
    lines = [
        f"Last run: {stamp(report.started_at)} ({report.trigger}), {report.status}, "
        f"{report.seconds:.1f} s, {report.llm_calls} model calls.",
        report.summary(),
        f"What each step did: {report.activity}",
    ]
    if report.details:
        lines += ["Details:", *(f"  - {line}" for line in report.details[:_DETAILS])]
        if len(report.details) > _DETAILS:
            lines.append(f"  - and {len(report.details) - _DETAILS:,} more")
    return "\n".join(lines)


class SleepPane(InspectorPane):
    """Sleep (consolidation) status, its report, and a run started from here with progress."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "run_now", "Run sleep now")]

    class Moved(Message):
        """The run moved on (posted from its thread)."""

        def __init__(self, progress: Progress) -> None:
            super().__init__()
            self.progress = progress

    class Finished(Message):
        """The run ended, with its report or why it failed."""

        def __init__(self, report: SleepReport | None, error: str = "") -> None:
            super().__init__()
            self.report, self.error = report, error

    def compose(self) -> ComposeResult:
        yield Static(id="sleep-next", classes="section")
        with Horizontal(id="sleep-run-row"):
            yield Button("Run now (r)", id="sleep-run", variant="primary")
            with Vertical():
                yield Static(id="sleep-step", classes="hint")
                yield ProgressBar(id="sleep-progress", show_eta=False)
        with VerticalScroll(id="sleep-report-box"):
            yield Static(id="sleep-report")

    def reload(self) -> None:
        # Imported here: the chat must not pay for the sleep package at startup.
        from assistant.sleep import last_slot

        settings = self.engine.live_settings.sleep
        now = self.engine.clock.now()
        upcoming = last_slot(now, settings) + timedelta(days=1)
        pending = self.engine.admin.facts.count(status="pending")
        self.query_one("#sleep-next", Static).update(
            Content(
                f"Next nightly run: {stamp(upcoming)} (at {settings.at} each night while "
                f"Hippo or its timer runs) · {pending} fact(s) wait for review"
            )
        )
        self.query_one("#sleep-report", Static).update(
            Content(visible(report_text(self.engine.sleep.last_report())))
        )
        self.query_one("#sleep-progress", ProgressBar).display = self.running

    @property
    def running(self) -> bool:
        """Whether a run started here is going on."""
        return any(w.group == "sleep-pane" and not w.is_finished for w in self.workers)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_run_now()

    def action_run_now(self) -> None:
        """Consolidate memory now, showing each step's progress."""
        if self.running:
            self.notify("Sleep is already running.", markup=False)
            return
        bar = self.query_one("#sleep-progress", ProgressBar)
        bar.display = True
        bar.update(total=None, progress=0)
        self.query_one("#sleep-step", Static).update(Content("Starting…"))
        self._consolidate()

    @work(thread=True, exclusive=True, group="sleep-pane", exit_on_error=False)
    def _consolidate(self) -> None:
        def moved(progress: Progress) -> None:
            self.post_message(self.Moved(progress))

        try:
            report = self.engine.consolidate(trigger="manual", progress=moved)
        except HippoError as exc:
            self.post_message(self.Finished(None, str(exc)))
            return
        self.post_message(self.Finished(report))

    def on_sleep_pane_moved(self, message: Moved) -> None:
        p = message.progress
        self.query_one("#sleep-progress", ProgressBar).update(
            total=max(p.total, 1), progress=p.done
        )
        note = f" · {p.note}" if p.note else ""
        self.query_one("#sleep-step", Static).update(Content(f"{p.step}: {p.done}/{p.total}{note}"))

    def on_sleep_pane_finished(self, message: Finished) -> None:
        step = self.query_one("#sleep-step", Static)
        if message.report is None:
            step.update(Content(visible(f"Sleep failed: {message.error}")))
            self.notify(message.error, title="Sleep failed", severity="error", markup=False)
            return
        review = len(message.report.to_review)
        step.update(Content(f"Done: {review} new fact(s) to review."))
        self.changed(f"Memory consolidated: {review} new fact(s) to review.")
