"""m007: keyword indexes written before CJK characters were indexed are rebuilt."""

from __future__ import annotations

from data_schema.connect import connect
from data_schema.migrations import MIGRATIONS, applied_migrations, schema_version

SAID = "2026-04-05T21:00:00+00:00"
# What Hippo wrote into the indexes before m007: CJK runs as bigrams only.
OLD_BODY = "5 April 2026 陈思远: 昨天 天在 在断 断桥 桥求 求的 的婚 ！"
OLD_CONTEXT = "恭喜 喜恭 恭喜"


def _file_before_m007(path):
    conn = connect(path, migrate=False)
    applied_migrations(conn)  # creates the record table
    stop = [fn.__name__ for fn in MIGRATIONS].index("m007_cjk_characters_in_keyword_indexes")
    for fn in MIGRATIONS[:stop]:
        with conn:
            fn(conn)
            conn.execute("INSERT INTO _migrations VALUES (?, 'then')", (fn.__name__,))
    conn.execute("INSERT INTO profiles(name, created_at) VALUES ('me', ?)", (SAID,))
    conn.execute(
        "INSERT INTO sessions(profile_id, started_at, last_active_at) VALUES (1, ?, ?)",
        (SAID, SAID),
    )
    turns = (("昨天在断桥求的婚！", "陈思远"), ("恭喜恭喜", "助手"), ("my passport", "A"))
    for text, speaker in turns:
        conn.execute(
            "INSERT INTO messages(profile_id, session_id, role, content, created_at, speaker)"
            " VALUES (1, 1, 'user', ?, ?, ?)",
            (text, SAID, speaker),
        )
    conn.execute(
        "INSERT INTO messages_fts(rowid, body, context) VALUES (1, ?, ?)", (OLD_BODY, OLD_CONTEXT)
    )
    conn.execute(
        "INSERT INTO messages_fts(rowid, body, context) VALUES (3, ?, ?)",
        ("5 April 2026 A: my passport", OLD_CONTEXT),
    )
    conn.execute(
        "INSERT INTO events(profile_id, text, occurred_at, created_at) VALUES (1, ?, ?, ?)",
        ("老孟每周六上午打羽毛球", SAID, SAID),
    )
    conn.execute(
        "INSERT INTO events_fts(rowid, body) VALUES (1, ?)",
        ("老孟 孟每 每周 周六 六上 上午 午打 打羽 羽毛 毛球",),
    )
    return conn


def _found(conn, table, term):
    return [
        row[0]
        for row in conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (f'"{term}"',))
    ]


def test_a_word_split_by_a_particle_is_found_after_the_upgrade(tmp_path):
    old = _file_before_m007(tmp_path / "hippo.db")
    assert _found(old, "messages_fts", "婚") == []
    old.close()
    conn = connect(tmp_path / "hippo.db")
    assert schema_version(conn) == MIGRATIONS[-1].__name__
    assert _found(conn, "messages_fts", "婚") == [1]  # "求婚", written "求的婚"
    assert _found(conn, "messages_fts", "断桥") == [1]
    assert _found(conn, "events_fts", "球") == [1]
    conn.close()


def test_the_upgrade_keeps_what_else_the_index_held(tmp_path):
    _file_before_m007(tmp_path / "hippo.db").close()
    conn = connect(tmp_path / "hippo.db")
    assert _found(conn, "messages_fts", "passport") == [3]
    assert _found(conn, "messages_fts", "april") == [1, 3]  # the date stays in the body
    # The middle turn is in the context of the turns around it; itself, it was never
    # indexed, and still isn't.
    assert _found(conn, "messages_fts", "喜") == [1, 3]
    conn.close()
