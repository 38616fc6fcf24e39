"""A whole profile out of the file and back in: export, import, and a copy of the file.

An export is `dump.Dumper`'s rows renumbered by `portable.rewrite` (so it names no
internal id) under a versioned header; an import writes one into a new profile
(`restore.Restorer`). A backup is SQLite's own consistent copy (``VACUUM INTO``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw

from assistant.clock import Clock, to_iso
from assistant.memory.profile_data.dump import FORMAT, VERSION, Dumper
from assistant.memory.profile_data.portable import rank_maps, rewrite
from assistant.memory.profile_data.restore import Restorer
from assistant.memory.records import Profile
from data_schema.migrations import schema_version

__all__ = ["FORMAT", "VERSION", "copy_file", "export_profile", "import_profile"]


def export_profile(
    conn: Callable[[], apsw.Connection], profile_id: int, clock: Clock
) -> dict[str, Any]:
    """Everything the profile remembers, JSON-serialisable, versioned, ids renumbered."""
    raw = Dumper(conn).dump(profile_id)
    data, _ = rewrite(raw, rank_maps(raw))
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": to_iso(clock.now()),
        "schema": schema_version(conn()),
        **data,
    }


def import_profile(
    conn: Callable[[], apsw.Connection], clock: Clock, data: dict[str, Any], name: str
) -> tuple[Profile, dict[str, int], list[str]]:
    """Write an export as the new profile ``name``; return it, counts and what was dropped.

    Raises:
        HippoError: a profile called ``name`` exists already.
        KeyError, TypeError, ValueError, apsw.ConstraintError: the export is damaged
            (nothing was written).
    """
    return Restorer(conn, clock).restore(data, name)


def copy_file(conn: apsw.Connection, target: Path) -> None:
    """Write a consistent copy of the whole file to ``target`` (which must not exist).

    Raises:
        apsw.Error: SQLite could not write it.
    """
    conn.execute("VACUUM INTO ?", (str(target),))
