"""What went wrong, in words a notice can show: Hippo's own errors and failed writes.

Hippo's errors say what happened and what to do. A write the data file refused (a
full disk, a read-only file) arrives as SQLite's own error instead; unexplained, it
would end the app with a traceback while the file itself is intact.
"""

from __future__ import annotations

import sys
from pathlib import Path

from assistant.errors import HippoError

__all__ = ["explained"]


def explained(exc: Exception, data_file: Path) -> str | None:
    """``exc`` as a line for the user, or None where it is neither kind (a bug: re-raise).

    A ValueError counts as Hippo's own: engine calls raise it for bad input.
    """
    if isinstance(exc, HippoError | ValueError):
        return str(exc)
    apsw = sys.modules.get("apsw")  # loaded with the data file, never by the UI itself
    if apsw is not None and isinstance(exc, apsw.Error):
        from data_schema.connect import write_failed

        return str(write_failed(exc, data_file))
    return None
