"""Spherical k-means over stored vectors, run through sqlite-vec itself (no numpy)."""

from __future__ import annotations

import random
from array import array

import apsw

from assistant.memory import vector_cells as vc
from data_schema.rows import scalar

__all__ = ["kmeans", "sample"]

# Rounds of k-means: each moves the centroids less; a few suffice for cells that are
# only read near a query (a vector in a slightly worse cell is still found nearby).
_ROUNDS = 6
# The chunks of a k-means scratch table (a split learns a few centroids, a first build
# a few hundred).
_SCRATCH_CHUNK = 32


def sample(conn: apsw.Connection, table: str, count: int) -> list[array[float]]:
    ids = [
        row[0]
        for row in conn.execute(
            f"SELECT rowid FROM {table}_rowids ORDER BY random() LIMIT ?", (count,)
        )
    ]
    sql = f"SELECT embedding FROM {table} WHERE item_id = ?"
    return [array("f", scalar(conn, sql, (i,))) for i in ids]


def kmeans(
    sample: list[array[float]], cells: int, conn: apsw.Connection, key: str, dim: int
) -> list[array[float]]:
    """Spherical k-means: each round assigns the sample through a vec0 table of centroids."""
    rng = random.Random(len(sample))
    centroids = [array("f", v) for v in rng.sample(sample, min(cells, len(sample)))]
    scratch = "temp." + vc.centroid_table(key)
    conn.execute(f"DROP TABLE IF EXISTS {scratch}")
    conn.execute(
        f"CREATE VIRTUAL TABLE {scratch} USING vec0("
        f" cell INTEGER PRIMARY KEY, embedding FLOAT[{int(dim)}] distance_metric=cosine,"
        # vec0 reads whole chunks: in its default 1024-slot chunk, a search of the few
        # centroids of a split read 1.5 MB (a re-cell spent most of its time there).
        f" chunk_size={_SCRATCH_CHUNK})"
    )
    try:
        for _ in range(_ROUNDS):
            conn.execute(f"DELETE FROM {scratch}")
            conn.executemany(
                f"INSERT INTO {scratch}(cell, embedding) VALUES (?, ?)",
                [(c, v.tobytes()) for c, v in enumerate(centroids)],
            )
            members: list[list[array[float]]] = [[] for _ in centroids]
            for v in sample:
                cell = scalar(
                    conn,
                    f"SELECT cell FROM {scratch} WHERE embedding MATCH ? AND k = 1",
                    (v.tobytes(),),
                )
                members[cell].append(v)
            centroids = [_mean(m) if m else rng.choice(sample) for m in members]
    finally:
        conn.execute(f"DROP TABLE IF EXISTS {scratch}")
    return centroids


def _mean(vectors: list[array[float]]) -> array[float]:
    """The unit-length mean direction of ``vectors``."""
    total = [sum(column) for column in zip(*vectors, strict=True)]
    norm = sum(x * x for x in total) ** 0.5
    return array("f", (x / norm for x in total)) if norm else vectors[0]
