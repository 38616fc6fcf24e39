"""Crash safety: a run killed or failing at any point, then rerun, ends as one clean run."""

from __future__ import annotations

import pytest

from assistant.engine import Hippo
from assistant.llm.gateway import OllamaGateway
from tests.sleep.helpers import sleep, snapshot
from tests.sleep.scenario import small_week

UNITS = 10  # 3 sessions summarised, 3 extracted, 3 update batches, hygiene


class Killed(BaseException):
    """Stands in for the process dying between two units."""


@pytest.fixture
def clean(tmp_path, fake_ollama, config, clock):
    """The state one uninterrupted run leaves, on a separate data file."""
    twin = Hippo(
        tmp_path / "clean" / "hippo.db",
        OllamaGateway(fake_ollama.host),
        chat_model=config.models.chat,
        embedding_model=config.models.embedding,
        clock=clock,
    )
    fake_ollama.script(*small_week(twin))
    clock.advance(days=4)
    report = sleep(twin)
    assert report.status == "done", report.errors
    assert report.counts["candidates_added"] == 3 and report.count("superseded") == 1
    yield snapshot(twin)
    twin.close()


def _kill_at(unit: int):
    seen = []

    def progress(_):
        seen.append(1)
        if len(seen) == unit:
            raise Killed

    return progress


@pytest.mark.parametrize("unit", range(1, UNITS))
def test_a_run_killed_between_units_then_rerun_matches_a_clean_run(
    engine, fake_ollama, clean, unit
):
    fake_ollama.script(*small_week(engine))
    with pytest.raises(Killed):
        sleep(engine, progress=_kill_at(unit))

    report = sleep(engine)

    assert report.status == "done", report.errors
    assert snapshot(engine) == clean


@pytest.mark.parametrize("unit", [1, 3, 4, 7])
def test_a_run_whose_model_fails_mid_way_then_rerun_matches_a_clean_run(
    engine, fake_ollama, clean, unit
):
    fake_ollama.script(*small_week(engine))

    def progress(_):
        progress.calls += 1
        if progress.calls == unit:
            fake_ollama.fail_next("/api/chat", "500")

    progress.calls = 0
    failed = sleep(engine, progress=progress)
    assert failed.status == "failed" and "run:" in failed.errors[-1]

    report = sleep(engine)

    assert report.status == "done", report.errors
    assert snapshot(engine) == clean


def test_a_rerun_after_a_kill_reuses_the_nights_backup(engine, fake_ollama, clock):
    fake_ollama.script(*small_week(engine))
    clock.advance(days=4)
    with pytest.raises(Killed):
        sleep(engine, progress=_kill_at(2))
    first = engine.sleep.last_report()
    assert first is not None and first.status == "interrupted"
    assert sleep(engine).backup_path == first.backup_path
