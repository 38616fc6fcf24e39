"""The model picker lists installed models and saves the choice."""

from __future__ import annotations

from assistant.config import load_config
from tests.ui.helpers import chat_ready, sees, wait_until
from ui import HippoApp
from ui.screens import ChatScreen, ModelPickerScreen
from ui.widgets import ModelList

SIZE = (100, 30)


async def test_the_picker_lists_models_and_saves_the_chosen_ones(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await sees(pilot, "Embedding model")
        embedders = app.screen.query_one("#embedding-models", ModelList)
        await wait_until(pilot, lambda: embedders.option_count == 2, what="models to be listed")
        await sees(pilot, "qwen3:1.7b", "1.4 GB", "tools, thinking")
        await sees(pilot, "all-minilm:latest", "46.0 MB", "embedding")

        embedders.focus()
        embedders.highlighted = embedders.get_option_index("all-minilm:latest")
        await pilot.press("enter")
        assert embedders.chosen == "all-minilm"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        assert app.chat.status.embedding_model == "all-minilm"
    assert engine.embedding_model == "all-minilm"
    assert engine.chat_model == "qwen3:1.7b"
    saved = load_config(environ={"HIPPO_CONFIG_DIR": str(config.config_dir)})
    assert (saved.models.chat, saved.models.embedding) == ("qwen3:1.7b", "all-minilm")


async def test_the_picker_opens_from_the_command_palette_and_esc_changes_nothing(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await pilot.press("ctrl+p", *"models", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
    assert engine.embedding_model == "embeddinggemma"
    assert not config.config_path.exists()


async def test_saving_unchanged_models_keeps_their_configured_names(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await sees(pilot, "● embeddinggemma:latest")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
    # "embeddinggemma:latest" would look like a new model and re-embed everything.
    assert engine.embedding_model == "embeddinggemma"
    saved = load_config(environ={"HIPPO_CONFIG_DIR": str(config.config_dir)})
    assert saved.models.embedding == "embeddinggemma"
