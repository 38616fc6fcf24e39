"""A file an older Hippo encrypted with ChaCha20-Poly1305 opens, and moves to AEGIS-256."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from assistant.config import load_config
from assistant.datakey import KeyStore
from assistant.encryption import encryption_status, prepare_data_file, rekey
from data_schema.cipher import cipher_of, copy_into, table_counts
from data_schema.connect import connect
from tests.encryption.helpers import SENTENCE, plaintext_file, row_counts
from tests.plaintext import plaintext_bytes


@pytest.fixture
def chacha_file(tmp_path) -> tuple[Path, dict[str, int]]:
    """The data file as the Hippo before AEGIS left it: encrypted with ChaCha20-Poly1305."""
    path = load_config().db_path
    source = tmp_path / "plain.db"
    plaintext_file(source, rows=300)
    key = KeyStore.for_config(load_config()).for_new_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = apsw.Connection(str(source), flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_URI)
    copy_into(conn, path, key=key, cipher="chacha20")
    counts = table_counts(conn)
    conn.close()
    assert cipher_of(path, key) == "chacha20"
    return path, counts


def test_a_file_under_the_older_cipher_still_opens(chacha_file):
    path, counts = chacha_file
    assert row_counts(path) == counts  # connect tries the older cipher after the current one


def test_the_next_start_moves_it_to_aegis_with_the_same_key(chacha_file):
    path, counts = chacha_file
    keys = KeyStore.for_config(load_config())
    reports: list[tuple[str, float]] = []

    prepare_data_file(path, keys, lambda what, share: reports.append((what, share)))

    assert cipher_of(path, keys.current()) == "aegis"
    assert row_counts(path) == counts
    assert SENTENCE.encode() in plaintext_bytes(path)  # readable with the same key, by AEGIS
    assert ("Moving the data file to a faster cipher", 1.0) in reports
    assert any("AEGIS-256" in notice for notice in keys.notices)
    assert not list(path.parent.rglob("*.recrypting"))

    again = KeyStore.for_config(load_config())
    prepare_data_file(path, again, lambda what, share: reports.append(("again", share)))
    assert not again.notices and ("again", 1.0) not in reports  # nothing left to do


def test_while_another_hippo_has_it_open_the_move_waits_and_nothing_is_lost(chacha_file):
    path, counts = chacha_file
    other = connect(path, migrate=False, keys=KeyStore.from_environment())  # a sleep, mid-run
    other.execute("SELECT count(*) FROM filler").fetchone()
    keys = KeyStore.for_config(load_config())
    try:
        prepare_data_file(path, keys)
    finally:
        other.close()

    assert cipher_of(path, keys.current()) == "chacha20"
    assert row_counts(path) == counts
    assert any("at a start when nothing else has it open" in n for n in keys.notices)
    prepare_data_file(path, KeyStore.for_config(load_config()))
    assert cipher_of(path, keys.current()) == "aegis"


def test_doctor_says_which_cipher_the_file_is_under(chacha_file):
    path, _ = chacha_file
    keys = KeyStore.for_config(load_config())
    encrypted, _ = encryption_status(path, keys)
    assert encrypted == "yes (ChaCha20-Poly1305 per page; AEGIS-256 from the next start)"
    prepare_data_file(path, keys)
    assert encryption_status(path, keys)[0] == "yes (AEGIS-256 per page)"


def test_a_rekey_writes_the_file_and_its_older_backups_with_aegis(memory_keyring, chacha_file):
    path, counts = chacha_file
    backup = path.parent / "backups" / "hippo-20250101-030000-000000.db"
    backup.parent.mkdir()
    conn = connect(path, migrate=False, keys=KeyStore.from_environment())
    conn.execute("VACUUM INTO ?", (str(backup),))  # a copy keeps its source's cipher
    conn.close()
    old = KeyStore.for_config(load_config()).current()
    assert cipher_of(backup, old) == "chacha20"

    done = rekey(path, KeyStore.for_config(load_config()))

    new = KeyStore.for_config(load_config()).current()
    assert set(done.files) == {path, backup}
    for file in (path, backup):
        assert cipher_of(file, new) == "aegis" and row_counts(file) == counts
