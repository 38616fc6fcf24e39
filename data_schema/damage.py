"""A data file known to be damaged: the mark beside it that keeps writes out.

Writing into a damaged b-tree spreads the damage, and every row written after it is
one more row a restore of the last good backup would leave behind. So once a check
finds the file damaged (`hippo doctor`, `hippo ask`, sleep, the app's check at start),
the check's own message is kept beside the file (``hippo.db.damaged``), and every
connection opened on the file while the mark is there refuses writes with it
(``PRAGMA query_only``): reading, searching and exporting still work.

The mark names the file it was made for (device and inode): a restore puts a new file
in place, which the old mark does not stop. A check that passes takes it away.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["clear_damage", "known_damage", "mark_damaged"]

_SUFFIX = ".damaged"


def _mark(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + _SUFFIX)


def _identity(db_path: Path) -> str:
    found = os.stat(db_path)
    return f"{found.st_dev} {found.st_ino}"


def mark_damaged(db_path: Path, message: str) -> None:
    """Keep ``message`` (what the check found, what to do) beside the damaged file."""
    db_path = Path(db_path)
    mark = _mark(db_path)
    with contextlib.suppress(OSError):  # a read-only folder: the check still said it
        fd = os.open(mark, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(f"{_identity(db_path)}\n{message}")


def known_damage(db_path: Path) -> str | None:
    """The message of a check that found this very file damaged, or None."""
    db_path = Path(db_path)
    try:
        identity, _, message = _mark(db_path).read_text(encoding="utf-8").partition("\n")
        if identity == _identity(db_path):
            return message
    except (OSError, UnicodeDecodeError):
        return None
    clear_damage(db_path)  # made for a file no longer there (restored since)
    return None


def clear_damage(db_path: Path) -> None:
    """Forget the mark: the file passed a check, or was replaced."""
    with contextlib.suppress(OSError):
        _mark(Path(db_path)).unlink()
