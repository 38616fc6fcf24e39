"""Sleep's backups stay within three times the compacted file, and the run compacts it."""

from __future__ import annotations

import os
from pathlib import Path

from assistant.sleep import backups
from assistant.sleep.backup import BACKUP_DIR, BACKUPS_SHARE
from tests.sleep.helpers import chat, sleep


def _old_backups(engine, count: int, size: int) -> list[Path]:
    """``count`` backups of ``size`` bytes from nights before, oldest first."""
    folder = engine.memory.db.path.parent / BACKUP_DIR
    folder.mkdir(mode=0o700, exist_ok=True)
    made = []
    for night in range(count):
        path = folder / f"hippo-202611{night + 1:02d}-030000-000000.db"
        path.write_bytes(b"\0" * size)
        os.utime(path, (1_700_000_000 + night, 1_700_000_000 + night))
        made.append(path)
    return made


def test_backups_together_take_at_most_three_times_the_file_oldest_dropped_first(
    engine, fake_ollama, clock
):
    chat(engine, clock.now(), "I moved to Lisbon.", "Lisbon is lovely.")
    size = Path(engine.memory.db.path).stat().st_size  # the old file was as large as this one
    old = _old_backups(engine, 6, size)

    report = sleep(engine)  # keeps 7 by count alone

    kept = backups(engine.memory.db.path)
    newest = Path(report.backup_path)
    assert kept[-1] == newest
    assert sum(p.stat().st_size for p in kept) <= BACKUPS_SHARE * newest.stat().st_size
    assert len(kept) >= 2  # the newest and, room permitting, the nights before it
    assert kept[:-1] == old[len(old) - len(kept) + 1 :]  # the newest old ones stayed


def test_the_new_backup_is_kept_even_when_older_ones_are_huge(engine, fake_ollama, clock):
    chat(engine, clock.now(), "I moved to Lisbon.", "Lisbon is lovely.")
    _old_backups(engine, 3, 40 * Path(engine.memory.db.path).stat().st_size)

    report = sleep(engine)

    assert backups(engine.memory.db.path) == [Path(report.backup_path)]


def test_a_sleep_run_gives_the_space_deletes_freed_back(engine, fake_ollama, clock):
    session, _ = chat(engine, clock.now(), "x" * 500_000, "y" * 500_000, "z" * 500_000)
    # Deleted as a store deletes (forget's scrub would compact the file itself).
    engine.memory.db.conn.execute("DELETE FROM messages WHERE session_id = ?", (session.id,))
    engine.memory.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    before = Path(engine.memory.db.path).stat().st_size

    sleep(engine)
    engine.memory.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    assert Path(engine.memory.db.path).stat().st_size < before - 1_000_000
