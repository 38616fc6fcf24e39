"""The keyword indexes merged into few segments: same search results, fewer lookups."""

from __future__ import annotations

import apsw

from data_schema.connect import Database
from data_schema.keyword_indexes import keyword_indexes, merge_keyword_indexes


def segments(conn: apsw.Connection, table: str) -> int:
    """How many segments of ``table``'s index hold terms."""
    return int(conn.execute(f"SELECT count(DISTINCT segid) FROM {table}_idx").fetchone()[0])


def _search(conn: apsw.Connection, query: str) -> list[tuple[int, float]]:
    return conn.execute(
        "SELECT rowid, rank FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank", (query,)
    ).fetchall()


def _write_one_at_a_time(conn: apsw.Connection, texts: list[str]) -> None:
    # Each statement its own transaction, as each message of a chat: a segment each.
    for rowid, text in enumerate(texts, start=1):
        conn.execute(
            "INSERT INTO messages_fts(rowid, body, context) VALUES (?, ?, '')", (rowid, text)
        )
    conn.execute("DELETE FROM messages_fts WHERE rowid = 2")  # a tombstone, one more


def test_every_fts5_table_of_the_schema_is_a_keyword_index(tmp_path):
    db = Database(tmp_path / "hippo.db")
    names = keyword_indexes(db.conn)
    assert {"messages_fts", "episodes_fts", "facts_fts", "chunks_fts", "events_fts"} <= set(names)
    assert not any(n.endswith(("_data", "_idx", "_config", "_docsize")) for n in names)
    db.close()


def test_a_merge_leaves_one_segment_and_the_same_search_results(tmp_path):
    db = Database(tmp_path / "hippo.db")
    conn = db.conn
    words = ["apple", "banana", "cherry", "damson", "elder", "fig", "grape"]
    _write_one_at_a_time(conn, [f"{w} pie and {words[n - 1]} jam" for n, w in enumerate(words)])
    assert segments(conn, "messages_fts") > 1
    before = {q: _search(conn, q) for q in ("apple", "pie", "jam OR fig", "banana")}

    merge_keyword_indexes(conn)

    assert segments(conn, "messages_fts") == 1
    assert {q: _search(conn, q) for q in before} == before
    db.close()


def test_a_merge_with_a_small_budget_leaves_every_result_in_place(tmp_path):
    db = Database(tmp_path / "hippo.db")
    conn = db.conn
    _write_one_at_a_time(conn, [f"note {n} about the garden" for n in range(40)])
    before = _search(conn, "garden OR note")

    merge_keyword_indexes(conn, pages=1)  # a large index: merged a little at a time

    assert _search(conn, "garden OR note") == before
    db.close()
