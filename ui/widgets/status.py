"""The status line under the chat: Ollama host, models, profile, queues, facts to review.

Whether Ollama is up follows its real state: once `start_watching` is called, the line
asks the host for its version every few seconds, off the UI thread, and says "up" or
"down" as soon as the answer changes, without a message having to be sent.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable

from textual import work
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from assistant.terminal import visible

__all__ = ["StatusLine"]

_PENDING_EVERY_S = 3.0
# How often Ollama is asked whether it is up: soon after a change, then less often. The
# longest gap plus a probe of a hung host (the connect timeout, 5 s) stays under 10 s.
_WATCH_FIRST_S = 1.0
_WATCH_MOST_S = 4.0
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

    class Reached(Message):
        """A check of Ollama ended (posted from a worker thread)."""

        def __init__(self, serial: int, up: bool) -> None:
            super().__init__()
            self.serial, self.up = serial, up

    class Changed(Message):
        """Ollama went up or down: `reachable` changed after a check."""

        def __init__(self, up: bool) -> None:
            super().__init__()
            self.up = up

    class Counted(Message):
        """The queues were counted (posted from a worker thread)."""

        def __init__(self, pending: int, review: int) -> None:
            super().__init__()
            self.pending, self.review = pending, review

    def __init__(self) -> None:
        super().__init__()
        self._count_pending: Callable[[], int] | None = None
        self._count_review: Callable[[], int] | None = None
        self._probe: Callable[[], object] | None = None
        self._serials = itertools.count(1)
        self._applied = 0  # the serial of the newest check shown
        self._gap = _WATCH_FIRST_S
        self._next_check: Timer | None = None

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

    def start_watching(self, probe: Callable[[], object]) -> None:
        """Follow whether Ollama is up: `probe` it now and every few seconds, in a thread.

        Args:
            probe: asks the host for something cheap; raises `OllamaError` if it can't.
        """
        self._probe = probe
        self.check_now()

    @property
    def watching(self) -> bool:
        """Whether the line follows Ollama's state (`start_watching` was called)."""
        return self._probe is not None

    def check_now(self) -> None:
        """Ask Ollama now whether it is up (after a failed reply, say); no-op before
        `start_watching`."""
        if self._probe is None:
            return
        if self._next_check is not None:
            self._next_check.stop()
        # A daemon thread of its own, started now: a thread worker would start only once
        # the event loop comes round to it, after the first frame has been written out
        # (~0.1 s later on a busy machine), and the first answer is awaited on screen.
        threading.Thread(
            target=self._check,
            args=(self._probe, next(self._serials)),
            name="ollama-check",
            daemon=True,
        ).start()

    def _check(self, probe: Callable[[], object], serial: int) -> None:
        """Ask ``probe`` and post what it found (in the checking thread)."""
        from assistant.errors import OllamaError

        try:
            probe()
        except OllamaError:
            self.post_message(self.Reached(serial, up=False))
        else:
            self.post_message(self.Reached(serial, up=True))

    def on_status_line_reached(self, message: Reached) -> None:
        message.stop()
        if message.serial < self._applied:
            return  # a check begun before a newer one that already ended
        self._applied = message.serial
        changed = message.up != self.reachable
        self.reachable = message.up
        if changed:
            self.post_message(self.Changed(message.up))
        # Checking soon after a change, then backing off to the longest gap.
        self._gap = _WATCH_FIRST_S if changed else min(self._gap * 2, _WATCH_MOST_S)
        if self._next_check is not None:
            self._next_check.stop()
        self._next_check = self.set_timer(self._gap, self.check_now)

    def on_status_line_counted(self, message: Counted) -> None:
        self.pending, self.review = message.pending, message.review

    def render(self) -> Content:
        """The line, built from plain text (names are never markup)."""
        mark, word = _REACHABILITY[self.reachable]
        host = self.host.removeprefix("http://")  # the usual scheme says nothing
        parts = [
            Content.assemble(f"{mark} ", ("Ollama ", "dim"), visible(host), f" {word}"),
            Content.assemble(
                visible(self.chat_model), (" + ", "dim"), visible(self.embedding_model)
            ),
            Content.assemble(("profile ", "dim"), visible(self.profile)),
        ]
        if self.scope:
            parts.append(Content.assemble(("scope ", "dim"), visible(self.scope)))
        if self.incognito:
            parts.append(Content.styled("incognito", "bold"))
        if self.review:
            parts.append(Content.styled(f"{self.review} to review (F4)", "$warning"))
        if self.pending:
            parts.append(Content(f"{self.pending} to embed"))
        if self.sleep:
            parts.append(Content(visible(self.sleep)))
        if self.busy:
            parts.insert(0, Content.styled(visible(self.busy), "bold"))
        return Content(" │ ").join(parts)
