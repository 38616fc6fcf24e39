"""``hippo backup restore BACKUP``: put a backup in place of the data file, keeping the old one.

The backup is checked first (a Hippo file that passes SQLite's quick check), copied next
to the data file, and swapped in with a rename, so a crash leaves either the old file or
the restored one, never half of each. The file it replaces is renamed, not deleted: it
may hold changes made after the backup.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from assistant.datakey import KeyStore
from assistant.errors import HippoError, InvalidInput, NotFound, StorageError
from assistant.integrity import file_problems
from assistant.memory.profile_data.carry_over import CarriedOver, carry_over
from assistant.sleep.backup import BACKUP_DIR

__all__ = ["RestoreReceipt", "find_backup", "restore_backup"]


@dataclass(frozen=True)
class RestoreReceipt:
    """What a restore did: what it put in place, what it set aside, what it carried over."""

    backup: Path
    data_file: Path
    kept: Path | None
    carried: CarriedOver | None = None
    carry_failed: str = ""

    def text(self) -> str:
        """The receipt as sentences for the user."""
        said = [f"Restored {self.backup} as the data file {self.data_file}."]
        if self.kept is None:
            return said[0]
        said.append(f"Set aside: the file it replaced, kept at {self.kept}.")
        if self.carried is not None:
            said.append(self.carried.text())
        elif self.carry_failed:
            said.append(f"Nothing could be carried over from it ({self.carry_failed}).")
        else:
            said.append(
                "Rows saved after the backup were not carried over (--no-carry-over): they "
                "are only in the file set aside."
            )
        said.append("Delete the set-aside file once you are sure you don't need it.")
        return " ".join(said)


def find_backup(db_path: Path, name: str) -> Path:
    """The backup ``name`` names: a path, or a file name in ``backups/`` next to the data file.

    Raises:
        NotFound: there is no such file.
    """
    given = Path(name).expanduser()
    for candidate in (given, Path(db_path).parent / BACKUP_DIR / given.name):
        if candidate.is_file():
            return candidate
    raise NotFound(
        f"There is no backup {name!r}: give a path, or a file name from "
        f"{Path(db_path).parent / BACKUP_DIR} (`hippo doctor` names the newest good one)."
    )


def _check(backup: Path) -> None:
    from data_schema.connect import connect
    from data_schema.migrations import schema_version

    try:
        conn = connect(backup, migrate=False, keys=KeyStore.from_environment())
    except HippoError as exc:
        raise StorageError(f"{backup} can't be restored: {exc}") from None
    try:
        problems = file_problems(conn)
        if problems:
            raise StorageError(
                f"{backup} fails SQLite's integrity check too ({problems[0]}); nothing was "
                "restored. Choose an older backup."
            )
        schema_version(conn)
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'profiles'").fetchone() is None:
            raise StorageError(f"{backup} is not a Hippo data file; nothing was restored.")
    finally:
        conn.close()


def restore_backup(
    db_path: Path, backup: Path, now: datetime, *, carry: bool = True
) -> RestoreReceipt:
    """Check ``backup``, then make it the data file; the replaced file is renamed aside.

    Args:
        db_path: the data file (nothing may have it open).
        backup: the backup to restore.
        now: names the replaced file (``hippo.db.replaced-<time>``).
        carry: bring across the rows the replaced file holds that the backup does not
            (see `assistant.memory.profile_data.carry_over`), so that no write the user
            was told was saved is lost by the restore.

    Raises:
        StorageError: the backup is missing, damaged or not Hippo's; or the copy failed
            (the data file is then untouched).
    """
    db_path, backup = Path(db_path), Path(backup)
    if backup.resolve() == db_path.resolve():
        raise InvalidInput(f"{backup} is the data file itself; choose a backup.")
    _check(backup)
    staged = db_path.with_name(f".{db_path.name}.restoring")
    try:
        staged.unlink(missing_ok=True)
        os.close(os.open(staged, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600))
        shutil.copyfile(backup, staged)
        with open(staged, "rb+") as handle:
            os.fsync(handle.fileno())
    except OSError as exc:
        staged.unlink(missing_ok=True)
        raise StorageError(
            f"Could not copy {backup} next to the data file: {exc.strerror}. Nothing changed."
        ) from exc
    kept = _set_aside(db_path, now)
    os.replace(staged, db_path)
    if kept is None or not carry:
        return RestoreReceipt(backup, db_path, kept)
    try:
        return RestoreReceipt(backup, db_path, kept, carried=_carry(db_path, kept))
    except HippoError as exc:
        return RestoreReceipt(backup, db_path, kept, carry_failed=str(exc))


def _carry(db_path: Path, kept: Path) -> CarriedOver:
    """Carry the rows ``kept`` holds beyond the restored file into it."""
    from data_schema.connect import connect

    keys = KeyStore.from_environment()
    new = connect(db_path, keys=keys)  # migrated: an older backup gets today's schema first
    try:
        old = connect(kept, migrate=False, keys=keys)
        try:
            return carry_over(new, old)
        finally:
            old.close()
    finally:
        new.close()


def _set_aside(db_path: Path, now: datetime) -> Path | None:
    """Rename the data file and its WAL/SHM aside; return the new name (None if absent)."""
    if not db_path.exists():
        return None
    kept = db_path.with_name(f"{db_path.name}.replaced-{now:%Y%m%d-%H%M%S}")
    os.replace(db_path, kept)
    for suffix in ("-wal", "-shm"):
        part = Path(f"{db_path}{suffix}")
        if part.exists():
            os.replace(part, Path(f"{kept}{suffix}"))
    return kept
