"""bench/sleep_quality.py's scores: per conversation, read beside how wide facts cite."""

from __future__ import annotations

from bench.sleep_quality import _scores


def _run(name: str, gold: list[set[str]], cited: list[set[str]]) -> dict:
    """One conversation's run, its evidence keyed as the bench keys it."""
    return {
        "name": name,
        "gold": [{(name, d) for d in g} for g in gold],
        "cited": [{(name, d) for d in c} for c in cited],
    }


def test_a_fact_citing_a_whole_session_shows_how_wide_it_cites():
    gold = [{"D1:1"}, {"D1:3"}, {"D1:5"}, {"D1:7"}]
    whole_session = {f"D1:{n}" for n in range(1, 9)}
    scores = _scores([_run("conv-1", gold, [whole_session])])
    assert scores["recall"] == 1.0 and scores["precision"] == 1.0  # the metric alone is fooled
    assert scores["cites"] == 8 and scores["widest"] == 8  # ...which these columns show


def test_narrow_facts_score_only_the_observations_they_cite():
    gold = [{"D1:1"}, {"D1:3", "D1:4"}, {"D2:2"}]
    scores = _scores([_run("conv-1", gold, [{"D1:4"}, {"D9:9"}])])
    assert scores["recall"] == 1 / 3 and scores["precision"] == 0.5
    assert scores["cites"] == 1.0 and scores["widest"] == 1


def test_a_fact_is_never_scored_against_another_conversations_gold():
    # LoCoMo's ids repeat in every conversation: D1:3 of one is not D1:3 of the other.
    first = _run("conv-1", gold=[{"D1:3"}, {"D2:5"}], cited=[])
    second = _run("conv-2", gold=[{"D1:8"}], cited=[{"D1:3"}, {"D2:5"}])
    scores = _scores([first, second])
    assert scores["per"]["conv-1"]["recall"] == 0 and scores["per"]["conv-2"]["precision"] == 0
    assert (scores["recall"], scores["precision"], scores["found"], scores["gold"]) == (0, 0, 0, 3)


def test_the_figure_is_the_mean_of_the_conversations():
    first = _run("conv-1", gold=[{"D1:1"}, {"D1:2"}], cited=[{"D1:1"}])
    second = _run("conv-2", gold=[{"D1:1"}, {"D1:2"}, {"D1:3"}, {"D1:4"}], cited=[{"D1:9"}])
    scores = _scores([first, second])
    assert scores["recall"] == (0.5 + 0.0) / 2 and scores["precision"] == (1.0 + 0.0) / 2
    assert (scores["found"], scores["gold"], scores["right"], scores["facts"]) == (1, 6, 1, 2)
