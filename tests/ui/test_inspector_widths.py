"""The inspector's tables use the screen's width: the text column takes what the others leave."""

from __future__ import annotations

import pytest
from textual.widgets import Checkbox, Input, Select
from textual.widgets._footer import FooterKey

from tests.ui.helpers import open_inspector, screen_text, select_row, wait_until
from ui import HippoApp
from ui.screens.inspector.facts import FactsPane
from ui.widgets.footer import Footer

LONG = "Prefers window seats on early flights and always packs a paperback novel for the trip"


@pytest.mark.parametrize(("width", "shown"), [(120, 55), (200, len(LONG))])
async def test_a_long_statement_uses_the_width_the_other_columns_leave(
    seeded, config, width, shown
):
    engine, _ = seeded
    assert len(LONG) >= 85
    fact = engine.admin.facts.state(LONG)
    engine.admin.facts.pin(fact.id)  # listed first
    app = HippoApp(engine, config)
    async with app.run_test(size=(width, 36)) as pilot:
        await open_inspector(pilot)
        pane = app.screen.query_one(FactsPane)
        await select_row(pilot, pane.table, fact.id)
        await wait_until(pilot, lambda: LONG[:30] in screen_text(app))
        line = next(row for row in screen_text(app).splitlines() if LONG[:30] in row)
        assert LONG[:shown] in line, line
        others = sum(w + 2 for label, w in pane.columns if label != "Statement")
        column = pane.table.columns[next(k for k in pane.table.columns if k.value == "Statement")]
        assert column.width >= width - others - 6  # all the width but the scrollbar's


async def test_at_80_columns_the_footer_shows_whole_keys_only(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_inspector(pilot, "review")
        footer = app.screen.query_one(Footer)
        keys = [key for key in footer.children if not key.has_class("-command-palette")]
        palette = footer.query_one(".-command-palette")
        await wait_until(pilot, lambda: not all(key.display for key in keys), what="a fit")
        shown = [key for key in keys if key.display]
        assert shown and all(key.region.right <= palette.region.x for key in shown)
        # each key shown is whole: its whole description is on the footer's line
        line = screen_text(app).splitlines()[-1]
        for key in shown:
            assert isinstance(key, FooterKey) and key.description in line, (key, line)


@pytest.mark.parametrize("width", [80, 100])
async def test_every_tab_shows_its_number_at_80_and_100_columns(seeded, config, width):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=(width, 24)) as pilot:
        await open_inspector(pilot, "review")
        bar = screen_text(app).splitlines()[1]
        assert "2 Review" in bar and "1 Fac" in bar and "0 Set" in bar, bar
        await pilot.press("9")  # the tab on show keeps its whole title
        await wait_until(pilot, lambda: "9 Sleep" in screen_text(app).splitlines()[1])
        assert "0 Set" in screen_text(app).splitlines()[1]


async def test_at_80_columns_every_setting_is_within_the_screen(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_inspector(pilot, "settings")
        form = app.screen.query_one("#settings-form")
        fields = [*form.query(Input), *form.query(Select), *form.query(Checkbox)]
        await wait_until(pilot, lambda: all(field.region.width for field in fields))
        cut = [field.id for field in fields if field.region.right > 80]
        assert not cut, f"off the screen's edge: {cut}"
