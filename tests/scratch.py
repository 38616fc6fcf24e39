"""Where the tests' temporary folders go: memory, where the machine has room for them.

The tests make ~1,700 folders and data files, and each engine's SQLite file is synced
when it closes. On this 2-core machine's virtual disk those syncs left the workers
waiting: the engine, sleep, admin and encryption tests took 36-40 s on disk and 30-33 s
in memory, back to back, with 3-4 s less system CPU. So the run's folders go to /dev/shm
when it is a memory file system with room to spare, and each passing test's folder is
removed as it ends (`tmp_path_retention_policy = "failed"` in pyproject.toml): what a
run holds there at once is the few folders of the tests running and those that failed.
Hippo's own code runs as it would on disk; only the syncs cost nothing. `--basetemp` or
PYTEST_DEBUG_TEMPROOT set by the person running the tests still decide.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

MEMORY = Path("/dev/shm")
# Room to leave free: the folders of the tests running at once, those that failed, and
# the memory the machine needs besides (a run's whole output is ~700 MB; most is removed
# as it goes).
_ROOM = 2 << 30


def temp_root_in_memory(config: pytest.Config) -> Path | None:
    """The memory file system to put the run's temporary folders in, or None for the default."""
    if config.option.basetemp or os.environ.get("PYTEST_DEBUG_TEMPROOT"):
        return None
    if config.getini("tmp_path_retention_policy") != "failed":
        return None  # every run's folders would stay in memory
    try:
        mounts = Path("/proc/mounts").read_text(encoding="utf-8").splitlines()
        stats = os.statvfs(MEMORY)
    except OSError:
        return None
    if not any(line.split()[1:3] == [str(MEMORY), "tmpfs"] for line in mounts):
        return None
    if not os.access(MEMORY, os.W_OK) or stats.f_bavail * stats.f_frsize < _ROOM:
        return None
    return MEMORY


def use_memory_for_temp_folders(config: pytest.Config) -> None:
    """Point pytest's temporary folders at memory where :func:`temp_root_in_memory` allows."""
    root = temp_root_in_memory(config)
    if root is not None:
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(root)
