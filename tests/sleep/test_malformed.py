"""Malformed model output: retried once with the error, then dropped and recorded, never written."""

from __future__ import annotations

import json

import pytest

from tests.fake_ollama import Reply
from tests.sleep.helpers import chat, day, episode, episodes, fact, facts, sleep, snapshot

JUNK = {
    "invalid JSON": '{"episodes": [{"summary": "cut off',
    "wrong types": json.dumps({"episodes": [{"first_message_id": "one", "importance": "high"}]}),
    "empty": " \n",  # (an empty Reply would make the fake send a minimal valid instance)
    "100 KB of junk": "lorem ipsum " * 9000,
    "a list": "[1, 2, 3]",
}


def _session(engine, clock):
    _, said = chat(engine, day("2026-11-23"), "I play the cello on Sundays.", "Beautiful.")
    clock.advance(days=1)
    return said


@pytest.mark.parametrize("junk", JUNK.values(), ids=JUNK.keys())
def test_malformed_output_writes_nothing_and_is_recorded(engine, fake_ollama, clock, junk):
    _session(engine, clock)
    # Summary and extraction, each retried; in pieces of 1000 characters, since 100 KB in
    # the default 4 would be 27,000 stream lines a reply, which only makes the test slow.
    fake_ollama.script(*[Reply(content=junk, chunk_size=1000)] * 4)

    report = sleep(engine)

    assert report.status == "failed" and report.llm_calls == 4
    assert engine.memory.episodes.recent(engine.memory.profile.id) == []
    assert engine.memory.facts.count(engine.memory.profile.id) == 0
    assert report.counts["summarise_failed"] == report.counts["extract_failed"] == 1
    assert report.counts["malformed_answers"] == 4
    assert "the model's answer could not be used (will retry next run)" in report.errors[0]
    assert "nothing was consolidated" in report.errors[-1]


def test_the_retry_tells_the_model_what_was_wrong(engine, fake_ollama, clock):
    said = _session(engine, clock)
    fake_ollama.script(
        Reply(content=JUNK["wrong types"]),
        episodes(episode(said[0].id, said[1].id, "Cello.")),
        facts(),
    )

    report = sleep(engine)

    retry = [r for r in fake_ollama.requests if r.path == "/api/chat"][1].body["messages"]
    assert "first_message_id must be integer" in retry[-1]["content"]
    assert retry[-2]["role"] == "assistant" and report.errors == []
    assert len(engine.memory.episodes.recent(engine.memory.profile.id)) == 1


def test_episode_ids_outside_the_conversation_are_refused(engine, fake_ollama, clock):
    said = _session(engine, clock)
    fake_ollama.script(episodes(episode(1, 99)), episodes(episode(said[0], said[1])), facts())
    sleep(engine)
    retry = fake_ollama.requests[-2].body["messages"][-1]["content"]
    assert "last_message_id must be one of" in retry


def test_a_session_the_model_keeps_failing_on_is_given_up_after_three_runs(
    engine, fake_ollama, clock
):
    _session(engine, clock)
    for n in range(3):
        fake_ollama.script(*[Reply(content="nope")] * 4)
        report = sleep(engine)
        assert report.llm_calls == 4, n
    assert "given up" in report.errors[0] and report.counts["sessions_given_up"] == 2
    assert sleep(engine).llm_calls == 0


def test_after_malformed_output_the_next_run_ends_as_a_clean_run_would(
    engine, fake_ollama, clock, tmp_path
):
    said = _session(engine, clock)
    good = [
        episodes(episode(said[0].id, said[1].id, "Cello.")),
        facts(fact("The user plays the cello on Sundays", [said[0].id])),
    ]
    fake_ollama.script(
        good[0],
        Reply(content="{}"),
        Reply(content="no facts here"),
    )
    first = sleep(engine)
    assert (
        first.counts["extract_failed"] == 1
        and engine.memory.facts.count(engine.memory.profile.id) == 0
    )
    fake_ollama.script(good[1])

    sleep(engine)

    (cello,) = snapshot(engine)["facts"]
    assert cello[:2] == ("The user plays the cello on Sundays", "active")
