"""Startup: the chat comes first, Ollama is checked behind it, nothing heavy is imported."""

from __future__ import annotations

import subprocess
import sys

from tests.ui.helpers import chat_ready, sees, send, type_text, wait_until
from ui import HippoApp
from ui.screens import ChatScreen
from ui.widgets import PromptInput

SIZE = (100, 30)


def test_importing_the_ui_loads_neither_the_gateway_nor_ollama():
    code = (
        "import sys, ui, ui.app;print(sorted(m for m in ('ollama', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_the_chat_is_usable_while_the_ollama_check_is_still_waiting(
    engine, config, fake_ollama
):
    fake_ollama.fail_next("/api/version", "hang")
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: fake_ollama.hanging == 1, what="the probe to hang")
        assert isinstance(app.screen, ChatScreen)
        assert app.chat.status.reachable is None
        await sees(pilot, "checking")
        await type_text(pilot, "typing before Ollama answers")
        assert app.chat.query_one(PromptInput).text == "typing before Ollama answers"
        fake_ollama.release()
        await chat_ready(pilot)


async def test_the_status_line_shows_model_host_profile_and_waiting_embeddings(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        host = fake_ollama.host.removeprefix("http://")
        await sees(pilot, f"● Ollama {host} up │ qwen3:1.7b + embeddinggemma │ profile default")
        fake_ollama.fail_next("/api/embed", "500", count=50)  # embeddings stay queued
        await send(pilot, "remember this")
        app.chat.status.refresh_pending()
        await sees(pilot, "│ 2 to embed")
