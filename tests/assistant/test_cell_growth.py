"""Vector cells that grow with the table: √(nprobe·N) cells, re-learnt in the background."""

from __future__ import annotations

import random

import pytest

from assistant.clock import ManualClock
from assistant.memory import vector_cells, vector_discard
from assistant.memory.vector_cells import CellSizes
from assistant.memory.vectors import PendingText, VectorStore
from data_schema.connect import Database
from tests.assistant.random_vectors import clustered, unit

DIM = 32
SIZES = CellSizes(cells=4, nprobe=2, min_rows=100, batch=50)


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "hippo.db")
    yield database
    database.close()


def _store(vectors, model, rows, first_id: int) -> None:
    items = [PendingText("message", first_id + i, 1, "", 0) for i in range(len(rows))]
    vectors.store(model, items, rows)


def _grown(db, sizes: CellSizes = SIZES):
    """A table given cells at 100 vectors, then grown to 400: its cells are outgrown."""
    vectors = VectorStore(lambda: db.conn, ManualClock(), sizes)
    model = vectors.ensure_model("test-32", DIM)
    rows = clustered(random.Random(4), 400, DIM, centres=6, spread=0.7)
    _store(vectors, model, rows[:100], first_id=1)
    vectors.build_cells(model)
    _store(vectors, model, rows[100:], first_id=101)
    return vectors, model, rows


def _copied(conn, key: str) -> int:
    return conn.execute(f"SELECT count(*) FROM {vector_cells.partition_table(key)}").fetchone()[0]


class StopOnceCopying:
    """A stop signal that turns on once the new cells hold a vector: the re-cell stops
    after its first batch."""

    def __init__(self, conn, table: str) -> None:
        self._conn, self._table = conn, table

    def is_set(self) -> bool:
        keys = vector_cells.generations(self._conn, self._table)
        return len(keys) > 1 and _copied(self._conn, keys[-1][0]) > 0


def test_cells_grow_as_the_square_root_of_the_table():
    sizes = CellSizes(cells=4, nprobe=2)
    assert sizes.cells_for(10) == 4  # never fewer than ``cells``
    assert sizes.cells_for(800) == 40 and sizes.cells_for(3200) == 80
    assert not sizes.outgrown(40, 3000) and sizes.outgrown(40, 3200)  # grown ~4-fold


def test_a_search_reads_more_cells_only_when_k_outgrows_them():
    sizes = CellSizes(cells=4, nprobe=8)
    assert sizes.probes(cells=2828, rows=1_000_000, k=50) == 8
    assert sizes.probes(cells=2828, rows=1_000_000, k=400) == 19  # 16·400 vectors, ~354 a cell
    assert sizes.probes(cells=10, rows=100, k=50) == 10  # never more cells than there are


def test_a_small_k_search_of_few_rows_reads_every_cell_it_needs(db):
    vectors = VectorStore(lambda: db.conn, ManualClock(), CellSizes(cells=4, nprobe=1, min_rows=50))
    model = vectors.ensure_model("test-32", DIM)
    rows = clustered(random.Random(8), 200, DIM, centres=6, spread=0.7)
    _store(vectors, model, rows, first_id=1)
    vectors.build_cells(model)
    # One probed cell holds ~14 vectors: k=20 is read from enough cells to hold 320.
    for target in (3, 77, 150):
        exact = vectors.nearest(model, "message", 1, rows[target], 20, exact=True)
        assert vectors.nearest(model, "message", 1, rows[target], 20) == exact


def test_an_outgrown_table_gets_more_cells_each_split_from_an_old_one(db):
    vectors, model, rows = _grown(db)
    table, conn = model.table("message"), db.conn
    old = vector_cells.searched(conn, table)
    assert old == table and vector_cells.cell_count(conn, old) == 14
    homes = dict(
        conn.execute(f"SELECT item_id, cell FROM {vector_cells.partition_table(old)}").fetchall()
    )
    vectors.build_cells(model)
    new = vector_cells.searched(conn, table)
    assert new == table + "_g1" and vector_cells.generations(conn, table) == [(new, True)]
    assert vector_cells.cell_count(conn, new) >= SIZES.cells_for(len(rows)) == 28
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert not set(vector_cells.index_tables(old)) & names, "the old cells are dropped"
    assert _copied(conn, new) == len(rows), "every vector, once"
    parents = dict(
        conn.execute(f"SELECT cell, parent FROM {vector_cells.centroid_table(new)}").fetchall()
    )
    placed = conn.execute(f"SELECT item_id, cell FROM {vector_cells.partition_table(new)}")
    # A vector copied by the split lies in a sub-cell of the cell it was in.
    assert all(parents[cell] == homes[i] for i, cell in placed if i in homes)


def test_a_search_mid_way_through_new_cells_finds_every_vector(db):
    vectors, model, rows = _grown(db)
    table, conn = model.table("message"), db.conn
    vectors.build_cells(model, StopOnceCopying(conn, table))
    (_, done), (new, building) = vector_cells.generations(conn, table)
    assert done and not building and 0 < _copied(conn, new) < len(rows)
    rng = random.Random(2)
    for target in rng.sample(range(len(rows)), 15):
        exact = vectors.nearest(model, "message", 1, rows[target], 5, exact=True)
        assert exact[0][0] == target + 1, "the exact search reads every vector"
        assert vectors.nearest(model, "message", 1, rows[target], 5)[0][0] == target + 1
    late = unit(random.Random(99), DIM)
    _store(vectors, model, [late], first_id=9000)  # goes to the old cells and the new
    assert vectors.nearest(model, "message", 1, late, 1)[0][0] == 9000
    vectors.build_cells(model)  # resumes
    assert vector_cells.generations(conn, table) == [(new, True)]
    assert _copied(conn, new) == len(rows) + 1
    assert vectors.nearest(model, "message", 1, late, 1)[0][0] == 9000
    for target in rng.sample(range(len(rows)), 15):
        # Each vector is in a sub-cell of its old cell, not always the nearest of all:
        # the new cells hold it, whether or not the two nearest a query do.
        assert vectors.nearest(model, "message", 1, rows[target], 1, exact=True)[0][0] == target + 1


class ForgetWhileCopying:
    """Never stops the re-cell; once it has copied a batch, deletes a vector it has yet
    to copy from every table holding it, as forgetting does meanwhile."""

    def __init__(self, conn, table: str) -> None:
        self._conn, self._table = conn, table
        self.forgotten: int | None = None

    def is_set(self) -> bool:
        keys = vector_cells.generations(self._conn, self._table)
        if self.forgotten is None and len(keys) > 1 and _copied(self._conn, keys[-1][0]):
            old, new = (vector_cells.partition_table(key) for key, _ in keys)
            self.forgotten = self._conn.execute(
                f"SELECT item_id FROM {old} WHERE item_id NOT IN"
                f" (SELECT rowid FROM {new}_rowids) LIMIT 1"
            ).fetchone()[0]
            for part in (old, new):
                self._conn.execute(f"DELETE FROM {part} WHERE item_id = ?", (self.forgotten,))
        return False


def test_a_vector_forgotten_during_a_re_cell_is_not_copied_into_the_new_cells(db):
    vectors, model, rows = _grown(db)
    table, conn = model.table("message"), db.conn
    forgetting = ForgetWhileCopying(conn, table)
    vectors.build_cells(model, forgetting)
    ((new, done),) = vector_cells.generations(conn, table)
    assert done and forgetting.forgotten is not None
    ids = {i for (i,) in conn.execute(f"SELECT item_id FROM {vector_cells.partition_table(new)}")}
    assert forgetting.forgotten not in ids and len(ids) == len(rows) - 1


class StopOnceSwapped:
    """A stop signal that turns on once the new cells replace the old: the old ones are
    left for the next maintenance to discard."""

    def __init__(self, conn, old: str) -> None:
        self._conn, self._old = conn, old

    def is_set(self) -> bool:
        return self._old not in [key for key, _ in vector_cells.generations(self._conn, self._old)]


def test_old_cells_stopped_while_discarded_are_discarded_later_and_never_searched(db):
    vectors, model, rows = _grown(db)
    table, conn = model.table("message"), db.conn
    vectors.build_cells(model, StopOnceSwapped(conn, table))
    ((new, done),) = vector_cells.generations(conn, table)
    left = vector_discard.leftovers(conn, table)
    assert done and sorted(left) == sorted(vector_cells.index_tables(table))
    assert vectors.size(table) == len(rows)
    for target in (5, 150, 390):
        assert vectors.nearest(model, "message", 1, rows[target], 1)[0][0] == target + 1
    vectors.build_cells(model)
    assert vector_discard.leftovers(conn, table) == []
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    old = [n for n in names if n.startswith(vector_cells.index_tables(table)) and "_g1" not in n]
    assert not old, "the old cells and their shadow tables are gone"
    assert _copied(conn, new) == len(rows)


def test_dropping_a_model_drops_every_generation_of_its_cells(db):
    vectors, model, _ = _grown(db)
    table, conn = model.table("message"), db.conn
    vectors.build_cells(model, StopOnceCopying(conn, table))
    keys = [key for key, _ in vector_cells.generations(conn, table)]
    assert len(keys) == 2
    stored = {name for _, _, names in vectors.stored() for name in names}
    assert {name for key in keys for name in vector_cells.index_tables(key)} <= stored
    vectors.drop(model)
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert not any(name.startswith(("vecpart_", "veccent_")) for name in names)
    assert conn.execute("SELECT count(*) FROM vector_cells").fetchone()[0] == 0
