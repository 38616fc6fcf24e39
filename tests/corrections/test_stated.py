"""Anchoring and drift: what the user states settles against the facts at once.

A repeat stores nothing new, a correction supersedes what it corrects in the same
call (not at night), and what Hippo can't tell waits in review as a conflict.
"""

from __future__ import annotations

from assistant.cli import main


def _active(engine):
    return engine.admin.facts.list(status="active")


def test_five_repeats_are_one_fact_and_a_move_supersedes_it(engine, clock):
    for _ in range(5):
        engine.admin.facts.state("I live in Porto")
        clock.advance(hours=1)

    moved = engine.admin.facts.stated("I moved to Lisbon last month, I live in Lisbon now")

    active = _active(engine)
    assert [f.statement for f in active] == ["I moved to Lisbon last month, I live in Lisbon now"]
    porto = engine.admin.facts.list(status="superseded")
    assert [f.statement for f in porto] == ["I live in Porto"]
    assert porto[0].superseded_by == moved.fact.id
    assert porto[0].valid_to == clock.now()  # closed where the new one begins
    assert len(porto[0].evidence) == 5  # each repeat cited, none counted twice
    assert porto[0].confidence == 0.9  # and none made it surer


def test_a_correction_in_chinese_supersedes_at_once(engine):
    engine.admin.facts.state("我在腾讯上班")

    settled = engine.admin.facts.stated("我现在在字节跳动上班")

    assert [f.statement for f in settled.superseded] == ["我在腾讯上班"]
    assert [f.statement for f in _active(engine)] == ["我现在在字节跳动上班"]


def test_a_breakup_ends_the_relationship_fact(engine):
    engine.admin.facts.state("My girlfriend is Sam")

    engine.admin.facts.state("Sam and I broke up last week")

    assert [f.statement for f in _active(engine)] == ["Sam and I broke up last week"]


def test_a_statement_that_can_hold_beside_the_fact_supersedes_nothing(engine):
    engine.admin.facts.state("I like jazz")

    engine.admin.facts.state("I like rock")

    assert {f.statement for f in _active(engine)} == {"I like jazz", "I like rock"}


def test_what_hippo_cannot_tell_waits_in_review_as_a_conflict(engine):
    old = engine.admin.facts.state("I take lisinopril every morning")

    settled = engine.admin.facts.stated("I now take losartan")

    assert settled.fact.status == "pending" and settled.disputed == (old,)
    assert [f.id for f in _active(engine)] == [old.id]  # never both plain active
    admin = engine.admin
    item = next(i for i in admin.review.queue() if i.id == settled.fact.id)
    assert item.proposal == "conflict" and item.replaces.id == old.id
    admin.review.approve(settled.fact.id)
    assert engine.admin.facts.get(old.id).status == "superseded"
    assert engine.memory.facts.disputes(engine.memory.profile.id) == []


def test_fact_add_says_what_the_statement_did(engine, fake_ollama, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    assert main(["fact", "add", "I live in Porto"]) == 0
    assert main(["fact", "add", "I live in Porto"]) == 0
    assert main(["fact", "add", "I moved to Lisbon, I live in Lisbon now"]) == 0

    out = capsys.readouterr().out
    assert "Already known (nothing new stored)" in out
    assert "Replaces (kept as history)" in out and "I live in Porto" in out
