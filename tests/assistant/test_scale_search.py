"""Search that stays fast as the archive grows: binary prefilter, common-term pruning."""

from __future__ import annotations

import random

import pytest

from assistant.clock import ManualClock
from assistant.memory import store as store_module
from assistant.memory.store import MessageStore
from assistant.memory.textindex import fts_query
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


def _fill(db, n: int, profile_id: int = 1, seed: int = 3):
    clock = ManualClock()
    vectors = VectorStore(lambda: db.conn, clock)
    model = vectors.ensure_model("test-64", DIM)
    rng = random.Random(seed)
    rows = [_unit(rng) for _ in range(n)]
    items = [PendingText("message", i + 1, profile_id, "", 0) for i in range(n)]
    vectors.store(model, items, rows)
    return vectors, model, rows


def test_vectors_are_written_to_the_float_and_the_binary_table(db):
    _, model, _ = _fill(db, 30)
    count = db.conn.execute(f"SELECT count(*) FROM {model.bit_table('message')}").fetchone()[0]
    assert count == 30


def test_approximate_search_finds_what_exact_search_finds(db):
    vectors, model, rows = _fill(db, 400)
    rng = random.Random(9)
    agree = []
    for target in rng.sample(range(400), 20):
        query = [x + 0.3 * y for x, y in zip(rows[target], _unit(rng), strict=True)]
        exact = vectors.nearest(model, "message", 1, query, 5, exact=True)
        approx = vectors.nearest(model, "message", 1, query, 5, exact=False)
        assert approx[0][0] == target + 1  # the planted neighbour comes first
        # Rescored with the float vectors: the similarities are exact ones.
        assert approx[0][1] == pytest.approx(exact[0][1], abs=1e-5)
        agree.append(len({i for i, _ in approx} & {i for i, _ in exact}) / 5)
    # Random vectors have no real neighbours beyond the planted one; still far above
    # chance (5 of 400).
    assert sum(agree) / len(agree) >= 0.3


def test_approximate_search_keeps_to_the_profile(db):
    vectors, model, rows = _fill(db, 50, profile_id=1)
    clock = ManualClock()
    other = [PendingText("message", 1000 + i, 2, "", 0) for i in range(50)]
    vectors.store(model, other, rows)  # the same vectors, in another profile
    found = vectors.nearest(model, "message", 1, rows[0], 10, exact=False)
    assert found and all(i < 1000 for i, _ in found)
    del clock


def test_small_tables_are_searched_exactly(db, monkeypatch):
    vectors, model, rows = _fill(db, 40)
    monkeypatch.setattr("assistant.memory.vectors.APPROX_MIN_ROWS", 10**9)
    exact = vectors.nearest(model, "message", 1, rows[5], 10)
    assert exact == vectors.nearest(model, "message", 1, rows[5], 10, exact=True)


def test_the_migration_adds_binary_codes_to_existing_vectors(db):
    _, model, _ = _fill(db, 25)
    conn = db.conn
    conn.execute(f"DROP TABLE {model.bit_table('message')}")
    conn.execute("DELETE FROM _migrations WHERE name = 'm005_binary_vectors'")
    assert apply_migrations(conn) == ["m005_binary_vectors"]
    count = conn.execute(f"SELECT count(*) FROM {model.bit_table('message')}").fetchone()[0]
    assert count == 25


def test_fts_query_leaves_out_terms_it_is_told_to_but_never_all():
    assert fts_query("sourdough today", keep=lambda t: t != "today") == '"sourdough"'
    assert fts_query("today", keep=lambda t: False) == '"today"'


def test_keyword_search_skips_very_common_words_in_a_large_archive(db, monkeypatch):
    store = MessageStore(lambda: db.conn, ManualClock())
    profile = store.profile("default")
    session = store.create_session(profile.id)
    for i in range(30):
        store.add_message(session.id, "user", f"today was fine, note {i}")
    target = store.add_message(session.id, "user", "today I baked sourdough")
    monkeypatch.setattr(store_module, "_COMMON_MIN", 5)
    monkeypatch.setattr(store_module, "_COMMON_SHARE", 0.1)
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
