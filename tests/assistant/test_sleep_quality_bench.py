"""bench/sleep_quality.py's scores: evidence recall is read beside how wide facts cite."""

from __future__ import annotations

from bench.sleep_quality import _scores


def test_a_fact_citing_a_whole_session_shows_how_wide_it_cites():
    gold = [{"D1:1"}, {"D1:3"}, {"D1:5"}, {"D1:7"}]
    whole_session = {f"D1:{n}" for n in range(1, 9)}
    scores = _scores([{"gold": gold, "cited": [whole_session]}])
    assert scores["recall"] == 1.0 and scores["precision"] == 1.0  # the metric alone is fooled
    assert scores["cites"] == 8 and scores["widest"] == 8  # ...which these columns show


def test_narrow_facts_score_only_the_observations_they_cite():
    gold = [{"D1:1"}, {"D1:3", "D1:4"}, {"D2:2"}]
    scores = _scores([{"gold": gold, "cited": [{"D1:4"}, {"D9:9"}]}])
    assert scores["recall"] == 1 / 3 and scores["precision"] == 0.5
    assert scores["cites"] == 1.0 and scores["widest"] == 1
