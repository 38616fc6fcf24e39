"""m012: cells copied in the old layout are dropped, then rebuilt holding the vectors once."""

from __future__ import annotations

from assistant.clock import ManualClock
from assistant.memory import vector_cells
from assistant.memory.vector_cells import CellSizes
from assistant.memory.vectors import VectorStore
from data_schema.connect import Database, connect
from data_schema.migrations import MIGRATIONS, applied_migrations

TABLE = "vec_message_m1"


def _file_before_m012(path):
    conn = connect(path, migrate=False)
    applied_migrations(conn)  # creates the record table
    stop = [fn.__name__ for fn in MIGRATIONS].index("m012_vectors_stored_once")
    for fn in MIGRATIONS[:stop]:
        with conn:
            fn(conn)
            conn.execute("INSERT INTO _migrations VALUES (?, 'then')", (fn.__name__,))
    conn.execute(
        "INSERT INTO embedding_models(name, dim, created_at) VALUES ('all-minilm:latest', 2, 'a')"
    )
    conn.execute(
        f"CREATE VIRTUAL TABLE {TABLE} USING vec0(item_id INTEGER PRIMARY KEY,"
        " profile_id INTEGER PARTITION KEY, embedding FLOAT[2] distance_metric=cosine)"
    )
    vectors = [(i, 1, f"[{0.1 * i}, 1.0]") for i in range(1, 31)]
    conn.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?)", vectors)
    for statement in vector_cells.schema(TABLE, 2):  # cells as an older version kept them
        conn.execute(statement)
    conn.execute(
        "INSERT INTO vecpart_message_m1(item_id, profile_id, cell, embedding)"
        f" SELECT item_id, profile_id, 0, embedding FROM {TABLE}"
    )
    conn.execute("INSERT INTO vector_cells VALUES (?, 1)", (TABLE,))
    conn.close()


def _names(conn) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}


def test_old_cells_are_dropped_and_built_again_holding_the_only_copy(tmp_path):
    path = tmp_path / "hippo.db"
    _file_before_m012(path)
    db = Database(path)
    try:
        conn = db.conn
        assert not {"vecpart_message_m1", "veccent_message_m1"} & _names(conn)
        assert conn.execute("SELECT count(*) FROM vector_cells").fetchone() == (0,)
        assert conn.execute(f"SELECT count(*) FROM {TABLE}").fetchone() == (30,)
        store = VectorStore(lambda: db.conn, ManualClock(), CellSizes(cells=2, min_rows=10))
        model = store.model("all-minilm:latest")
        assert model is not None
        before = store.nearest(model, "message", 1, [0.5, 1.0], 5)
        store.build_cells(model)
        assert vector_cells.is_complete(conn, TABLE) and TABLE not in _names(conn)
        assert store.nearest(model, "message", 1, [0.5, 1.0], 5, exact=True) == before
    finally:
        db.close()
