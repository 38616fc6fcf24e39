"""Forget from the chat: /forget previews every row per tier, confirms, and shows a receipt."""

from __future__ import annotations

from tests.plaintext import plaintext_bytes
from tests.ui.helpers import chat_ready, notified, sees, send_command, wait_until
from ui import HippoApp
from ui.screens import InspectorScreen
from ui.screens.dialogs import ConfirmDialog
from ui.screens.inspector.forget import ForgetPane
from ui.widgets.record_table import RecordTable

SIZE = (120, 36)


async def test_forget_previews_then_deletes_every_trace(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send_command(pilot, "/forget Bolo")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        pane = app.screen.query_one(ForgetPane)
        await wait_until(pilot, lambda: pane.previewed is not None, what="the preview")
        preview = pane.previewed
        assert preview.counts["messages"] and preview.counts["facts"] and preview.counts["core"]
        await sees(pilot, f"{preview.total} row(s) mention 'Bolo'", "messages")
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await sees(pilot, "Done. The receipt:", "Forgot everything mentioning 'Bolo'")
        assert engine.admin.forget.preview("Bolo").empty
    data = b"".join(path.read_bytes() for path in config.db_path.parent.glob("hippo.db*"))
    assert b"Bolo" not in data + plaintext_bytes(config.db_path)


async def test_forget_asks_for_a_preview_first_and_cancel_keeps_everything(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        await pilot.press("5")
        pane = await _forget_pane(pilot, app)
        await wait_until(pilot, lambda: pane.resting, what="the keyboard on the forget table")
        await pilot.press("f")  # the tab opens on its table, where f forgets
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmDialog))
        pane.preview("Porto")
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("n")
        await sees(pilot, "row(s) mention 'Porto'")
    assert not engine.admin.forget.preview("Porto").empty


async def test_space_keeps_a_row_and_forget_removes_only_the_selected(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        pane, table = await _previewed(pilot, "Bolo")
        first, total = pane.previewed.rows[0], pane.previewed.total
        assert first.tier == "messages" and table.cursor_row == 0
        await sees(pilot, "Keep/forget row", "Select all", "Select none", "Forget selected")

        await pilot.press("space")

        await wait_until(pilot, lambda: first.key in pane.previewed.kept, what="the row kept")
        await wait_until(pilot, lambda: str(table.get_row_at(0)[0]) == "[ ]", what="its mark")
        assert pane.previewed.total < total
        await sees(pilot, f"{total} row(s) mention 'Bolo'", f"{pane.previewed.total} selected")
        selected = pane.previewed.counts
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await sees(pilot, "Done. The receipt:", "as you chose")
        receipt = pane.query_one("#forget-receipt").render()
        assert f"messages {first.item_id}: " in str(receipt)
    assert engine.memory.messages.messages_by_id([first.item_id])  # kept, and nothing else was
    assert {tier: n for tier, n in selected.items() if n} == {
        tier: n for tier, n in _counts(str(receipt)).items()
    }


async def test_select_none_then_all(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        pane, table = await _previewed(pilot, "Porto")

        await pilot.press("n")
        await wait_until(pilot, lambda: pane.previewed.nothing_selected, what="none selected")
        await pilot.press("f")  # nothing to forget: it says so, and asks nothing
        await wait_until(pilot, lambda: notified(app, "Every row is kept"), what="why not")
        assert not isinstance(app.screen, ConfirmDialog)

        await pilot.press("a")
        await wait_until(pilot, lambda: not pane.previewed.kept, what="all selected again")
        assert all(str(table.get_row_at(n)[0]) == "[x]" for n in range(table.row_count))
    assert not engine.admin.forget.preview("Porto").empty


async def test_the_row_under_the_cursor_is_shown_whole(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        pane, table = await _previewed(pilot, "Bolo")
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


def _counts(receipt: str) -> dict[str, int]:
    """The receipt's rows per tier ("  messages   3" lines before the vectors line)."""
    counts = {}
    for line in receipt.splitlines()[1:]:
        name, _, number = line.strip().partition(" ")
        if name == "vectors":
            break
        counts[name] = int(number)
    return counts


async def _previewed(pilot, text: str) -> tuple[ForgetPane, RecordTable]:
    """/forget ``text`` from the chat: the tab, and its table of rows with the keyboard."""
    app = pilot.app
    await send_command(pilot, f"/forget {text}")
    await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
    pane = app.screen.query_one(ForgetPane)
    table = pane.query_one("#forget-table", RecordTable)
    await wait_until(pilot, lambda: pane.previewed and app.focused is table, what="the rows")
    return pane, table


async def _forget_pane(pilot, app) -> ForgetPane:
    await wait_until(pilot, lambda: app.screen.query(ForgetPane), what="the forget tab")
    return app.screen.query_one(ForgetPane)
