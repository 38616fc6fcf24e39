"""A full disk and a read-only folder, for tests, without root or a mount.

``disk_full``: SQLite's ``max_page_count`` stops the file growing, as a full disk would:
a write that needs a new page fails with SQLITE_FULL, the error a full disk gives.

``full_from_outside`` and ``read_only_folder`` go one level lower, to the OS calls
SQLite's own unix VFS makes (its ``xSetSystemCall`` table): inside one folder, every
write fails with ENOSPC, or every open for writing with EACCES, exactly as the kernel
answers on a disk another program filled or a folder Hippo may not write (which a test
run as root can't otherwise make). SQLite then takes the paths it takes for real: a
short write is SQLITE_FULL, a WAL index it can't grow an I/O error with errno ENOSPC, a
file it may not write opened read-only.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw

__all__ = ["cap_file", "disk_full", "full_from_outside", "read_only_folder"]

_OPEN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, use_errno=True)
_WRITE = ctypes.CFUNCTYPE(
    ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, use_errno=True
)
_PWRITE = ctypes.CFUNCTYPE(
    ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int64,
    use_errno=True,
)  # fmt: skip


def cap_file(pages: int) -> None:
    """Let no open connection grow the file past ``pages`` pages."""
    for conn in apsw.connections():
        with contextlib.suppress(apsw.Error):  # a closed one
            conn.execute(f"PRAGMA max_page_count = {pages}")


@contextlib.contextmanager
def disk_full(engine: Any) -> Iterator[None]:
    """The data file can grow no more while inside (every connection, new ones too)."""
    pages = engine.memory.db.conn.execute("PRAGMA page_count").fetchone()[0]

    def hook(conn: apsw.Connection) -> None:
        conn.execute(f"PRAGMA max_page_count = {pages}")

    apsw.connection_hooks.append(hook)
    cap_file(pages)
    try:
        yield
    finally:
        apsw.connection_hooks.remove(hook)
        cap_file(1 << 30)


def _inside(folder: Path, fd: int) -> bool:
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}")).parent == folder
    except OSError:
        return False


@contextlib.contextmanager
def _system_calls(replaced: dict[str, Any]) -> Iterator[None]:
    """SQLite's unix VFS makes these OS calls through ``replaced`` while inside."""
    vfs = apsw.VFS("hippo-test-syscalls", "unix")
    try:
        for name, function in replaced.items():
            vfs.xSetSystemCall(name, ctypes.cast(function, ctypes.c_void_p).value)
        yield
    finally:
        for name in replaced:
            vfs.xSetSystemCall(name, 0)  # SQLite's own again
        vfs.unregister()


@contextlib.contextmanager
def full_from_outside(folder: Path) -> Iterator[None]:
    """Another program filled the disk under ``folder``: each write there fails, ENOSPC."""
    folder = Path(folder).resolve()
    vfs = apsw.VFS("hippo-test-originals", "unix")
    write, pwrite = _WRITE(vfs.xGetSystemCall("write")), _PWRITE(vfs.xGetSystemCall("pwrite64"))
    vfs.unregister()

    @_WRITE
    def full_write(fd: int, buf: int, count: int) -> int:
        if _inside(folder, fd):
            ctypes.set_errno(errno.ENOSPC)
            return -1
        return int(write(fd, buf, count))

    @_PWRITE
    def full_pwrite(fd: int, buf: int, count: int, offset: int) -> int:
        if _inside(folder, fd):
            ctypes.set_errno(errno.ENOSPC)
            return -1
        return int(pwrite(fd, buf, count, offset))

    with _system_calls({"write": full_write, "pwrite64": full_pwrite}):
        yield


@contextlib.contextmanager
def read_only_folder(folder: Path) -> Iterator[None]:
    """``folder`` and its files may be read, not written: opens for writing fail, EACCES."""
    folder = Path(folder).resolve()
    vfs = apsw.VFS("hippo-test-originals", "unix")
    real_open = _OPEN(vfs.xGetSystemCall("open"))
    vfs.unregister()
    writing = os.O_RDWR | os.O_WRONLY | os.O_CREAT

    @_OPEN
    def refusing_open(path: bytes, flags: int, mode: int) -> int:
        if flags & writing and Path(os.fsdecode(path)).resolve().parent == folder:
            ctypes.set_errno(errno.EACCES)
            return -1
        return int(real_open(path, flags, mode))

    with _system_calls({"open": refusing_open}):
        yield
