"""Helpers for Pilot tests: wait on a condition (never a fixed sleep), read the screen."""

from __future__ import annotations

import asyncio
import fcntl
import io
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from textual import events
from textual.app import App
from textual.css.query import NoMatches
from textual.pilot import Pilot
from textual.widget import Widget

from tests.fake_ollama import FakeOllama
from ui import HippoApp
from ui.screens import ChatScreen, InspectorScreen
from ui.widgets import Conversation, MessageView, PromptInput, RecordTable

__all__ = [
    "chat_ready",
    "messages_shown",
    "no_toasts",
    "noted",
    "notified",
    "ollama_on_fixed_port",
    "open_inspector",
    "screen_text",
    "sees",
    "select_row",
    "send",
    "send_command",
    "type_text",
    "wait_until",
]


# How long a wait may last before the test fails. Only a failing test ever waits this
# long, so it is generous: on a busy shared machine (CI, several suites at once, each
# with a worker a core) the app runs ten times slower, and 20 s was seen to run out.
WAIT_S = 60.0


async def wait_until(
    pilot: Pilot, predicate: Callable[[], object], timeout: float = WAIT_S, what: str = ""
) -> None:
    """Let the app run until ``predicate()`` is true.

    The app runs on this same event loop, so sleeping between looks is all it needs to
    go on. Not `pilot.pause`: each of those also posts a message to every widget on the
    screen, waits for all of them, and lays the screen out at once, though Textual's own
    update timer does that within a frame anyway; over the UI tests' thousands of looks
    that was about a sixth of their CPU, spent while waiting.

    Raises:
        AssertionError: it stayed false for ``timeout`` seconds, or the app failed
            meanwhile (its exception is the cause).
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            if predicate():
                return
        except NoMatches:  # the screen it looks at isn't up yet
            pass
        if pilot.app._exception is not None:  # it crashed: nothing more will change
            raise AssertionError(f"the app failed waiting for {what or predicate}") from (
                pilot.app._exception
            )
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout}s waiting for {what or predicate}; {_state(pilot.app)}"
            )
        await asyncio.sleep(0.02)


def _state(app: App) -> str:
    """Where the app stands, for a failed wait: what is on top, has the keyboard, was said."""
    screens = " > ".join(type(screen).__name__ for screen in app.screen_stack)
    posted = app.__dict__.get("_notices_posted", [])
    return f"screens: {screens}; focus: {app.focused!r}; notices: {posted[-4:]}"


def screen_text(app: App) -> str:
    """What the terminal shows now, as plain text."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), force_terminal=True,
        color_system="truecolor", record=True, legacy_windows=False,
    )  # fmt: skip
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console.export_text()


async def chat_ready(pilot: Pilot[None]) -> None:
    """Wait until the startup check (after the data file opened) found Ollama and the
    chat is on top."""
    app = pilot.app
    assert isinstance(app, HippoApp)
    await wait_until(
        pilot,
        lambda: app.checked and app.chat.status.reachable and isinstance(app.screen, ChatScreen),
        what="Ollama to answer and the chat to be on top",
    )


def messages_shown(app: HippoApp) -> list[MessageView]:
    """The message views in the conversation, oldest first."""
    return list(app.chat.query_one(Conversation).query(MessageView))


async def type_text(pilot: Pilot[None], text: str) -> None:
    """Put text in the message box as a paste does (Pilot spends ~60 ms on each key)."""
    prompt = pilot.app.chat.query_one(PromptInput)
    prompt.focus()
    pilot.app.post_message(events.Paste(text))  # as the terminal driver sends it
    await wait_until(pilot, lambda: prompt.text.endswith(text), what=f"{text!r} in the box")


async def sees(pilot: Pilot[None], *texts: str, timeout: float = WAIT_S) -> str:
    """Wait until the terminal shows every one of ``texts``; return the screen's text."""
    app = pilot.app
    seen: dict[str, object] = {}

    def shows() -> bool:
        # A full render costs more than the app's own work between two looks: render
        # once a look, and only once a new frame came (counted by tests/ui/conftest.py;
        # without the count, every look renders).
        frame = (app.screen, app.__dict__.get("_frames"))
        if frame[1] is None or seen.get("frame") != frame:
            seen["frame"], seen["text"] = frame, screen_text(app)
        shown = str(seen["text"])
        return all(text in shown for text in texts)

    try:
        await wait_until(pilot, shows, timeout, what=f"the screen to show {texts}")
    except AssertionError as exc:  # say what it showed instead
        raise AssertionError(f"{exc}; it shows:\n{screen_text(pilot.app)}") from exc.__cause__
    return str(seen["text"])  # the screen as it was when it showed them


async def send(pilot: Pilot[None], text: str) -> None:
    """Type a message, press Enter, and wait until its reply has ended (however it ended)."""
    app = pilot.app
    before = len(messages_shown(app))
    await type_text(pilot, text)
    await pilot.press("enter")
    await wait_until(
        pilot,
        lambda: len(messages_shown(app)) >= before + 2 and not app.chat.streaming,
        what="the reply to end",
    )


async def open_inspector(pilot: Pilot[None], tab: str = "facts") -> InspectorScreen:
    """Open the memory inspector from the chat on ``tab`` (as the palette does); wait for it."""
    app = pilot.app
    assert isinstance(app, HippoApp)
    await chat_ready(pilot)
    app.action_memory(tab)
    await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), what="the inspector")
    inspector = app.screen
    assert isinstance(inspector, InspectorScreen)
    await wait_until(
        pilot, lambda: inspector.active_pane is not None and inspector.active_pane.loaded
    )
    # The inspector puts the keyboard in the pane after a refresh: on a busy machine,
    # later than the pane loads. Wait for it, or a snapshot's cursor comes and goes.
    await wait_until(pilot, lambda: _focus_in_pane(inspector), what="the pane to have focus")
    await pilot.pause()
    return inspector


def _focus_in_pane(inspector: InspectorScreen) -> bool:
    pane = inspector.active_pane
    if pane is None:
        return False
    if not any(widget.focusable for widget in pane.query(Widget)):
        return True  # nothing in it takes the keyboard
    focused = inspector.focused
    # has_focus: the widget itself has handled its Focus event (it draws its cursor then).
    return focused is not None and focused.has_focus and pane in focused.ancestors_with_self


def no_toasts(app: App) -> None:
    """Clear notifications before a snapshot: each lasts a set number of seconds, so on
    a busy machine a snapshot would catch one or not by chance. A test that expects one
    waits for it (`notified`) first."""
    app.clear_notifications()


async def select_row(pilot: Pilot[None], table: RecordTable, record_id: int) -> None:
    """Move a table's cursor to the row of ``record_id`` (waiting for it to be listed)."""
    await wait_until(pilot, lambda: record_id in table.selected_ids(), what=f"row {record_id}")
    table.move_cursor(row=table.get_row_index(str(record_id)))
    table.focus()
    await pilot.pause()


def notified(app: App, text: str) -> bool:
    """Whether the app has posted a notification containing ``text`` (showing or not).

    Every notice posted is kept by tests/ui/conftest.py, so one that expired before
    the test looked still counts, and "not notified" means never shown.
    """
    posted = app.__dict__.get("_notices_posted")
    shown = [str(notice.message) for notice in app._notifications]
    return any(text in message for message in (shown if posted is None else posted))


def noted(app: HippoApp, text: str) -> bool:
    """Whether the chat shows a note (a notice too long for a toast) containing ``text``."""
    return any(text in str(note.render()) for note in app.chat.query(".note"))


async def send_command(pilot: Pilot[None], text: str) -> None:
    """Type a slash command in the chat box and press Enter."""
    await type_text(pilot, text)
    await pilot.press("enter")


@contextmanager
def ollama_on_fixed_port(port: int) -> Iterator[FakeOllama]:
    """A fake Ollama on ``port``, held by this test alone meanwhile.

    Snapshots show Ollama's host, so their fake Ollama listens on a fixed port. Under
    pytest-xdist two workers may reach such a test at once, and the second could not bind
    the port: a lock file per port, in the temporary directory every worker shares, makes
    them take turns.
    """
    with (Path(tempfile.gettempdir()) / f"hippo-tests-port-{port}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with FakeOllama(port=port) as server:
                yield server
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
