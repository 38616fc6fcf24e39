"""Forget from the chat: /forget previews every row per tier, confirms, and shows a receipt."""

from __future__ import annotations

from tests.plaintext import plaintext_bytes
from tests.ui.helpers import chat_ready, sees, send_command, wait_until
from ui import HippoApp
from ui.screens import InspectorScreen
from ui.screens.dialogs import ConfirmDialog
from ui.screens.inspector.forget import ForgetPane

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
        await sees(pilot, "Done. The receipt:", "Forgot everything mentioning 'Bolo'", timeout=30)
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


async def _forget_pane(pilot, app) -> ForgetPane:
    await wait_until(pilot, lambda: app.screen.query(ForgetPane), what="the forget tab")
    return app.screen.query_one(ForgetPane)
