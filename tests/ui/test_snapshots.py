"""SVG snapshots of every screen at 100x30, against a fake Ollama on a fixed port.

The port is fixed so the host shown on screen doesn't vary; the clock is a
ManualClock and the time zone UTC, so dates don't either. Update with
``pytest tests/ui --snapshot-update`` and look at the SVGs before committing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from textual.pilot import Pilot

from assistant.config import Config
from assistant.engine import Hippo
from assistant.llm.values import TextDelta
from assistant.settings import OllamaSettings
from tests.fake_ollama import FakeOllama, Reply
from tests.ui.conftest import make_engine
from tests.ui.helpers import chat_ready, no_toasts, ollama_on_fixed_port, sees, wait_until
from ui import HippoApp
from ui.screens import ModelPickerScreen, OnboardingScreen, PullScreen, SessionListScreen
from ui.widgets import Conversation, ModelList, PromptInput

SIZE = (100, 30)
PORT = 47_731  # fixed, so the host on screen is the same every run


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


def _talk(engine: Hippo, session_id: int, text: str, *, cancel_after: int = 0) -> None:
    """One whole turn through the engine, optionally cancelled after some text."""
    cancel = threading.Event()
    pieces = 0
    for event in engine.send(session_id, text, cancel=cancel):
        if isinstance(event, TextDelta):
            pieces += 1
            if cancel_after and pieces >= cancel_after:
                cancel.set()
    # "The model does not read English" would show as a toast whenever the app next looks
    # (every 2 s): in the frame or not by how busy the machine is. Not these snapshots' topic.
    engine.background.take_notices()


async def _settle(pilot: Pilot[None]) -> None:
    """Wait for the embedding queue to drain and stop the cursor blinking."""
    app = pilot.app
    assert isinstance(app, HippoApp)
    await wait_until(pilot, lambda: app.engine.memory.vectors.queued() == 0, what="embeddings")
    app.chat.status.refresh_pending()
    await wait_until(pilot, lambda: app.chat.status.pending == 0)
    for prompt in app.query(PromptInput):
        prompt.cursor_blink = False
    no_toasts(app)
    await pilot.pause()


def test_chat_with_a_few_messages(snap_compare, snap_engine, fixed_ollama, tmp_path):
    fixed_ollama.script(
        Reply(
            content="## Packing for Lisbon\n\n- a light **rain jacket**\n"
            "- shoes for the hills\n\nNights are cool, around `12 °C`.",
            thinking="March in Lisbon: mild, some rain.",
        ),
        Reply(content="Yes: [bold]this[/] stays as typed, and so does [/]."),
        Reply(content="Trams one two three four five six seven", chunk_size=4),
    )
    session = snap_engine.conversations.new_session()
    _talk(snap_engine, session.id, "What should I pack for Lisbon in March?")
    _talk(snap_engine, session.id, "Is [bold]this[/] shown literally?")
    _talk(snap_engine, session.id, "Tell me about the trams", cancel_after=3)
    config = Config(
        data_dir=tmp_path,
        config_dir=tmp_path / "cfg",
        ollama=OllamaSettings(host=fixed_ollama.host),
    )
    app = HippoApp(snap_engine, config, resume=True)

    async def run_before(pilot: Pilot[None]) -> None:
        await chat_ready(pilot)
        await wait_until(pilot, lambda: not app.chat.query_one(Conversation).filling)
        await sees(pilot, "stopped")
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_onboarding_when_ollama_is_down(snap_compare, tmp_path, clock):
    # tests/conftest.py points OLLAMA_HOST at port 9, where nothing listens.
    config = Config(data_dir=tmp_path, config_dir=tmp_path / "cfg")
    engine = make_engine(config, clock)
    app = HippoApp(engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_until(pilot, lambda: isinstance(app.screen, OnboardingScreen))
        await sees(pilot, "Host tried", "Retry")
        no_toasts(app)

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        engine.close()


def test_pull_of_a_missing_model_offered(snap_compare, snap_engine, fixed_ollama, tmp_path):
    fixed_ollama.remove_model("embeddinggemma")
    fixed_ollama.pull_plan(
        "embeddinggemma", layers=[400_000_000, 221_875_417], capabilities=("embedding",),
        embedding_length=768,
    )  # fmt: skip
    config = Config(
        data_dir=tmp_path,
        config_dir=tmp_path / "cfg",
        ollama=OllamaSettings(host=fixed_ollama.host),
    )
    app = HippoApp(snap_engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_until(pilot, lambda: isinstance(app.screen, PullScreen))
        await sees(pilot, "Pull them now?", "waiting")
        no_toasts(app)  # once pulled, the screen goes on by itself (tests/ui/test_pull.py)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_model_picker(snap_compare, snap_engine, fixed_ollama, tmp_path):
    config = Config(
        data_dir=tmp_path,
        config_dir=tmp_path / "cfg",
        ollama=OllamaSettings(host=fixed_ollama.host),
    )
    app = HippoApp(snap_engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await chat_ready(pilot)
        await _settle(pilot)
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        lists = list(app.screen.query(ModelList))
        await wait_until(pilot, lambda: all(model_list.option_count for model_list in lists))
        await sees(pilot, "all-minilm:latest", "Enter chooses a model", "Delete…")
        no_toasts(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_session_list(snap_compare, snap_engine, fixed_ollama, tmp_path):
    for topic in ("my sister's birthday", "the Lisbon trip", "a bread recipe"):
        session = snap_engine.conversations.new_session()
        _talk(snap_engine, session.id, f"Let's talk about {topic}")
        _talk(snap_engine, session.id, "And one more thing")
        snap_engine.clock.advance(days=3, hours=2)
    config = Config(
        data_dir=tmp_path,
        config_dir=tmp_path / "cfg",
        ollama=OllamaSettings(host=fixed_ollama.host),
    )
    app = HippoApp(snap_engine, config)

    async def run_before(pilot: Pilot[None]) -> None:
        await chat_ready(pilot)
        await _settle(pilot)
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionListScreen))
        await sees(pilot, "a bread recipe", "New session")
        no_toasts(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
