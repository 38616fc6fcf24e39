"""A consistent copy of the data file, taken while others keep writing.

``VACUUM INTO`` writes a compact copy from one read transaction: in WAL mode the chat keeps
writing meanwhile, and the copy is the file as it was when the copy began.
"""

from __future__ import annotations

from pathlib import Path

import apsw

__all__ = ["copy_into"]


def copy_into(conn: apsw.Connection, target: Path) -> None:
    """Write the file behind ``conn`` to ``target`` (absent, or an existing empty file).

    Raises:
        apsw.Error: the copy could not be written (the data file is untouched).
    """
    conn.execute("VACUUM INTO ?", (str(target),))
