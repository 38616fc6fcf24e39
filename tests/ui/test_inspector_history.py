"""History and undo, the as-of view, and core memory edited within its size limit."""

from __future__ import annotations

from textual.widgets import Input, TextArea

from tests.ui.helpers import notified, open_inspector, sees, select_row, wait_until
from ui import HippoApp
from ui.screens.inspector.core import CoreMemoryPane
from ui.screens.inspector.history import HistoryPane

SIZE = (120, 36)


async def test_undo_puts_a_rejected_fact_back(seeded, config):
    engine, memories = seeded
    fact_id = memories.facts["Has a dog called Bolo"]
    engine.admin.facts.mark_wrong(fact_id)
    (change,) = [c for c in engine.admin.history.changes(limit=5) if c.target == str(fact_id)]
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "history")
        pane = app.screen.query_one(HistoryPane)
        await sees(pilot, "reject", "you")
        await select_row(pilot, pane.table, change.id)
        await pilot.press("u")
        await wait_until(pilot, lambda: engine.memory.facts.get(fact_id).status == "active")
        await sees(pilot, "undo")


async def test_what_hippo_believed_on_a_past_date(seeded, config):
    engine, memories = seeded
    old = memories.facts["Drinks oat milk flat whites, no sugar"]
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "history")
        pane = app.screen.query_one(HistoryPane)
        pane.query_one("#asof-query", Input).value = "coffee oat milk"
        date = pane.query_one("#asof-date", Input)
        date.value = "2025-12-20"
        date.focus()
        await pilot.press("enter")
        await sees(pilot, "On 2025-12-20 23:59 Hippo believed", "Drinks oat milk flat whites")
        date.value = "2025-11-01"
        await pilot.press("enter")
        await sees(pilot, "On 2025-11-01 23:59 Hippo believed nothing about 'coffee oat milk' yet.")
        date.value = "yesterday"
        await pilot.press("enter")
        await wait_until(pilot, lambda: notified(app, "'yesterday' is not a date"))
    assert engine.memory.facts.get(old).status == "superseded"


async def test_core_memory_saves_within_its_limit_and_can_be_undone(seeded, config):
    engine, _ = seeded
    pid = engine.memory.profile.id
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "core")
        pane = app.screen.query_one(CoreMemoryPane)
        await sees(pilot, "human · 92/2000 characters · 1908 left")
        editor = pane.query_one("#core-human", TextArea)
        editor.focus()
        editor.load_text("Name: Maya. Prefers [square brackets] kept as typed.")
        await sees(pilot, "human · 52/2000 characters · 1948 left")
        await pilot.press("ctrl+s")
        await wait_until(
            pilot, lambda: "[square brackets]" in engine.memory.core.block(pid, "human").value
        )
        editor.load_text("x" * 2001)
        await sees(pilot, "1 over the limit")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: notified(app, "over its limit of 2000"))
        await pilot.press("escape")  # leaves the editor for the tab bar
        await pilot.press("4")
        history = app.screen.query_one(HistoryPane)
        await wait_until(pilot, lambda: history.changes, what="the history")
        core_change = next(c for c in history.changes.values() if c.kind == "core")
        await select_row(pilot, history.table, -core_change.id)
        await pilot.press("u")
        await wait_until(pilot, lambda: "Bolo" in engine.memory.core.block(pid, "human").value)


async def test_undoing_an_edit_keeps_a_later_pin(seeded, config):
    engine, memories = seeded
    fact_id = memories.facts["Has a dog called Bolo"]
    engine.admin.facts.edit(fact_id, statement="Has a dog called Bolo, a beagle")
    (edit,) = [c for c in engine.admin.history.changes(limit=5) if c.target == str(fact_id)]
    engine.admin.facts.pin(fact_id, True)
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "history")
        pane = app.screen.query_one(HistoryPane)
        await select_row(pilot, pane.table, edit.id)
        await pilot.press("u")
        await wait_until(
            pilot, lambda: engine.memory.facts.get(fact_id).statement == "Has a dog called Bolo"
        )
    assert engine.memory.facts.get(fact_id).pinned


async def test_undo_blocked_by_a_later_change_says_which(seeded, config):
    engine, memories = seeded
    fact_id = memories.facts["Has a dog called Bolo"]
    engine.admin.facts.edit(fact_id, statement="Has a beagle called Bolo")
    first = engine.admin.history.changes(limit=1)[0]
    engine.admin.facts.edit(fact_id, statement="Has a beagle called Bolo, nine years old")
    second = engine.admin.history.changes(limit=1)[0]
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "history")
        pane = app.screen.query_one(HistoryPane)
        await select_row(pilot, pane.table, first.id)
        await pilot.press("u")
        await wait_until(pilot, lambda: notified(app, f"Undo fact#{second.id} first"))
    assert engine.memory.facts.get(fact_id).statement == "Has a beagle called Bolo, nine years old"
