"""The review queue: tonight's proposals approved, edited, rejected, and never re-proposed."""

from __future__ import annotations

import pytest

from assistant.admin import text
from assistant.errors import MemoryWriteError
from assistant.memory.facts import Evidence
from assistant.memory.sleep_candidates import Candidate, CandidateStore
from tests.admin.helpers import START, chat, remember
from tests.sleep.helpers import day, decisions, episode, episodes, fact, facts, sleep


def _night(engine, fake_ollama, clock, *turns, extracted, then=()):
    _, said = chat(engine, day("2026-11-23"), *turns)
    clock.advance(days=330)
    fake_ollama.script(episodes(episode(said[0], said[-1])), facts(*extracted(said)), *then)
    sleep(engine, settings={"auto_activate": False})
    return said


def _again(engine, clock, statement, said):
    """The same claim from the same evidence, as a later extraction would find it."""
    draft = Candidate(
        0,
        engine.memory.profile.id,
        None,
        statement,
        "user",
        "",
        "",
        "assistant_inferred",
        0.6,
        5,
        said.created_at,
        None,
        (Evidence("message", said.id),),
        False,
    )
    CandidateStore(lambda: engine.memory.db.conn, clock).add_candidate(draft, None)


def test_the_queue_shows_sleeps_proposals_with_quoted_dated_evidence(
    engine, admin, fake_ollama, clock
):
    said = _night(
        engine,
        fake_ollama,
        clock,
        "I have lived in Porto since May.",
        "Lovely city.",
        extracted=lambda s: [fact("The user lives in Porto", [s[0].id])],
    )

    (item,) = admin.review.queue()

    assert item.statement == "The user lives in Porto" and item.proposal == "fact"
    assert item.proposed_by == "sleep" and item.source_kind == "user_stated"
    texts = {(e.kind, e.text) for e in item.evidence}
    assert ("message", "I have lived in Porto since May.") in texts
    assert next(e for e in item.evidence if e.kind == "message").at == said[0].created_at
    assert admin.review.pending_count() == 1


def test_the_models_tool_proposals_are_in_the_queue_too(engine, admin):
    _, said = chat(engine, START, "I might take up golf.", "Sounds fun.")
    remember(
        engine,
        "The user is considering golf",
        Evidence("message", said[0].id),
        source="assistant_inferred",
        actor="agent",
    )

    (item,) = admin.review.queue(kind="agent")

    assert item.proposed_by == "agent" and item.source_kind == "assistant_inferred"


def test_approving_makes_a_proposal_active(engine, admin, fake_ollama, clock):
    _night(
        engine,
        fake_ollama,
        clock,
        "I have lived in Porto since May.",
        "Lovely city.",
        extracted=lambda s: [fact("The user lives in Porto", [s[0].id])],
    )
    (item,) = admin.review.queue()

    approved = admin.review.approve(item.id)

    assert approved.status == "active" and admin.review.queue() == []
    assert admin.history.changes(limit=1)[0].action == "approve"


def test_a_proposal_can_be_edited_then_approved(engine, admin, fake_ollama, clock):
    _night(
        engine,
        fake_ollama,
        clock,
        "I have lived in Porto since May.",
        "Lovely city.",
        extracted=lambda s: [fact("The user lives in Porto", [s[0].id])],
    )
    (item,) = admin.review.queue()

    approved = admin.review.approve(item.id, statement="The user has lived in Porto since May 2026")

    assert approved.statement == "The user has lived in Porto since May 2026"
    assert approved.status == "active"
    assert [c.action for c in admin.history.changes(limit=2)] == ["approve", "edit"]


def test_approving_a_conflict_supersedes_the_fact_it_replaces(engine, admin, fake_ollama, clock):
    _, old = chat(engine, day("2026-01-10"), "I live in Lyon.", "Ok.")
    lyon = remember(
        engine,
        "The user lives in Lyon",
        Evidence("message", old[0].id),
        subject="user",
        predicate="lives in",
    )
    _, said = chat(engine, day("2026-11-23"), "Since the move I live in Paris.", "Nice.")
    clock.advance(days=330)
    fake_ollama.script(
        episodes(episode(old[0], old[1])),
        episodes(episode(said[0], said[1])),
        facts(),
        facts(fact("The user lives in Paris", [said[0].id], predicate="lives in", confidence=0.5)),
        decisions((0, "supersede", lyon.id)),
    )
    sleep(engine, settings={"auto_activate": False})

    (item,) = admin.review.queue(kind="conflict")

    assert item.replaces.id == lyon.id
    assert (item.before, item.after) == ("The user lives in Lyon", "The user lives in Paris")
    admin.review.approve(item.id)
    assert admin.facts.get(lyon.id).status == "superseded"
    assert admin.facts.get(lyon.id).superseded_by == item.id


def test_a_rejected_proposal_is_not_proposed_again_from_the_same_evidence(
    engine, admin, fake_ollama, clock
):
    said = _night(
        engine,
        fake_ollama,
        clock,
        "Any idea for dinner?",
        "You like Thai food.",
        extracted=lambda s: [
            fact("The user likes Thai food", [s[1].id], source="assistant_inferred")
        ],
    )
    (item,) = admin.review.queue()

    admin.review.reject(item.id)
    admin.facts.delete(item.id)  # even with the rejected fact gone for good
    _again(engine, clock, "The user likes Thai food", said[1])
    report = sleep(engine)

    assert admin.facts.count() == 0
    assert report.counts["candidates_blocked"] == 1


def test_the_same_claim_from_new_evidence_can_still_be_proposed(engine, admin, fake_ollama, clock):
    said = _night(
        engine,
        fake_ollama,
        clock,
        "Any idea for dinner?",
        "You like Thai food.",
        extracted=lambda s: [
            fact("The user likes Thai food", [s[1].id], source="assistant_inferred")
        ],
    )
    admin.review.reject(admin.review.queue()[0].id)
    _, new = chat(engine, day("2027-01-02"), "I really do love Thai food.", "Noted.")
    _again(engine, clock, "The user likes Thai food", new[0])

    sleep(engine)

    assert [f.statement for f in admin.facts.list(status="pending")] == ["The user likes Thai food"]
    assert said  # the first evidence stays rejected


def _edited_then_approved(engine, admin, fake_ollama, clock):
    _night(
        engine,
        fake_ollama,
        clock,
        "I have lived in Porto since May.",
        "Lovely city.",
        extracted=lambda s: [fact("The user lives in Porto", [s[0].id])],
    )
    (item,) = admin.review.queue()
    admin.review.approve(item.id, statement="The user has lived in Porto since May 2026")
    approval, edit = admin.history.changes(limit=2)
    return item.id, edit, approval


def test_undoing_the_edit_of_an_approved_proposal_never_activates_the_unapproved_text(
    engine, admin, fake_ollama, clock
):
    fact_id, edit, approval = _edited_then_approved(engine, admin, fake_ollama, clock)

    undone = admin.history.undo(edit.id)

    # Sleep's own wording is back, and waits for review: the user approved the edit only.
    assert (undone.statement, undone.status) == ("The user lives in Porto", "pending")
    assert [i.id for i in admin.review.queue()] == [fact_id]
    lines = [text.change_line(c) for c in admin.history.changes(limit=2)]
    assert f"undoes fact#{edit.id}; its approval (fact#{approval.id}) undone with it" in lines[0]
    assert f"undoes fact#{approval.id}; it approved the text fact#{edit.id} wrote" in lines[1]


def test_undoing_the_approval_of_an_edited_proposal_leaves_it_pending_as_edited(
    engine, admin, fake_ollama, clock
):
    _, _, approval = _edited_then_approved(engine, admin, fake_ollama, clock)

    undone = admin.history.undo(approval.id)

    assert undone.statement == "The user has lived in Porto since May 2026"
    assert undone.status == "pending"


def test_approve_all_and_reject_all_work_by_kind(engine, admin):
    _, said = chat(engine, START, "I like tea and I might like golf.", "Ok.")
    evidence = Evidence("message", said[0].id)
    tea = remember(
        engine, "The user likes tea", evidence, source="assistant_inferred", actor="agent"
    )
    note = remember(engine, "The user may like golf", evidence, source="reflection")

    approved = admin.review.approve_all("assistant_inferred")
    rejected = admin.review.reject_all("reflection")

    assert [f.id for f in approved] == [tea.id] and admin.facts.get(tea.id).status == "active"
    assert [f.id for f in rejected] == [note.id] and admin.facts.get(note.id).status == "rejected"
    assert admin.review.queue() == []


def test_approving_a_fact_that_is_not_pending_is_refused(engine, admin):
    _, said = chat(engine, START, "I like tea.", "Ok.")
    tea = remember(engine, "The user likes tea", Evidence("message", said[0].id))

    with pytest.raises(MemoryWriteError, match="not pending"):
        admin.review.approve(tea.id)
