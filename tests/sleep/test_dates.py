"""Relative dates resolve from the day they were said (temporal incoherence)."""

from __future__ import annotations

from datetime import date

import pytest

from assistant.sleep import resolve_date, resolve_phrase

WEDNESDAY = date(2026, 11, 25)


@pytest.mark.parametrize(
    ("phrase", "meant"),
    [
        ("next Friday", date(2026, 12, 4)),
        ("by next friday", date(2026, 12, 4)),
        ("Friday", date(2026, 11, 27)),
        ("this Friday", date(2026, 11, 27)),
        ("on Wednesday", date(2026, 12, 2)),
        ("today", WEDNESDAY),
        ("tomorrow", date(2026, 11, 26)),
        ("the day after tomorrow", date(2026, 11, 27)),
        ("in 3 days", date(2026, 11, 28)),
        ("in two weeks", date(2026, 12, 9)),
        ("in a couple of days", date(2026, 11, 27)),
        ("in a month", date(2026, 12, 25)),
        ("next week", date(2026, 11, 30)),
        ("next month", date(2026, 12, 1)),
        ("December 4", date(2026, 12, 4)),
        ("4th of December", date(2026, 12, 4)),
        ("January 10", date(2027, 1, 10)),
        ("the 3rd", date(2026, 12, 3)),
        ("2026-12-04", date(2026, 12, 4)),
        ("下周五", date(2026, 12, 4)),
        ("明天", date(2026, 11, 26)),
    ],
)
def test_a_phrase_resolves_from_the_day_it_was_said(phrase, meant):
    assert resolve_phrase(phrase, WEDNESDAY) == meant


def test_an_unreadable_phrase_resolves_to_nothing():
    assert resolve_phrase("when pigs fly", WEDNESDAY) is None


def test_the_models_date_is_a_fallback_within_a_sane_range():
    assert resolve_date("next Friday", "2030-01-01", WEDNESDAY) == date(2026, 12, 4)
    assert resolve_date("after the holidays", "2027-01-04", WEDNESDAY) == date(2027, 1, 4)
    assert resolve_date("some day", "1999-01-01", WEDNESDAY) is None
    assert resolve_date("some day", "not a date", WEDNESDAY) is None
