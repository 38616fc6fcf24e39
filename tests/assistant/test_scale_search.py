"""Search that stays fast as the archive grows: vector cells, common-term pruning."""

from __future__ import annotations

import dataclasses
import random
import struct
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

DIM = 64


def _unit(rng: random.Random) -> list[float]:
    v = [rng.gauss(0.0, 1.0) for _ in range(DIM)]
    norm = sum(x * x for x in v) ** 0.5
    return [x / norm for x in v]


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "hippo.db")
    yield database
    database.close()


def _clustered(rng: random.Random, n: int, centres: int = 8) -> list[list[float]]:
    """Unit vectors around a few random directions, as embeddings of topics cluster."""
    directions = [_unit(rng) for _ in range(centres)]
    rows = []
    for i in range(n):
        v = [c + 0.6 * x for c, x in zip(directions[i % centres], _unit(rng), strict=True)]
        norm = sum(x * x for x in v) ** 0.5
        rows.append([x / norm for x in v])
    return rows


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
    rows = _clustered(random.Random(seed), n)
    _store(vectors, model, rows)
    return vectors, model, rows


def _noisy(rng: random.Random, v: list[float]) -> list[float]:
    return [x + 0.3 * y for x, y in zip(v, _unit(rng), strict=True)]


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
        # Both rank by the same 16-bit copy: the same cosines.
        assert [s for _, s in found] == pytest.approx([s for _, s in exact], abs=1e-5)


def _cosine(a, b) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (sum(x * x for x in a) ** 0.5 * sum(y * y for y in b) ** 0.5)


def test_the_search_ranks_the_nearest_cells_vectors_by_their_16_bit_cosines(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    vectors.build_cells(model)
    table, conn = model.table("message"), db.conn
    rng = random.Random(11)
    for target in rng.sample(range(len(rows)), 10):
        query = _noisy(rng, rows[target])
        packed = array("f", query).tobytes()
        cells = conn.execute(
            f"SELECT cell FROM {vector_cells.centroid_table(table)}"
            " WHERE embedding MATCH ? AND k = ?",
            (packed, few_cells.nprobe),
        ).fetchall()
        ids = [
            item_id
            for (cell,) in cells
            for (item_id,) in conn.execute(
                f"SELECT item_id FROM {vector_cells.partition_table(table)}"
                " WHERE profile_id = 1 AND cell = ?",
                (cell,),
            )
        ]
        # Every vector of those cells, ranked by its exact float cosine.
        best = sorted(ids, key=lambda i: -_cosine(query, rows[i - 1]))[:10]
        found = vector_cells.nearest(conn, table, 1, packed, 10, few_cells.nprobe)
        # In that order, but for neighbours closer than 16 bits tell apart.
        cosines = [_cosine(query, rows[i - 1]) for i, _ in found]
        assert cosines == pytest.approx(
            [_cosine(query, rows[i - 1]) for i in best], abs=FINE_COSINE
        )
        assert [1 - d for _, d in found] == pytest.approx(cosines, abs=FINE_COSINE)


# The 16-bit copy rounds each component by at most 1/65534 of the largest, at most 1
# for a unit vector: the rounding error e has |e| <= sqrt(dim) / 65534, so a cosine with
# a unit query moves by at most ~2|e| (0.00025 at 64-d; 0.0006 at 384-d).
FINE_COSINE = 2 * DIM**0.5 / 65534


def test_similarities_read_from_the_cells_equal_the_float_ones_to_16_bits(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    query = rows[0]
    before = vectors.similarities(model, "message", [3, 50, 399], query)
    vectors.build_cells(model)
    after = vectors.similarities(model, "message", [3, 50, 399], query)
    assert after.keys() == before.keys()
    assert after == pytest.approx(before, abs=FINE_COSINE)


def test_cells_keep_a_vector_in_8_bits_and_in_16_beside(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    vectors.build_cells(model)
    table = model.table("message")
    (stored,) = db.conn.execute(
        "SELECT vec_length(embedding), length(embedding)"
        f" FROM {vector_cells.partition_table(table)} LIMIT 1"
    ).fetchall()
    assert stored == (DIM, DIM)
    copies = dict(db.conn.execute(f"SELECT * FROM {vector_cells.precise_table(table)}"))
    assert sorted(copies) == list(range(1, len(rows) + 1))
    assert {len(blob) for blob in copies.values()} == {4 + 2 * DIM}  # and a float32
    assert copies[5] == vector_cells.precise(array("f", rows[4]).tobytes())


def test_precise_keeps_a_vector_in_16_bits_and_the_inverse_of_their_length():
    kept = vector_cells.precise(array("f", [3.0, -4.0, 0.0]).tobytes())
    (inverse,) = struct.unpack_from("<f", kept)
    assert list(array("h", kept[4:])) == [24575, -32767, 0]
    assert inverse == pytest.approx(1 / (24575**2 + 32767**2) ** 0.5, rel=1e-7)
    assert vector_cells.precise(array("f", [0.0, 0.0]).tobytes())[4:] == bytes(4)


def test_quantize_scales_each_vector_to_the_int8_range():
    small = array("b", vector_cells.quantize(array("f", [3.0, -4.0, 1.0]).tobytes()))
    assert list(small) == [95, -127, 32]
    assert vector_cells.quantize(array("f", [0.0, 0.0]).tobytes()) == bytes(2)


def _near_ties(
    rng: random.Random, query: list[float], n: int, step: float = 0.001
) -> list[list[float]]:
    """Unit vectors whose cosines to ``query`` step down from 0.95 by ``step`` (0.001:
    closer than 8 bits tell apart)."""
    rows = []
    for i in range(n):
        noise = _unit(rng)
        along = sum(a * b for a, b in zip(noise, query, strict=True))
        side = [x - along * q for x, q in zip(noise, query, strict=True)]  # orthogonal
        norm = sum(x * x for x in side) ** 0.5
        cos = 0.95 - step * i
        rows.append(
            [cos * q + (1 - cos**2) ** 0.5 * x / norm for q, x in zip(query, side, strict=True)]
        )
    return rows


def test_neighbours_closer_than_8_bits_tell_apart_come_in_their_exact_order(db):
    rng = random.Random(21)
    query = _unit(rng)
    rows = _near_ties(rng, query, 60)
    rng.shuffle(rows)
    vectors = VectorStore(lambda: db.conn, ManualClock(), CellSizes(cells=2, min_rows=10))
    model = vectors.ensure_model("test-64", DIM)
    _store(vectors, model, rows)
    vectors.build_cells(model)
    table = model.table("message")
    assert vector_cells.is_complete(db.conn, table)
    truth = sorted(range(1, 61), key=lambda i: -_cosine(query, rows[i - 1]))[:20]
    by_8_bits = [
        i
        for (i,) in db.conn.execute(
            f"SELECT item_id FROM {vector_cells.partition_table(table)}"
            " WHERE embedding MATCH vec_int8(?) AND k = 20 AND profile_id = 1 ORDER BY distance",
            (vector_cells.quantize(array("f", query).tobytes()),),
        )
    ]
    assert by_8_bits != truth, "8 bits alone mix these up: the test would prove nothing"
    for exact in (False, True):
        found = vectors.nearest(model, "message", 1, query, 20, exact=exact)
        assert [i for i, _ in found] == truth


def test_more_candidates_are_read_while_the_8_bit_order_could_hide_a_nearer_one(db):
    rng = random.Random(8)
    query = _unit(rng)
    # Item i lies at cosine distance 0.05 + 0.0001 * (i - 1): 200 neighbours spread
    # over 0.02, closer together than 8 bits tell apart.
    rows = _near_ties(rng, query, 200, step=0.0001)
    table = "vec_message_m1"
    for statement in vector_cells.schema(table, DIM):
        db.conn.execute(statement)
    vector_cells._write_precise(
        db.conn, table, [(i + 1, array("f", v).tobytes()) for i, v in enumerate(rows)]
    )
    asked: list[int] = []

    def by_8_bits(errors: dict[int, float]):
        """Candidates as 8 bits would find them, each distance off by its error."""
        near = sorted((0.05 + 0.0001 * (i - 1) + errors[i], i) for i in range(1, 201))

        def candidates(n: int) -> list[tuple[int, float]]:
            asked.append(n)
            return [(i, d) for d, i in near[:n]]

        return candidates

    packed = array("f", query).tobytes()
    # 8 bits put the nearest 0.003 too far and the others 0.003 too near: it is 60th.
    hiding = by_8_bits({i: 0.003 if i == 1 else -0.003 for i in range(1, 201)})
    found = vector_cells._exact_top(db.conn, table, packed, 5, hiding)
    assert [i for i, _ in found] == [1, 2, 3, 4, 5]
    assert asked == [40, 160]
    # Errors small beside the spread of the first candidates: those suffice.
    asked.clear()
    small = by_8_bits({i: 0.0002 * (-1) ** i for i in range(1, 201)})
    found = vector_cells._exact_top(db.conn, table, packed, 5, small)
    assert [i for i, _ in found] == [1, 2, 3, 4, 5]
    assert asked == [40]


def test_cells_never_mix_in_another_profiles_vectors(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    _store(vectors, model, rows[:50], first_id=1000, profile_id=2)  # the same vectors
    vectors.build_cells(model)
    found = vectors.nearest(model, "message", 1, rows[0], 20)
    assert found and all(i < 1000 for i, _ in found)
    theirs = vectors.nearest(model, "message", 2, rows[0], 20)
    assert theirs and all(i >= 1000 for i, _ in theirs)


def test_a_complete_index_drops_the_float_table_and_searches_as_it_did(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    table = model.table("message")
    exact = vectors.nearest(model, "message", 1, rows[9], 20, exact=True)
    near = vectors.similarities(model, "message", [3, 50], rows[9])
    vectors.build_cells(model)
    assert vector_cells.is_complete(db.conn, table)
    names = {row[0] for row in db.conn.execute("SELECT name FROM sqlite_master")}
    assert table not in names, "the vectors are kept in the cells alone"
    assert vectors.size(table) == len(rows)
    after = vectors.nearest(model, "message", 1, rows[9], 10, exact=True)
    # The same neighbours in the same order (but for any closer than 16 bits tell
    # apart), their cosines from the 16-bit copy.
    floats = dict(exact)
    assert [floats[i] for i, _ in after] == pytest.approx(
        [s for _, s in exact[:10]], abs=FINE_COSINE
    )
    assert [s for _, s in after] == pytest.approx([s for _, s in exact[:10]], abs=FINE_COSINE)
    similar = vectors.similarities(model, "message", [3, 50], rows[9])
    assert similar == pytest.approx(near, abs=FINE_COSINE)
    late = _unit(random.Random(5))
    _store(vectors, model, [late], first_id=7000)  # the table is not made again
    assert table not in {row[0] for row in db.conn.execute("SELECT name FROM sqlite_master")}
    assert vectors.nearest(model, "message", 1, late, 1, exact=True)[0][0] == 7000


def test_a_vector_stored_after_the_build_is_found(db, few_cells):
    vectors, model, rows = _cells_db(db, few_cells)
    vectors.build_cells(model)
    late = _unit(random.Random(42))
    _store(vectors, model, [late], first_id=5000)
    assert vectors.nearest(model, "message", 1, late, 3)[0][0] == 5000
    precise = vector_cells.precise_table(model.table("message"))
    sql = f"SELECT embedding FROM {precise} WHERE item_id = 5000"
    assert db.conn.execute(sql).fetchall() == [(vector_cells.precise(array("f", late).tobytes()),)]
    # Stored again (a new embedding): it moves, and is not found twice.
    _store(vectors, model, [rows[7]], first_id=5000)
    found = [i for i, _ in vectors.nearest(model, "message", 1, rows[7], 5)]
    assert found.count(5000) == 1 and found[:2] in ([8, 5000], [5000, 8])
    assert db.conn.execute(sql).fetchall() == [
        (vector_cells.precise(array("f", rows[7]).tobytes()),)
    ]


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
