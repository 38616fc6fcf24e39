"""The statement rule on its held-out sets (tests/adversarial/statements_heldout.py).

Each set was written after the rule it measures; the first's and the second's misses
then shaped the rule, so the third is the honest estimate of how the rule generalises.
The figures are floors here, not targets: a change to the rule that lowers one fails.
What matters most is the last figure: no request, question or claim may pass as a plain
fact that could become active.
"""

from __future__ import annotations

from collections import Counter

from assistant.memory.statements import read_statement
from tests.adversarial.statements_heldout import ITEMS, SECOND, THIRD, Check


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


def figures(items: tuple[Check, ...]) -> dict[str, tuple[int, int, int]]:
    """Per kind: (items, handled right, kept from becoming an active fact)."""
    total, right, kept = Counter(), Counter(), Counter()
    for item in items:
        total[item.kind] += 1
        right[item.kind] += _right(item)
        kept[item.kind] += _kept_from_activity(item)
    return {k: (total[k], right[k], kept[k]) for k in total}


def test_each_held_out_set_is_large_enough_and_in_both_languages():
    for items in (ITEMS, SECOND, THIRD):
        assert len(items) >= 40 and len({i.id for i in items}) == len(items)
        assert {i.lang for i in items} == {"en", "zh"}
        assert {i.kind for i in items} == {"request", "question", "claim", "fact"}
    texts = [i.text for i in ITEMS + SECOND + THIRD]
    assert len(set(texts)) == len(texts)


def _shown(name: str, found: dict[str, tuple[int, int, int]]) -> None:
    for kind, (total, right, kept) in found.items():
        print(f"{name} {kind}: {right}/{total} right, {kept}/{total} kept from activity")


def test_the_first_set_figures_do_not_fall():
    found = figures(ITEMS)
    _shown("first", found)
    assert found["request"][1:] >= (15, 15)
    assert found["question"][1:] >= (10, 10)
    assert found["claim"][1:] >= (12, 14)
    assert found["fact"][1] >= 20  # legitimate facts pass untouched


def test_the_second_set_figures_do_not_fall():
    found = figures(SECOND)
    _shown("second", found)
    assert found["request"][1:] >= (17, 18)
    assert found["question"][1:] >= (9, 9)
    assert found["claim"][1:] >= (12, 12)
    assert found["fact"][1] >= 17


def test_the_third_set_figures_do_not_fall():
    found = figures(THIRD)
    _shown("third", found)
    assert found["request"][1:] >= (11, 13)
    assert found["question"][1:] >= (7, 7)
    assert found["claim"][1:] >= (9, 10)
    assert found["fact"][1] >= 15
