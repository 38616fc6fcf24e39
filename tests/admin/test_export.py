"""Export (JSON, Markdown), import into a new profile, round trips, and backups."""

from __future__ import annotations

import json

import pytest

from assistant.admin import load_export
from assistant.errors import HippoError, InvalidInput
from assistant.memory.facts import Evidence
from tests.admin.helpers import START, chat, remember, seed
from tests.plaintext import plaintext_bytes
from tests.sleep.helpers import decisions, episode, episodes, fact, facts, sleep


def _comparable(data: dict) -> dict:
    """An export without what an import changes on purpose: its profile name and time."""
    return {**data, "exported_at": "", "profile": {**data["profile"], "name": ""}}


def _rich(engine, fake_ollama, clock, tmp_path):
    """Seeded memory, plus a night of sleep, a supersede, a reinforce and an undo."""
    seeded = seed(engine, tmp_path)
    _, said = chat(engine, START.replace(month=4), "My sister Anna moved to Hamburg.", "Oh!")
    hamburg = remember(
        engine,
        "The user's sister Anna lives in Hamburg",
        Evidence("message", said[0].id, "moved to Hamburg"),
    )
    engine.memory.facts.supersede(seeded.moved.id, hamburg.id, actor="user")
    engine.memory.facts.reinforce(seeded.pasta.id, [Evidence("message", said[0].id)], actor="sleep")
    engine.admin.facts.edit(seeded.sister.id, statement="Anna is the user's sister")
    engine.admin.history.undo(engine.admin.history.changes(limit=1)[0].id)
    clock.advance(days=120)
    m = seeded.messages
    fake_ollama.script(
        episodes(episode(m[0].id, m[3].id, "Anna moved to Berlin.")),
        episodes(
            episode(
                m[4].id,
                m[5].id,
                "Carbonara night.",
                dated=[{"text": "Cook for Anna", "when": "next Friday", "message_id": m[4].id}],
            )
        ),
        episodes(episode(said[0].id, said[1].id, "Anna moved to Hamburg.")),
        facts(),
        facts(fact("The user cooked dinner tonight", [m[4].id])),
        facts(),
        decisions((0, "add", 0)),
    )
    report = sleep(engine)
    assert report.errors == [] and report.counts["candidates_added"] >= 1
    assert engine.admin.export.data()["dated_items"][0]["text"] == "Cook for Anna"
    return seeded


def test_the_export_is_complete_versioned_and_json_serialisable(engine, admin, tmp_path):
    seed(engine, tmp_path)

    data = json.loads(json.dumps(admin.export.data()))

    assert (data["format"], data["version"]) == ("hippo-export", 1)
    assert data["profile"]["name"] == "default"
    assert len(data["sessions"]) == 2 and len(data["sessions"][0]["messages"]) == 4
    assert len(data["facts"]) == 3 and data["facts"][0]["evidence"][0]["quote"] == "moved to Berlin"
    assert [h["action"] for h in data["facts"][0]["history"]] == ["create", "update"]
    assert {b["label"] for b in data["core"]["blocks"]} == {"human"}
    assert len(data["episodes"]) == 1 and len(data["documents"][0]["chunks"]) == 1
    assert data["events"][0]["text"] == "Booked a table at Trattoria Roma"
    assert {e["name"] for e in data["entities"]} == {"Anna", "Berlin"}
    assert data["memories_used"][0]["kind"] == "fact"


def test_export_then_import_then_export_gives_the_same_memory(
    engine, admin, fake_ollama, clock, tmp_path
):
    _rich(engine, fake_ollama, clock, tmp_path)
    first = admin.export.data()

    report = admin.export.import_(json.loads(json.dumps(first)), "restored")
    engine.memory.profile = report.profile
    second = engine.admin.export.data()

    assert report.warnings == ()
    assert report.counts["facts"] == len(first["facts"])
    assert _comparable(second) == _comparable(first)


def test_an_imported_profile_works_like_the_original(engine, admin, fake_ollama, clock, tmp_path):
    seeded = _rich(engine, fake_ollama, clock, tmp_path)
    report = admin.export.import_(admin.export.data(), "restored")
    engine.memory.profile = report.profile

    (moved,) = engine.admin.facts.list(query="Berlin")
    detail = engine.admin.facts.detail(moved.id)
    assert detail.superseded_by.statement == "The user's sister Anna lives in Hamburg"
    assert detail.evidence[0].text == "My sister Anna moved to Berlin last spring."
    assert engine.memory.search_messages("Zalando")[0].message.content.startswith("She loves")
    change = engine.admin.history.changes(kind="fact", limit=1)[0]
    assert engine.admin.history.undo(change.id).profile_id == report.profile.id
    assert engine.admin.facts.get(moved.id).id != seeded.moved.id


def test_an_import_is_not_consolidated_again_by_sleep(engine, admin, fake_ollama, clock, tmp_path):
    _rich(engine, fake_ollama, clock, tmp_path)
    report = admin.export.import_(admin.export.data(), "restored")
    engine.memory.profile = report.profile

    assert sleep(engine).llm_calls == 0


def test_importing_into_an_existing_profile_is_refused(engine, admin, tmp_path):
    seed(engine, tmp_path)
    data = admin.export.data()

    with pytest.raises(HippoError, match="already a profile called 'default'"):
        admin.export.import_(data, "default")
    assert [p.name for p in engine.memory.messages.profiles()] == ["default"]


def test_a_damaged_export_changes_nothing(engine, admin, tmp_path):
    seed(engine, tmp_path)
    data = admin.export.data()
    del data["sessions"][0]["messages"][0]["content"]

    with pytest.raises(HippoError, match="damaged"):
        admin.export.import_(data, "restored")
    assert [p.name for p in engine.memory.messages.profiles()] == ["default"]


def test_an_export_from_a_newer_hippo_is_refused_clearly(admin):
    with pytest.raises(HippoError, match="Upgrade Hippo"):
        admin.export.import_({"format": "hippo-export", "version": 99}, "x")
    with pytest.raises(HippoError, match="not a Hippo export"):
        load_export("hello")


def test_the_markdown_export_is_readable_and_can_be_imported(engine, admin, tmp_path):
    seed(engine, tmp_path)

    text = admin.export.markdown()

    assert text.startswith("# Hippo memory: profile default")
    assert "- The user's sister Anna lives in Berlin - user_stated" in text
    assert "> My sister Anna moved to Berlin last spring." in text
    assert _comparable(load_export(text)) == _comparable(admin.export.data())


def test_a_backup_is_a_private_copy_of_the_whole_file(engine, admin, tmp_path):
    seed(engine, tmp_path)

    path = admin.export.backup(tmp_path / "copy.db")

    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert b"Zalando" in plaintext_bytes(path) and b"Zalando" not in path.read_bytes()
    with pytest.raises(InvalidInput, match="exists already"):
        admin.export.backup(path)
    assert admin.export.backup().parent == engine.memory.db.path.parent / "backups"
