"""Files Hippo reads or writes for the user (ingest, import, export): what a path really is.

``open()`` on a named pipe waits for a writer, on ``/dev/zero`` reads forever, and a
symbolic link loop or a missing folder fails with an errno; each deserves a sentence
that says what the path is and what to give instead.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from assistant.errors import InvalidInput, NotFound
from assistant.textcheck import printable_path

__all__ = ["file_kind", "require_file", "writable_target"]

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a device (like /dev/zero)"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file, in words; None for a regular file.

    Symbolic links are followed: a link to a file is a file.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "a broken symbolic link" if path.is_symlink() else "missing"
    except RuntimeError:  # Python before 3.13 on a symbolic link loop
        return "a symbolic link loop"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link loop"
        return f"unreadable ({exc.strerror})"
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) else "not a regular file"


def require_file(path: Path, what: str) -> int:
    """Check that ``path`` is a regular file before reading it; return its size.

    Args:
        path: the file.
        what: what is being done, for the message ("Can't ingest", "Can't import").

    Raises:
        HippoError: it is missing, a folder, a pipe, a device, a socket or a link loop.
    """
    kind = file_kind(path)
    shown = printable_path(path)
    if kind == "missing":
        raise NotFound(f"{what} {shown}: there is no such file.")
    if kind is not None:
        raise InvalidInput(f"{what} {shown}: it is {kind}, not a regular file.")
    return path.stat().st_size


def writable_target(path: Path) -> Path:
    """The file to write for ``path``: ``path``, or where its symbolic link leads.

    Raises:
        HippoError: ``path`` is a folder or a link loop, or its folder does not exist.
    """
    shown = printable_path(path)
    kind = file_kind(path)
    if kind == "a symbolic link loop":
        raise InvalidInput(f"Can't write {shown}: it is a symbolic link loop.")
    if kind is None and path.is_symlink():  # a link to a file: replace the file
        path = path.resolve()
    if path.is_dir():
        raise InvalidInput(
            f"{shown} is a folder; give a file name in it, e.g. "
            f"{printable_path(path / 'hippo-export.json')}."
        )
    folder = path.parent
    if not folder.is_dir():
        raise InvalidInput(
            f"Can't write {shown}: the folder {printable_path(folder)} does not exist. "
            f"Create it first (mkdir -p {printable_path(folder)}) or choose another place."
        )
    if not os.access(folder, os.W_OK):
        raise InvalidInput(
            f"Can't write {shown}: the folder {printable_path(folder)} is not writable."
        )
    return path
