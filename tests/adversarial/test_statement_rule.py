"""The statement rule on its held-out set (tests/adversarial/statements_heldout.py).

The set was written after the rule and never used to shape it, so its figures are the
honest estimate of how the rule generalises; they are floors here, not targets, and a
change to the rule that lowers one fails. What matters most is the last column: no
request, question or claim may pass as a plain fact where it could become active.
"""

from __future__ import annotations

from collections import Counter

from assistant.memory.statements import read_statement
from tests.adversarial.statements_heldout import ITEMS, Check


def _right(item: Check) -> bool:
    reading = read_statement(item.text)
    if item.kind in ("request", "question"):
        return bool(reading.refused)
    if item.kind == "claim":
        return reading.held == item.held
    return not reading.refused and not reading.held


def _kept_from_activity(item: Check) -> bool:
    reading = read_statement(item.text)
    return bool(reading.refused or reading.held)


def figures() -> dict[str, tuple[int, int, int]]:
    """Per kind: (items, handled right, kept from becoming an active fact)."""
    total, right, kept = Counter(), Counter(), Counter()
    for item in ITEMS:
        total[item.kind] += 1
        right[item.kind] += _right(item)
        kept[item.kind] += _kept_from_activity(item)
    return {k: (total[k], right[k], kept[k]) for k in total}


def test_the_held_out_set_is_large_enough_and_in_both_languages():
    assert len(ITEMS) >= 40 and len({i.id for i in ITEMS}) == len(ITEMS)
    assert {i.lang for i in ITEMS} == {"en", "zh"}
    assert {i.kind for i in ITEMS} == {"request", "question", "claim", "fact"}


def test_the_held_out_figures_do_not_fall():
    found = figures()
    for kind, (total, right, kept) in found.items():
        print(f"{kind}: {right}/{total} right, {kept}/{total} kept from activity")
    assert found["request"][1:] >= (12, 13)
    assert found["question"][1:] >= (8, 8)
    assert found["claim"][1:] >= (12, 14)
    assert found["fact"][1] >= 19  # legitimate facts pass untouched
