"""What went wrong, in words a notice can show: Hippo's own errors and failed writes.

Hippo's errors say what happened and what to do. A write the data file refused (a
full disk, a read-only file) arrives as SQLite's own error instead; unexplained, it
would end the app with a traceback while the file itself is intact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.errors import HippoError

if TYPE_CHECKING:
    from assistant.admin import MemoryAdmin

__all__ = ["explained"]


def explained(exc: Exception, admin: MemoryAdmin) -> str | None:
    """``exc`` as a line for the user, or None where it is neither kind (a bug: re-raise).

    A ValueError counts as Hippo's own: engine calls raise it for bad input.
    """
    if isinstance(exc, HippoError | ValueError):
        return str(exc)
    failed = admin.storage_error(exc)
    return None if failed is None else str(failed)
