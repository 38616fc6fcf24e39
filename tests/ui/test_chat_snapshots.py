"""SVG snapshots of the chat's new screens at 100x30: the help panel and the greeting.

Update with ``pytest tests/ui/test_chat_snapshots.py --snapshot-update`` and look at
the SVGs before committing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.pilot import Pilot

from assistant.config import Config
from assistant.engine import Hippo
from assistant.settings import OllamaSettings
from tests.fake_ollama import FakeOllama
from tests.ui.conftest import make_engine
from tests.ui.helpers import (
    chat_ready,
    no_toasts,
    ollama_on_fixed_port,
    sees,
    send_command,
    wait_until,
)
from ui import HippoApp
from ui.screens.help import HelpScreen
from ui.widgets import PromptInput

SIZE = (100, 30)
PORT = 47_733  # fixed, so the host on screen is the same every run


@pytest.fixture
def fixed_ollama() -> Iterator[FakeOllama]:
    with ollama_on_fixed_port(PORT) as server:
        yield server


@pytest.fixture
def snap_engine(tmp_path, clock, fixed_ollama) -> Iterator[Hippo]:
    config = Config(
        data_dir=tmp_path,
        config_dir=tmp_path / "cfg",
        ollama=OllamaSettings(host=fixed_ollama.host),
    )
    engine = make_engine(config, clock)
    yield engine
    engine.close()


async def _still(pilot: Pilot[None]) -> None:
    for prompt in pilot.app.query(PromptInput):
        prompt.cursor_blink = False
    no_toasts(pilot.app)
    await pilot.pause()


def test_the_greeting_of_a_new_user(snap_compare, snap_engine, fixed_ollama, tmp_path):
    config = Config(
        data_dir=tmp_path,
        config_dir=tmp_path / "cfg",
        ollama=OllamaSettings(host=fixed_ollama.host),
    )
    app = HippoApp(snap_engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await chat_ready(pilot)
        await sees(pilot, "Welcome to Hippo", "Try:")
        await _still(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_help_panel(snap_compare, snap_engine, fixed_ollama, tmp_path):
    config = Config(
        data_dir=tmp_path,
        config_dir=tmp_path / "cfg",
        ollama=OllamaSettings(host=fixed_ollama.host),
    )
    (config.config_dir).mkdir(parents=True, exist_ok=True)
    (config.config_dir / "welcomed").touch()
    app = HippoApp(snap_engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await chat_ready(pilot)
        await send_command(pilot, "/help")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await sees(pilot, "Commands", "Keys")
        await _still(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
