"""Bad arguments: one clear line, exit status 1, no traceback, nothing stored or lost."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from assistant.cli import main
from tests.cli.stored import stored_rows

# What Python makes of the byte 0xff in an argument (os.fsdecode, "surrogateescape").
BAD_BYTE = os.fsdecode(b"caf\xff")


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "argv",
    [
        ["ask", BAD_BYTE],
        ["log", BAD_BYTE],
        ["log", "ran 5k", "--source", BAD_BYTE],
        ["recall", BAD_BYTE],
        ["search", BAD_BYTE],
        ["memory", "forget", BAD_BYTE, "--yes"],
        ["memory", "search", BAD_BYTE],
        ["--profile", BAD_BYTE, "path"],
    ],
)
def test_text_that_is_not_utf8_is_refused_before_anything_is_done(seeded, engine, capsys, argv):
    before = stored_rows(engine.memory.db.path)
    code, out, err = _run(capsys, *argv)
    assert code == 1 and out == ""
    assert "not UTF-8 text (byte 0xff at character 4); nothing was done" in err
    assert "Traceback" not in err
    assert stored_rows(engine.memory.db.path) == before


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["log", "x", "--ttl-hours", "nan"], "the time to live must be a finite number"),
        (["log", "x", "--ttl-hours", "inf"], "the time to live must be a finite number"),
        (["log", "x", "--ttl-hours", "1e308"], "at most 876600 hours (100 years)"),
        (["log", "x", "--ttl-hours", "-3"], "more than 0"),
        (["memory", "edit", "1", "--importance", "99"], "importance must be from 1 to 10"),
        (["memory", "edit", "1", "--importance", "0"], "importance must be from 1 to 10"),
        (["memory", "edit", "1", "--importance", "-5"], "importance must be from 1 to 10"),
        (["memory", "edit", "1", "--importance", "nan"], "importance must be a finite number"),
        (["memory", "show", str(2**70)], "an id must be from 1 to 9223372036854775807"),
        (["memory", "rm", "event", str(2**63)], "an id must be from 1 to 9223372036854775807"),
        (["memory", "events", "--delete", "0"], "an id must be from 1"),
        (["memory", "approve", "-1"], "is not a proposal id"),
        (["search", "Anna", "-n", "-1"], "the count must be from 1 to 1000000, not -1"),
        (["recall", "Anna", "-n", "0"], "the count must be from 1"),
        (["memory", "list", "--page", str(10**40)], "the page must be a whole number"),
        (["memory", "activity", "--days", "1.5"], "the number of days must be a whole number"),
        (["sleep", "--max-llm-calls", "-1"], "the number of calls must be from 1"),
        (["memory", "history", "-n", "²"], "the count must be a whole number"),
        (["memory", "undo", "²"], "'²' is not a change id"),
        (["memory", "undo", f"fact#{2**63}"], "is not a change id"),
        (["memory", "undo", "core#0"], "is not a change id"),
    ],
)
def test_numbers_out_of_range_are_refused_with_the_range(seeded, engine, capsys, argv, said):
    before = stored_rows(engine.memory.db.path)
    code, _, err = _run(capsys, *argv)
    assert code == 1 and said in err and "usage: hippo" in err
    assert "Traceback" not in err
    assert stored_rows(engine.memory.db.path) == before


def test_a_ttl_of_zero_hours_is_refused_not_read_as_a_week(seeded, engine, capsys):
    code, _, err = _run(capsys, "log", "kettle on", "--ttl-hours", "0")
    assert code == 1 and "leave it out to keep the event 7 days" in err
    assert [e.text for e in engine.admin.browse.events()] == ["Booked a table at Trattoria Roma"]


def test_a_fractional_ttl_means_what_it_says(seeded, engine, capsys):
    code, _, _ = _run(capsys, "log", "kettle on", "--ttl-hours", "0.5")
    assert code == 0
    event = next(e for e in engine.admin.browse.events() if e.text == "kettle on")
    assert (event.expires_at - event.occurred_at).total_seconds() == 1800


def test_a_usage_error_exits_1_and_help_exits_0(capsys):
    assert main(["no-such-command"]) == 1
    assert "invalid choice: 'no-such-command'" in capsys.readouterr().err
    assert main(["--help"]) == 0
    assert "usage: hippo" in capsys.readouterr().out


def _closed_stdout(*argv: str) -> subprocess.CompletedProcess[bytes]:
    """Run `hippo` as `hippo ... | head -0` would: its reader gone before it writes."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "assistant.cli", *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    finally:
        os.close(write)


def test_a_reader_that_leaves_ends_the_command_quietly(seeded):
    for argv in (["--help"], ["memory", "list"], ["search", "Anna"], ["sessions"]):
        done = _closed_stdout(*argv)
        assert (done.returncode, done.stderr) == (0, b""), argv


def test_ask_into_a_closed_pipe_still_keeps_the_reply(seeded, engine):
    done = _closed_stdout("ask", "what did I cook?")
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    said = engine.memory.messages.recent_messages(engine.conversations.sessions()[0].id, 100)
    assert [(m.role, m.content) for m in said] == [
        ("user", "what did I cook?"),
        ("assistant", "You said: what did I cook?"),
    ]


@pytest.mark.parametrize("moment", ["0001-01-01T00:00+10:00", "9999-12-31T23:59-10:00"])
def test_a_date_at_the_ends_of_the_calendar_is_refused(seeded, capsys, moment):
    code, _, err = _run(capsys, "memory", "believed", "--as-of", moment)
    assert code == 1 and "is too near the ends of the calendar to use" in err
    assert "Traceback" not in err


def test_an_impossible_date_is_refused_as_typed(seeded, capsys):
    code, _, err = _run(capsys, "history", "believed", "--as-of", "2026-13-45")
    said = "hippo: '2026-13-45' is not a date like 2026-03-01 or 2026-03-01T18:00.\n"
    assert code == 1 and err == said


def test_an_unknown_fact_order_is_a_usage_error_naming_the_orders(seeded, capsys):
    from assistant.cli.memory import FACT_ORDERS as OFFERED
    from assistant.memory.facts.listing import FACT_ORDERS

    assert OFFERED == FACT_ORDERS
    code, _, err = _run(capsys, "memory", "list", "--order", " ")
    assert code == 1 and "argument --order: invalid choice: ' '" in err and "recent" in err


@pytest.mark.parametrize("verb", [("fact", "list"), ("fact", "search", "garden")])
def test_an_unknown_fact_status_is_a_usage_error_naming_the_statuses(seeded, capsys, verb):
    from assistant.cli.memory import FACT_STATUSES as OFFERED
    from assistant.memory.facts.fact import STATUSES

    assert OFFERED == STATUSES
    code, out, err = _run(capsys, *verb, "--status", "bogus")
    assert code == 1 and "No facts match" not in out
    assert "argument --status: invalid choice: 'bogus'" in err
    assert all(status in err for status in STATUSES)
