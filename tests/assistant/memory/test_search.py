"""Search ranks as recall does: one fusion, with the configured retrieval weights."""

from __future__ import annotations

import pytest

from assistant.cli import main
from assistant.memory.scoring import RetrievalWeights, relevance
from assistant.memory.search import fuse_hits

KEYWORD = [(1, 8.0), (2, 4.0)]
VECTOR = [(3, 0.9), (2, 0.8), (1, 0.1)]
WEIGHTS = RetrievalWeights()
BACKGROUND = 0.8  # the median of VECTOR's similarities


def test_a_trusted_model_fuses_both_lists_as_recall_does_and_brings_hits_of_its_own():
    fused = {mid: (score, kw, vec) for mid, score, kw, vec in fuse_hits(KEYWORD, VECTOR, WEIGHTS)}
    assert fused[2] == pytest.approx((relevance(0.5, 0.8, WEIGHTS, BACKGROUND), 0.5, 0.8))
    assert fused[3] == pytest.approx((relevance(0.0, 0.9, WEIGHTS, BACKGROUND), 0.0, 0.9))
    assert fused[3][0] > 0  # above the background: found by meaning alone


def test_the_configured_weights_change_the_order():
    by_keyword = fuse_hits(KEYWORD, VECTOR, RetrievalWeights(keyword=1.0, vector=0.0))
    by_meaning = fuse_hits(KEYWORD, VECTOR, RetrievalWeights(keyword=0.0, vector=1.0))
    assert by_keyword[0][0] == 1
    assert by_meaning[0][0] == 3


def test_the_models_paraphrase_gap_is_its_yardstick():
    wide = {mid: s for mid, s, *_ in fuse_hits(KEYWORD, VECTOR, WEIGHTS, gap=None)}
    narrow = {mid: s for mid, s, *_ in fuse_hits(KEYWORD, VECTOR, WEIGHTS, gap=0.05)}
    assert narrow[3] > wide[3]  # 0.1 above the background is two gaps: full credit


def test_a_model_that_does_not_read_the_script_leaves_the_ranking_to_keywords():
    hits = fuse_hits(KEYWORD, VECTOR, WEIGHTS, trust=0.0)
    assert [(mid, score) for mid, score, _, _ in hits] == [(1, 1.0), (2, 0.5)]
    # Its similarities are still reported, but it brings no hit of its own.
    assert [vec for *_, vec in hits] == [0.1, 0.8]


def test_partial_trust_gives_the_unearned_vector_weight_to_keywords():
    fused = {mid: score for mid, score, _, _ in fuse_hits(KEYWORD, VECTOR, WEIGHTS, trust=0.5)}
    assert fused[2] == pytest.approx(relevance(0.5, 0.8, WEIGHTS, BACKGROUND, trust=0.5))


def test_without_a_vector_list_keywords_alone_rank():
    hits = fuse_hits(KEYWORD, [], WEIGHTS, trust=0.0)
    assert hits == [(1, 1.0, 1.0, None), (2, 0.5, 0.5, None)]


def test_a_changed_retrieval_weight_changes_hippo_search_order(
    fake_ollama, config, monkeypatch, capsys
):
    from assistant.factory import open_engine
    from assistant.memory.script_probe import Reading, ReadingStore

    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    engine = open_engine(config)
    try:
        session = engine.conversations.new_session()
        # "bike" is the query's one keyword; the other message shares only its common
        # words, which the keyword index leaves out but the (bag-of-words) model reads.
        engine.memory.messages.add_message(session.id, "user", "bike")
        engine.memory.messages.add_message(session.id, "user", "where is the")
        assert engine.background.embed_pending() >= 2
        # The fake's bag of words fails the paraphrase probe; say it reads English, as a
        # real model does, so that its similarities count.
        readings = ReadingStore(lambda: engine.memory.db.conn, engine.clock)
        readings.keep(engine.live_settings.embedding_model, "latin", Reading(trust=1.0, gap=0.5))
    finally:
        engine.close()
    config.config_dir.mkdir(parents=True, exist_ok=True)
    config_file = config.config_dir / "config.toml"
    monkeypatch.setenv("HIPPO_CONFIG_DIR", str(config.config_dir))
    monkeypatch.setenv("HIPPO_DATA_DIR", str(config.data_dir))

    def first_hit(keyword: float, vector: float) -> str:
        config_file.write_text(f"[retrieval]\nkeyword = {keyword}\nvector = {vector}\n")
        assert main(["search", "where is the bike"]) == 0
        lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
        return lines[0]

    assert "bike" in first_hit(1.0, 0.0) and "where is the" not in first_hit(1.0, 0.0)
    assert "where is the" in first_hit(0.0, 1.0)
