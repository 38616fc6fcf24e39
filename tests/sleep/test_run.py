"""The run: backup first, a record of everything, budgets, dry runs, catch-up, the notice."""

from __future__ import annotations

import os
import stat
from datetime import UTC, timedelta
from pathlib import Path

import pytest

from assistant.sleep import backups
from tests.sleep.helpers import chat, day, episode, episodes, fact, facts, sleep, snapshot
from tests.sleep.scenario import small_week


def _week(engine, fake_ollama, clock):
    fake_ollama.script(*small_week(engine))
    clock.advance(days=4)  # Friday 27 November, 09:00


def test_the_run_is_recorded_with_counts_model_use_and_proposals(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)

    report = sleep(engine)

    stored = engine.sleep.last_report()
    assert stored is not None and stored.run_id == report.run_id and stored.status == "done"
    assert stored.counts["episodes"] == 4 and stored.counts["sessions_summarised"] == 3
    assert stored.counts["candidates"] == 4 and stored.counts["llm_calls_update"] == 1
    assert stored.llm_calls == 7 and stored.prompt_tokens > 0 and stored.completion_tokens > 0
    assert stored.seconds >= stored.llm_seconds > 0
    assert [p.kind for p in stored.proposals] == ["fact", "fact", "fact", "fact", "superseded"]
    assert stored.errors == [] and "Sleep done" in stored.summary()


def test_at_most_two_model_calls_per_session_for_episodes_and_extraction(
    engine, fake_ollama, clock
):
    _week(engine, fake_ollama, clock)
    report = sleep(engine)
    calls = report.counts["llm_calls_episodes"] + report.counts["llm_calls_extract"]
    assert calls <= 2 * report.counts["sessions_summarised"]


def test_the_file_is_backed_up_first_privately_keeping_the_last_few(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)
    for _ in range(3):
        report = sleep(engine, settings={"keep_backups": 2})
        clock.advance(days=1)
    kept = backups(engine.memory.db.path)
    assert len(kept) == 2 and Path(report.backup_path) == kept[-1]
    assert stat.S_IMODE(os.stat(kept[-1]).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(kept[-1].parent).st_mode) == 0o700


@pytest.mark.parametrize("sleep_backups", [False])
def test_an_engine_told_to_make_no_backups_consolidates_without_one(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)
    report = sleep(engine)
    assert report.status == "done" and report.counts["episodes"] == 4
    assert report.backup_path == "" and backups(engine.memory.db.path) == []
    clock.advance(days=2)  # a missed night: the catch-up makes none either
    caught = engine.sleep.catch_up(tz=UTC)
    assert caught is not None and caught.status == "done" and caught.backup_path == ""
    assert backups(engine.memory.db.path) == []


def test_a_backup_holds_the_file_as_it_was_before_the_night(engine, fake_ollama, clock):
    from assistant.engine import Hippo

    _week(engine, fake_ollama, clock)
    report = sleep(engine)
    before = Hippo(report.backup_path, engine.host.gateway, chat_model="m", embedding_model="e")
    try:
        assert before.memory.facts.count(before.memory.profile.id) == 0
        assert len(before.conversations.sessions()) == 3
    finally:
        before.close()


def test_a_dry_run_reports_what_it_would_propose_and_writes_nothing(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)
    untouched = snapshot(engine)

    report = sleep(engine, dry_run=True)

    assert report.dry_run and report.count("fact") == 4 and report.count("superseded") == 1
    assert snapshot(engine) == untouched and engine.sleep.last_report() is None
    assert backups(engine.memory.db.path) == [] and "Would propose" in report.summary()


def test_a_dry_run_asks_the_model_as_the_real_run_would(engine, fake_ollama, clock):
    # Regression: the dry run's copy of the engine took the default context size, not the
    # configured one, so its prompts (and its preview) could differ from the real run's.
    engine.live_settings.change(context_tokens=4096)
    _week(engine, fake_ollama, clock)

    sleep(engine, dry_run=True)

    windows = {
        r.body["options"]["num_ctx"]
        for r in fake_ollama.requests
        if r.path == "/api/chat" and r.body and r.body.get("options")
    }
    assert windows == {4096}


def test_sleep_built_with_the_users_settings_uses_them_when_a_call_names_none(
    engine, fake_ollama, clock
):
    from datetime import UTC

    from assistant.sleep import Sleep, SleepSettings
    from assistant.sleep.options import RunOptions

    _week(engine, fake_ollama, clock)
    capped = Sleep(engine.sleep.deps, SleepSettings(max_llm_calls=2)).run(RunOptions(tz=UTC))

    assert capped.status == "capped" and capped.llm_calls == 2


def test_the_nightly_cap_stops_cleanly_and_the_next_run_resumes(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)

    capped = sleep(engine, max_llm_calls=4)

    assert capped.status == "capped" and capped.llm_calls == 4
    assert "cap of 4 model calls" in capped.errors[0]
    resumed = sleep(engine)
    assert resumed.status == "done" and resumed.llm_calls == 3
    assert resumed.backup_path == capped.backup_path  # still the same night


def test_progress_is_reported_step_by_step(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)
    seen = []
    sleep(engine, progress=seen.append)
    assert [(p.step, p.done, p.total) for p in seen][:3] == [
        ("episodes", 1, 3),
        ("episodes", 2, 3),
        ("episodes", 3, 3),
    ]
    assert seen[-1].step == "hygiene"


def test_the_next_launch_says_what_changed_while_the_user_was_away(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)
    sleep(engine, settings={"auto_activate": False})

    notice = engine.sleep.unseen_report()

    assert notice is not None
    assert notice.text == "While you were away: 4 new facts to review, 0 superseded"
    assert engine.sleep.unseen_report() is None  # said once


def test_superseded_facts_are_counted_in_the_notice(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)
    sleep(engine)
    assert (
        engine.sleep.unseen_report().text
        == "While you were away: 0 new facts to review, 1 superseded"
    )


def test_a_missed_night_is_caught_up_once_on_the_next_launch(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)
    assert engine.sleep.due()  # never ran, and conversations wait

    assert engine.sleep.catch_up(settings=None).trigger == "catch_up"

    assert not engine.sleep.due()  # ran after last night's 03:00
    clock.advance(days=1)  # the laptop slept through 03:00
    assert engine.sleep.due()
    fake_ollama.script()
    engine.sleep.catch_up()
    assert not engine.sleep.due() and engine.sleep.catch_up() is None


def test_a_run_that_died_is_caught_up_at_once(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)

    def die(_):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sleep(engine, progress=die)
    assert engine.sleep.last_report().status == "interrupted"
    assert engine.sleep.due(now=clock.now() + timedelta(minutes=5))


def test_a_second_run_changes_nothing_and_asks_the_model_nothing(engine, fake_ollama, clock):
    _week(engine, fake_ollama, clock)
    sleep(engine)
    after_one = snapshot(engine)

    again = sleep(engine)

    assert again.llm_calls == 0 and again.proposals == []
    assert snapshot(engine) == after_one


def test_facts_from_a_scoped_session_keep_its_scope(engine, fake_ollama, clock):
    _, said = chat(engine, day("2026-11-23"), "I lead the billing team.", "Ok.", scope="work")
    clock.advance(days=1)
    fake_ollama.script(
        episodes(episode(said[0], said[1])),
        facts(fact("The user leads the billing team", [said[0].id])),
    )
    sleep(engine)
    assert engine.memory.facts.list(engine.memory.profile.id)[0].scope == "work"
    assert engine.memory.episodes.recent(engine.memory.profile.id)[0].scope == "work"
