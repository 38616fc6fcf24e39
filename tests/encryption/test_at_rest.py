"""What lies on disk: a sentence Hippo was told is in no file's bytes, only in decrypted pages."""

from __future__ import annotations

from pathlib import Path

from assistant.sleep import backup_database
from data_schema.cipher import file_state
from tests.encryption.helpers import SENTENCE
from tests.plaintext import plaintext_bytes


def _on_disk(path: Path) -> bytes:
    return b"".join(
        Path(f"{path}{s}").read_bytes() for s in ("", "-wal") if Path(f"{path}{s}").exists()
    )


def test_a_sentence_written_is_in_no_raw_byte_of_the_file_its_wal_or_its_backups(engine):
    session = engine.conversations.new_session()
    engine.memory.messages.add_message(session.id, "user", SENTENCE)
    nightly = backup_database(engine.memory.db.conn, engine.memory.db.path, engine.clock.now())
    manual = engine.admin.export.backup()
    needle = SENTENCE.encode()
    path = engine.memory.db.path
    assert Path(f"{path}-wal").stat().st_size > 0  # the sentence is in the WAL too
    assert needle in plaintext_bytes(path)  # the check below can fail

    engine.close()

    for file in (path, nightly, manual):
        assert file_state(file) == "encrypted"
        assert needle in plaintext_bytes(file)
    assert needle not in _on_disk(path) + nightly.read_bytes() + manual.read_bytes()
    assert b"blue shed" not in _on_disk(path)  # nor a piece of it (FTS5 keeps words)


def test_keyword_and_meaning_search_work_on_the_encrypted_file(engine):
    session = engine.conversations.new_session()
    engine.memory.messages.add_message(session.id, "user", SENTENCE)
    engine.background.embed_pending()

    hits = engine.memory.search_messages("where is the spare key for the shed?")

    assert file_state(engine.memory.db.path) == "encrypted"
    assert hits and hits[0].message.content == SENTENCE
    assert hits[0].keyword > 0 and hits[0].vector is not None  # FTS5 and sqlite-vec both


def test_forget_leaves_the_words_in_no_decrypted_page_nor_in_the_ciphertext(engine):
    engine.memory.db.conn.execute(
        "PRAGMA secure_delete = OFF"
    )  # forget must not rely on the default
    session = engine.conversations.new_session()
    engine.memory.messages.add_message(session.id, "user", SENTENCE)
    engine.memory.messages.add_message(session.id, "user", "Tomatoes need water every morning")
    engine.background.embed_pending()
    backup = backup_database(engine.memory.db.conn, engine.memory.db.path, engine.clock.now())

    engine.admin.forget.text("blue shed")

    for file in (engine.memory.db.path, backup):
        pages = plaintext_bytes(file).lower()  # every page decrypted, free ones and WAL too
        assert b"blue shed" not in pages and b"calendar" not in pages
        assert b"tomatoes" in pages
        assert b"blue shed" not in _on_disk(file).lower()
