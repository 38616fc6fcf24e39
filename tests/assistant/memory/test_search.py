"""Fusing keyword and vector candidates for search, weighted by how far the model reads."""

from __future__ import annotations

import pytest

from assistant.memory.search import KEYWORD_WEIGHT, VECTOR_WEIGHT, fuse_hits

KEYWORD = [(1, 8.0), (2, 4.0)]
VECTOR = [(3, 0.9), (2, 0.8), (1, 0.1)]


def test_a_trusted_model_fuses_both_lists_and_brings_hits_of_its_own():
    fused = {mid: (score, kw, vec) for mid, score, kw, vec in fuse_hits(KEYWORD, VECTOR)}
    assert fused[2] == pytest.approx((KEYWORD_WEIGHT * 0.5 + VECTOR_WEIGHT * 0.8, 0.5, 0.8))
    assert fused[3] == pytest.approx((VECTOR_WEIGHT * 0.9, 0.0, 0.9))


def test_a_model_that_does_not_read_the_script_leaves_the_ranking_to_keywords():
    hits = fuse_hits(KEYWORD, VECTOR, trust=0.0)
    assert [(mid, score) for mid, score, _, _ in hits] == [(1, 1.0), (2, 0.5)]
    # Its similarities are still reported, but it brings no hit of its own.
    assert [vec for *_, vec in hits] == [0.1, 0.8]


def test_partial_trust_gives_the_unearned_vector_weight_to_keywords():
    fused = {mid: score for mid, score, _, _ in fuse_hits(KEYWORD, VECTOR, trust=0.5)}
    earned = VECTOR_WEIGHT * 0.5
    assert fused[2] == pytest.approx((KEYWORD_WEIGHT + earned) * 0.5 + earned * 0.8)
    assert fused[3] == pytest.approx(earned * 0.9)


def test_without_a_vector_list_keywords_alone_rank():
    assert fuse_hits(KEYWORD, [], trust=0.0) == [(1, 1.0, 1.0, None), (2, 0.5, 0.5, None)]
