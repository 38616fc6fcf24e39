"""New weights under the embedding model's name: its old vectors go and everything is re-embedded.

The fake Ollama gives a model new weights (`new_weights`, or a pull that downloads) with
a new digest and embeddings unrelated to the old ones, as a retrained model's are.
"""

from __future__ import annotations

import pytest

from assistant.llm.prefixes import prefixed
from assistant.memory.script_probe import PARAPHRASES
from assistant.memory.weights import LISTING_TTL, stamp
from tests.assistant.helpers import state_fact

PASSPORT = "my passport expires in March"


def _remember(engine):
    """A message, a fact (with the message it cites) and an event, each embedded."""
    message = engine.memory.messages.add_message(
        engine.conversations.new_session().id, "user", PASSPORT
    )
    state_fact(engine, "The user's sister is a nurse")
    engine.intake.log_event("the plumber comes on Tuesday")
    items = engine.background.pending_embeddings()
    assert engine.background.embed_pending() == items
    return message, items


def _later(clock):
    """Past the time a listing of Ollama's models is trusted."""
    clock.advance(seconds=LISTING_TTL.total_seconds() + 1)


def _embeds(fake_ollama):
    return [r for r in fake_ollama.requests if r.path == "/api/embed"]


def _probes(fake_ollama, script):
    """The probe's requests for ``script``: the first of each pair, asked as queries."""
    asked = prefixed("embeddinggemma", [first for first, _ in PARAPHRASES[script]], "query")
    return [r for r in _embeds(fake_ollama) if r.body["input"] == asked]


def test_new_weights_reembed_everything_and_recall_uses_the_new_vectors(engine, fake_ollama, clock):
    message, items = _remember(engine)
    stale = engine.memory.recall(PASSPORT, kinds=("message",))[0]
    assert stale.item_id == message.id and stale.vector == pytest.approx(1.0, abs=1e-5)
    digest = fake_ollama.new_weights("embeddinggemma")
    _later(clock)
    assert engine.background.embed_pending() == items  # every message, fact and event again
    assert engine.background.pending_embeddings() == 0
    assert engine.memory.vectors.model(engine.memory.embedder.vector_key).digest == stamp(
        digest, engine.memory.embedder.vector_key
    )
    found = engine.memory.recall(PASSPORT, kinds=("message",))[0]
    # Old vectors against the new weights' query would be unrelated (about 0).
    assert found.item_id == message.id and found.vector == pytest.approx(1.0, abs=1e-5)
    (fact,) = engine.memory.recall("The user's sister is a nurse", kinds=("fact",))
    assert fact.vector == pytest.approx(1.0, abs=1e-5)


def test_until_reembedded_items_are_found_by_their_words(engine, fake_ollama, clock):
    message, items = _remember(engine)
    fake_ollama.new_weights("embeddinggemma")
    _later(clock)
    engine.memory.embedder.check_weights()
    assert engine.background.pending_embeddings() == items
    (found,) = engine.memory.recall("passport", kinds=("message",))
    assert found.item_id == message.id and found.vector is None and found.keyword > 0
    assert (
        engine.conversations.history(message.session_id)[0].content == PASSPORT
    )  # memories untouched


def test_the_user_is_told_once_that_memories_are_being_embedded_again(engine, fake_ollama, clock):
    _, items = _remember(engine)
    assert engine.background.take_notices() == []
    fake_ollama.new_weights("embeddinggemma")
    _later(clock)
    engine.background.embed_pending()
    (notice,) = engine.background.take_notices()
    assert "new weights" in notice and f"{items} memories" in notice
    _later(clock)
    engine.background.embed_pending()
    assert engine.background.take_notices() == []


def test_unchanged_weights_requeue_nothing(engine, fake_ollama, clock):
    _remember(engine)
    before = len(_embeds(fake_ollama))
    _later(clock)
    assert engine.background.embed_pending() == 0
    assert engine.background.pending_embeddings() == 0 and len(_embeds(fake_ollama)) == before
    listed = [r for r in fake_ollama.requests if r.path == "/api/tags"]
    assert len(listed) == 2  # looked, at most once per listing's lifetime
    model = engine.memory.vectors.model(engine.memory.embedder.vector_key)
    listed = _digest(fake_ollama, "embeddinggemma:latest")
    assert model.digest == f"{listed}+title: none | text: "  # weights and document prefix
    assert engine.background.take_notices() == []


def _digest(fake_ollama, name):
    import httpx

    (entry,) = [
        m for m in httpx.get(f"{fake_ollama.host}/api/tags").json()["models"] if m["name"] == name
    ]
    return entry["digest"]


@pytest.fixture
def minilm_engine(config, clock):
    """An engine whose embedding model (all-minilm) was trained without prefixes."""
    from assistant.engine import Hippo
    from assistant.llm.gateway import OllamaGateway

    hippo = Hippo(
        config.db_path,
        OllamaGateway(config.ollama.host),
        chat_model=config.models.chat,
        embedding_model="all-minilm",
        clock=clock,
    )
    yield hippo
    hippo.close()


def test_vectors_from_before_digests_were_kept_adopt_the_first_one_seen(
    minilm_engine, fake_ollama, clock
):
    engine = minilm_engine
    _remember(engine)
    # What m010 leaves a model's record made by an older Hippo: no digest.
    engine.memory.db.conn.execute("UPDATE embedding_models SET digest = NULL")
    assert engine.memory.vectors.model(engine.memory.embedder.vector_key).digest is None
    before = len(_embeds(fake_ollama))
    _later(clock)
    assert engine.background.embed_pending() == 0
    assert len(_embeds(fake_ollama)) == before
    model = engine.memory.vectors.model(engine.memory.embedder.vector_key)
    assert model.digest == _digest(fake_ollama, "all-minilm:latest")


def test_vectors_made_before_a_model_was_given_its_prefix_are_made_again(
    engine, fake_ollama, clock
):
    _, items = _remember(engine)
    # A record from before digests (so before prefixes): its texts were embedded bare.
    engine.memory.db.conn.execute("UPDATE embedding_models SET digest = NULL")
    _later(clock)
    assert engine.background.embed_pending() == items
    (notice,) = engine.background.take_notices()
    assert "instructions it was trained with" in notice and f"{items} memories" in notice
    stored = [r.body["input"] for r in _embeds(fake_ollama)][-1]
    assert all(text.startswith("title: none | text: ") for text in stored)
    listed = _digest(fake_ollama, "embeddinggemma:latest")
    assert (
        engine.memory.vectors.model(engine.memory.embedder.vector_key).digest
        == f"{listed}+title: none | text: "
    )
    _later(clock)
    assert engine.background.embed_pending() == 0  # made as the model now embeds: kept


def test_vectors_made_before_the_weights_were_listed_keep_their_prefix_and_adopt_the_digest(
    engine, fake_ollama, clock
):
    _remember(engine)
    # Embedded while Ollama's listing was not known: the prefix is, the weights are not.
    engine.memory.db.conn.execute("UPDATE embedding_models SET digest = '+title: none | text: '")
    _later(clock)
    assert engine.background.embed_pending() == 0
    listed = _digest(fake_ollama, "embeddinggemma:latest")
    assert (
        engine.memory.vectors.model(engine.memory.embedder.vector_key).digest
        == f"{listed}+title: none | text: "
    )
    assert engine.background.take_notices() == []


def test_pulling_new_weights_reembeds_at_the_next_background_pass(engine, fake_ollama):
    message, items = _remember(engine)
    fake_ollama.pull_plan("embeddinggemma", capabilities=("embedding",), embedding_length=768)
    list(engine.host.pull("embeddinggemma"))
    assert engine.background.embed_pending() == items  # no waiting for the listing to grow stale
    found = engine.memory.recall(PASSPORT, kinds=("message",))[0]
    assert found.item_id == message.id and found.vector == pytest.approx(1.0, abs=1e-5)


def test_the_start_up_listing_spares_background_work_a_listing(engine, fake_ollama):
    _remember(engine)
    fake_ollama.new_weights("embeddinggemma")
    assert engine.host.missing_models() == []
    listed = len([r for r in fake_ollama.requests if r.path == "/api/tags"])
    assert engine.background.embed_pending() > 0
    assert len([r for r in fake_ollama.requests if r.path == "/api/tags"]) == listed


def test_new_weights_clear_the_cells_too(engine, fake_ollama, clock):
    from assistant.memory import vector_cells
    from assistant.memory.vector_cells import CellSizes

    engine.memory.vectors.cells = CellSizes(cells=4, min_rows=20)  # a few dozen vectors get cells
    session = engine.conversations.new_session()
    for i in range(30):
        engine.memory.messages.add_message(
            session.id, "user", f"note {i} about gardening and tomatoes"
        )
    wanted = engine.memory.messages.add_message(
        engine.conversations.new_session().id, "user", PASSPORT
    )
    engine.background.maintain()
    table = engine.memory.vectors.model(engine.memory.embedder.vector_key).table("message")
    assert vector_cells.is_complete(engine.memory.db.conn, table)
    fake_ollama.new_weights("embeddinggemma")
    _later(clock)
    engine.memory.embedder.check_weights()
    assert not vector_cells.is_trained(engine.memory.db.conn, table)
    tables = {row[0] for row in engine.memory.db.conn.execute("SELECT name FROM sqlite_master")}
    assert tables.isdisjoint({table, *vector_cells.index_tables(table)})
    engine.background.maintain()  # re-embeds, and the table grows its cells again from new vectors
    table = engine.memory.vectors.model(engine.memory.embedder.vector_key).table("message")
    assert vector_cells.is_complete(engine.memory.db.conn, table)
    found = engine.memory.recall(PASSPORT, kinds=("message",))[0]
    assert found.item_id == wanted.id and found.vector == pytest.approx(1.0, abs=1e-5)


def test_the_reading_probe_asks_the_new_weights_again(engine, fake_ollama, clock):
    _remember(engine)
    engine.memory.recall("when does my passport expire?")
    engine.memory.recall("who is a nurse?")
    assert len(_probes(fake_ollama, "latin")) == 1
    fake_ollama.new_weights("embeddinggemma")
    _later(clock)
    engine.background.embed_pending()
    engine.memory.recall("when does my passport expire?")
    engine.memory.recall("who is a nurse?")
    assert len(_probes(fake_ollama, "latin")) == 2  # once for the new weights, then kept


def test_a_renewal_cut_short_keeps_the_old_vectors_and_is_done_again(engine, fake_ollama, clock):
    import apsw

    message, items = _remember(engine)
    old = engine.memory.vectors.model(engine.memory.embedder.vector_key)
    conn = engine.memory.db.conn
    # The disk fails while items are queued again, after the tables went.
    conn.execute(
        "CREATE TEMP TRIGGER fail_requeue BEFORE INSERT ON main.embedding_queue"
        " BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"
    )
    fake_ollama.new_weights("embeddinggemma")
    _later(clock)
    with pytest.raises(apsw.Error):
        engine.memory.embedder.check_weights()
    assert engine.memory.vectors.model(engine.memory.embedder.vector_key) == old
    assert engine.background.pending_embeddings() == 0
    assert conn.execute(f"SELECT count(*) FROM {old.table('message')}").fetchone()[0] == 2
    conn.execute("DROP TRIGGER fail_requeue")
    assert engine.background.embed_pending() == items
    found = engine.memory.recall(PASSPORT, kinds=("message",))[0]
    assert found.item_id == message.id and found.vector == pytest.approx(1.0, abs=1e-5)


def test_a_model_that_changes_its_vector_size_is_treated_as_new_weights(engine, fake_ollama, clock):
    message, items = _remember(engine)
    fake_ollama.resize_embeddings("embeddinggemma", 384)  # same name, same digest
    # Searching and recalling before anything is re-embedded: words, and no crash.
    (hit,) = engine.memory.search_messages("passport")
    assert hit.message.id == message.id and hit.vector is None
    (found,) = engine.memory.recall("passport", kinds=("message",))
    assert found.item_id == message.id and found.vector is None
    (notice,) = [n for n in engine.background.take_notices() if "numbers" in n]
    assert "now makes vectors of 384 numbers, not 768" in notice and f"{items} memories" in notice
    assert engine.background.embed_pending() == items
    assert engine.memory.vectors.model(engine.memory.embedder.vector_key).dim == 384
    found = engine.memory.recall(PASSPORT, kinds=("message",))[0]
    assert found.item_id == message.id and found.vector == pytest.approx(1.0, abs=1e-5)


def test_a_resized_model_met_first_by_the_embedder_reembeds_everything(engine, fake_ollama):
    _, items = _remember(engine)
    fake_ollama.resize_embeddings("embeddinggemma", 384)
    engine.intake.log_event("the boiler is serviced on Friday")
    assert engine.background.embed_pending() == items + 1
    assert engine.memory.vectors.model(engine.memory.embedder.vector_key).dim == 384
    assert engine.background.pending_embeddings() == 0
    assert "384 numbers" in engine.background.take_notices()[0]
