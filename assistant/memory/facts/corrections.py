"""How a new statement bears on a fact Hippo holds: a repeat, a correction, a dispute, or not.

The rule, claim by claim (see `assistant.memory.facts.claims`), for a newer statement
against an older one:

* **same**: every claim of each says what a claim of the other says (same slot, same
  value, same polarity). Repeating a statement adds nothing to it.
* **corrects**: a claim of the new statement says its slot now holds another value,
  where the slot holds one value at a time (home, employer, partner, "my X is Y"), or it
  says the old value ended ("no longer", "broke up", 分手), was replaced ("from X to
  Y"), or the polarity flipped ("I eat meat" / "I don't eat meat"); or both statements
  are about the same thing and give it different typed values (a weekday, a time, a dose)
  with a word of change ("moved to Thursdays", "now 20mg", 改到周四).
* **disputes**: a contradiction is likely but not certain: a slot that may hold several
  values ("I take lisinopril" / "I now take losartan") given a new value with a word of
  change, or the same thing given different typed values with no word of change ("the
  dentist is on Monday" / "the dentist is on Friday": moved, or a second appointment?).
* **unrelated**: nothing in common, or values that can hold together ("I like jazz",
  "I like rock").
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from assistant.memory.facts import cues
from assistant.memory.facts.claims import Claim, claims, clauses
from assistant.memory.scoring import terms

__all__ = ["Verdict", "judge", "normal", "signature"]

Verdict = Literal["same", "corrects", "disputes", "unrelated"]
_RANK: dict[Verdict, int] = {"corrects": 3, "disputes": 2, "same": 1, "unrelated": 0}
# Words too common to say two statements are about the same thing.
_LIGHT = frozenset(
    "take have go get make do use like want need feel think know went got made took"
    " every each day daily week weekly month time times usual usually".split()
)
_CJK_LIGHT = re.compile(r"[我的了是在有和也都就还要会去来个这那]")


@lru_cache(maxsize=32768)
def judge(new: str, old: str) -> Verdict:
    """How the newer statement ``new`` bears on the older ``old`` (see the module doc)."""
    if normal(new) == normal(old):
        return "same"
    if signature(new).isdisjoint(signature(old)):
        return "unrelated"  # no slot and no word in common: the cheap answer for most pairs
    fresh, held = claims(new), claims(old)
    if _may_meet(fresh, held):
        pairs = [[_pair(n, o) for o in held] for n in fresh]
        best: Verdict = max(
            (v for row in pairs for v in row), key=_RANK.__getitem__, default="unrelated"
        )
        if best in ("corrects", "disputes"):
            return best
        each_said = all(any(v == "same" for v in row) for row in pairs)
        each_held = all(any(row[j] == "same" for row in pairs) for j in range(len(held)))
        if held and fresh and each_said and each_held:
            return "same"
    return _retimed(new, old)


def _may_meet(fresh: tuple[Claim, ...], held: tuple[Claim, ...]) -> bool:
    """Whether any claim of the one can bear on a claim of the other (a cheap first test)."""
    if not fresh or not held:
        return False
    slots = {c.slot for c in held}
    return any(c.slot in slots or c.slot == "any" or c.replaced for c in fresh)


@lru_cache(maxsize=16384)
def signature(text: str) -> frozenset[str]:
    """The slots a statement claims and the words it is about: two statements that share
    none can't bear on each other (a cheap first test, and a key to index statements by)."""
    said = claims(text)
    values = {v for c in said for v in c.value | c.replaced}
    pairs = {v[i : i + 2] for v in values if not v.isascii() for i in range(len(v) - 1)}
    return frozenset(c.slot for c in said) | _anchors(text) | values | pairs


@lru_cache(maxsize=8192)
def normal(text: str) -> str:
    """The statement's words as compared: lower case, clauses, no question."""
    return " ".join(clauses(text)) or text.strip().lower()


def _overlap(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two values share a word (or, for Chinese phrases, one holds the other)."""
    if not a.isdisjoint(b):
        return True
    return any((x in y or y in x) for x in a for y in b if not (x.isascii() and y.isascii()))


def _pair(new: Claim, old: Claim) -> Verdict:
    """One claim of the newer statement against one of the older."""
    if new.replaced and _overlap(new.replaced, old.value):
        return "corrects"
    if new.slot not in (old.slot, "any"):
        return "unrelated"
    overlap = _overlap(new.value, old.value)
    if new.slot == "any":  # "I left Porto": ends whatever single slot held Porto
        ends = new.ending and overlap and old.single and not old.ending
        return "corrects" if ends else "unrelated"
    if new.slot != old.slot:
        return "unrelated"
    if new.ending != old.ending or new.negated != old.negated:
        # A state that ended, or started again, or a flipped polarity.
        return "corrects" if overlap or not new.value or not old.value else "unrelated"
    if new.value == old.value:
        return "same"
    if not new.value:  # "I changed jobs", 换工作了: whatever held, holds no more
        return "corrects" if new.change and new.single and old.value else "unrelated"
    if not old.value:
        return "unrelated"
    if overlap:  # partly the same: a typed value inside may differ (see `_retimed`)
        return "unrelated"
    if new.slot.startswith("be:"):
        return _attribute(new, old)
    if new.single:
        return "corrects"
    return "disputes" if new.change else "unrelated"


def _attribute(new: Claim, old: Claim) -> Verdict:
    """ "My X is Y" against "my X is Z": one attribute only if Y and Z are of one kind.

    "on Tuesdays" and "on Thursdays" are (weekdays); "great" and "on Tuesdays" are not
    (an opinion and a time): those are two attributes of X, both true.
    """
    fresh, held = cues.quantities(" ".join(new.value)), cues.quantities(" ".join(old.value))
    if bool(fresh) != bool(held) or (fresh and not fresh.keys() & held.keys()):
        return "unrelated"
    return "corrects" if new.change else "disputes"


@lru_cache(maxsize=8192)
def _retimed(new: str, old: str) -> Verdict:
    """Same thing, different weekday, time or amount: corrected (or disputed, see module)."""
    shared = _anchors(new) & _anchors(old)
    if not shared:
        return "unrelated"
    fresh, held = cues.quantities(new), cues.quantities(old)
    differs = [kind for kind in fresh.keys() & held.keys() if fresh[kind].isdisjoint(held[kind])]
    if not differs:  # "no longer with Sam" against "dating Sam": an end, of what isn't sure
        ends = cues.ENDING.search(new) and not cues.ENDING.search(old)
        return "disputes" if ends else "unrelated"
    return "corrects" if cues.CHANGE.search(new) else "disputes"


@lru_cache(maxsize=8192)
def _anchors(text: str) -> frozenset[str]:
    """The content words (or Chinese bigrams) that say what a statement is about."""
    words = set()
    for term in terms(text):
        if term.isascii():
            if len(term) > 2 and term not in _LIGHT and not cues.quantities(term):
                words.add(term)
        elif not _CJK_LIGHT.search(term) and not cues.quantities(term):
            words.add(term)
    return frozenset(words - {t for t in terms(" ".join(_cue_words(text)))})


def _cue_words(text: str) -> list[str]:
    return [m.group(0) for m in cues.CHANGE.finditer(text)] + [
        m.group(0) for m in cues.ENDING.finditer(text)
    ]
