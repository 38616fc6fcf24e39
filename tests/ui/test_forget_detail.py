"""The forget tab shows the row under the cursor whole: its reason and text are cut in the table."""

from __future__ import annotations

from tests.ui.helpers import chat_ready, send_command, wait_until
from ui import HippoApp
from ui.screens import InspectorScreen
from ui.screens.inspector.forget import ForgetPane
from ui.widgets.record_table import RecordTable

SIZE = (120, 36)


async def test_the_row_under_the_cursor_is_shown_whole(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send_command(pilot, "/forget Bolo")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        pane = app.screen.query_one(ForgetPane)
        table = pane.query_one("#forget-table", RecordTable)
        await wait_until(pilot, lambda: pane.previewed and app.focused is table, what="the rows")
        detail = pane.query_one("#forget-detail")

        def shown() -> str:
            return str(detail.render())

        # Keep a fact: the rows its evidence cites stay with it, each saying why at length.
        fact = next(i for i, hit in enumerate(pane.previewed.rows) if hit.tier == "facts")
        for _ in range(fact):
            await pilot.press("down")
        await wait_until(pilot, lambda: table.cursor_row == fact)
        await pilot.press("space")
        await wait_until(pilot, lambda: pane.previewed.total < len(pane.previewed.rows))
        for _ in range(fact):
            await pilot.press("up")
        await wait_until(pilot, lambda: table.cursor_row == 0)
        rows = pane.previewed.rows
        text_width = next(c.width for c in table.columns.values() if str(c.label) == "Text")
        assert any(len(hit.text) > text_width for hit in rows), "a row the table cuts"
        for index, hit in enumerate(rows):
            if index:
                await pilot.press("down")
            chosen = pane.previewed.selected(hit)
            why = (
                ("forgets it: " + hit.why)
                if chosen
                else ("keeps it: " + pane.previewed.kept[hit.key])
            )
            await wait_until(
                pilot,
                lambda i=index, w=why, t=hit.text: (
                    table.cursor_row == i and w in shown() and t in shown()
                ),
                what=f"row {index} whole in the detail line",
            )
