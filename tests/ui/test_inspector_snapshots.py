"""SVG snapshots of each inspector tab and of provenance, at 120x36, over the seeded file.

The clock is a ManualClock and the time zone UTC (see conftest), and the seeded file is
the same on every run, so every date, id and count on screen is too. Update with
``pytest tests/ui --snapshot-update`` and look at the SVGs before committing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from tests.ui.helpers import (
    chat_ready,
    messages_shown,
    no_toasts,
    open_inspector,
    sees,
    select_row,
    wait_until,
)
from ui import HippoApp
from ui.screens import ProvenanceScreen
from ui.screens.inspector.archive import ArchiveSearchPane
from ui.screens.inspector.forget import ForgetPane
from ui.screens.inspector.history import HistoryPane
from ui.screens.inspector.review import ReviewPane

SIZE = (120, 36)
Steps = Callable[[Pilot[None], dict[str, int]], Awaitable[None]]


async def _still(pilot: Pilot[None]) -> None:
    """Stop every cursor blinking and clear toasts, so the frame is the same each run."""
    for widget in pilot.app.screen.query("Input, TextArea"):
        assert isinstance(widget, Input | TextArea)
        widget.cursor_blink = False
    no_toasts(pilot.app)
    await pilot.pause()


async def _review(pilot: Pilot[None], facts: dict[str, int]) -> None:
    table = pilot.app.screen.query_one(ReviewPane).table
    await select_row(pilot, table, facts["Manager is Tomás, 1:1s on Mondays"])
    await sees(pilot, "- before:")


async def _history(pilot: Pilot[None], facts: dict[str, int]) -> None:
    pane = pilot.app.screen.query_one(HistoryPane)
    pane.query_one("#asof-query", Input).value = "oat milk"
    pane.query_one("#asof-date", Input).value = "2025-12-20"
    pane.query_one("#asof-date", Input).focus()
    await pilot.press("enter")
    await sees(pilot, "On 2025-12-20 23:59 Hippo believed")


async def _forget(pilot: Pilot[None], facts: dict[str, int]) -> None:
    pilot.app.screen.query_one(ForgetPane).preview("Porto")
    await sees(pilot, "row(s) mention 'Porto'")


async def _archive(pilot: Pilot[None], facts: dict[str, int]) -> None:
    pane = pilot.app.screen.query_one(ArchiveSearchPane)
    pane.query_one("#archive-query", Input).value = "Lisbon tiles"
    pane.query_one("#archive-query", Input).focus()
    await pilot.press("enter")
    await sees(pilot, "message(s) for 'Lisbon tiles'")
    # The seeded file has been searched before (see conftest), so the reading probe's
    # "does not read English" notice was given then and cannot land in this frame.


async def _nothing(pilot: Pilot[None], facts: dict[str, int]) -> None:
    await pilot.pause()


TABS: dict[str, tuple[Steps, str]] = {
    "facts": (_nothing, "Is allergic to [peanuts]"),
    "review": (_review, "proposal(s) to review"),
    "core": (_nothing, "characters"),
    "history": (_history, "newest first"),
    "forget": (_forget, "Tier"),
    "episodes": (_nothing, "Balcony plants"),
    "archive": (_archive, "Score"),
    "events": (_nothing, "Flat notes"),
    "sleep": (_nothing, "Last run"),
}


@pytest.mark.parametrize("tab", list(TABS))
def test_inspector_tab(snap_compare, seeded, config, tab):
    engine, memories = seeded
    steps, shown = TABS[tab]
    app = HippoApp(engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await open_inspector(pilot, tab)
        await sees(pilot, shown)
        await steps(pilot, memories.facts)
        await _still(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_review_tab_keeps_its_keys_whole_at_small_and_large_sizes(
    snap_compare, seeded, config, size
):
    """The footer shows the keys that fit whole (F1 and the palette list them all)."""
    engine, memories = seeded
    app = HippoApp(engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await open_inspector(pilot, "review")
        await sees(pilot, "proposal(s) to review")
        await _review(pilot, memories.facts)
        await _still(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_provenance_of_a_fact(snap_compare, seeded, config):
    engine, memories = seeded
    app = HippoApp(engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await chat_ready(pilot)
        fact_id = memories.facts["Cares about health and routine"]
        pilot.app.push_screen(ProvenanceScreen(engine, fact_id=fact_id))
        await sees(pilot, "Evidence (2)", "History:")
        no_toasts(pilot.app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_memories_used_by_a_reply(snap_compare, seeded, config):
    engine, memories = seeded
    app = HippoApp(engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await chat_ready(pilot)
        reply_id = memories.replies[-1]
        await app.chat.open_session(engine.memory.messages.message(reply_id).session_id)
        await wait_until(pilot, lambda: messages_shown(app))
        next(v for v in messages_shown(app) if v.message_id == reply_id).focus()
        await pilot.press("m")
        await sees(pilot, "3 memories went into this reply")
        no_toasts(pilot.app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
