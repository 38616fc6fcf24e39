"""What real small models answered (SmolLM2-135M behind llama.cpp), replayed through the fake.

Each test scripts the shape a real model produced and checks that sleep reads what has one
clear reading, counts the rest as malformed, and never writes what is wrong.
"""

from __future__ import annotations

import json

from tests.fake_ollama import Reply
from tests.sleep.helpers import chat, day, episode, episodes, fact, facts, sleep

PENICILLIN = ("I am allergic to penicillin.", "Noted, thank you for telling me.")


def _session(engine, clock, *turns):
    _, said = chat(engine, day("2026-11-23"), *turns)
    clock.advance(days=1)
    return said


def _chats(fake_ollama):
    return [r.body for r in fake_ollama.requests if r.path == "/api/chat"]


def test_a_failed_summary_does_not_block_fact_extraction(engine, fake_ollama, clock):
    said = _session(engine, clock, *PENICILLIN)
    fake_ollama.script(
        Reply(content="The user is allergic."),  # the summary: prose, twice
        Reply(content="Sure! Here is the summary."),
        facts(fact("The user is allergic to penicillin", [said[0].id])),
    )

    report = sleep(engine)

    (allergy,) = engine.memory.facts.list(engine.memory.profile.id)
    assert allergy.statement == "The user is allergic to penicillin"
    assert report.counts["summarise_failed"] == 1 and report.counts["sessions_extracted"] == 1
    assert report.status == "done"


def test_the_schemas_list_the_ids_that_were_shown(engine, fake_ollama, clock):
    said = _session(engine, clock, *PENICILLIN)
    ids = [m.id for m in said]
    fake_ollama.script(episodes(episode(said[0], said[1])), facts())

    sleep(engine)

    summary, extraction = _chats(fake_ollama)
    item = summary["format"]["properties"]["episodes"]["items"]["properties"]
    assert item["first_message_id"]["enum"] == ids and item["last_message_id"]["enum"] == ids
    cited = extraction["format"]["properties"]["facts"]["items"]["properties"]["message_ids"]
    assert cited["items"]["enum"] == ids


def test_an_invented_span_is_retried_and_never_written(engine, fake_ollama, clock):
    said = _session(engine, clock, *PENICILLIN)
    fake_ollama.script(
        episodes(episode(3, 425180796, "Penicillin.")),  # what SmolLM2 answered unconstrained
        episodes(episode(said[0].id, said[1].id, "Penicillin.")),
        facts(),
    )

    report = sleep(engine)

    (written,) = engine.memory.episodes.recent(engine.memory.profile.id)
    assert list(written.message_ids) == [m.id for m in said]
    assert report.counts["malformed_answers"] == 1


def test_importance_out_of_scale_is_clamped_not_fatal(engine, fake_ollama, clock):
    said = _session(engine, clock, *PENICILLIN)
    fake_ollama.script(
        episodes(episode(said[0].id, said[1].id, "Penicillin.", importance=698)),
        facts(fact("The user is allergic to penicillin", [said[0].id], importance=20)),
    )

    report = sleep(engine)

    (written,) = engine.memory.episodes.recent(engine.memory.profile.id)
    (allergy,) = engine.memory.facts.list(engine.memory.profile.id)
    assert written.importance == 10 and allergy.importance == 10
    assert report.counts["repaired_answers"] == 2 and report.counts["malformed_answers"] == 0


def test_json_cut_at_the_token_cap_keeps_its_whole_items(engine, fake_ollama, clock):
    said = _session(engine, clock, "I live in Lyon and I work as a nurse.", "Nice.")
    whole = json.dumps(
        {
            "facts": [
                fact("The user lives in Lyon", [said[0].id]),
                fact("The user works as a nurse", [said[0].id]),
            ]
        }
    )
    cut = whole[: whole.rindex("{")] + '{"statement": "The user ha'
    fake_ollama.script(episodes(episode(said[0], said[1])), Reply(content=cut))

    report = sleep(engine)

    statements = sorted(f.statement for f in engine.memory.facts.list(engine.memory.profile.id))
    assert statements == ["The user lives in Lyon"]
    assert report.counts["repaired_answers"] == 1


def test_one_broken_item_costs_only_itself(engine, fake_ollama, clock):
    said = _session(engine, clock, "I live in Lyon and I work as a nurse.", "Nice.")
    broken = {"statement": "D1:1", "evidence": ["fact", "D1:2"]}  # SmolLM2's own answer
    fake_ollama.script(
        episodes(episode(said[0], said[1])),
        Reply(
            content=json.dumps({"facts": [fact("The user lives in Lyon", [said[0].id]), broken]})
        ),
    )

    report = sleep(engine)

    assert [f.statement for f in engine.memory.facts.list(engine.memory.profile.id)] == [
        "The user lives in Lyon"
    ]
    assert report.counts["dropped_items"] == 1


def test_an_answer_of_turn_ids_alone_is_malformed_and_writes_nothing(engine, fake_ollama, clock):
    _session(engine, clock, *PENICILLIN)
    junk = json.dumps({"statement": "D1:1", "evidence": ["fact", "D1:2"]})
    fake_ollama.script(*[Reply(content=junk)] * 4)

    report = sleep(engine)

    assert engine.memory.facts.count(engine.memory.profile.id) == 0
    assert report.counts["malformed_answers"] == 4 and report.status == "failed"


def test_a_bare_list_or_another_key_is_read_where_the_meaning_is_clear(engine, fake_ollama, clock):
    said = _session(engine, clock, *PENICILLIN)
    part = episode(said[0].id, said[1].id, "Penicillin allergy.")
    found = fact("The user is allergic to penicillin", [said[0].id])
    fake_ollama.script(
        Reply(content=json.dumps([part])),  # a bare list: "$.episodes is missing" before
        Reply(content=json.dumps({"extracted_facts": [found]})),
    )

    report = sleep(engine)

    assert [e.summary for e in engine.memory.episodes.recent(engine.memory.profile.id)] == [
        "Penicillin allergy."
    ]
    assert engine.memory.facts.count(engine.memory.profile.id) == 1
    assert report.counts["malformed_answers"] == 0 and report.counts["repaired_answers"] == 2


def test_a_lone_episode_object_is_read_as_one_episode(engine, fake_ollama, clock):
    said = _session(engine, clock, *PENICILLIN)
    fake_ollama.script(
        Reply(content=json.dumps({"episode": episode(said[0].id, said[1].id, "Allergy.")})),
        facts(),
    )

    sleep(engine)

    assert [e.summary for e in engine.memory.episodes.recent(engine.memory.profile.id)] == [
        "Allergy."
    ]


def test_thinking_tags_and_prose_around_the_json_are_skipped(engine, fake_ollama, clock):
    said = _session(engine, clock, *PENICILLIN)
    body = json.dumps({"episodes": [episode(f"[id {said[0].id}]", said[1].id, "Allergy.")]})
    fake_ollama.script(
        Reply(content=f"<think>The user said id {said[0].id}.</think>Here:\n```json\n{body}\n```"),
        facts(),
    )

    report = sleep(engine)

    assert [e.summary for e in engine.memory.episodes.recent(engine.memory.profile.id)] == [
        "Allergy."
    ]
    assert report.counts["malformed_answers"] == 0


def test_total_failure_says_so_and_sleep_now_exits_non_zero(fake_ollama, monkeypatch, capsys):
    from datetime import UTC, datetime, timedelta

    from assistant.cli import main
    from assistant.config import load_config
    from assistant.factory import open_engine

    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    engine = open_engine(load_config())
    for n in range(2):
        chat(engine, datetime.now(UTC) - timedelta(days=2, hours=n), *PENICILLIN)
    engine.close()
    fake_ollama.script(*[Reply(content="I cannot do that.")] * 8)

    assert main(["sleep", "--now"]) == 1

    out = capsys.readouterr().out
    assert "Sleep failed" in out and "8 of the model's answers could not be used" in out
    assert "2 sessions could not be summarised; they stay due." in out
    assert "Facts could not be drawn from 2 sessions; they stay due." in out
    assert "nothing was consolidated" in out


def test_a_dry_run_does_not_promise_a_retry(engine, fake_ollama, clock):
    _session(engine, clock, *PENICILLIN)
    fake_ollama.script(*[Reply(content="no")] * 4)

    report = sleep(engine, dry_run=True)

    assert report.errors and not any("next run" in e for e in report.errors)
    assert "a real run would retry it" in report.errors[0]
