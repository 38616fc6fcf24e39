"""Drift and conflict: a newer statement supersedes an older one, and nothing is deleted."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.sleep.helpers import chat, day, decisions, episode, episodes, fact, facts, sleep

LANGUAGE = "uses programming language"


def _python_then_go(engine, fake_ollama, clock):
    _, monday = chat(engine, day("2026-11-23"), "I use Python for everything at work.", "Nice!")
    _, thursday = chat(engine, day("2026-11-26"), "I switched to Go this week.", "Go is great.")
    clock.advance(days=4)
    fake_ollama.script(
        episodes(episode(monday[0].id, monday[1].id, "The user uses Python at work.")),
        episodes(episode(thursday[0].id, thursday[1].id, "The user switched to Go.")),
        facts(fact("The user uses Python at work", [monday[0].id], predicate=LANGUAGE)),
        facts(fact("The user switched to Go", [thursday[0].id], predicate=LANGUAGE)),
        decisions((0, "supersede", 1)),
    )
    return monday, thursday


def test_a_newer_user_statement_supersedes_the_old_fact_which_stays_in_history(
    engine, fake_ollama, clock
):
    _, thursday = _python_then_go(engine, fake_ollama, clock)

    report = sleep(engine)

    assert report.status == "done", report.errors
    python, go = engine.memory.facts.list(engine.memory.profile.id, order="recent")[::-1]
    assert python.statement.endswith("Python at work") and go.statement.endswith("Go")
    assert python.status == "superseded" and python.superseded_by == go.id
    assert python.valid_to == thursday[0].created_at  # closed where the new one begins
    assert go.status == "active" and go.valid_to is None
    assert [c.action for c in engine.memory.facts.history(python.id)] == ["create", "supersede"]
    assert report.count("superseded") == 1


def test_a_conflict_with_an_inferred_fact_waits_in_the_review_queue(engine, fake_ollama, clock):
    _, monday = chat(engine, day("2026-11-23"), "I use Python for everything at work.", "Nice!")
    _, later = chat(engine, day("2026-11-26"), "Rust looks fun.", "Maybe you'd prefer Rust now?")
    clock.advance(days=4)
    fake_ollama.script(
        episodes(episode(monday[0].id, monday[1].id, "Python at work.")),
        episodes(episode(later[0].id, later[1].id, "Rust.")),
        facts(fact("The user uses Python at work", [monday[0].id], predicate=LANGUAGE)),
        facts(
            fact(
                "The user prefers Rust now",
                [later[1].id],
                source="assistant_inferred",
                predicate=LANGUAGE,
            )
        ),
        decisions((0, "supersede", 1)),
    )

    report = sleep(engine)

    python, rust = engine.memory.facts.list(engine.memory.profile.id, order="recent")[::-1]
    assert python.status == "active"  # an inference never replaces what the user said
    assert rust.status == "pending" and rust.source_kind == "assistant_inferred"
    conflict = next(p for p in report.proposals if p.kind == "conflict")
    assert (conflict.fact_id, conflict.old_fact_id) == (rust.id, python.id)


def test_the_same_statement_again_reinforces_without_a_model_call(engine, fake_ollama, clock):
    _, first = chat(engine, day("2026-11-23"), "I drink green tea every morning.", "Lovely.")
    _, second = chat(engine, day("2026-11-25"), "Green tea again this morning.", "Of course.")
    clock.advance(days=3)
    statement = "The user drinks green tea every morning"
    fake_ollama.script(
        episodes(episode(first[0].id, first[1].id, "Tea.")),
        episodes(episode(second[0].id, second[1].id, "Tea again.")),
        facts(fact(statement, [first[0].id])),
        facts(fact(statement, [second[0].id])),
    )

    report = sleep(engine)

    (tea,) = engine.memory.facts.list(engine.memory.profile.id)
    assert tea.confidence > 0.9 and {e.ref_id for e in tea.evidence if e.kind == "message"} == {
        first[0].id,
        second[0].id,
    }
    assert report.llm_calls == 4  # 2 per session, none for the update
    assert report.counts["candidates_reinforced"] == 1


def test_nothing_is_deleted(engine, fake_ollama, clock):
    _python_then_go(engine, fake_ollama, clock)
    sleep(engine)
    assert engine.memory.facts.count(engine.memory.profile.id) == 2
    assert datetime(2026, 11, 27, tzinfo=UTC) < clock.now()


def test_a_pending_guess_the_user_then_states_becomes_active(engine, fake_ollama, clock):
    _, first = chat(engine, day("2026-11-23"), "Dinner ideas?", "You seem to like Thai food.")
    _, second = chat(engine, day("2026-11-25"), "I really like Thai food.", "Great.")
    clock.advance(days=3)
    fake_ollama.script(
        episodes(episode(first[0], first[1])),
        episodes(episode(second[0], second[1])),
        facts(fact("The user likes Thai food", [first[1].id], source="assistant_inferred")),
        facts(fact("The user likes Thai food", [second[0].id])),
    )

    sleep(engine)

    (thai,) = engine.memory.facts.list(engine.memory.profile.id)
    assert (thai.status, thai.source_kind) == ("active", "user_stated")
    assert {e.ref_id for e in thai.evidence if e.kind == "message"} == {first[1].id, second[0].id}
