"""What went wrong, in words a notice can show: Hippo's own errors and failed writes.

Hippo's errors say what happened and what to do. A write the data file refused (a
full disk, a read-only file) arrives as SQLite's own error instead; unexplained, it
would end the app with a traceback while the file itself is intact.
"""

from __future__ import annotations

from typing import Protocol

from assistant.errors import HippoError

__all__ = ["StorageErrors", "explained"]


class StorageErrors(Protocol):
    """What tells a failed write apart from a bug: the engine (or its data file)."""

    def storage_error(self, exc: BaseException) -> HippoError | None:
        """What ``exc`` means for the data file if it is SQLite's error, else None."""
        ...


def explained(exc: Exception, data: StorageErrors) -> str | None:
    """``exc`` as a line for the user, or None where it is neither kind (a bug: re-raise).

    A ValueError counts as Hippo's own: engine calls raise it for bad input.

    Args:
        exc: what an engine call raised.
        data: the engine whose data file the call wrote.
    """
    if isinstance(exc, HippoError | ValueError):
        return str(exc)
    failed = data.storage_error(exc)
    return None if failed is None else str(failed)
