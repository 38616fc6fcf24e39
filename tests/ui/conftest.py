"""Fixtures for the UI tests: a fixed time zone, and an app over the fake Ollama."""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
import tempfile
import time
from pathlib import Path

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


@pytest.fixture(autouse=True, scope="session")
def _headless_frames_not_painted():
    """Don't paint frames nobody sees: about a third of the UI tests' CPU.

    Pilot runs each app on a headless driver that throws every frame away, yet Textual
    still renders each update of the top screen (every widget's dirty lines, styled)
    before dropping it. Here the top screen's updates are marked done unpainted; layout,
    focus, events and mouse-over run as before. Whatever a test reads of the screen is
    still rendered, in full, from the same widgets when it asks: `helpers.screen_text`
    (which `sees` uses, once per frame) and the snapshots (`export_screenshot`).
    """
    from textual.screen import Screen

    paint = Screen._compositor_refresh

    def refresh(screen: Screen) -> None:
        app = screen.app
        if not (app.is_headless and screen is app.screen and not app.is_inline):
            paint(screen)
            return
        screen._compositor._dirty_regions.clear()  # as a painted update leaves them
        screen._dirty_widgets.clear()
        app._update_mouse_over(screen)
        # Counted, so that a test looking for a text (`helpers.sees`) renders the screen
        # again only once something on it changed.
        app.__dict__["_frames"] = app.__dict__.get("_frames", 0) + 1

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Screen, "_compositor_refresh", refresh)
        yield


@pytest.fixture(autouse=True, scope="session")
def _css_parsed_once():
    """Parse each piece of CSS once per test process, not once per app.

    Textual keeps what it parsed per stylesheet, so every app of every test parsed the
    same app, screen and widget CSS again (~5% of the UI tests' CPU). The parsed rules
    are only read afterwards, so apps share them; the theme's variables are part of the
    key, as they change what a rule means.
    """
    from textual.css.stylesheet import Stylesheet

    parse = Stylesheet._parse_rules
    parsed: dict[tuple[object, ...], list[object]] = {}
    # The variables as a key, for the last variables dict seen. Textual replaces the dict
    # rather than changing it, and reparses every piece of CSS (~100) each time an app
    # meets a new widget class: sorting and hashing ~200 variables for each piece was
    # ~3% of the UI tests' CPU, so it is done once per dict.
    last: list[object] = [None, ()]

    def parse_rules(
        sheet: Stylesheet,
        css: str,
        read_from: tuple[str, str],
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[object]:
        if last[0] is not sheet._variables:
            last[:] = [sheet._variables, _Frozen(sorted(sheet._variables.items()))]
        variables = last[1]
        key = (css, read_from, is_default_rules, tie_breaker, scope, variables)
        if key not in parsed:
            parsed[key] = parse(sheet, css, read_from, is_default_rules, tie_breaker, scope)
        return parsed[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Stylesheet, "_parse_rules", parse_rules)
        yield


class _Frozen(tuple):
    """A tuple that hashes its items once (a key looked up many times, never changed)."""

    def __hash__(self) -> int:
        if "_hash" not in self.__dict__:
            self.__dict__["_hash"] = super().__hash__()
        return int(self.__dict__["_hash"])


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
    """A data file seeded (and embedded) once per run; each test gets a copy.

    Once per run, not per xdist worker: seeding and embedding it costs about a second of
    CPU, and every worker used to do it again. The first worker to need it makes it in the
    run's temporary folder, which all the workers share, while the others wait on a lock.
    """
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    folder = root / "seeded"
    with (root / "seeded.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not folder.exists():
                _seed_template(Path(tempfile.mkdtemp(dir=root)), folder)
            db_path, memories, end = pickle.loads((folder / "seeded.pickle").read_bytes())
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return db_path, memories, end


def _seed_template(building: Path, folder: Path) -> None:
    """Seed a data file in ``building``, then move it to ``folder`` whole (or not at all)."""
    from tests.fake_ollama import FakeOllama
    from tests.ui.seed import SEED_START, seed_memories

    with FakeOllama(port=0) as server:
        config = Config(
            data_dir=building, config_dir=building / "cfg", ollama=OllamaSettings(host=server.host)
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
    db_path = folder / config.db_path.relative_to(building)
    (building / "seeded.pickle").write_bytes(pickle.dumps((db_path, memories, clock.now())))
    building.rename(folder)


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
