"""Stored text in every view reaches the terminal escaped: it is shown, never obeyed.

Textual passes ESC, C1 controls and bidi overrides in a widget's text straight to the
terminal (it drops only BEL, backspace and carriage return), so these tests look at the
bytes the app would write, not at the widgets' text.
"""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime, timedelta

import pytest
from rich.console import Console
from textual.app import App

from assistant.memory.facts import Evidence
from tests.admin.helpers import chat, remember
from tests.ui.helpers import chat_ready, messages_shown, open_inspector, screen_text, wait_until
from ui import HippoApp
from ui.screens import SessionListScreen

SIZE = (120, 36)
# Sets the window title, clears the screen, reverses the text, sends an 8-bit CSI.
HOSTILE = "Anna\x1b]0;owned\x07\x1b[2J\u202eevil\u2066\x9b31m\x7fend"
SHOWN = "\\x1b]0;owned\\x07"
# What Textual itself writes: colours and styles, and cursor moves.
_OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;:]*m|\x1b\[[0-9;]*[HG]")
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_output(app: App) -> str:
    """The characters the app would write to the terminal to draw the screen now."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), force_terminal=True,
        color_system="truecolor", legacy_windows=False,
    )  # fmt: skip
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return update.render_segments(console)


def assert_inert(app: App) -> None:
    """Nothing stored on screen reaches the terminal as a control it would act on."""
    output = terminal_output(app)
    assert "\x1b]" not in output and "\x1b[2J" not in output and "\x07" not in output
    leftover = _UNSAFE.search(_OWN_SEQUENCES.sub("", output))
    assert leftover is None, f"{leftover.group()!r} reaches the terminal"


@pytest.fixture
def hostile(engine):
    """A session, facts, a proposal, an episode, an event and core memory holding HOSTILE."""
    at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    session, said = chat(engine, at, f"{HOSTILE} moved to Berlin", f"Reply {HOSTILE}")
    fact = remember(engine, f"The user says {HOSTILE}", Evidence("message", said[0].id))
    engine.memory.facts.update(fact.id, actor="user", scope="work", pinned=True)
    remember(engine, f"Maybe {HOSTILE}", Evidence("message", said[0].id), source="reflection")
    engine.memory.episodes.add(
        engine.memory.profile.id,
        summary=f"Talked about {HOSTILE}",
        started_at=at,
        ended_at=at + timedelta(minutes=1),
        session_id=session.id,
        title=HOSTILE,
        topics=[HOSTILE],
        message_ids=[m.id for m in said],
    )
    engine.intake.log_event(HOSTILE, source=f"feed{HOSTILE}", occurred_at=at)
    engine.memory.core.append(engine.memory.profile.id, "human", f"Knows {HOSTILE}", actor="user")
    return session


async def test_the_conversation_shows_stored_messages_escaped(hostile, engine, config):
    app = HippoApp(engine, config, resume=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(messages_shown(app)) == 2)
        await pilot.pause()
        assert SHOWN in screen_text(app)
        assert_inert(app)


@pytest.mark.parametrize("tab", ["facts", "review", "core", "history", "episodes", "events"])
async def test_every_inspector_tab_shows_stored_text_escaped(hostile, engine, config, tab):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, tab)
        await wait_until(pilot, lambda: "\\x1b" in screen_text(app), what="the escaped text")
        assert_inert(app)


async def test_the_sessions_list_shows_titles_escaped(hostile, engine, config):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        app.action_sessions()
        await wait_until(pilot, lambda: isinstance(app.screen, SessionListScreen))
        await wait_until(pilot, lambda: "\\x1b" in screen_text(app), what="the title")
        assert_inert(app)


async def test_a_notification_quoting_stored_text_is_escaped(engine, config):
    from textual.widgets._toast import Toast

    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        app.chat.notify(f"Remembered {HOSTILE}", title=HOSTILE, markup=False)
        await wait_until(pilot, lambda: app.screen.query(Toast), what="the notice")
        shown = app.screen.query_one(Toast).render().plain
        assert "Remembered Anna\\x1b]0;owned" in shown and not _UNSAFE.search(shown)
        assert_inert(app)


async def test_a_streamed_reply_is_escaped_while_it_streams_and_after(engine, config, fake_ollama):
    from tests.fake_ollama.wire import Reply
    from tests.ui.helpers import send

    fake_ollama.script(Reply(content=f"Sure: {HOSTILE}", chunk_size=3))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "hello")
        await wait_until(pilot, lambda: SHOWN in screen_text(app), what="the reply")
        assert_inert(app)
