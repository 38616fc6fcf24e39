"""Fixtures for the UI tests: a fixed time zone, and an app over the fake Ollama."""

from __future__ import annotations

import shutil
import time

import pytest

from assistant.clock import ManualClock
from assistant.config import DEFAULT_CHAT_MODEL as CHAT_MODEL
from assistant.config import DEFAULT_EMBEDDING_MODEL as EMBEDDING_MODEL
from assistant.config import Config
from assistant.engine import Hippo
from assistant.settings import OllamaSettings


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    """Dates on screen don't depend on the machine's time zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(autouse=True)
def _notices_kept(monkeypatch):
    """Keep every notification an app posts (`tests.ui.helpers.notified` reads them).

    A notice lasts a few seconds; on a busy machine it can come and go between two looks
    of a test waiting for it, so a test asks what was posted, not what still shows.
    """
    from textual.app import App

    post = App.notify

    def notify(self: App, message: str, **kwargs: object) -> None:
        self.__dict__.setdefault("_notices_posted", []).append(str(message))
        post(self, message, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "notify", notify)


def make_engine(config: Config, clock: ManualClock | None = None) -> Hippo:
    """An engine over ``config``'s data file and Ollama host."""
    from assistant.llm.gateway import OllamaGateway

    return Hippo(
        config.db_path,
        OllamaGateway(config.ollama.host),
        chat_model=CHAT_MODEL,
        embedding_model=EMBEDDING_MODEL,
        clock=clock or ManualClock(),
    )


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory):
    """A data file seeded (and embedded) once per run; each test gets a copy."""
    from tests.fake_ollama import FakeOllama
    from tests.ui.seed import SEED_START, seed_memories

    folder = tmp_path_factory.mktemp("seeded")
    with FakeOllama(port=0) as server:
        config = Config(
            data_dir=folder, config_dir=folder / "cfg", ollama=OllamaSettings(host=server.host)
        )
        clock = ManualClock(SEED_START)
        engine = make_engine(config, clock)
        memories = seed_memories(engine, clock, extra_facts=90)  # more than a page of facts
        engine.background.embed_pending()
        # As in a file searched before: the reading probe has asked the model about
        # English, so its notice (the fake's vectors don't read it) is not raised again
        # mid-test, where its toast would race a snapshot.
        engine.memory.search_messages("tiles")
        engine.background.take_notices()
        engine.close()
    return config.db_path, memories, clock.now()


@pytest.fixture
def seeded(config, seeded_template):
    """An engine over a copy of a file seeded with five weeks of realistic memories."""
    db_path, memories, end = seeded_template
    config.db_path.parent.mkdir(parents=True, exist_ok=True)
    for part in db_path.parent.glob(db_path.name + "*"):
        shutil.copyfile(
            part, config.db_path.parent / part.name.replace(db_path.name, config.db_path.name)
        )
    engine = make_engine(config, ManualClock(end))
    yield engine, memories
    engine.close()
