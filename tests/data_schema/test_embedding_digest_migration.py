"""m010: embedding models recorded before digests were kept get none (unknown), vectors kept."""

from __future__ import annotations

from data_schema.connect import connect
from data_schema.migrations import MIGRATIONS, applied_migrations


def test_models_recorded_before_m010_keep_their_vectors_and_have_no_digest(tmp_path):
    path = tmp_path / "hippo.db"
    conn = connect(path, migrate=False)
    applied_migrations(conn)  # creates the record table
    stop = [fn.__name__ for fn in MIGRATIONS].index("m010_embedding_digest")
    for fn in MIGRATIONS[:stop]:
        with conn:
            fn(conn)
            conn.execute("INSERT INTO _migrations VALUES (?, 'then')", (fn.__name__,))
    conn.execute(
        "INSERT INTO embedding_models(name, dim, created_at)"
        " VALUES ('embeddinggemma:latest', 2, 'a')"
    )
    conn.execute(
        "CREATE VIRTUAL TABLE vec_message_m1 USING vec0(item_id INTEGER PRIMARY KEY,"
        " profile_id INTEGER PARTITION KEY, embedding FLOAT[2] distance_metric=cosine)"
    )
    conn.execute("INSERT INTO vec_message_m1 VALUES (7, 1, '[0.6, 0.8]')")
    conn.close()
    upgraded = connect(path)
    assert upgraded.execute("SELECT name, digest FROM embedding_models").fetchall() == [
        ("embeddinggemma:latest", None)
    ]
    assert upgraded.execute("SELECT item_id FROM vec_message_m1").fetchall() == [(7,)]
    upgraded.close()
