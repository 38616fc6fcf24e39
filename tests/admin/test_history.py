"""History and undo over facts and core blocks, and what Hippo believed on a past date."""

from __future__ import annotations

from datetime import timedelta

import pytest

from assistant.errors import NotFound
from assistant.memory.facts import Evidence
from tests.admin.helpers import START, chat, remember


def _tea(engine):
    _, said = chat(engine, START, "I drink green tea every morning.", "Nice.")
    return remember(engine, "The user drinks green tea", Evidence("message", said[0].id))


def test_history_lists_fact_and_core_changes_newest_first_with_actors(engine, admin, clock):
    tea = _tea(engine)
    clock.advance(minutes=1)
    engine.memory.core.append(engine.memory.profile.id, "human", "Drinks tea.", actor="agent")
    clock.advance(minutes=1)
    admin.facts.edit(tea.id, statement="The user drinks matcha")

    changes = admin.history.changes()

    assert [(c.kind, c.actor, c.action) for c in changes] == [
        ("fact", "user", "edit"),
        ("core", "agent", "edit"),
        ("fact", "user", "create"),
    ]
    assert "statement" in changes[0].fields
    assert (changes[1].target, changes[1].after_text) == ("human", "Drinks tea.")
    assert [c.kind for c in admin.history.changes(kind="core")] == ["core"]
    assert len(admin.history.changes(limit=1, offset=1)) == 1


def test_undoing_a_fact_change_restores_it_and_is_itself_recorded(engine, admin, clock):
    tea = _tea(engine)
    admin.facts.edit(tea.id, statement="The user drinks matcha")
    edit = admin.history.changes(limit=1)[0]

    restored = admin.history.undo(edit.id)

    assert restored.statement == "The user drinks green tea"
    assert admin.history.changes(limit=1)[0].action == "undo"
    assert admin.facts.list(query="green")[0].id == tea.id


def test_undoing_a_rejection_brings_the_fact_back(engine, admin):
    tea = _tea(engine)
    admin.facts.mark_wrong(tea.id)

    assert admin.history.undo(admin.history.changes(limit=1)[0].id).status == "active"


def test_undoing_a_core_change_restores_the_block(engine, admin):
    engine.memory.core.append(engine.memory.profile.id, "human", "Likes tea.", actor="user")
    engine.memory.core.append(engine.memory.profile.id, "human", "Hates coffee.", actor="agent")
    change = admin.history.changes(kind="core", limit=1)[0]

    block = admin.history.undo(change.id, kind="core")

    assert block.value == "Likes tea."


def test_undoing_another_profiles_change_is_refused(engine, admin):
    work = engine.memory.messages.profile("work")
    session = engine.memory.messages.create_session(work.id)
    said = engine.memory.messages.add_message(session.id, "user", "I use Jira.")
    engine.memory.facts.add(
        work.id,
        "The user uses Jira",
        evidence=[Evidence("message", said.id)],
        source_kind="user_stated",
        actor="user",
    )
    engine.memory.core.append(work.id, "human", "Uses Jira.", actor="user")
    (fact_change,) = engine.memory.db.conn.execute("SELECT id FROM fact_history").fetchone()
    (core_change,) = engine.memory.db.conn.execute("SELECT id FROM core_block_history").fetchone()

    with pytest.raises(NotFound, match="no fact change"):
        admin.history.undo(fact_change)
    with pytest.raises(NotFound, match="no core memory change"):
        admin.history.undo(core_change, kind="core")
    assert admin.history.changes() == []


def test_believed_shows_facts_as_they_read_on_a_past_date(engine, admin, clock):
    tea = _tea(engine)
    clock.advance(days=10)
    then = clock.now()
    clock.advance(days=10)
    admin.facts.edit(tea.id, statement="The user drinks matcha")
    clock.advance(days=10)
    admin.facts.mark_outdated(tea.id)

    assert [f.statement for f in admin.history.believed("tea", then)] == [
        "The user drinks green tea"
    ]
    assert [f.statement for f in admin.history.believed(None, clock.now() - timedelta(days=5))] == [
        "The user drinks matcha"
    ]
    assert admin.history.believed(None, clock.now()) == []
    assert admin.history.believed("tea", START - timedelta(days=400)) == []


def test_believed_leaves_out_what_was_pending_or_about_something_else(engine, admin, clock):
    _, said = chat(engine, START, "I drink tea and might take up golf.", "Ok.")
    remember(engine, "The user drinks tea", Evidence("message", said[0].id))
    remember(
        engine,
        "The user may take up golf",
        Evidence("message", said[0].id),
        source="assistant_inferred",
    )
    clock.advance(days=1)

    assert [f.statement for f in admin.history.believed(None, clock.now())] == [
        "The user drinks tea"
    ]
    assert admin.history.believed("golf", clock.now()) == []
