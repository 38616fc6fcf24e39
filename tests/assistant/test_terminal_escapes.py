"""Stored text printed by the CLI reaches the terminal escaped, never as controls it obeys."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from assistant.cli import main
from assistant.memory.facts import Evidence
from assistant.terminal import json_visible, visible
from tests.admin.helpers import chat, remember
from tests.fake_ollama.wire import Reply

# Sets the window title, rings the bell, clears the screen, reverses the line, sends an
# 8-bit CSI, deletes, and returns the cursor to overwrite what was printed.
HOSTILE = "Anna\x1b]0;owned\x07\x1b[2J\u202eevil\u2066\x9b31m\x7fend\rX\x00"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SHOWN = "\\x1b]0;owned\\x07"


def test_visible_escapes_terminal_controls_and_keeps_text():
    shown = visible(HOSTILE + "\nline two\ttabbed 中文 café")
    assert not UNSAFE.search(shown)
    assert shown.startswith(
        "Anna\\x1b]0;owned\\x07\\x1b[2J\\u202eevil\\u2066\\x9b31m\\x7fend\\x0dX\\x00"
    )
    assert shown.endswith("\nline two\ttabbed 中文 café")


def test_visible_shows_undecodable_bytes_instead_of_failing_to_print():
    assert visible("bad \udcff byte") == "bad \\udcff byte"


def test_json_visible_keeps_the_value_exactly():
    value = {"text": HOSTILE + "\u202c \udcff"}
    text = json_visible(json.dumps(value, ensure_ascii=False))
    assert not UNSAFE.search(text)
    assert json.loads(text) == value


@pytest.fixture
def hostile(engine, tmp_path, fake_ollama, monkeypatch, capsys):
    """A data file whose every tier holds HOSTILE: messages, titles, facts, core, ..."""
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    session, said = chat(engine, at, f"{HOSTILE} moved to Berlin", f"Reply {HOSTILE}")
    fact = remember(engine, f"The user says {HOSTILE}", Evidence("message", said[0].id))
    engine.memory.facts.update(fact.id, actor="user", scope="work")
    remember(engine, f"Maybe {HOSTILE}", Evidence("message", said[0].id), source="reflection")
    engine.memory.episodes.add(
        engine.memory.profile.id,
        summary=f"Talked about {HOSTILE}",
        started_at=at,
        ended_at=at + timedelta(minutes=1),
        session_id=session.id,
        title=HOSTILE,
        topics=[HOSTILE],
        message_ids=[m.id for m in said],
    )
    engine.memory.core.append(engine.memory.profile.id, "human", f"Knows {HOSTILE}", actor="user")
    note = tmp_path / "note\x1b[2J.md"
    printable = HOSTILE.replace("\x00", "")  # a NUL would make it a binary file
    note.write_text(f"# {printable}\n\nAnna {printable} lives in Berlin.\n")
    assert main(["ingest", str(note)]) == 0
    assert main(["log", HOSTILE, "--source", "feed\x1b]0;x\x07"]) == 0
    capsys.readouterr()
    return fact


COMMANDS = [
    ["sessions"],
    ["search", "Anna"],
    ["recall", "Anna Berlin"],
    ["memory", "list"],
    ["memory", "search", "Anna"],
    ["memory", "history"],
    ["memory", "review"],
    ["memory", "core"],
    ["memory", "sessions"],
    ["memory", "episodes"],
    ["memory", "events"],
    ["memory", "documents"],
    ["memory", "believed", "--as-of", "2100-01-01"],
    ["memory", "export", "--format", "markdown"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: "-".join(argv))
def test_every_listing_shows_stored_controls_escaped(hostile, capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not UNSAFE.search(out + err), (out + err)[:400]
    assert "\\x1b" in out


def test_show_prints_the_fact_and_its_evidence_escaped(hostile, capsys):
    assert main(["memory", "show", str(hostile.id)]) == 0
    out = capsys.readouterr().out
    assert not UNSAFE.search(out) and SHOWN in out


def test_log_and_ingest_receipts_are_escaped(engine, tmp_path, fake_ollama, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    assert main(["log", "x", "--source", "feed\x1b]0;x\x07"]) == 0
    note = tmp_path / "n\x1b]0;t\x07.md"
    note.write_text("hello")
    assert main(["ingest", str(note)]) == 0
    out = capsys.readouterr().out
    assert not UNSAFE.search(out) and out.count("\\x1b]0;") == 2


def test_json_listing_and_export_parse_back_to_the_stored_text(hostile, capsys):
    assert main(["memory", "list", "--json"]) == 0
    out = capsys.readouterr().out
    assert not UNSAFE.search(out)
    statements = {fact["statement"] for fact in json.loads(out)}
    assert f"The user says {HOSTILE}" in statements

    assert main(["memory", "export"]) == 0
    out = capsys.readouterr().out
    assert not UNSAFE.search(out)
    assert f"The user says {HOSTILE}" in _strings(json.loads(out))


def test_export_to_a_file_keeps_the_text_as_stored(hostile, tmp_path, capsys):
    target = tmp_path / "out.json"
    assert main(["memory", "export", "-o", str(target)]) == 0
    assert f"The user says {HOSTILE}" in _strings(json.loads(target.read_text(encoding="utf-8")))


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return set().union(*map(_strings, value)) if value else set()
    return set()


def test_forget_preview_and_receipt_are_escaped(hostile, capsys):
    assert main(["memory", "forget", "Anna", "--yes"]) == 0
    out = capsys.readouterr().out
    assert not UNSAFE.search(out)


def test_a_reply_streamed_by_ask_is_escaped(engine, fake_ollama, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    fake_ollama.script(Reply(content=f"Sure. {HOSTILE}", chunk_size=3))
    assert main(["ask", f"hello {HOSTILE}"]) == 0
    out, err = capsys.readouterr()
    assert not UNSAFE.search(out + err) and SHOWN in out
    assert main(["sessions"]) == 0
    out = capsys.readouterr().out
    assert not UNSAFE.search(out) and "\\x1b]0;owned" in out


def test_errors_quoting_stored_text_are_escaped(engine, fake_ollama, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    assert main(["memory", "believed", "--as-of", f"soon{HOSTILE}"]) == 1
    err = capsys.readouterr().err
    assert not UNSAFE.search(err) and "hippo:" in err


def test_doctor_shows_a_hostile_data_folder_escaped(tmp_path, fake_ollama, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    folder = tmp_path / "data\x1b]0;owned\x07"
    main(["--data-dir", str(folder), "doctor"])
    out, err = capsys.readouterr()
    assert not UNSAFE.search(out + err) and SHOWN in out
