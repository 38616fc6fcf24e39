"""Relative dates resolved to absolute ones, from the day they were said.

The model reports the phrase as the user said it ("next Friday", "in 3 days", "on the
5th"); the date is worked out here, in code, from the message's own local date, so it
does not depend on the model's arithmetic. ``next <weekday>`` is that day of next week
(said on Wednesday 2026-11-25, "next Friday" is 2026-12-04); ``this``/``on``/a bare
weekday is its next occurrence. Where the phrase can't be read, the model's own date is
accepted if it is a real date near the time it was said.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

__all__ = ["resolve_date", "resolve_phrase"]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
}
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14}
_DAY_WORDS = {
    "today": 0,
    "tonight": 0,
    "tomorrow": 1,
    "day after tomorrow": 2,
    "the day after tomorrow": 2,
    "yesterday": -1,
    "今天": 0,
    "明天": 1,
    "后天": 2,
    "昨天": -1,
}
_CN_WEEKDAY = "一二三四五六日天"
_IN = re.compile(
    r"^in (\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few)"
    r" (day|week|fortnight|month|year)s?$"
)
_WEEKDAY = re.compile(rf"^(next|this|on|coming|this coming)?\s*({'|'.join(_WEEKDAYS)})$")
_NEXT_UNIT = re.compile(r"^next (week|month|year)$")
_ISO = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_MONTH_DAY = re.compile(
    rf"^(?:on )?(?:({'|'.join(_MONTHS)}) (\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?"
    rf"(?: of)? ({'|'.join(_MONTHS)}))(?:,? (\d{{4}}))?$"
)
_ORDINAL = re.compile(r"^(?:on )?the (\d{1,2})(?:st|nd|rd|th)$")
_CN_WEEK = re.compile(rf"^(下下|下|这|本)?(?:周|星期|礼拜)([{_CN_WEEKDAY}])$")


def _add_months(day: date, months: int) -> date:
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    for last in (31, 30, 29, 28):
        try:
            return date(year, month, min(day.day, last))
        except ValueError:
            continue
    raise ValueError("unreachable")


def _weekday(said_on: date, target: int, mode: str) -> date:
    if mode == "next":  # that day of next week (weeks start on Monday)
        monday = said_on - timedelta(days=said_on.weekday()) + timedelta(days=7)
        return monday + timedelta(days=target)
    ahead = (target - said_on.weekday()) % 7
    return said_on + timedelta(days=ahead or 7)


def _month_day(said_on: date, month: int, day: int, year: int | None) -> date | None:
    try:
        found = date(year or said_on.year, month, day)
    except ValueError:
        return None
    if year is None and found < said_on - timedelta(days=31):
        found = _month_day(said_on, month, day, said_on.year + 1) or found
    return found


def resolve_phrase(phrase: str, said_on: date) -> date | None:
    """The date a phrase like "next Friday" or "in 3 days" means, said on ``said_on``.

    Returns:
        The date, or None if the phrase is not one this resolver reads.
    """
    text = " ".join(phrase.casefold().replace(",", " ").split()).removeprefix("by ")
    text = text.removeprefix("until ").removeprefix("due ").strip()
    if text in _DAY_WORDS:
        return said_on + timedelta(days=_DAY_WORDS[text])
    if m := _WEEKDAY.match(text):
        return _weekday(said_on, _WEEKDAYS.index(m.group(2)), (m.group(1) or "").strip())
    if m := _IN.match(text):
        count = int(m.group(1)) if m.group(1).isdigit() else _NUMBERS[m.group(1).removeprefix("a ")]
        unit = m.group(2)
        if unit in _UNIT_DAYS:
            return said_on + timedelta(days=count * _UNIT_DAYS[unit])
        return _add_months(said_on, count * (12 if unit == "year" else 1))
    if m := _NEXT_UNIT.match(text):
        unit = m.group(1)
        if unit == "week":
            return said_on - timedelta(days=said_on.weekday()) + timedelta(days=7)
        return _add_months(said_on, 12 if unit == "year" else 1).replace(day=1)
    return _absolute(text, said_on)


def _absolute(text: str, said_on: date) -> date | None:
    if m := _ISO.match(text):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None
    if m := _MONTH_DAY.match(text):
        month = _MONTHS.index(m.group(1) or m.group(4)) + 1
        day = int(m.group(2) or m.group(3))
        return _month_day(said_on, month, day, int(m.group(5)) if m.group(5) else None)
    if m := _ORDINAL.match(text):
        day = int(m.group(1))
        found = _month_day(said_on, said_on.month, day, said_on.year)
        if found is not None and found < said_on:
            found = _month_day(
                said_on, _add_months(said_on, 1).month, day, _add_months(said_on, 1).year
            )
        return found
    if m := _CN_WEEK.match(text):
        target = min(_CN_WEEKDAY.index(m.group(2)), 6)
        if m.group(1) in ("下", "下下"):
            weeks = 1 if m.group(1) == "下" else 2
            monday = said_on - timedelta(days=said_on.weekday()) + timedelta(weeks=weeks)
            return monday + timedelta(days=target)
        return _weekday(said_on, target, "this")
    return None


def resolve_date(phrase: str, model_date: str, said_on: date) -> date | None:
    """The absolute date of a dated item: from the phrase, else the model's own date.

    The model's date is accepted only if it is a real ISO date within a year before and
    five years after the day it was said (a guard against invented or garbled dates).
    """
    found = resolve_phrase(phrase, said_on) if phrase.strip() else None
    if found is not None:
        return found
    try:
        guess = date.fromisoformat(model_date.strip())
    except ValueError:
        return None
    if said_on - timedelta(days=366) <= guess <= said_on + timedelta(days=5 * 366):
        return guess
    return None
