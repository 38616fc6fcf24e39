"""Search that stays fast as the archive grows: vector cells, common-term pruning."""

from __future__ import annotations

import dataclasses
import random
from array import array

import pytest

from assistant.clock import ManualClock
from assistant.memory import vector_cells
from assistant.memory.messages import MessageStore
from assistant.memory.textindex import fts_query
from assistant.memory.vector_cells import CellSizes
from assistant.memory.vectors import PendingText, VectorStore
from data_schema.connect import Database
from data_schema.migrations import apply_migrations
from tests.assistant.random_vectors import clustered, unit

DIM = 64


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "hippo.db")
    yield database
    database.close()


@pytest.fixture
def few_cells() -> CellSizes:
    """Cells sized for a few hundred vectors: 8 cells, 3 probed, built from 100 rows."""
    return CellSizes(cells=8, nprobe=3, min_rows=100)


def _store(vectors, model, rows, first_id: int = 1, profile_id: int = 1) -> None:
    items = [PendingText("message", first_id + i, profile_id, "", 0) for i in range(len(rows))]
    vectors.store(model, items, rows)


def _cells_db(db, cells: CellSizes, n: int = 400, seed: int = 3):
    vectors = VectorStore(lambda: db.conn, ManualClock(), cells)
    model = vectors.ensure_model("test-64", DIM)
    rows = clustered(random.Random(seed), n, DIM, centres=8, spread=0.6)
    _store(vectors, model, rows)
    return vectors, model, rows


def _noisy(rng: random.Random, v: list[float]) -> list[float]:
    return [x + 0.3 * y for x, y in zip(v, unit(rng, DIM), strict=True)]


def test_a_small_table_gets_no_cells_and_is_searched_exactly(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells, n=60)
    vectors.build_cells(model)
    assert not vector_cells.is_trained(db.conn, model.table("message"))
    exact = vectors.nearest(model, "message", 1, rows[5], 10, exact=True)
    assert vectors.nearest(model, "message", 1, rows[5], 10) == exact


def test_cells_find_the_exact_nearest_neighbours(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    vectors.build_cells(model)
    assert vector_cells.is_complete(db.conn, model.table("message"))
    rng = random.Random(9)
    for target in rng.sample(range(len(rows)), 20):
        query = _noisy(rng, rows[target])
        exact = vectors.nearest(model, "message", 1, query, 10, exact=True)
        found = vectors.nearest(model, "message", 1, query, 10)
        assert [i for i, _ in found] == [i for i, _ in exact]
        # Distances within a cell are exact float cosines.
        assert [s for _, s in found] == pytest.approx([s for _, s in exact], abs=1e-5)


def test_one_statement_searches_each_of_the_nearest_cells(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    vectors.build_cells(model)
    table, conn = model.table("message"), db.conn
    rng = random.Random(11)
    for target in rng.sample(range(len(rows)), 10):
        query = array("f", _noisy(rng, rows[target])).tobytes()
        cells = conn.execute(
            f"SELECT cell FROM {vector_cells.centroid_table(table)}"
            " WHERE embedding MATCH ? AND k = ?",
            (query, few_cells.nprobe),
        ).fetchall()
        each = [  # a statement a cell, as the search once ran
            hit
            for (cell,) in cells
            for hit in conn.execute(
                f"SELECT item_id, distance FROM {vector_cells.partition_table(table)}"
                " WHERE embedding MATCH ? AND k = 10 AND profile_id = 1 AND cell = ?",
                (query, cell),
            )
        ]
        expected = sorted(each, key=lambda hit: hit[1])[:10]
        assert vector_cells.nearest(conn, table, 1, query, 10, few_cells.nprobe) == expected


def test_similarities_read_from_the_cells_equal_the_exact_ones(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    query = rows[0]
    before = vectors.similarities(model, "message", [3, 50, 399], query)
    vectors.build_cells(model)
    after = vectors.similarities(model, "message", [3, 50, 399], query)
    assert after == pytest.approx(before, abs=1e-6)


def test_cells_never_mix_in_another_profiles_vectors(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    _store(vectors, model, rows[:50], first_id=1000, profile_id=2)  # the same vectors
    vectors.build_cells(model)
    found = vectors.nearest(model, "message", 1, rows[0], 20)
    assert found and all(i < 1000 for i, _ in found)
    theirs = vectors.nearest(model, "message", 2, rows[0], 20)
    assert theirs and all(i >= 1000 for i, _ in theirs)


def test_a_complete_index_holds_each_vector_once_and_searches_as_the_table_did(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    table = model.table("message")
    exact = vectors.nearest(model, "message", 1, rows[9], 10, exact=True)
    near = vectors.similarities(model, "message", [3, 50], rows[9])
    vectors.build_cells(model)
    assert vector_cells.is_complete(db.conn, table)
    names = {row[0] for row in db.conn.execute("SELECT name FROM sqlite_master")}
    assert table not in names, "the vectors are kept once, in the cells"
    assert vectors.size(table) == len(rows)
    after = vectors.nearest(model, "message", 1, rows[9], 10, exact=True)
    assert [i for i, _ in after] == [i for i, _ in exact]
    assert vectors.similarities(model, "message", [3, 50], rows[9]) == pytest.approx(near)
    late = unit(random.Random(5), DIM)
    _store(vectors, model, [late], first_id=7000)  # the table is not made again
    assert table not in {row[0] for row in db.conn.execute("SELECT name FROM sqlite_master")}
    assert vectors.nearest(model, "message", 1, late, 1, exact=True)[0][0] == 7000


def test_a_vector_stored_after_the_build_is_found(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    vectors.build_cells(model)
    late = unit(random.Random(42), DIM)
    _store(vectors, model, [late], first_id=5000)
    assert vectors.nearest(model, "message", 1, late, 3)[0][0] == 5000
    # Stored again (a new embedding): it moves, and is not found twice.
    _store(vectors, model, [rows[7]], first_id=5000)
    found = [i for i, _ in vectors.nearest(model, "message", 1, rows[7], 5)]
    assert found.count(5000) == 1 and found[:2] in ([8, 5000], [5000, 8])


class StopOnceTrained:
    """A stop signal that turns on once the table's cells are learnt: the build stops
    before it copies a vector."""

    def __init__(self, conn, table: str) -> None:
        self._conn, self._table = conn, table

    def is_set(self) -> bool:
        return vector_cells.is_trained(self._conn, self._table)


def test_a_stopped_build_searches_exactly_until_it_resumes(db, few_cells):
    vectors, model, rows = _cells_db(db, dataclasses.replace(few_cells, batch=100))
    table = model.table("message")
    vectors.build_cells(model, StopOnceTrained(db.conn, table))
    assert vector_cells.is_trained(db.conn, table) and not vector_cells.is_complete(db.conn, table)
    exact = vectors.nearest(model, "message", 1, rows[9], 10, exact=True)
    assert vectors.nearest(model, "message", 1, rows[9], 10) == exact
    vectors.build_cells(model)  # resumes, copying 100 vectors a batch
    assert vector_cells.is_complete(db.conn, table)
    part = vector_cells.partition_table(table)
    assert db.conn.execute(f"SELECT count(*) FROM {part}").fetchone()[0] == len(rows)


def test_the_migration_drops_the_binary_codes(db):
    conn = db.conn
    conn.execute("DROP TABLE vector_cells")
    conn.execute(
        "CREATE VIRTUAL TABLE vecbit_message_m1 USING vec0(item_id INTEGER PRIMARY KEY,"
        " profile_id INTEGER PARTITION KEY, embedding BIT[64])"
    )
    conn.execute("DELETE FROM _migrations WHERE name = 'm009_vector_cells'")
    assert apply_migrations(conn) == ["m009_vector_cells"]
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert "vector_cells" in names and not any(n.startswith("vecbit_") for n in names)


def test_fts_query_leaves_out_terms_it_is_told_to_but_never_all():
    assert fts_query("sourdough today", keep=lambda t: t != "today") == '"sourdough"'
    assert fts_query("today", keep=lambda t: False) == '"today"'


def test_keyword_search_skips_very_common_words_in_a_large_archive(db):
    store = MessageStore(lambda: db.conn, ManualClock(), common_share=0.1, common_min=5)
    profile = store.profile("default")
    session = store.create_session(profile.id)
    for i in range(30):
        store.add_message(session.id, "user", f"today was fine, note {i}")
    target = store.add_message(session.id, "user", "today I baked sourdough")
    found = store.keyword_search(profile.id, "sourdough today", 10)
    # "today" is too common to search by: only the sourdough turn (and its neighbour,
    # whose context column holds the word) match.
    assert [i for i, _ in found] == [target.id, target.id - 1]
    # A query of common words only still finds them.
    assert len(store.keyword_search(profile.id, "today", 50)) == 31


def test_keyword_search_widens_past_other_profiles_hits(db):
    store = MessageStore(lambda: db.conn, ManualClock())
    mine, theirs = store.profile("mine"), store.profile("theirs")
    crowd = store.create_session(theirs.id)
    for i in range(40):
        store.add_message(crowd.id, "user", f"sourdough sourdough loaf {i}")
    session = store.create_session(mine.id)
    wanted = store.add_message(session.id, "user", "a sourdough starter")
    found = store.keyword_search(mine.id, "sourdough", 3)
    assert [i for i, _ in found] == [wanted.id]
