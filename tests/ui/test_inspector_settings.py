"""The settings tab: checked fields, ctrl+s applies and saves, a new embedding model re-embeds."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Input, ProgressBar

from assistant.config import load_config
from tests.ui.helpers import no_toasts, notified, open_inspector, sees, wait_until
from ui import HippoApp
from ui.screens import ChatScreen
from ui.screens.inspector.settings import SettingsPane

SIZE = (120, 36)


def _saved(config):
    return load_config(environ={"HIPPO_CONFIG_DIR": str(config.config_dir)})


async def _type(pilot: Pilot[None], input_id: str, text: str) -> None:
    field = pilot.app.screen.query_one(f"#{input_id}", Input)
    field.value = text
    field.focus()
    await pilot.pause()


async def test_a_weight_and_the_sleep_time_are_applied_and_saved(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "settings")
        await sees(pilot, "Retrieval weights", "Installed:")
        await _type(pilot, "settings-w-recency", "0.25")
        await _type(pilot, "settings-sleep-at", "04:30")
        await _type(pilot, "settings-b-facts", "640")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: config.config_path.exists(), what="config.toml")
        await wait_until(pilot, lambda: notified(app, "Saved to"))
        assert engine.memory.retriever.weights.recency == 0.25
        assert engine.live_settings.turn.context_budget.facts == 640
    saved = _saved(config)
    assert saved.retrieval.recency == 0.25
    assert saved.memory.budget.facts == 640
    assert saved.sleep.at == "04:30"
    assert app.config.sleep.at == "04:30"
    assert engine.live_settings.sleep.at == "04:30"


async def test_invalid_input_is_explained_and_nothing_is_saved(seeded, config):
    engine, _ = seeded
    before = engine.memory.retriever.weights
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "settings")
        await _type(pilot, "settings-w-keyword", "-1")
        await _type(pilot, "settings-sleep-at", "25:00")
        await pilot.press("ctrl+s")
        await sees(pilot, "keyword must be a number >= 0", 'time "HH:MM"')
        assert notified(app, "Nothing saved")
        assert app.screen.query_one("#settings-w-keyword", Input).has_class("-invalid")
        inspector = app.screen
        while not notified(app, "settings are not saved"):  # leaving: first said, not dropped
            assert app.screen is inspector
            await pilot.press("escape")
        assert app.screen is inspector
        await pilot.press("escape")  # again: the user chose to leave without them
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
    assert engine.memory.retriever.weights is before
    assert not config.config_path.exists()


async def test_a_new_embedding_model_reembeds_with_progress(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "settings")
        await _type(pilot, "settings-embedding", "all-minilm")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: engine.live_settings.embedding_model == "all-minilm")
        bar = app.screen.query_one(SettingsPane).query_one("#settings-reembed", ProgressBar)
        assert bar.total and bar.total > 1
        await sees(pilot, "Re-embedded with all-minilm: done.")
        assert bar.progress == bar.total
        assert engine.background.pending_embeddings() == 0
    assert _saved(config).models.embedding == "all-minilm"


def test_settings_tab_snapshot(snap_compare, seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await open_inspector(pilot, "settings")
        await sees(pilot, "Installed:", "Running profile")
        for widget in pilot.app.screen.query(Input):
            widget.cursor_blink = False
        no_toasts(pilot.app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_the_palette_offers_every_inspector_tab_with_its_help(engine, config, fake_ollama):
    from ui import HippoApp
    from ui.screens.inspector import TABS

    app = HippoApp(engine, config)
    async with app.run_test(size=(100, 30)) as pilot:
        # Offered once the data file is open, just after the first frame.
        await wait_until(pilot, lambda: app.chat.ready, what="the engine")
        titles = {title: help_ for title, help_, _ in app.memory.palette(app.chat)}
    for _, title, _ in TABS:
        assert titles[f"Memory: {title}"]
