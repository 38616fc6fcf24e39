"""A data file that fails SQLite's integrity check: said at once, never consolidated, restorable."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.errors import DamagedFile
from assistant.integrity import file_problems, newest_good_backup
from data_schema.connect import connect
from tests.admin.helpers import START, chat


def damage_an_index(db_path: Path) -> None:
    """Overwrite the b-tree header of an index page, as a torn write or bad sector would."""
    conn = connect(db_path, migrate=False)  # with the file's key: the file is encrypted
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    (root,) = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'messages'"
        " AND rootpage > 0 ORDER BY name LIMIT 1"
    ).fetchone()
    conn.close()
    with open(db_path, "r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xff" * 12)


@pytest.fixture
def damaged(engine, config, fake_ollama, monkeypatch, capsys):
    """A data file with a good backup taken before an index page was overwritten."""
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    chat(engine, START, "My sister Anna moved to Berlin.", "Lovely.")
    good = engine.admin.export.backup()
    chat(engine, START, "Written after the backup.", "Noted.")
    engine.close()
    damage_an_index(config.db_path)
    capsys.readouterr()
    return good


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_an_intact_file_passes_and_a_damaged_one_is_described(engine, config):
    assert file_problems(engine.memory.db.conn) == []
    chat(engine, START, "hello", "hi")
    engine.close()
    damage_an_index(config.db_path)
    conn = connect(config.db_path, migrate=False)
    try:
        assert file_problems(conn)
    finally:
        conn.close()


def test_sleep_refuses_a_damaged_file_and_offers_the_good_backup(damaged, config, capsys):
    code, _, err = _run(capsys, "sleep", "--now")
    assert code == 1 and "Traceback" not in err
    assert "is damaged: it fails SQLite's integrity check" in err
    assert f"hippo backup restore {damaged}" in err
    conn = connect(config.db_path, migrate=False)
    try:
        assert conn.execute("SELECT count(*) FROM sleep_runs").fetchone()[0] == 0
    finally:
        conn.close()


def test_sleep_in_the_engine_raises_before_doing_anything(damaged, config):
    from tests.ui.conftest import make_engine

    engine = make_engine(config)
    try:
        with pytest.raises(DamagedFile, match="hippo backup restore"):
            engine.consolidate(trigger="catch_up")
    finally:
        engine.close()


def test_ask_refuses_before_writing_and_says_what_to_restore(damaged, capsys):
    code, out, err = _run(capsys, "ask", "hello")
    assert code == 1 and out == "" and "Traceback" not in err
    assert "is damaged" in err and f"hippo backup restore {damaged}" in err


def test_a_check_passed_today_vouches_for_the_file_to_ask_and_an_older_one_does_not(engine, config):
    from assistant.integrity import CHECK_VOUCHES_S, require_intact_daily

    require_intact_daily(engine.memory.db.conn, config.db_path)  # passes, and leaves its stamp
    checked = time.time()
    engine.close()
    damage_an_index(config.db_path)
    conn = connect(config.db_path, migrate=False)
    try:
        require_intact_daily(conn, config.db_path, now=checked + 60)  # vouched for: no read
        with pytest.raises(DamagedFile):
            require_intact_daily(conn, config.db_path, now=checked + CHECK_VOUCHES_S + 1)
    finally:
        conn.close()


def test_doctor_says_which_backup_to_restore(damaged, capsys):
    code, out, _ = _run(capsys, "doctor")
    assert code == 1 and f"hippo backup restore {damaged}" in out


def test_restore_swaps_in_the_backup_and_keeps_the_damaged_file(damaged, config, capsys):
    damaged_bytes = config.db_path.read_bytes()
    code, out, err = _run(capsys, "memory", "restore", str(damaged), "--yes", "--no-carry-over")
    assert code == 0, err
    assert f"Restored {damaged}" in out and "Set aside: the file it replaced, kept at" in out
    assert "were not carried over" in out
    (kept,) = config.db_path.parent.glob("hippo.db.replaced-*")
    assert kept.read_bytes() == damaged_bytes
    assert "Written after the backup." not in _texts(config.db_path)
    assert "My sister Anna moved to Berlin." in _texts(config.db_path)
    assert _run(capsys, "sleep", "--now")[0] == 0


def _texts(db_path: Path) -> list[str]:
    conn = connect(db_path)
    try:
        assert file_problems(conn) == []
        return [row[0] for row in conn.execute("SELECT content FROM messages")]
    finally:
        conn.close()


def test_a_restore_carries_over_what_was_saved_after_the_backup(damaged, config, capsys):
    code, out, err = _run(capsys, "backup", "restore", str(damaged), "--yes")
    assert code == 0, err
    assert "Carried over from it what the backup lacked: " in out and "2 messages" in out
    assert "Written after the backup." in _texts(config.db_path)
    # Found by search as when it was written: indexed again, queued for its vector.
    code, out, _ = _run(capsys, "message", "search", "written")
    assert code == 0 and "Written after the backup." in out
    code, out, _ = _run(capsys, "event", "add", "the file takes writes again")
    assert code == 0


def test_writes_to_a_file_known_damaged_are_refused_and_reads_still_work(damaged, capsys):
    code, doctor, _ = _run(capsys, "doctor")
    assert code == 1 and "is damaged" in doctor
    code, _, err = _run(capsys, "event", "add", "an event the damaged file must not take")
    assert code == 1 and "Traceback" not in err
    assert "is damaged: it fails SQLite's integrity check" in err
    assert f"hippo backup restore {damaged}" in err
    code, out, err = _run(capsys, "message", "search", "Anna")
    assert code == 0 and "My sister Anna moved to Berlin." in out, err
    code, out, _ = _run(capsys, "event", "list")
    assert code == 0


def test_restore_by_file_name_asks_first_and_a_no_changes_nothing(
    damaged, config, capsys, monkeypatch
):
    before = config.db_path.read_bytes()
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code, out, _ = _run(capsys, "memory", "restore", damaged.name)
    assert code == 1 and "Nothing was restored." in out
    assert config.db_path.read_bytes() == before


def test_restore_refuses_a_damaged_or_missing_backup(damaged, config, capsys):
    damage_an_index(damaged)
    before = config.db_path.read_bytes()
    code, _, err = _run(capsys, "memory", "restore", str(damaged), "--yes")
    assert code == 1 and "fails SQLite's integrity check too" in err
    code, _, err = _run(capsys, "memory", "restore", "no-such-backup.db", "--yes")
    assert code == 1 and "There is no backup 'no-such-backup.db'" in err
    assert config.db_path.read_bytes() == before


def test_without_a_good_backup_the_message_says_to_export(damaged, config, capsys):
    damage_an_index(damaged)
    assert newest_good_backup(config.db_path) is None
    code, _, err = _run(capsys, "sleep", "--now")
    assert code == 1 and "No backup next to it passes the check" in err


def test_a_file_of_random_bytes_is_called_damaged_and_its_good_backup_named(engine, config, capsys):
    import os

    chat(engine, START, "My sister Anna moved to Berlin.", "Lovely.")
    good = engine.admin.export.backup()
    engine.close()
    size = config.db_path.stat().st_size
    config.db_path.write_bytes(os.urandom(size))
    capsys.readouterr()
    code, _, err = _run(capsys, "event", "list")
    assert code == 1 and "Traceback" not in err
    assert "the file is damaged, not the key wrong" in err
    assert f"hippo backup restore {good}" in err
    code, out, _ = _run(capsys, "doctor")
    assert code == 1 and f"hippo backup restore {good}" in out
