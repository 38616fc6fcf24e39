"""Forgetting for real: the preview, the delete, and no bytes of the words left in the file."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest

from assistant.errors import HippoError
from assistant.memory.facts import Evidence
from assistant.sleep import backup_database
from tests.admin.helpers import START, chat, file_bytes, remember, seed
from tests.plaintext import plaintext_bytes


def test_the_preview_lists_every_tier_that_mentions_the_words(engine, admin, tmp_path):
    seed(engine, tmp_path)

    preview = admin.forget.preview("berlin")

    counts = preview.counts
    assert counts["messages"] == 2 and counts["episodes"] == 1 and counts["facts"] == 1
    assert counts["chunks"] == 1 and counts["documents"] == 1 and counts["core"] == 1
    assert counts["entities"] == 2 and counts["history"] == 4
    assert counts["events"] == 0
    assert {h.text for h in preview.hits["core"]} == {"Sister Anna lives in Berlin."}
    assert not preview.empty and preview.total == sum(counts.values())


def test_the_preview_changes_nothing(engine, admin, tmp_path):
    seed(engine, tmp_path)
    before = admin.export.data()

    admin.forget.preview("Berlin")

    assert {**admin.export.data(), "exported_at": ""} == {**before, "exported_at": ""}


def test_forget_deletes_the_rows_and_keeps_what_does_not_mention_it(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)

    receipt = admin.forget.text("Berlin")

    assert admin.forget.preview("Berlin").empty
    assert receipt.counts["messages"] == 2 and receipt.counts["facts"] == 1
    assert "vacuumed" in " ".join(receipt.housekeeping)
    # The sister fact keeps its other evidence; the pasta fact is untouched.
    sister = admin.facts.get(seeded.sister.id)
    assert [e.ref_id for e in sister.evidence] == [seeded.messages[2].id]
    assert admin.facts.get(seeded.pasta.id).status == "active"
    assert engine.memory.core.block(engine.memory.profile.id, "human").value == "Likes carbonara."
    assert [m.content for m in engine.conversations.history(seeded.berlin.id)] == [
        "She loves the Spree and works at Zalando now.",
        "That sounds like a great fit.",
    ]
    assert (
        engine.conversations.session(seeded.berlin.id).title
        == "She loves the Spree and works at Zalando now."
    )


def test_a_fact_whose_only_evidence_is_forgotten_goes_too(engine, admin):
    _, said = chat(engine, START, "I started learning the cello.", "How exciting!")
    fact = remember(engine, "The user plays a string instrument", Evidence("message", said[0].id))

    preview = admin.forget.preview("cello")
    admin.forget.text("cello")

    assert [h.item_id for h in preview.hits["facts"]] == [fact.id]
    assert admin.facts.count() == 0


def test_the_preview_counts_the_vectors_and_index_rows_that_go(engine, admin, tmp_path):
    seed(engine, tmp_path)
    engine.background.embed_pending()

    preview = admin.forget.preview("Zalando")
    receipt = admin.forget.text("Zalando")

    # The message and episode that say it, and the two messages around the first one.
    assert preview.vectors == receipt.vectors == 4
    assert preview.index_entries == receipt.index_entries == 4


def test_forgotten_words_are_nowhere_in_the_files_bytes(engine, admin, tmp_path):
    seed(engine, tmp_path)
    engine.background.embed_pending()
    assert b"zalando" in file_bytes(engine).lower()

    admin.forget.text("Zalando")

    data = file_bytes(engine).lower()
    assert b"zalando" not in data
    assert b"carbonara" in data  # the rest is still there


def test_forgotten_chinese_words_are_nowhere_in_the_files_bytes(engine, admin):
    _, said = chat(engine, START, "我的妹妹住在北京，她在字节跳动工作。", "北京很好。")
    remember(engine, "用户的妹妹在字节跳动工作", Evidence("message", said[0].id, "字节跳动"))
    chat(engine, START + timedelta(days=1), "我喜欢吃饺子。", "饺子很好吃。")
    engine.background.embed_pending()
    needle = "字节跳动".encode()
    assert needle in file_bytes(engine)

    receipt = admin.forget.text("字节跳动")

    data = file_bytes(engine)
    assert needle not in data
    assert "字节".encode() not in data and "跳动".encode() not in data  # nor its index bigrams
    assert "饺子".encode() in data
    assert receipt.counts["facts"] == 1 and receipt.counts["messages"] == 1


def test_forget_scrubs_the_backups_next_to_the_file_and_says_so(engine, admin, tmp_path):
    seed(engine, tmp_path)
    nightly = backup_database(engine.memory.db.conn, engine.memory.db.path, engine.clock.now())
    manual = admin.export.backup()
    assert b"Zalando" in plaintext_bytes(nightly) and b"Zalando" in plaintext_bytes(manual)

    receipt = admin.forget.text("Zalando")

    assert set(receipt.backups) == {nightly, manual}
    for path in (nightly, manual):
        assert b"zalando" not in (plaintext_bytes(path) + path.read_bytes()).lower()
        assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert "scrubbed" in receipt.text() and "elsewhere" in receipt.text()


def test_forget_can_delete_the_backups_instead(engine, admin, tmp_path):
    seed(engine, tmp_path)
    nightly = backup_database(engine.memory.db.conn, engine.memory.db.path, engine.clock.now())

    admin.forget.text("Zalando", backups="delete")

    assert not nightly.exists()


def test_forgetting_nothing_is_refused(admin):
    with pytest.raises(HippoError, match="empty"):
        admin.forget.text("   ")


def test_deleting_a_session_removes_everything_derived_from_it_only(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)

    receipt = admin.forget.delete_session(seeded.berlin.id)

    assert receipt.counts["sessions"] == 1 and receipt.counts["messages"] == 4
    assert receipt.counts["episodes"] == 1 and receipt.counts["facts"] == 2
    assert [f.id for f in admin.facts.list()] == [seeded.pasta.id]
    assert b"Zalando" not in file_bytes(engine)
    assert (
        "Anna" in engine.memory.core.block(engine.memory.profile.id, "human").value
    )  # the user's own words


def test_deleting_another_profiles_session_is_refused(engine, admin, tmp_path):
    other = engine.memory.messages.profile("work")
    session = engine.memory.messages.create_session(other.id)

    with pytest.raises(HippoError, match="another profile"):
        admin.forget.delete_session(session.id)


def test_an_incognito_session_keeps_nothing_after_it_ends(engine, admin):
    # One an older Hippo wrote to the file (today's never reach it).
    session = engine.memory.messages.file.create_session(engine.memory.profile.id, incognito=True)
    said = engine.memory.messages.add_message(session.id, "user", "My PIN is 4711, keep it secret.")
    remember(
        engine,
        "The user's PIN is 4711",
        Evidence("message", said.id),
        source="assistant_inferred",
        actor="agent",
    )
    engine.background.embed_pending()

    receipt = admin.forget.end_session(session.id)

    assert receipt is not None and receipt.counts["facts"] == 1
    assert engine.conversations.sessions() == []
    assert b"4711" not in file_bytes(engine)


def test_ending_an_ordinary_session_deletes_nothing(engine, admin):
    session, _ = chat(engine, START, "Hello there.", "Hi!")

    assert admin.forget.end_session(session.id) is None
    assert len(engine.conversations.history(session.id)) == 2


def test_incognito_sessions_left_by_a_crash_are_purged_at_start_up(engine, admin):
    kept, _ = chat(engine, START, "A normal chat.", "Yes.")
    chat(engine, START, "Secret plans for the surprise party.", "Ok.", incognito=True)
    current, _ = chat(engine, START, "Another secret.", "Ok.", incognito=True)

    receipt = admin.forget.purge_incognito(keep=[current.id])

    assert receipt is not None
    assert {s.id for s in engine.conversations.sessions()} == {kept.id, current.id}
    assert admin.forget.purge_incognito(keep=[current.id]) is None


def test_sleep_never_consolidates_an_incognito_session(engine, fake_ollama, clock):
    from tests.sleep.helpers import episode, episodes, facts, sleep

    secret, _ = chat(
        engine, START, "I secretly applied for a new job.", "Good luck!", incognito=True
    )
    kept, said = chat(engine, START, "I repotted the basil today.", "Nice!")
    clock.advance(days=90)
    fake_ollama.script(episodes(episode(said[0].id, said[1].id, "Basil was repotted.")), facts())

    report = sleep(engine)

    assert report.llm_calls == 2  # the kept session's summary and extraction only
    assert [e.session_id for e in engine.memory.episodes.recent(engine.memory.profile.id)] == [
        kept.id
    ]
    assert engine.memory.episodes.for_session(secret.id) == []


def test_the_data_file_stays_private_after_a_forget(engine, admin, tmp_path):
    seed(engine, tmp_path)

    admin.forget.text("Berlin")

    assert oct(os.stat(engine.memory.db.path).st_mode & 0o777) == "0o600"


def test_forget_deletes_the_vectors_copies_in_their_cells(engine, admin, tmp_path):
    from assistant.memory import vector_cells
    from assistant.memory.vector_cells import CellSizes

    engine.memory.vectors.cells = CellSizes(cells=2, min_rows=1)  # a few dozen vectors get cells
    seed(engine, tmp_path)
    engine.background.embed_pending()
    model = engine.memory.vectors.model(engine.memory.embedder.vector_key)
    engine.memory.vectors.build_cells(model)
    copy = vector_cells.partition_table(model.table("message"))  # the vectors' only copy
    conn = engine.memory.db.conn
    before = {row[0] for row in conn.execute(f"SELECT item_id FROM {copy}")}
    said = {
        row[0] for row in conn.execute("SELECT id FROM messages WHERE content LIKE '%Zalando%'")
    }

    admin.forget.text("Zalando")

    copied = {row[0] for row in conn.execute(f"SELECT item_id FROM {copy}")}
    assert said and said <= before
    assert copied and not copied & said
