"""The words that make a statement a claim about the user, and the words of change.

A correction says the same thing about the same slot with a different value, or says
that a state has ended. What marks one, in English and in Chinese:

* change words: the speaker signals that what held before no longer does ("now",
  "these days", "actually", "switched", "moved", "changed"; 现在, 如今, 其实, 改, 换,
  搬). They are left out of a claim's value (they are not what is claimed);
* ending words: a state has stopped ("no longer", "not ... anymore", "used to",
  "quit", "broke up"; 不再, 以前, 分手, 辞职);
* typed values: a weekday, a clock time, an amount with its unit. Two such values of
  the same type about the same thing cannot both hold (a class is on one day at a time).

The relations whose value is single (one home, one employer, one partner at a time)
are in `assistant.memory.facts.claims`.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "CHANGE",
    "ENDING",
    "PAST",
    "QUESTION",
    "ZH_FILLER",
    "ZH_PARTICLES",
    "quantities",
]

CHANGE = re.compile(
    r"\b(?:now|currently|these days|nowadays|anymore|any more|no longer|actually|instead"
    r"|switched|switch|changed|change|moved|new|recently|from now on|as of|since|starting"
    r"|started|finally|officially|just|raised|lowered|increased|decreased|reduced|upped"
    r"|doubled|halved|rescheduled|cut)\b"
    r"|现在|目前|如今|眼下|其实|不再|改|换|搬|新|开始|以后|从此|已经|最近|调|加到|减到|升到|降到",
    re.IGNORECASE,
)
# A state that held and holds no more.
ENDING = re.compile(
    r"\b(?:no longer|not any ?more|never again|used to|anymore|any more|no more)\b"
    r"|不再|以前|之前|原来|过去|曾经|不.{0,4}了$",
    re.IGNORECASE,
)
PAST = re.compile(r"\b(?:used to|formerly|previously)\b|以前|之前|原来|曾经|过去", re.IGNORECASE)
QUESTION = re.compile(
    r"^(?:what|where|when|who|whom|which|why|how|do|does|did|is|are|am|can|could|should"
    r"|would|will|have|has)\b|[?？]\s*$|吗\s*$|什么|哪|谁|几[点号个]|多少",
    re.IGNORECASE,
)
# Chinese words between the subject and the verb that carry no claim.
ZH_FILLER = re.compile(
    r"我们|我|的|现在|目前|如今|其实|已经|上个?月|这个?月|上周|这周|去年|今年|前几天|最近"
    r"|刚刚?|才|都|还|也|一直|就|又|终于|正式|要|会|打算|准备|在"
)
ZH_PARTICLES = re.compile(r"[了啦呢吧啊呀哦哈嘛]+$|了$")

_WEEKDAYS_EN = "monday tuesday wednesday thursday friday saturday sunday".split()
_WEEKDAYS_ZH = "一二三四五六日"
_WEEKDAY = re.compile(
    r"\b(mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?s?\b"
    r"|(?:周|星期|礼拜)([一二三四五六日天])",
    re.IGNORECASE,
)
_CLOCK = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b|\b(\d{1,2}):(\d{2})\b"
    r"|([0-9一二两三四五六七八九十]+)点(半|[0-9一二三四五六七八九十]+分)?",
    re.IGNORECASE,
)
_AMOUNT = re.compile(
    r"(\d+(?:\.\d+)?)\s*(mg|mcg|µg|g|kg|ml|iu|units?|pills?|tablets?|capsules?|km|miles?"
    r"|hours?|hrs?|minutes?|mins?|毫克|微克|克|毫升|片|粒|颗|公斤|公里|小时|分钟)(?![a-z])",
    re.IGNORECASE,
)
_UNITS = {
    "mcg": "µg",
    "微克": "µg",
    "毫克": "mg",
    "克": "g",
    "毫升": "ml",
    "公斤": "kg",
    "公里": "km",
    "mile": "mi",
    "小时": "h",
    "hour": "h",
    "hr": "h",
    "分钟": "min",
    "minute": "min",
    "unit": "iu",
    "pill": "pill",
    "tablet": "pill",
    "capsule": "pill",
    "片": "pill",
    "粒": "pill",
    "颗": "pill",
}
_ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}


def _zh_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _ZH_DIGITS.get(tens, 1) * 10 + _ZH_DIGITS.get(ones, 0)
    return _ZH_DIGITS.get(text, 0)


def _weekday(match: re.Match[str]) -> str:
    if match.group(1):
        prefix = match.group(1).lower()[:2]
        return str(next(i for i, d in enumerate(_WEEKDAYS_EN) if d.startswith(prefix)))
    return str(_WEEKDAYS_ZH.index(match.group(2)) if match.group(2) != "天" else 6)


def _clock(match: re.Match[str]) -> str:
    if match.group(3):
        hour = int(match.group(1)) % 12 + (12 if match.group(3).lower() == "pm" else 0)
        return f"{hour}:{match.group(2) or '00'}"
    if match.group(4):
        return f"{int(match.group(4))}:{match.group(5)}"
    minutes = match.group(7) or ""
    minute = 30 if minutes == "半" else _zh_number(minutes.rstrip("分")) if minutes else 0
    return f"{_zh_number(match.group(6))}:{minute:02d}"


@lru_cache(maxsize=16384)
def quantities(text: str) -> dict[str, frozenset[str]]:
    """The typed values a text states: weekdays, clock times, amounts by unit.

    ``{"weekday": {"1"}, "clock": {"18:00"}, "mg": {"10"}}``; a clock time without
    am/pm is read as written (6:00 and 18:00 differ, a correction can't be told from
    a different reading of the same time, so both count as values).
    """
    found: dict[str, set[str]] = {}
    for match in _WEEKDAY.finditer(text):
        found.setdefault("weekday", set()).add(_weekday(match))
    for match in _CLOCK.finditer(text):
        found.setdefault("clock", set()).add(_clock(match))
    for match in _AMOUNT.finditer(text):
        unit = match.group(2).lower().rstrip("s") if match.group(2).isascii() else match.group(2)
        unit = _UNITS.get(unit, unit)
        found.setdefault(unit, set()).add(str(float(match.group(1))))
    return {kind: frozenset(values) for kind, values in found.items()}
