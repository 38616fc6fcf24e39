"""The facts tab: listing, filtering, searching, paging, and correcting facts by key."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select

from assistant.errors import NotFound
from tests.ui.helpers import chat_ready, open_inspector, sees, select_row, wait_until
from ui import HippoApp
from ui.screens.dialogs import ConfirmDialog, TextDialog
from ui.screens.inspector.facts import PAGE, FactsPane

SIZE = (120, 36)


def _pane(app: HippoApp) -> FactsPane:
    return app.screen.query_one(FactsPane)


async def test_f4_opens_the_facts_with_brackets_shown_as_typed(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await pilot.press("f4")
        total = engine.memory.facts.count(engine.memory.profile.id)
        text = await sees(pilot, "★ Is allergic to [peanuts]", f"1-{PAGE} of {total} fact(s)")
        assert "Sister Ana loves ceramics" in text


async def test_filters_and_search_narrow_the_list(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        pane = _pane(app)
        pane.query_one("#filter-status", Select).value = "pending"
        pending = engine.memory.facts.count(engine.memory.profile.id, "pending")
        await sees(pilot, f"of {pending} fact(s)")
        pane.query_one("#filter-status", Select).value = ""
        search = pane.query_one("#filter-text", Input)
        search.focus()
        search.value = "Porto"
        await pilot.press("enter")
        found = engine.admin.facts.count(query="Porto")
        await sees(pilot, f"1-{found} of {found} fact(s)", "Plans a Porto weekend with Ana")


async def test_a_long_list_pages_and_sorts(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        total = engine.admin.facts.count()
        assert total > PAGE
        await sees(pilot, f"1-{PAGE} of {total} fact(s)")
        await pilot.press("right_square_bracket")
        await sees(pilot, f"{PAGE + 1}-{total} of {total}")
        await pilot.press("s")
        await sees(pilot, f"1-{PAGE} of {total} fact(s) · sorted by importance")
        await pilot.press("s")
        await sees(pilot, "sorted by recent", "Landlord is Sr. Costa")


async def test_editing_a_fact_records_it_as_something_you_said(seeded, config):
    engine, memories = seeded
    fact_id = memories.facts["Prefers meetings in the morning"]
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        await select_row(pilot, _pane(app).table, fact_id)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        app.screen.query_one(Input).value = "Prefers meetings before [noon]"
        await pilot.press("enter")
        await sees(pilot, "Prefers meetings before [noon]")
    fact = engine.memory.facts.get(fact_id)
    assert fact.statement == "Prefers meetings before [noon]"
    assert fact.source_kind == "user_stated"
    assert engine.memory.facts.history(fact_id)[-1].actor == "user"


async def test_an_edit_a_full_disk_cannot_take_is_refused_with_advice(seeded, config):
    from tests.disk import disk_full
    from tests.ui.helpers import notified

    engine, memories = seeded
    fact_id = memories.facts["Prefers meetings in the morning"]
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_inspector(pilot)
        await select_row(pilot, _pane(app).table, fact_id)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        with disk_full(engine):
            app.screen.query_one(Input).value = "Prefers meetings early. " * 300
            await pilot.press("enter")
            await wait_until(pilot, lambda: notified(app, "MB free), so nothing more can be saved"))
        assert app.is_running
    assert engine.memory.facts.get(fact_id).statement == "Prefers meetings in the morning"


async def test_pin_scope_wrong_outdated_and_delete(seeded, config):
    engine, memories = seeded
    bolo = memories.facts["Has a dog called Bolo"]
    book = memories.facts["Is in a book club"]
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        table = _pane(app).table
        await select_row(pilot, table, bolo)
        await pilot.press("p")
        await wait_until(pilot, lambda: engine.memory.facts.get(bolo).pinned)
        await select_row(pilot, table, bolo)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        app.screen.query_one(Input).value = "pets"
        await pilot.press("enter")
        await wait_until(pilot, lambda: engine.memory.facts.get(bolo).scope == "pets")
        await select_row(pilot, table, bolo)
        await pilot.press("w")
        await wait_until(pilot, lambda: engine.memory.facts.get(bolo).status == "rejected")
        await select_row(pilot, table, book)
        await pilot.press("o")
        await wait_until(pilot, lambda: engine.memory.facts.get(book).status == "expired")
        await select_row(pilot, table, book)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: book not in table.selected_ids(), what="the row to go")
    with pytest.raises(NotFound):
        engine.memory.facts.get(book)


async def test_a_change_made_while_another_writer_holds_the_file_waits_for_it(seeded, config):
    """Another writer (the background embedder, `hippo sleep`) holds the data file when
    the user expires a fact: the change waits for the file (SQLite's busy timeout) and is
    saved, rather than being refused at once as busy."""
    from data_schema.connect import connect
    from tests.ui.helpers import notified

    engine, memories = seeded
    book = memories.facts["Is in a book club"]
    other = connect(config.db_path, migrate=False)
    waited: list[int] = []

    def busy(tries: int) -> bool:
        """The app's connection found the file busy: the other writer finishes then."""
        waited.append(tries)
        if other.in_transaction:
            other.execute("COMMIT")
        return tries < 100

    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_inspector(pilot)
        await select_row(pilot, _pane(app).table, book)
        # The app's own connection (this thread's) reports each wait to `busy`.
        engine.memory.db.conn.set_busy_handler(busy)
        other.execute("BEGIN IMMEDIATE")  # the other writer takes the file
        other.execute("UPDATE facts SET importance = importance WHERE id = ?", (book,))
        await pilot.press("o")
        await wait_until(
            pilot,
            lambda: engine.memory.facts.get(book).status == "expired" or notified(app, "busy"),
            what="the fact to expire (or the change to be refused)",
        )
        assert not notified(app, "busy")
    assert engine.memory.facts.get(book).status == "expired"
    assert waited, "the change never had to wait: the test did not hold the file"
    other.close()
