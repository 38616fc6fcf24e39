"""`hippo memory ...` and `hippo import`, run in-process against a seeded data file."""

from __future__ import annotations

import io
import json

import pytest

from assistant.cli import build_parser, main
from tests.admin.helpers import file_bytes, seed


@pytest.fixture
def seeded(engine, tmp_path, fake_ollama, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    return seed(engine, tmp_path)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["memory", *argv] if argv[0] != "import" else list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_help_lists_every_verb_of_the_memory_nouns():
    parser = build_parser()
    nouns = parser._subparsers._group_actions[0].choices
    for noun, verbs in {
        "fact": ("add", "list", "search", "show", "edit", "pin", "unpin", "wrong", "outdated"),
        "review": ("list", "approve", "reject"),
        "history": ("list", "undo", "believed"),
        "memory": ("recall", "embed", "stats", "activity", "forget"),
        "backup": ("create", "list", "restore"),
        "profile": ("list", "rename", "delete", "export", "import"),
        "db": ("path", "rekey"),
        **{kind: ("list", "delete") for kind in ("session", "episode", "event", "document")},
    }.items():
        text = nouns[noun].format_help()
        for verb in verbs:
            assert f"    {verb} " in text, (noun, verb)


def test_list_search_and_show(seeded, capsys):
    code, out, _ = _run(capsys, "list")
    assert code == 0 and "The user's sister Anna lives in Berlin" in out and "3 fact(s)" in out

    _, out, _ = _run(capsys, "search", "carbonara")
    assert "favourite pasta" in out and "Berlin" not in out

    _, out, _ = _run(capsys, "show", str(seeded.moved.id))
    assert 'quoting "moved to Berlin"' in out and "My sister Anna moved to Berlin" in out
    assert "History:" in out and "create" in out


def test_list_pages_and_prints_json(seeded, capsys):
    _, out, _ = _run(capsys, "list", "-n", "1", "--page", "2")
    assert "page 2 of 3" in out

    _, out, _ = _run(capsys, "list", "--json", "--scope", "")
    assert len(json.loads(out)) >= 1


def test_edit_pin_history_and_undo(seeded, capsys):
    fid = str(seeded.pasta.id)
    assert _run(capsys, "edit", fid, "--statement", "The user loves cacio e pepe")[0] == 0
    assert _run(capsys, "pin", fid)[0] == 0

    _, out, _ = _run(capsys, "history", "-n", "2")
    first, second = out.splitlines()
    assert "pin" in first and "edit" in second and "cacio e pepe" in second

    change = second.split()[0]  # e.g. fact#7
    _, out, _ = _run(capsys, "undo", change)
    assert "Undone" in out and "carbonara" in out


def test_review_approve_and_reject(engine, seeded, capsys):
    from assistant.memory.facts import Evidence

    msg = seeded.messages[2].id
    for statement in ("The user's sister works at Zalando", "Anna enjoys the Spree"):
        engine.memory.facts.add(
            engine.memory.profile.id,
            statement,
            evidence=[Evidence("message", msg)],
            source_kind="assistant_inferred",
            actor="agent",
        )

    _, out, _ = _run(capsys, "review")
    assert "Zalando" in out and "by agent" in out and "She loves the Spree" in out

    (zalando,) = engine.admin.facts.list(query="Zalando", status="pending")
    _, out, _ = _run(capsys, "approve", str(zalando.id))
    assert "Approved" in out
    _, out, _ = _run(capsys, "reject", "--all")
    assert "Rejected 1 proposal(s)." in out
    assert engine.admin.review.queue() == []


def test_forget_previews_and_asks_before_deleting(engine, seeded, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code, out, _ = _run(capsys, "forget", "Zalando")
    assert code == 1 and "messages (1)" in out and "Nothing was forgotten." in out
    assert b"Zalando" in file_bytes(engine)

    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    code, out, _ = _run(capsys, "forget", "Zalando")
    assert code == 0 and "Forgot everything mentioning 'Zalando'" in out
    assert b"zalando" not in file_bytes(engine).lower()


def test_forget_with_yes_does_not_ask(engine, seeded, capsys):
    code, out, _ = _run(capsys, "forget", "carbonara", "--yes")
    assert code == 0 and "file vacuumed" in out


def test_every_artefact_can_be_listed_and_deleted(engine, seeded, capsys):
    for kind in ("sessions", "episodes", "events", "documents"):
        code, out, _ = _run(capsys, kind)
        assert code == 0 and out.strip(), kind

    event_id = engine.admin.browse.events()[0].id
    _, out, _ = _run(capsys, "events", "--delete", str(event_id))
    assert "Deleted event" in out and engine.admin.browse.events() == []
    _, out, _ = _run(capsys, "rm", "document", str(engine.admin.browse.documents()[0].id))
    assert engine.admin.browse.documents() == []
    _run(capsys, "rm", "session", str(seeded.cooking.id))
    assert [s.id for s in engine.conversations.sessions()] == [seeded.berlin.id]


def test_a_bad_id_gives_a_clear_error(seeded, capsys):
    code, _, err = _run(capsys, "show", "999")
    assert code == 1 and "There is no fact 999 in this profile" in err

    code, _, err = _run(capsys, "rm", "event", "999")
    assert code == 1 and "There is no event 999" in err

    code, _, err = _run(capsys, "undo", "banana")
    assert code == 1 and "not a change id" in err


def test_export_then_import_into_a_new_profile(engine, seeded, capsys, tmp_path):
    target = tmp_path / "me.md"
    assert _run(capsys, "export", "--format", "markdown", "-o", str(target))[0] == 0
    assert oct(target.stat().st_mode & 0o777) == "0o600"

    code, out, _ = _run(capsys, "import", str(target), "--profile", "laptop")
    assert code == 0 and "Imported into profile 'laptop'" in out and "3 facts" in out

    code, _, err = _run(capsys, "import", str(target), "--profile", "laptop")
    assert code == 1 and "already a profile called 'laptop'" in err
    code, err = main(["profile", "import", str(target), "laptop"]), capsys.readouterr().err
    assert code == 1 and "already a profile called 'laptop'" in err
    assert "damaged" not in err and "--profile" not in err
    assert "`hippo profile import FILE NEW-NAME`" in err

    code, out, _ = main(["--profile", "laptop", "memory", "list"]), capsys.readouterr().out, ""
    assert code == 0 and "Zalando" not in out and "3 fact(s)" in out


def test_export_prints_json_to_stdout(seeded, capsys):
    _, out, _ = _run(capsys, "export")
    assert json.loads(out)["format"] == "hippo-export"


def test_backup_path_stats_core_and_activity(engine, seeded, capsys, tmp_path):
    _, out, _ = _run(capsys, "backup", str(tmp_path / "b.db"))
    assert "Backed up to" in out and (tmp_path / "b.db").exists()
    _, out, _ = _run(capsys, "path")
    assert out.strip() == str(engine.memory.db.path)
    _, out, _ = _run(capsys, "stats")
    assert "messages  6" in out and "1 awaiting review" not in out
    _, out, _ = _run(capsys, "core")
    assert "Sister Anna lives in Berlin." in out
    _, out, _ = _run(capsys, "activity", "--days", "7")
    assert "messages per day" in out
