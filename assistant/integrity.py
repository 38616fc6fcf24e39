"""Is the data file intact? SQLite's quick check, and the newest backup that passes it.

``PRAGMA quick_check`` reads every page and checks each b-tree's structure (it skips only
the index-versus-table comparison of ``integrity_check``), so it finds a torn or overwritten
page without the full check's cost. The app runs it in the background after the first
frame; ``hippo ask`` before it answers; sleep refuses to consolidate a file that fails it,
since it would read damaged rows and write on top of them.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from assistant.errors import DamagedFile, HippoError
from data_schema.damage import clear_damage, mark_damaged

if TYPE_CHECKING:
    from data_schema.cipher import KeySource

__all__ = [
    "check_file",
    "damage_message",
    "file_problems",
    "newest_good_backup",
    "require_intact",
    "require_intact_daily",
]

# How long a passed check vouches for the file to `hippo ask`. The check reads every page
# (about 30 ms a megabyte here: seconds for a large file), too slow for a command scripts
# call in loops; a day bounds how long damage can go unnoticed by `ask` alone, and the app
# (each launch, in the background) and sleep (each run) still check every time.
CHECK_VOUCHES_S = 24 * 3600

_SHOWN = 3  # problems quoted in a message; quick_check can list thousands


def file_problems(conn: apsw.Connection, limit: int = 20) -> list[str]:
    """What SQLite's quick check finds wrong with the file behind ``conn`` ([] if intact)."""
    try:
        rows = [row[0] for row in conn.execute(f"PRAGMA quick_check({int(limit)})")]
    except apsw.Error as exc:  # damage can stop the check itself
        return [f"{type(exc).__name__}: {exc}"]
    return [] if rows == ["ok"] else [str(row) for row in rows]


def _backups_newest_first(db_path: Path) -> list[Path]:
    """Sleep's backups and `hippo backup create`'s manual ones, newest first."""
    from assistant.sleep.backup import BACKUP_DIR, backups  # the sleep package imports us

    folder = Path(db_path).parent / BACKUP_DIR
    found = [*backups(db_path), *(folder.glob("manual-*.db") if folder.is_dir() else [])]
    return sorted(found, key=lambda path: path.stat().st_mtime_ns, reverse=True)


def newest_good_backup(db_path: Path, keys: KeySource | None = None) -> Path | None:
    """The newest backup of ``db_path`` (in ``backups/``) that passes the quick check.

    Args:
        db_path: the data file.
        keys: the keys to open backups with (default: this user's, as the environment says).
    """
    from data_schema.connect import connect

    for backup in _backups_newest_first(db_path):
        try:
            conn = connect(backup, migrate=False, keys=keys)
        except HippoError:
            continue
        try:
            if not file_problems(conn):
                return backup
        finally:
            conn.close()
    return None


def damage_message(db_path: Path, problems: list[str]) -> str:
    """What is wrong with the data file and what to do: restore the newest good backup."""
    # A row of the check can hold many lines ("*** in database main ***" and a line a page).
    lines = [line.strip() for row in problems for line in row.splitlines()]
    lines = [line for line in lines if line and not line.startswith("***")] or ["?"]
    found = "; ".join(lines[:_SHOWN]) + (" ..." if len(lines) > _SHOWN else "")
    good = newest_good_backup(db_path)
    if good is not None:
        advice = (
            f"Restore the newest backup that passes the check with `hippo backup restore "
            f"{good}` (the damaged file is kept aside)"
        )
    else:
        advice = (
            "No backup next to it passes the check: export what still reads with "
            "`hippo profile export -o FILE`, then move the file aside to start afresh"
        )
    return (
        f"The data file {db_path} is damaged: it fails SQLite's integrity check ({found}). "
        f"{advice}. Sleep will not consolidate it until then."
    )


def check_file(conn: apsw.Connection, db_path: Path) -> str | None:
    """Run the quick check; return what is wrong and what to do (None: intact).

    A damaged file is marked so (`data_schema.damage`): until a check passes or the file
    is replaced, every connection opened on it refuses writes with this message.
    """
    db_path = Path(db_path)
    if problems := file_problems(conn):
        message = damage_message(db_path, problems)
        mark_damaged(db_path, message)
        return message
    clear_damage(db_path)
    return None


def require_intact(conn: apsw.Connection, db_path: Path) -> None:
    """Raise unless the file behind ``conn`` passes the quick check.

    Raises:
        DamagedFile: it failed; the message says how and which backup to restore.
    """
    if message := check_file(conn, db_path):
        raise DamagedFile(message)
    with contextlib.suppress(OSError):  # a read-only folder: checked all the same
        _stamp(Path(db_path)).touch(mode=0o600)


def require_intact_daily(conn: apsw.Connection, db_path: Path, *, now: float | None = None) -> None:
    """`require_intact`, unless a check of this file passed within `CHECK_VOUCHES_S`.

    Raises:
        DamagedFile: the check ran and failed.
    """
    stamp = _stamp(Path(db_path))
    now = time.time() if now is None else now
    try:
        if now - stamp.stat().st_mtime < CHECK_VOUCHES_S:
            return
    except OSError:  # never checked, or the stamp is gone: check now
        pass
    require_intact(conn, db_path)


def _stamp(db_path: Path) -> Path:
    """The empty file beside the data file whose time says when a check last passed."""
    return db_path.with_name(db_path.name + ".checked")
