"""m014: a file whose cells hold float vectors keeps every vector, in 8 bits and in
16 bits, searchable in the same order."""

from __future__ import annotations

import random
from array import array

import apsw
import pytest

from assistant.clock import ManualClock
from assistant.errors import MigrationError
from assistant.memory import vector_cells
from assistant.memory.vector_cells import CellSizes
from assistant.memory.vectors import PendingText, VectorStore
from data_schema import migrations
from data_schema.connect import Database, connect
from data_schema.migrations import MIGRATIONS, applied_migrations

DIM = 16
TABLE = "vec_message_m1"
PART = "vecpart_message_m1"
PRECISE = "vec16_message_m1"
# The cells as m012 to m013 built them: float vectors (frozen here, as they shipped).
FLOAT_CELLS = (
    f"CREATE VIRTUAL TABLE veccent_message_m1 USING vec0(cell INTEGER PRIMARY KEY,"
    f" embedding FLOAT[{DIM}] distance_metric=cosine, chunk_size=32)",
    f"CREATE VIRTUAL TABLE {PART} USING vec0(item_id INTEGER PRIMARY KEY,"
    " profile_id INTEGER PARTITION KEY, cell INTEGER PARTITION KEY,"
    f" embedding FLOAT[{DIM}] distance_metric=cosine, chunk_size=32)",
    f"CREATE INDEX {PART}_cells ON {PART}_chunks(partition00, partition01)",
)


def _unit(rng: random.Random) -> list[float]:
    v = [rng.gauss(0.0, 1.0) for _ in range(DIM)]
    norm = sum(x * x for x in v) ** 0.5
    return [x / norm for x in v]


def _file_before_m014(path, vectors: list[list[float]]) -> None:
    """A file at m013 whose message vectors live only in complete float cells."""
    conn = connect(path, migrate=False)
    applied_migrations(conn)  # creates the record table
    stop = [fn.__name__ for fn in MIGRATIONS].index("m014_int8_cells")
    for fn in MIGRATIONS[:stop]:
        with conn:
            fn(conn)
            conn.execute("INSERT INTO _migrations VALUES (?, 'then')", (fn.__name__,))
    conn.execute(
        "INSERT INTO embedding_models(name, dim, created_at) VALUES ('all-minilm:latest', ?, 'a')",
        (DIM,),
    )
    for statement in FLOAT_CELLS:
        conn.execute(statement)
    conn.executemany(
        "INSERT INTO veccent_message_m1(cell, embedding) VALUES (?, ?)",
        [(0, str(vectors[0])), (1, str(vectors[1]))],
    )
    conn.executemany(
        f"INSERT INTO {PART}(item_id, profile_id, cell, embedding) VALUES (?, ?, ?, ?)",
        [(i + 1, 1 + i % 2, i % 2, str(v)) for i, v in enumerate(vectors)],
    )
    conn.execute("INSERT INTO vector_cells VALUES (?, 1)", (TABLE,))
    conn.close()


def test_float_cells_become_int8_keeping_every_vector_and_its_search(tmp_path):
    rng = random.Random(4)
    vectors = [_unit(rng) for _ in range(120)]
    path = tmp_path / "hippo.db"
    _file_before_m014(path, vectors)
    before = connect(path, migrate=False)
    query = _unit(rng)
    floats = VectorStore(lambda: before, ManualClock(), CellSizes(cells=2, nprobe=2))
    model = floats.model("all-minilm:latest")
    assert model is not None
    # What a float search found (read straight from the old copy: today's code reads int8).
    expected = before.execute(
        f"SELECT item_id, 1 - distance FROM {PART} WHERE embedding MATCH ? AND k = 10"
        " AND profile_id = 1 ORDER BY distance",
        (str(query),),
    ).fetchall()
    before.close()

    db = Database(path)  # migrates
    try:
        conn = db.conn
        assert "m014_int8_cells" in applied_migrations(conn)
        (sql,) = conn.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (PART,)).fetchone()
        assert f"INT8[{DIM}]" in sql
        rows = conn.execute(f"SELECT item_id, profile_id, cell FROM {PART} ORDER BY item_id")
        assert rows.fetchall() == [(i + 1, 1 + i % 2, i % 2) for i in range(len(vectors))]
        assert vector_cells.is_complete(conn, TABLE)
        store = VectorStore(lambda: db.conn, ManualClock(), CellSizes(cells=2, nprobe=2))
        found = store.nearest(model, "message", 1, query, 10)
        # The same neighbours in the same order, ranked by their 16-bit copies.
        assert [i for i, _ in found] == [i for i, _ in expected]
        assert [s for _, s in found] == pytest.approx([s for _, s in expected], abs=2**-10)
        copies = dict(conn.execute(f"SELECT item_id, embedding FROM {PRECISE}"))
        assert copies == {
            i + 1: vector_cells.precise(array("f", v).tobytes()) for i, v in enumerate(vectors)
        }
        assert not [n for (n,) in conn.execute("SELECT name FROM sqlite_master") if "m014" in n]
        # A vector stored after the migration goes into the int8 cells and is found.
        late = _unit(rng)
        store.store(model, [PendingText("message", 999, 1, "", 0)], [late])
        assert store.nearest(model, "message", 1, late, 1)[0][0] == 999
    finally:
        db.close()


def test_a_file_without_cells_migrates_untouched(tmp_path):
    path = tmp_path / "hippo.db"
    conn = connect(path)
    assert "m014_int8_cells" in applied_migrations(conn)
    assert conn.execute("SELECT count(*) FROM vector_cells").fetchone() == (0,)
    conn.close()


def test_a_migration_killed_midway_resumes_after_its_last_batch(tmp_path, monkeypatch):
    rng = random.Random(6)
    vectors = [_unit(rng) for _ in range(120)]
    path = tmp_path / "hippo.db"
    _file_before_m014(path, vectors)
    monkeypatch.setattr(migrations, "_M014_BATCH", 50)
    halve = migrations._m014_precise
    halved: list[bytes] = []

    def dies_in_the_second_batch(packed: bytes) -> bytes:
        if len(halved) == 60:
            raise MemoryError("killed")
        halved.append(packed)
        return halve(packed)

    monkeypatch.setattr(migrations, "_m014_precise", dies_in_the_second_batch)
    with pytest.raises(MemoryError):
        connect(path)
    conn = connect(path, migrate=False)
    assert "m014_int8_cells" not in applied_migrations(conn)
    # The first batch stayed; the float cells are untouched.
    assert conn.execute(f"SELECT count(*), max(item_id) FROM {PRECISE}").fetchone() == (50, 50)
    (sql,) = conn.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (PART,)).fetchone()
    assert f"FLOAT[{DIM}]" in sql
    conn.close()

    halved.clear()
    monkeypatch.setattr(
        migrations, "_m014_precise", lambda packed: halved.append(packed) or halve(packed)
    )
    conn = connect(path)
    try:
        assert "m014_int8_cells" in applied_migrations(conn)
        assert len(halved) == 70, "the first batch is not done again"
        copies = dict(conn.execute(f"SELECT item_id, embedding FROM {PRECISE}"))
        assert copies == {
            i + 1: vector_cells.precise(array("f", v).tobytes()) for i, v in enumerate(vectors)
        }
        assert conn.execute(f"SELECT count(*) FROM {PART}").fetchone() == (120,)
    finally:
        conn.close()


def test_a_migration_error_midway_is_reported_and_resumes(tmp_path, monkeypatch):
    rng = random.Random(7)
    path = tmp_path / "hippo.db"
    _file_before_m014(path, [_unit(rng) for _ in range(30)])
    monkeypatch.setattr(migrations, "_M014_BATCH", 10)
    calls = [0]
    original = migrations._m014_int8

    def fails_once_in_the_second_batch(packed: bytes) -> bytes:
        calls[0] += 1
        if calls[0] == 15:
            raise apsw.SQLError("disk I/O")
        return original(packed)

    monkeypatch.setattr(migrations, "_m014_int8", fails_once_in_the_second_batch)
    with pytest.raises(MigrationError, match="m014_int8_cells"):
        connect(path)
    conn = connect(path)
    try:
        assert "m014_int8_cells" in applied_migrations(conn)
        assert conn.execute(f"SELECT count(*) FROM {PRECISE}").fetchone() == (30,)
    finally:
        conn.close()
