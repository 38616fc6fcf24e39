"""Undo reverts exactly the change chosen: later changes stay, or undo refuses and says why."""

from __future__ import annotations

import pytest

from assistant.cli import main
from assistant.errors import UndoConflict
from assistant.memory.core_undo import reverted
from assistant.memory.facts import Evidence
from tests.admin.helpers import START, chat, remember


def _tea(engine):
    _, said = chat(engine, START, "I drink green tea every morning.", "Nice.")
    return remember(engine, "The user drinks green tea", Evidence("message", said[0].id))


def _last(admin):
    return admin.history.changes(limit=1)[0]


def test_undoing_a_scope_edit_after_wrong_keeps_the_fact_rejected(engine, admin):
    tea = _tea(engine)
    admin.facts.edit(tea.id, scope="work")
    scope_edit = _last(admin)
    admin.facts.mark_wrong(tea.id)

    fact = admin.history.undo(scope_edit.id)

    assert (fact.scope, fact.status) == ("", "rejected")


def test_undoing_an_edit_keeps_a_later_pin(engine, admin):
    tea = _tea(engine)
    admin.facts.edit(tea.id, statement="The user drinks matcha")
    edit = _last(admin)
    admin.facts.pin(tea.id, True)

    fact = admin.history.undo(edit.id)

    assert fact.statement == "The user drinks green tea" and fact.pinned


def test_undo_refuses_when_a_later_change_set_the_same_field_and_names_it(engine, admin):
    tea = _tea(engine)
    admin.facts.edit(tea.id, statement="The user drinks matcha")
    first = _last(admin)
    admin.facts.edit(tea.id, statement="The user drinks sencha")
    second = _last(admin)

    with pytest.raises(UndoConflict, match=rf"fact#{second.id} \(edit by user.*statement"):
        admin.history.undo(first.id)

    assert engine.memory.facts.get(tea.id).statement == "The user drinks sencha"
    assert _last(admin).id == second.id  # nothing was recorded
    assert admin.history.undo(second.id).statement == "The user drinks matcha"


def test_undo_of_wrong_after_an_unrelated_edit_keeps_the_edit(engine, admin):
    tea = _tea(engine)
    admin.facts.mark_wrong(tea.id)
    wrong = _last(admin)
    admin.facts.edit(tea.id, importance=9)

    fact = admin.history.undo(wrong.id)

    assert (fact.status, fact.importance) == ("active", 9)


def test_the_cli_repro_scope_edit_wrong_then_undo(engine, fake_ollama, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    tea = _tea(engine)
    assert main(["memory", "edit", str(tea.id), "--scope", "work"]) == 0
    scope_edit = engine.admin.history.changes(limit=1)[0].id
    assert main(["memory", "wrong", str(tea.id)]) == 0
    wrong = engine.admin.history.changes(limit=1)[0].id
    assert main(["memory", "undo", f"fact#{scope_edit}"]) == 0
    assert "rejected" in capsys.readouterr().out
    fact = engine.memory.facts.get(tea.id)
    assert (fact.scope, fact.status) == ("", "rejected")

    assert main(["memory", "edit", str(tea.id), "--scope", "home"]) == 0
    assert main(["memory", "undo", f"fact#{scope_edit}"]) == 1
    err = capsys.readouterr().err
    assert f"Can't undo fact#{scope_edit}" in err and "scope" in err and "Traceback" not in err
    assert wrong != scope_edit


def test_undoing_a_core_append_keeps_a_later_append(engine, admin):
    pid = engine.memory.profile.id
    engine.memory.core.append(pid, "human", "Likes tea.", actor="user")
    engine.memory.core.append(pid, "human", "Hates coffee.", actor="agent")
    coffee = admin.history.changes(kind="core", limit=1)[0]
    engine.memory.core.append(pid, "human", "Has a cat.", actor="user")

    block = admin.history.undo(coffee.id, kind="core")

    assert block.value == "Likes tea.\nHas a cat."


def test_undoing_a_core_change_rewritten_since_is_refused_with_its_name(engine, admin):
    pid = engine.memory.profile.id
    engine.memory.core.append(pid, "human", "Likes tea.", actor="user")
    engine.memory.core.append(pid, "human", "Hates coffee.", actor="agent")
    coffee = admin.history.changes(kind="core", limit=1)[0]
    engine.memory.core.set(pid, "human", "Likes tea.\nLoves coffee now.", actor="user")
    rewrite = admin.history.changes(kind="core", limit=1)[0]

    with pytest.raises(UndoConflict, match=f"core#{rewrite.id}"):
        admin.history.undo(coffee.id, kind="core")
    assert engine.memory.core.block(pid, "human").value == "Likes tea.\nLoves coffee now."


@pytest.mark.parametrize(
    ("before", "after", "current", "expected"),
    [
        ("a", "ab", "ab", "a"),  # nothing since: the text before
        ("x. y.", "x. NEW. y.", "x. NEW. y. z.", "x. y. z."),  # an insertion, text added since
        ("x. OLD. y.", "x. y.", "w. x. y.", "w. x. OLD. y."),  # a deletion, text added since
        ("x. OLD. y.", "x. NEW. y.", "x. NEWER. y.", None),  # the same span rewritten since
        ("ab", "abab", "abababab", None),  # can't tell which copy it wrote
    ],
)
def test_reverted_takes_out_only_the_span_a_change_wrote(before, after, current, expected):
    assert reverted(before, after, current) == expected
