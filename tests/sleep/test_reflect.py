"""Reflection: triggered by accumulated importance, pending, evidenced, depth-capped."""

from __future__ import annotations

from assistant.memory.facts import Evidence
from tests.fake_ollama import Reply
from tests.sleep.helpers import day, insights, questions, sleep

LOW = {"reflection_threshold": 20}


def _memories(engine, *statements, depth=0, source="user_stated"):
    episode = engine.memory.episodes.add(
        engine.memory.profile.id,
        summary="A week of training for a 10k.",
        started_at=day("2026-11-20"),
        ended_at=day("2026-11-20", 11),
        importance=8,
    )
    made = [
        engine.memory.facts.add(
            engine.memory.profile.id,
            text,
            evidence=[Evidence("episode", episode.id)],
            source_kind=source,
            actor="user",
            importance=7,
            depth=depth,
            status="active",
        )
        for text in statements
    ]
    return episode, made


def test_enough_importance_triggers_a_pending_reflection_that_cites_its_evidence(
    engine, fake_ollama
):
    episode, (run, eat) = _memories(engine, "The user runs every morning", "The user eats well")
    fake_ollama.script(
        questions("What does the user care about?"),
        insights(("The user cares about their health", [f"fact:{run.id}", f"fact:{eat.id}"], 7)),
    )

    report = sleep(engine, settings=LOW)

    (insight,) = engine.memory.facts.list(engine.memory.profile.id, source_kind="reflection")
    assert insight.status == "pending" and insight.depth == 1
    assert {(e.kind, e.ref_id) for e in insight.evidence} == {("fact", run.id), ("fact", eat.id)}
    assert report.count("reflection") == 1 and report.llm_calls == 2
    asked = fake_ollama.requests[-1].body["messages"][-1]["content"]
    assert f"[fact:{run.id}]" in asked and f"[episode:{episode.id}]" in asked


def test_below_the_threshold_there_is_no_reflection(engine, fake_ollama):
    _memories(engine, "The user runs every morning")
    assert sleep(engine).llm_calls == 0  # 15 < 150


def test_a_rejected_reflection_is_not_proposed_again_from_the_same_evidence(
    engine, fake_ollama, clock
):
    _, (run, eat) = _memories(engine, "The user runs every morning", "The user eats well")
    same = insights(("The user cares about their health", [f"fact:{run.id}", f"fact:{eat.id}"], 7))
    fake_ollama.script(questions("What does the user care about?"), same)
    sleep(engine, settings=LOW)
    (first,) = engine.memory.facts.list(engine.memory.profile.id, source_kind="reflection")
    engine.memory.facts.reject(first.id)
    clock.advance(days=1)
    _memories(engine, "The user sleeps eight hours", "The user stretches daily")
    fake_ollama.script(questions("What does the user care about?"), same)

    report = sleep(engine, settings=LOW)

    assert [
        f.id for f in engine.memory.facts.list(engine.memory.profile.id, source_kind="reflection")
    ] == [first.id]
    assert report.counts["reflections_blocked"] == 1


def test_depth_is_capped_so_insights_about_insights_do_not_compound(engine, fake_ollama):
    _, (deep,) = _memories(engine, "The user is driven by discipline", depth=2, source="reflection")
    _, (shallow,) = _memories(engine, "The user likes routine", depth=1, source="reflection")
    fake_ollama.script(
        questions("Who is the user?"),
        insights(
            ("The user builds life around discipline", [f"fact:{deep.id}"], 6),
            ("The user thrives on routine and rhythm", [f"fact:{shallow.id}"], 6),
        ),
    )

    report = sleep(engine, settings={"reflection_threshold": 10, "max_depth": 2})

    (kept,) = engine.memory.facts.list(engine.memory.profile.id, status="pending")
    assert kept.statement.startswith("The user thrives") and kept.depth == 2
    assert report.counts["reflections_capped"] == 1


def test_an_insight_citing_memories_it_was_not_shown_is_dropped(engine, fake_ollama):
    _memories(engine, "The user runs every morning", "The user eats well")
    fake_ollama.script(
        questions("What does the user care about?"),
        insights(("The user is secretly a spy", ["fact:999"], 9)),
        Reply(
            content='{"insights": [{"statement": "The user is a spy", "evidence": ["fact:998"],'
            ' "importance": 9}]}'
        ),
    )
    report = sleep(engine, settings=LOW)
    assert engine.memory.facts.list(engine.memory.profile.id, source_kind="reflection") == []
    assert "evidence[0] must be one of" in report.errors[0]
