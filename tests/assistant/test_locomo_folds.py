"""bench/locomo_retrieval.py --folds: leave-one-conversation-out, and the keep rule.

A variant is chosen for a held-out conversation by the other conversations alone, so a
rule fitted to one conversation does not score on it; and a change is kept only if it
raises the mean under both embedders and costs no conversation more than 2 points.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")  # the bench extra

from bench.locomo_folds import Score, choose, parse_variant, report


def _table(figures):
    """(set, embedder) -> variant -> conversation -> Score, from plain numbers."""
    out = {}
    for (data, name), rows in figures.items():
        out[(data, name)] = {
            v: {c: Score(r) for c, r in convs.items()} for v, convs in rows.items()
        }
    return out


def _units(configured, fitted):
    plain = {"a": 50.0, "b": 50.0, "c": 50.0}
    rows = {"configured": configured, "fitted": fitted, "plain vector": plain, "plain BM25": plain}
    return _table({("dev", "minilm"): rows, ("dev", "e5"): rows})


def test_a_variant_that_helps_only_the_held_out_conversation_is_not_chosen_for_it():
    table = _units({"a": 80.0, "b": 80.0, "c": 80.0}, {"a": 95.0, "b": 79.0, "c": 79.0})
    assert choose(table, ["configured", "fitted"], "a") == "configured"
    assert choose(table, ["configured", "fitted"], "b") == "fitted"
    lines = report(table, ["configured", "fitted"])
    assert "held out: a picks configured, b picks fitted, c picks fitted" in lines
    # Held out, a scores 80 (configured), b and c 79 (fitted): the mean is 79.3.
    assert "left-out mean dev / minilm: 79.3" in lines


def test_a_change_that_costs_one_conversation_over_two_points_is_not_kept():
    table = _units({"a": 80.0, "b": 80.0, "c": 80.0}, {"a": 90.0, "b": 77.5, "c": 81.0})
    verdict = next(line for line in report(table, ["configured", "fitted"]) if " vs " in line)
    assert verdict.endswith("do not keep") and "worst conversation -2.5" in verdict


def test_a_variant_sets_retrieval_settings_by_name():
    name, weights = parse_variant("quiet:session=0,candidates=80")
    assert name == "quiet" and weights.session == 0.0 and weights.candidates == 80
    with pytest.raises(SystemExit, match="no retrieval setting 'sesion'"):
        parse_variant("typo:sesion=0")
