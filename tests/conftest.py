"""Shared fixtures: a fake Ollama on 127.0.0.1, a temporary data dir, an engine over both."""

from __future__ import annotations

import gc
import os
import shutil
import sys
from pathlib import Path

import pytest

# Write byte-code caches even where the environment says not to (this machine sets
# PYTHONDONTWRITEBYTECODE): without them every run, every xdist worker and every `hippo`
# a test starts compiles the whole tree again, and pytest re-writes every test module's
# asserts, which cost ~5 s of CPU a process. Set before the test modules are imported.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

from assistant.clock import ManualClock  # noqa: E402  (after the line above, on purpose)
from assistant.config import Config  # noqa: E402
from assistant.engine import Hippo  # noqa: E402
from assistant.settings import ModelSettings, OllamaSettings  # noqa: E402
from tests.fake_ollama.fixtures import fake_ollama  # noqa: E402, F401  (a fixture)
from tests.scratch import use_memory_for_temp_folders  # noqa: E402
from tests.warm_caches import wants_warm_caches, warm_caches  # noqa: E402


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: three workers more than the machine has cores.

    Many tests spend part of their time waiting, not computing: on a fake Ollama's
    socket, a subprocess, a timeout that is the point of the test (about 75 s of the
    workers' time in all). With a worker a core that time leaves a core idle. On the
    2-core machine, 2 workers ran the suite in 175 s, 3 in 150 s, 4 in 139 s (2026-12-01);
    on 2026-12-02, back to back in pairs, 4 took 99 and 106 s where 5 took 86 and 94 s,
    and 6 took 108 and 100 s where 5 took 103 and 84 s: past five, each worker's start-up
    (~2.5 s of CPU) and the contention cost more than the waits they fill.
    PYTEST_XDIST_AUTO_NUM_WORKERS still decides where it is set.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return len(os.sched_getaffinity(0)) + 3 if hasattr(os, "sched_getaffinity") else None


def pytest_configure(config: pytest.Config) -> None:
    """The run's temporary folders in memory where there is room (tests/scratch.py)."""
    if not hasattr(config, "workerinput"):  # a worker is given its folder by the controller
        use_memory_for_temp_folders(config)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Under xdist, write the byte-code caches before the workers start (tests/warm_caches.py)."""
    if wants_warm_caches(session.config):
        warm_caches(session.config, session.config.rootpath)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist, start the `heavy` tests first, spread evenly over the workers.

    `--dist worksteal` gives each worker one contiguous share of the collection and lets
    idle workers steal from the end of the others' queues. The ten injection-channel
    tests (~5 s of CPU each) sat together in the first share, so one worker ran them all
    in turn while the others ran out of work. Every worker orders the items alike (xdist
    requires it): each share gets its heavy tests at its head, then its light ones.
    """
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    if workers > 1:
        items[:] = spread_heavy(items, workers)


def spread_heavy(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """``items`` cut as worksteal cuts them into ``workers`` shares, heavy ones dealt first."""
    heavy = [item for item in items if item.get_closest_marker("heavy")]
    light = [item for item in items if not item.get_closest_marker("heavy")]
    ordered: list[pytest.Item] = []
    left = len(items)
    for share in range(workers):
        size = left // (workers - share)  # as xdist's WorkStealingScheduling.check_schedule
        left -= size
        mine = heavy[share::workers]
        ordered += mine + light[: max(size - len(mine), 0)]
        del light[: max(size - len(mine), 0)]
    return ordered + light  # none left unless a share had more heavy tests than room


def pytest_collection_finish(session: pytest.Session) -> None:
    """Keep the garbage collector off what every test shares, and run it less often.

    After collection a worker holds a few hundred thousand long-lived objects (modules,
    test items, Textual's classes), and each full collection walked all of them again:
    in the UI tests, whose apps make many objects, the collector took ~12% of the CPU,
    most of it full collections. Frozen, they are never walked again; and young objects
    are collected after 10,000 allocations rather than 700, full collections after 100
    young rounds rather than 10 (cyclic garbage waits a little longer; nothing in the
    tests relies on when it goes). Measured on 3 UI files: 2.5 s of collection -> 1.0 s.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 50, 100)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Collect the garbage once at the end, then let pytest's own five collections be quick.

    After the last test pytest runs the collector five times over, to report an exception
    raised in a finaliser (`PytestUnraisableExceptionWarning`). Each pass walked every
    object the run left alive (Textual's caches hold tens of thousands): ~0.8 s a pass in
    one process, ~4 s of CPU in all. Its hook for such exceptions is still in place here,
    so this one collection reports them just as well; frozen, the survivors are not walked
    again. Only garbage that a finaliser makes while it runs would wait for a second pass.
    """
    gc.collect()
    gc.freeze()


# The data file's key in tests: every file a test makes is encrypted with it, and no
# test reaches the real keyring for it (HIPPO_DB_KEY beats the keyring).
TEST_DB_KEY = "5e" * 32
CHAT_MODEL = "qwen3:1.7b"
EMBEDDING_MODEL = "embeddinggemma"


@pytest.fixture(autouse=True, scope="session")
def _test_db_key():
    """Session-wide fixtures (seeded templates) get the test key too, before any test runs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HIPPO_DB_KEY", TEST_DB_KEY)
        yield


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path, monkeypatch):
    """No test reads the real user's folders, settings, token, keys or Ollama."""
    monkeypatch.setenv("HIPPO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HIPPO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # nothing listens on port 9
    monkeypatch.delenv("HIPPO_OLLAMA_TOKEN", raising=False)
    monkeypatch.setenv("HIPPO_DB_KEY", TEST_DB_KEY)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def config(tmp_path, fake_ollama) -> Config:  # noqa: F811
    return Config(
        data_dir=tmp_path / "data",
        config_dir=tmp_path / "config",
        models=ModelSettings(chat=CHAT_MODEL, embedding=EMBEDDING_MODEL),
        ollama=OllamaSettings(host=fake_ollama.host),
    )


@pytest.fixture(scope="session")
def blank_data_file(tmp_path_factory, _test_db_key) -> Path:
    """A new data file with every migration applied, made once per run (per xdist worker).

    Migrating a new file costs ~20 ms of CPU and, on a real disk, ~0.1 s of fsyncs; a test
    that only needs an empty file gets a copy of this one (`copy_blank_data_file`).
    """
    from data_schema.connect import Database

    path = tmp_path_factory.mktemp("blank") / "hippo.db"
    database = Database(path)
    database.conn  # noqa: B018  (opening it applies the migrations)
    database.close()  # folds the WAL into the file: one file to copy
    return path


def copy_blank_data_file(blank: Path, path: Path) -> None:
    """Put a copy of the migrated empty file at ``path``, private as Hippo makes it."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    with open(fd, "wb") as out, blank.open("rb") as source:
        shutil.copyfileobj(source, out)


@pytest.fixture
def sleep_backups() -> bool:
    """Whether `engine` backs its file up before each sleep run, as Hippo does.

    A folder of tests that run sleep hundreds of times and are not about backups (the
    injection corpus) overrides it with False: each backup copies the whole file.
    """
    return True


@pytest.fixture
def ollama_transport() -> object | None:
    """What carries `engine`'s requests to the fake Ollama: None, HTTP over loopback.

    A folder whose tests are not about the network and send thousands of requests (the
    injection corpus) overrides it with ``fake_ollama.transport()``: answered in process.
    """
    return None


@pytest.fixture
def engine(config, clock, blank_data_file, sleep_backups, ollama_transport):
    from assistant.llm.gateway import OllamaGateway

    # Only where the engine would make the file with the same key: a test that took the
    # key away (a keyring of its own) or made a file already gets the engine it asked for.
    if os.environ.get("HIPPO_DB_KEY") == TEST_DB_KEY and not config.db_path.exists():
        copy_blank_data_file(blank_data_file, config.db_path)
    hippo = Hippo(
        config.db_path,
        OllamaGateway(config.ollama.host, transport=ollama_transport),
        chat_model=config.models.chat,
        embedding_model=config.models.embedding,
        clock=clock,
        sleep_backups=sleep_backups,
    )
    yield hippo
    hippo.close()
