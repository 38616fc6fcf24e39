"""The status line under the chat: Ollama host, models, profile, queues, facts to review."""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

__all__ = ["StatusLine"]

_PENDING_EVERY_S = 3.0
_REACHABILITY = {None: ("…", "checking"), True: ("●", "up"), False: ("○", "down")}


class StatusLine(Widget):
    """One line of facts about the running assistant; every field is a reactive.

    The queues are counted once `start_counting` says how (when the data file is open).
    """

    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; }
    """

    chat_model: reactive[str] = reactive("")
    embedding_model: reactive[str] = reactive("")
    host: reactive[str] = reactive("")
    reachable: reactive[bool | None] = reactive(None)
    profile: reactive[str] = reactive("")
    pending: reactive[int] = reactive(0)
    review: reactive[int] = reactive(0)
    incognito: reactive[bool] = reactive(False)
    scope: reactive[str] = reactive("")
    sleep: reactive[str] = reactive("")
    busy: reactive[str] = reactive("")
    """A long step before the chat is ready (encrypting the data file: 42%)."""

    class Counted(Message):
        """The queues were counted (posted from a worker thread)."""

        def __init__(self, pending: int, review: int) -> None:
            super().__init__()
            self.pending, self.review = pending, review

    def __init__(self) -> None:
        super().__init__()
        self._count_pending: Callable[[], int] | None = None
        self._count_review: Callable[[], int] | None = None

    def start_counting(self, pending: Callable[[], int], review: Callable[[], int]) -> None:
        """Count the queues now and every few seconds, in a thread.

        Args:
            pending: how many messages wait for embeddings (a quick query).
            review: how many facts wait for review.
        """
        self._count_pending, self._count_review = pending, review
        self.set_interval(_PENDING_EVERY_S, self.refresh_pending)
        self.refresh_pending()

    def refresh_pending(self) -> None:
        """Count messages waiting for embeddings and facts waiting for review, off the UI thread.

        Does nothing before `start_counting`.
        """
        if self._count_pending is not None and self._count_review is not None:
            self._count(self._count_pending, self._count_review)

    @work(thread=True, exclusive=True, group="pending", exit_on_error=False)
    def _count(self, pending: Callable[[], int], review: Callable[[], int]) -> None:
        self.post_message(self.Counted(pending(), review()))  # thread-safe, no wait

    def on_status_line_counted(self, message: Counted) -> None:
        self.pending, self.review = message.pending, message.review

    def render(self) -> Content:
        """The line, built from plain text (names are never markup)."""
        mark, word = _REACHABILITY[self.reachable]
        host = self.host.removeprefix("http://")  # the usual scheme says nothing
        parts = [
            Content.assemble(f"{mark} ", ("Ollama ", "dim"), host, f" {word}"),
            Content.assemble(self.chat_model, (" + ", "dim"), self.embedding_model),
            Content.assemble(("profile ", "dim"), self.profile),
        ]
        if self.scope:
            parts.append(Content.assemble(("scope ", "dim"), self.scope))
        if self.incognito:
            parts.append(Content.styled("incognito", "bold"))
        if self.review:
            parts.append(Content.styled(f"{self.review} to review (F4)", "$warning"))
        if self.pending:
            parts.append(Content(f"{self.pending} to embed"))
        if self.sleep:
            parts.append(Content(self.sleep))
        if self.busy:
            parts.insert(0, Content.styled(self.busy, "bold"))
        return Content(" │ ").join(parts)
