"""The settings tab checks a changed model with Ollama before saving it."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Input

from assistant.config import load_config
from tests.ui.helpers import notified, open_inspector, sees, wait_until
from ui import HippoApp
from ui.screens.dialogs import ConfirmDialog

SIZE = (120, 36)


async def _type(pilot: Pilot[None], input_id: str, text: str) -> None:
    field = pilot.app.screen.query_one(f"#{input_id}", Input)
    field.value = text
    field.focus()
    await pilot.pause()


async def test_an_unknown_chat_model_is_refused_with_a_close_name(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "settings")
        await _type(pilot, "settings-chat", "qwen3:1.8b")
        await pilot.press("ctrl+s")
        await sees(pilot, "has no model 'qwen3:1.8b'", "Did you mean 'qwen3:1.7b'?")
        await wait_until(pilot, lambda: notified(app, "Nothing saved: fix the models"))
        assert app.screen.query_one("#settings-chat", Input).has_class("-invalid")
    assert engine.live_settings.turn.chat_model == "qwen3:1.7b"
    assert not config.config_path.exists()


async def test_a_chat_model_is_refused_as_the_embedding_model(engine, config, fake_ollama):
    fake_ollama.add_model("tiny-chat", capabilities=("completion",))
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "settings")
        await _type(pilot, "settings-embedding", "tiny-chat")
        await pilot.press("ctrl+s")
        await sees(pilot, "'tiny-chat' can't be the embedding model")
    assert engine.live_settings.embedding_model == "embeddinggemma"
    assert not config.config_path.exists()


async def test_an_able_installed_model_is_saved(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "settings")
        await _type(pilot, "settings-embedding", "all-minilm")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: notified(app, "Saved to"))
    assert engine.live_settings.embedding_model == "all-minilm"
    saved = load_config(environ={"HIPPO_CONFIG_DIR": str(config.config_dir)})
    assert saved.models.embedding == "all-minilm"


async def test_with_ollama_away_the_user_is_asked_before_saving_unchecked(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "settings")
        fake_ollama.stop()
        await _type(pilot, "settings-chat", "llama3.2")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await sees(pilot, "Ollama could not be asked whether it has 'llama3.2'. Save anyway?")
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmDialog))
        assert engine.live_settings.turn.chat_model == "qwen3:1.7b"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: notified(app, "Saved to"))
    assert engine.live_settings.turn.chat_model == "llama3.2"
