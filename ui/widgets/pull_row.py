"""One model's download: its name, a progress bar, and what is happening."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import Vertical
from textual.content import Content
from textual.widgets import ProgressBar, Static

from assistant.terminal import visible
from ui.format import human_size, human_speed

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.llm.values import PullProgress

__all__ = ["PullRow"]


class PullRow(Vertical):
    """Progress of one model's pull, in bytes summed over its layers.

    Args:
        model: the model's name.
    """

    def __init__(self, model: str) -> None:
        super().__init__(classes="pull-row")
        self.model = model
        self.state = "waiting"  # waiting, pulling, done, cancelled, failed

    def compose(self) -> ComposeResult:
        yield Static(Content(visible(self.model)), classes="pull-name")
        # Still while waiting: an animated bar would say something is happening.
        yield ProgressBar(total=100, show_eta=False)
        yield Static(Content("waiting"), classes="pull-status")

    def show(self, progress: PullProgress) -> None:
        """Show a progress report from the pull."""
        self.state = "pulling"
        bar = self.query_one(ProgressBar)
        if progress.total:
            bar.update(total=progress.total, progress=progress.completed)
        elif bar.progress == 0:
            bar.update(total=None)  # under way, its size not yet known
        parts = [progress.status]
        if progress.total:
            parts.append(f"{human_size(progress.completed)} / {human_size(progress.total)}")
        if speed := human_speed(progress.bytes_per_s):
            parts.append(speed)
        self._say(" · ".join(parts))

    def finish(self, *, cancelled: bool = False, error: str = "") -> None:
        """Mark the pull as ended: done, cancelled, or failed with ``error``."""
        bar = self.query_one(ProgressBar)
        if error:
            self.state = "failed"
            self._say(f"failed: {error}")
        elif cancelled:
            self.state = "cancelled"
            self._say("cancelled")
        else:
            self.state = "done"
            total = bar.total or 1
            bar.update(total=total, progress=total)
            self._say(f"done · {human_size(total)}" if total > 1 else "done")
        self.set_class(True, f"-{self.state}")

    def _say(self, text: str) -> None:
        self.query_one(".pull-status", Static).update(Content(visible(text)))
