"""Every stored message is embedded off the critical path and found by keyword and meaning."""

from __future__ import annotations

from datetime import timedelta

import pytest

from assistant.llm.prefixes import prefixed
from assistant.memory.embedding import retry_delay
from assistant.memory.script_probe import PARAPHRASES, Reading


def _say(engine, session, *texts):
    for text in texts:
        engine.memory.messages.add_message(session.id, "user", text)


def test_messages_are_embedded_in_batches(engine, fake_ollama):
    session = engine.conversations.new_session()
    _say(engine, session, *[f"note number {i} about gardening" for i in range(10)])
    assert engine.memory.vectors.queued() == 10
    assert engine.background.embed_pending(batch_size=4) == 10
    assert engine.memory.vectors.queued() == 0
    embeds = [r for r in fake_ollama.requests if r.path == "/api/embed"]
    assert [len(r.body["input"]) for r in embeds] == [4, 4, 2]


def test_vector_tables_follow_the_models_dimension(engine, fake_ollama):
    session = engine.conversations.new_session()
    _say(engine, session, "hello there")
    engine.background.embed_pending()
    assert engine.memory.vectors.model(
        engine.memory.embedder.vector_key
    ).dim == fake_ollama.embed_dim("embeddinggemma")
    engine.live_settings.use_models(embedding="all-minilm")
    engine.background.embed_pending()
    model = engine.memory.vectors.model("all-minilm:latest")
    assert model.dim == fake_ollama.embed_dim("all-minilm")
    assert engine.memory.vectors.queued() == 0


def test_a_failed_embedding_is_retried_later_and_the_message_is_kept(engine, fake_ollama, clock):
    session = engine.conversations.new_session()
    _say(engine, session, "my passport expires in March")
    fake_ollama.fail_next("/api/embed", "500")
    assert engine.background.embed_pending() == 0
    assert engine.memory.vectors.queued() == 1
    assert engine.background.embed_pending() == 0  # not due yet: no hammering a failing host
    clock.advance(seconds=retry_delay(1).total_seconds() + 1)
    assert engine.background.embed_pending() == 1
    assert engine.conversations.history(session.id)[0].content == "my passport expires in March"


def test_retry_delays_grow_and_are_capped():
    assert retry_delay(1) < retry_delay(2) < retry_delay(5)
    assert retry_delay(100) == timedelta(hours=1)


def test_search_finds_messages_by_keyword_and_by_meaning(engine, fake_ollama):
    session = engine.conversations.new_session()
    _say(
        engine,
        session,
        "I adopted a rescue dog named Biscuit",
        "The quarterly budget review is on Friday",
        "Biscuit loves long walks in the park",
    )
    engine.background.embed_pending()
    hits = engine.memory.search_messages("dog Biscuit walks")
    contents = [h.message.content for h in hits]
    assert set(contents[:2]) == {
        "Biscuit loves long walks in the park",
        "I adopted a rescue dog named Biscuit",
    }
    top = hits[0]
    assert top.keyword > 0 and top.vector is not None and top.vector > 0
    assert hits == sorted(hits, key=lambda h: -h.score)


def test_search_finds_by_meaning_alone_when_no_keyword_matches(engine, fake_ollama):
    session = engine.conversations.new_session()
    _say(engine, session, "walking the dog at dawn", "tax forms are due")
    engine.background.embed_pending()
    hits = engine.memory.search_messages("dogs walking")
    assert hits and hits[0].message.content == "walking the dog at dawn"


def test_search_falls_back_to_keywords_when_ollama_is_down(engine, fake_ollama):
    session = engine.conversations.new_session()
    _say(engine, session, "the plumber comes on Tuesday")
    engine.background.embed_pending()
    fake_ollama.stop()
    (hit,) = engine.memory.search_messages("plumber")
    assert hit.message.content == "the plumber comes on Tuesday" and hit.vector is None


def test_search_finds_chinese_messages(engine, fake_ollama):
    session = engine.conversations.new_session()
    _say(engine, session, "我下周五要去北京出差", "今天天气很好")
    engine.background.embed_pending()
    hits = engine.memory.search_messages("北京出差")
    assert hits[0].message.content == "我下周五要去北京出差"


def test_search_leaves_the_ranking_to_keywords_where_the_model_does_not_read_the_script(
    engine, fake_ollama
):
    _say(engine, engine.conversations.new_session(), "我的护照三月到期")
    _say(engine, engine.conversations.new_session(), "海边散步")
    engine.background.embed_pending()
    # The fake model embeds a bag of words, which the paraphrase probe does not trust:
    # its nearest message ("海边散步", sharing no word) must not come back as a hit.
    (hit,) = engine.memory.search_messages("护照什么时候到期")
    assert hit.message.content == "我的护照三月到期"
    assert hit.vector is not None and hit.vector_trust == 0.0
    assert hit.score == pytest.approx(hit.keyword)


class ReadsEveryScript:
    """A reading probe for a model that reads every script in full."""

    def reading(self, model: str, text: str) -> Reading:
        return Reading(1.0)

    def forget(self, model: str) -> None:
        pass


def test_search_fuses_the_similarities_of_a_model_that_reads_the_script(config, clock, fake_ollama):
    from assistant.engine import Hippo
    from assistant.llm.gateway import OllamaGateway

    engine = Hippo(
        config.db_path,
        OllamaGateway(config.ollama.host),
        chat_model=config.models.chat,
        embedding_model=config.models.embedding,
        clock=clock,
        reading=ReadsEveryScript(),
    )
    try:
        _say(engine, engine.conversations.new_session(), "我的护照三月到期")
        _say(engine, engine.conversations.new_session(), "海边散步")
        engine.background.embed_pending()
        hits = engine.memory.search_messages("护照什么时候到期")
        assert [h.message.content for h in hits] == ["我的护照三月到期", "海边散步"]
        # The similarity adds to the keyword score's share (search fuses as recall does).
        assert hits[0].score > hits[0].keyword * engine.memory.retriever.weights.keyword
    finally:
        engine.close()


def test_vector_search_stays_inside_the_profile(engine, fake_ollama, config):
    from assistant.engine import Hippo

    session = engine.conversations.new_session()
    _say(engine, session, "my salary negotiation at work")
    other = Hippo(
        engine.memory.db,
        engine.host.gateway,
        chat_model=config.models.chat,
        embedding_model=config.models.embedding,
        profile="personal",
    )
    _say(other, other.conversations.new_session(), "my salary is private")
    engine.background.embed_pending()
    assert [h.message.content for h in engine.memory.search_messages("salary")] == [
        "my salary negotiation at work"
    ]
    assert [h.message.content for h in other.memory.search_messages("salary")] == [
        "my salary is private"
    ]


def test_the_background_worker_embeds_new_messages(engine, fake_ollama):
    engine.background.start_background()
    session = engine.conversations.new_session()
    _say(engine, session, "a note for the worker")
    engine.background.wake()
    assert engine.background.worker.embedded.wait(30)
    engine.background.stop_background()
    assert engine.memory.vectors.queued() == 0


def test_a_models_short_and_full_names_share_its_vectors(engine, fake_ollama):
    session = engine.conversations.new_session()
    _say(engine, session, "hello there")
    engine.background.embed_pending()
    engine.live_settings.use_models(embedding="embeddinggemma:latest")
    assert engine.background.pending_embeddings() == 0


def test_the_background_worker_stops_between_batches(engine, fake_ollama):
    import threading

    session = engine.conversations.new_session()
    _say(engine, session, *[f"note {i}" for i in range(100)])
    stop = threading.Event()
    stop.set()
    engine.background.maintain(stop)
    assert engine.background.pending_embeddings() == 100


def test_recall_weighs_vectors_as_far_as_the_model_reads_the_querys_script(engine, fake_ollama):
    session = engine.conversations.new_session()
    _say(engine, session, "我的护照三月到期", "海边散步")
    engine.background.embed_pending()
    # The fake model embeds a bag of words: paraphrases that share none look unrelated
    # to it, so the probe gives its similarities no weight, and relevance is keywords'.
    for question in ("护照怎么续签？", "护照什么时候到期？"):
        found = engine.memory.recall(question, kinds=("message",))
        assert found and all(m.relevance == pytest.approx(m.keyword) for m in found)
    asked = prefixed(
        engine.live_settings.embedding_model, [first for first, _ in PARAPHRASES["han"]], "query"
    )
    probes = [
        r for r in fake_ollama.requests if r.path == "/api/embed" and r.body["input"] == asked
    ]
    assert len(probes) == 1  # asked once for the script, not once per query


def test_the_user_is_told_once_that_the_model_does_not_read_their_language(
    engine, fake_ollama, config
):
    from assistant.engine import Hippo

    _say(engine, engine.conversations.new_session(), "我的护照三月到期")
    engine.background.embed_pending()
    engine.background.take_notices()
    engine.memory.recall("护照什么时候到期？")
    (notice,) = engine.background.take_notices()
    assert "embeddinggemma does not read Chinese" in notice and "F2" in notice
    engine.memory.recall("护照怎么续签？")
    assert engine.background.take_notices() == []  # once per model and script
    again = Hippo(
        engine.memory.db,
        engine.host.gateway,
        chat_model=config.models.chat,
        embedding_model=config.models.embedding,
    )
    again.memory.recall("护照在哪里办？")
    assert (
        again.background.take_notices() == []
    )  # the answer is kept in the file: not the next run either


def test_background_work_gives_a_large_archive_cells_and_recall_uses_them(engine, fake_ollama):
    from assistant.memory import vector_cells
    from assistant.memory.vector_cells import CellSizes

    engine.memory.vectors.cells = CellSizes(cells=4, min_rows=20)  # a few dozen vectors get cells
    session = engine.conversations.new_session()
    _say(engine, session, *[f"note {i} about gardening and tomatoes" for i in range(30)])
    wanted = engine.memory.messages.add_message(session.id, "user", "my passport expires in March")
    engine.background.maintain()
    model = engine.memory.vectors.model(engine.memory.embedder.vector_key)
    assert vector_cells.is_complete(engine.memory.db.conn, model.table("message"))
    found = engine.memory.recall("when does my passport expire?", kinds=("message",))
    assert found[0].item_id == wanted.id
