"""Files that stay small: a day of chat, vector tables whose chunks fit their size."""

from __future__ import annotations

from array import array
from datetime import UTC

import pytest

from assistant.engine import Hippo
from assistant.llm.gateway import OllamaGateway
from assistant.memory import vector_chunks
from assistant.memory.profile_data.space import file_space
from assistant.memory.vectors import PendingText
from assistant.sleep import SleepSettings


def _day_of_chat(engine: Hippo, turns: int) -> None:
    """``turns`` user messages, each answered, in four chats; three facts remembered."""
    session = engine.conversations.new_session()
    for n in range(turns):
        if n and n % (turns // 4) == 0:
            engine.conversations.end_session(session.id)
            session = engine.conversations.new_session()
        for _ in engine.send(session.id, f"Message {n}: I walked the dog and cooked rice."):
            pass
        if n % (turns // 3) == 0:
            engine.admin.facts.remember(f"I like the number {n}", session.id)
    engine.conversations.end_session(session.id)
    engine.background.embed_pending(max_batches=None)


@pytest.mark.heavy
@pytest.mark.parametrize("embedder", ["all-minilm", "embeddinggemma"])  # 384-d and 768-d
def test_a_day_of_chat_leaves_a_file_under_2_mb(tmp_path, fake_ollama, clock, embedder):
    engine = Hippo(
        tmp_path / "hippo.db",
        OllamaGateway(fake_ollama.host, transport=fake_ollama.transport()),  # not about HTTP
        chat_model="qwen3:1.7b",
        embedding_model=embedder,
        clock=clock,
    )
    try:
        _day_of_chat(engine, 50)
        clock.advance(hours=12)
        engine.consolidate(tz=UTC, settings=SleepSettings(max_llm_calls=50))
        engine.background.embed_pending(max_batches=None)
        conn = engine.memory.db.conn
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        space = file_space(conn)
        (messages,) = conn.execute("SELECT count(*) FROM messages").fetchone()
        (vectors,) = conn.execute("SELECT count(*) FROM embeddings").fetchone()
    finally:
        engine.close()
    assert messages >= 100 and vectors >= messages  # every message has its vector
    assert space.by_group()["vectors"] > 0
    assert (tmp_path / "hippo.db").stat().st_size < 2_000_000


def _store(engine: Hippo, model, ids: range) -> None:
    items = [PendingText("message", i, engine.memory.profile.id, "", 0) for i in ids]
    vectors = [[1.0, float(i % 7), float(i % 5), 0.5] for i in ids]
    engine.memory.vectors.store(model, items, vectors)


def _nearest_is(engine: Hippo, model, item: int) -> bool:
    query = [1.0, float(item % 7), float(item % 5), 0.5]
    found = engine.memory.vectors.nearest(
        model, "message", engine.memory.profile.id, query, 1, exact=True
    )
    return bool(found) and abs(found[0][1] - 1.0) < 1e-6


def test_a_new_vector_table_starts_with_small_chunks_and_grows_them(engine):
    model = engine.memory.vectors.ensure_model("tiny", 4)
    table = model.table("message")
    _store(engine, model, range(1, 11))
    assert vector_chunks.chunk_size(engine.memory.db.conn, table) == vector_chunks.SMALL

    _store(engine, model, range(11, vector_chunks.GROW_AT + 11))
    engine.memory.vectors._sizes.clear()  # counted now, not a minute ago
    engine.memory.vectors.build_cells(model)  # the background work's pass over the tables

    assert vector_chunks.chunk_size(engine.memory.db.conn, table) == vector_chunks.LARGE
    (count,) = engine.memory.db.conn.execute(f"SELECT count(*) FROM {table}_rowids").fetchone()
    assert count == vector_chunks.GROW_AT + 10 and _nearest_is(engine, model, 4000)


def test_a_small_table_made_with_large_chunks_is_rebuilt_small_and_the_file_shrinks(engine):
    model = engine.memory.vectors.ensure_model("wide", 768)
    table = model.table("message")
    conn = engine.memory.db.conn
    conn.execute(vector_chunks.create_sql(table, 768, 1024))  # as files made before this had
    items = [PendingText("message", i, engine.memory.profile.id, "", 0) for i in range(1, 4)]
    engine.memory.vectors.store(model, items, [[float(i)] + [0.0] * 767 for i in range(1, 4)])
    before = file_space(conn).of({table})

    engine.memory.vectors.build_cells(model)
    from data_schema.compact import compact

    done = compact(conn)

    assert vector_chunks.chunk_size(conn, table) == vector_chunks.SMALL
    assert file_space(conn).of({table}) * 10 < before  # 3 MB of one chunk, now ~100 KB
    assert done.freed_bytes > 2_000_000
    query = array("f", [0.0, 1.0] + [0.0] * 766).tolist()
    found = engine.memory.vectors.nearest(
        model, "message", engine.memory.profile.id, query, 3, exact=True
    )
    assert sorted(i for i, _ in found) == [1, 2, 3]  # every vector came through


@pytest.mark.parametrize(
    ("rows", "current", "wanted"),
    [
        (10, 32, 32),
        (4095, 32, 32),
        (4096, 32, 256),
        (5000, 1024, 1024),  # large chunks suit a large table: left alone
        (3000, 256, 256),  # grown, then shrunk a little: no flapping
        (100, 256, 32),
        (100, 1024, 32),
    ],
)
def test_the_chunk_size_fits_the_table(rows, current, wanted):
    assert vector_chunks.fitting(rows, current) == wanted


def test_the_table_cells_replace_gives_its_pages_back(tmp_path):
    from assistant.clock import ManualClock
    from assistant.memory.vector_cells import CellSizes
    from assistant.memory.vectors import VectorStore
    from data_schema.connect import Database

    db = Database(tmp_path / "hippo.db")
    vectors = VectorStore(lambda: db.conn, ManualClock(), CellSizes(cells=4, min_rows=1000))
    model = vectors.ensure_model("wide", 768)
    items = [PendingText("message", i, 1, "", 0) for i in range(1, 1201)]
    vectors.store(model, items, [[float(i % 13), 1.0] + [0.0] * 766 for i in range(1, 1201)])
    conn = db.conn
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    before = file_space(conn)

    vectors.build_cells(model)

    after = file_space(conn)
    assert before.by_group()["vectors"] > 3_000_000 and after.by_group()["vectors"] == 0
    # The copy in cells is as large as the table was; the table's pages went back.
    assert after.free_pages == 0 and after.total_bytes < before.total_bytes * 1.3
    db.close()
