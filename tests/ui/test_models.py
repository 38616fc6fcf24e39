"""The model picker lists installed models and saves the choice."""

from __future__ import annotations

from assistant.config import load_config
from tests.ui.helpers import chat_ready, notified, screen_text, sees, send, wait_until
from ui import HippoApp
from ui.screens import ChatScreen, ModelPickerScreen, PullScreen
from ui.widgets import ModelList, PullRow

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
    assert engine.live_settings.embedding_model == "all-minilm"
    assert engine.live_settings.turn.chat_model == "qwen3:1.7b"
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
    assert engine.live_settings.embedding_model == "embeddinggemma"
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
    assert engine.live_settings.embedding_model == "embeddinggemma"
    saved = load_config(environ={"HIPPO_CONFIG_DIR": str(config.config_dir)})
    assert saved.models.embedding == "embeddinggemma"


async def _open_picker(pilot, app, *, skip_pull: bool = False) -> None:
    if skip_pull:  # the configured model is missing: start-up offers to pull it first
        await wait_until(pilot, lambda: isinstance(app.screen, PullScreen))
        await pilot.press("s")
    await chat_ready(pilot)
    await pilot.press("f2")
    await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
    await wait_until(pilot, lambda: app.screen.models is not None, what="models to be listed")


async def test_save_refuses_a_chosen_model_ollama_does_not_have(engine, config, fake_ollama):
    engine.live_settings.change(chat_model="nonexistent-model")
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await _open_picker(pilot, app, skip_pull=True)
        await pilot.press("ctrl+s")
        await sees(pilot, "has no model 'nonexistent-model'", "Nothing saved.")
        assert isinstance(app.screen, ModelPickerScreen)
        chats = app.screen.query_one("#chat-models", ModelList)
        chats.focus()
        chats.highlighted = chats.get_option_index("qwen3:1.7b")
        await pilot.press("enter", "ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
    assert engine.live_settings.turn.chat_model == "qwen3:1.7b"


async def test_save_refuses_when_ollama_could_not_list_the_models(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        fake_ollama.fail_next("/api/tags", "500", count=5)
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await sees(pilot, "Can't list models")
        await pilot.press("ctrl+s")
        await sees(pilot, "Nothing saved: Ollama could not be asked")
        assert isinstance(app.screen, ModelPickerScreen)
    assert not config.config_path.exists()


async def test_p_pulls_a_model_by_name_and_the_list_then_shows_it(engine, config, fake_ollama):
    fake_ollama.pull_plan("smollm2:135m", layers=[2_000_000, 70_000_000])
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await _open_picker(pilot, app)
        picker = app.screen
        await pilot.press("p")
        await sees(pilot, "Pull which model?")
        await pilot.press(*"smollm2:135m", "enter")
        # The pull starts by itself and, once done, goes back to the picker.
        await wait_until(pilot, lambda: app.screen is picker, what="the pull to end")
        chats = picker.query_one("#chat-models", ModelList)
        await wait_until(
            pilot, lambda: chats.option_count == 2, what="the pulled model to be listed"
        )
        await sees(pilot, "smollm2:135m", "72.0 MB")
        assert notified(app, "smollm2:135m ready")
    assert "smollm2:135m" in fake_ollama.models


async def test_a_failed_pull_stays_on_its_screen_with_the_reason(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await _open_picker(pilot, app)
        await pilot.press("p", *"no-such-model", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PullScreen))
        row = app.screen.query_one(PullRow)
        await wait_until(pilot, lambda: row.state == "failed", what="the pull to fail")
        await sees(pilot, "failed:")
        await pilot.press("escape", "s")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))


async def test_d_deletes_the_highlighted_model_after_asking(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await _open_picker(pilot, app)
        embedders = app.screen.query_one("#embedding-models", ModelList)
        embedders.focus()
        embedders.highlighted = embedders.get_option_index("all-minilm:latest")
        await pilot.press("d")
        await sees(pilot, "Delete all-minilm from Ollama, freeing 46.0 MB?")
        await pilot.press("n")  # changed their mind: nothing deleted
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        assert "all-minilm:latest" in fake_ollama.models
        await pilot.press("d")
        await sees(pilot, "Delete all-minilm")
        await pilot.press("y")
        await wait_until(pilot, lambda: embedders.option_count == 1, what="the list to refresh")
        assert notified(app, "Deleted all-minilm from Ollama.")
    assert "all-minilm:latest" not in fake_ollama.models


async def test_deleting_a_model_in_use_says_what_will_fail(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await _open_picker(pilot, app)
        await pilot.press("d")  # the chat list has focus, on the chat model
        await sees(pilot, "Hippo uses it as its chat model", "replies will fail")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
    assert "qwen3:1.7b" in fake_ollama.models


async def test_a_reply_without_its_model_points_to_f2(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        fake_ollama.remove_model("qwen3:1.7b")
        await send(pilot, "hello")
        await sees(pilot, "Model 'qwen3:1.7b' is not installed", "Press F2 to pull it")
        assert "hippo model pull" not in screen_text(app)
