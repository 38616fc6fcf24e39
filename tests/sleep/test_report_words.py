"""Sleep's report speaks plain sentences: one per kind of problem, with its count."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from assistant.sleep import SleepReport
from tests.fake_ollama import Reply
from tests.sleep.helpers import chat, day, episode, episodes, facts, sleep

# A counter's own name ("candidates_added") is bookkeeping, never a word for the user.
COUNTER_NAME = re.compile(r"\b[a-z]+_[a-z_]+\b")


def test_a_dated_item_that_is_a_transcript_line_is_not_quoted_back(engine, fake_ollama, clock):
    _, said = chat(engine, day("2026-11-25"), "Dentist appointment some day, remember.", "Ok.")
    line = f"[id {said[0].id}] 2026-11-25 Wed 10:00 user: Dentist appointment some day"
    item = {"text": line, "when": line, "message_id": said[0].id}
    fake_ollama.script(
        episodes(episode(said[0], said[1], "A dentist appointment.", dated=[item])), facts()
    )
    clock.advance(days=3)

    report = sleep(engine)

    said_back = report.summary() + "\n".join(report.details)
    assert "[id " not in said_back and "user:" not in said_back
    assert "1 plan or appointment had no date Hippo could work out, and was not kept." in said_back
    assert f"could not date the plan in message {said[0].id}" in said_back


def test_each_kind_of_problem_is_one_sentence_with_its_count(engine, fake_ollama, clock):
    for n in range(2):
        chat(engine, day("2026-11-23", 9 + n), f"I play the cello, part {n}.", "Nice.")
    clock.advance(days=1)
    fake_ollama.script(*[Reply(content="nope")] * 4, facts(), facts())

    report = sleep(engine)

    summary = report.summary()
    assert summary.count("2 sessions could not be summarised; they stay due.") == 1
    assert "4 of the model's answers could not be used as they came." in summary
    assert "session 1" not in summary and not COUNTER_NAME.search(summary)
    assert [line.split(": ")[0] for line in report.details] == ["summary", "summary"]


def test_what_the_steps_did_is_said_in_words():
    report = SleepReport(None, "done", "manual", False, datetime(2026, 11, 24, tzinfo=UTC))
    report.counts.update(
        sessions_closed=2, sessions_summarised=2, episodes=3, candidates_added=1, events_dropped=4
    )
    assert report.activity == (
        "2 sessions closed, 2 sessions summarised, 3 episodes written, 1 fact added, "
        "4 expired events dropped."
    )
