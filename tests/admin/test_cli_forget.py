"""`hippo memory forget TEXT --keep N,M`: a numbered preview, some lines kept, a clear error."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest

from assistant.cli import main
from assistant.memory.facts import Evidence
from tests.admin.helpers import START, chat, remember


@pytest.fixture
def cello(engine, fake_ollama, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    _, said = chat(engine, START, "I started learning the cello.", "How exciting!")
    _, later = chat(engine, START + timedelta(days=1), "My cello teacher is strict.", "Ok.")
    fact = remember(engine, "The user plays a string instrument", Evidence("message", said[0].id))
    return said[0], later[0], fact


def _forget(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["memory", "forget", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _number(out: str, text: str) -> str:
    (line,) = [line for line in out.splitlines() if text in line and "(mentions it)" in line]
    return line.split(".")[0].strip()


def test_the_preview_numbers_every_line(engine, cello, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))

    code, out, _ = _forget(capsys, "cello")

    assert code == 1 and "Nothing was forgotten." in out
    assert _number(out, "I started learning the cello.") == "1"
    assert "The user plays a string instrument (all its evidence goes)" in out
    assert "[x] " in out and "all its evidence goes" in out and "--keep" in out


def test_keep_leaves_those_lines_in_place_and_the_receipt_says_so(
    engine, cello, capsys, monkeypatch
):
    first, later, fact = cello
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    _, shown, _ = _forget(capsys, "cello")
    (fact_line,) = [line for line in shown.splitlines() if "string instrument" in line]
    keep = f"{_number(shown, 'My cello teacher')},{fact_line.split('.')[0].strip()}"
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))

    code, out, _ = _forget(capsys, "cello", "--keep", keep)

    assert code == 0
    assert "[ ] 2026-03-03 My cello teacher is strict. (kept: you keep it)" in out
    assert "your choice to keep it becomes its evidence" in out
    assert "Kept 2 row(s), as you chose:" in out
    assert list(engine.memory.messages.messages_by_id([first.id, later.id])) == [later.id]
    assert engine.admin.facts.get(fact.id).evidence == (Evidence("fact", fact.id),)


def test_keep_with_yes_needs_no_question(engine, cello, capsys):
    first, later, _ = cello

    code, out, _ = _forget(capsys, "cello", "--yes", "--keep", "1")

    assert code == 0 and "Forgot everything mentioning 'cello'" in out
    assert list(engine.memory.messages.messages_by_id([first.id, later.id])) == [first.id]


def test_keep_takes_the_numbers_of_lines_listed_once_others_are_kept(engine, cello, capsys):
    first, _, fact = cello
    lines = engine.admin.forget.preview("cello").numbered()
    (fact_number,) = [n for n, hit in lines.items() if hit.key == f"facts:{fact.id}"]
    lost = len(lines) + 1  # the evidence the kept fact loses: listed once it is kept

    code, out, _ = _forget(capsys, "cello", "--yes", "--keep", f"{fact_number},{lost}")

    assert code == 0 and f"evidence {fact.id}: message {first.id}" in out
    assert engine.admin.facts.get(fact.id).evidence == (Evidence("message", first.id),)
    assert list(engine.memory.messages.messages_by_id([first.id])) == [first.id]


@pytest.mark.parametrize("keep", ["99", "1,99", "0", "x", "3-1", ""])
def test_a_bad_line_number_is_a_clear_error_and_nothing_is_forgotten(engine, cello, capsys, keep):
    code, out, err = _forget(capsys, "cello", "--yes", "--keep", keep)

    assert code == 1 and "Traceback" not in err
    assert "--keep" in err and ("numbers its lines 1 to" in err or "line numbers" in err)
    assert "Forgot" not in out
    assert engine.admin.forget.preview("cello").total > 0


def test_keeping_every_line_forgets_nothing(engine, cello, capsys):
    lines = len(engine.admin.forget.preview("cello").numbered())

    code, out, _ = _forget(capsys, "cello", "--yes", "--keep", f"1-{lines}")

    assert code == 0 and "Every line is kept: nothing was forgotten." in out
    assert engine.admin.forget.preview("cello").total > 0
