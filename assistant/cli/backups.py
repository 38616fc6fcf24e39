"""``hippo backup list``: the copies of the data file that ``backup restore`` can put back.

They live in ``backups/`` next to the data file: ``hippo-<time>.db`` made before each
sleep run, ``manual-<time>.db`` from ``hippo backup create``, and the files a restore
set aside. The data file is not opened, so this works when it is damaged.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import TextIO

from assistant.config import Config

__all__ = ["backup_files", "backups_command"]

BACKUP_DIR = "backups"
_KINDS = (("hippo-", "before sleep"), ("manual-", "memory backup"))


def backup_files(db_path: Path) -> list[Path]:
    """Every backup next to the data file, newest first."""
    folder = db_path.parent / BACKUP_DIR
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")]
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def _kind(path: Path) -> str:
    return next((what for prefix, what in _KINDS if path.name.startswith(prefix)), "other")


def backups_command(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """List the backups, newest first, with how to restore one."""
    from assistant.cli.shared import dump_listing, wants_json

    files = backup_files(config.db_path)
    folder = config.db_path.parent / BACKUP_DIR
    if wants_json(args):
        dump_listing(map(_backup_json, files), args, out)
        return 0
    for path in files:
        stat = path.stat()
        made = datetime.fromtimestamp(stat.st_mtime).astimezone()
        print(
            f"{made:%Y-%m-%d %H:%M}  {stat.st_size / 1e6:8.1f} MB  {_kind(path):<14} {path.name}",
            file=out,
        )
    if not files:
        print(f"No backups yet in {folder}. Make one with `hippo backup create`.", file=out)
    else:
        print(
            f"{len(files)} backup(s) in {folder}. Put one back with "
            "`hippo backup restore NAME` (the current file is kept aside).",
            file=out,
        )
    return 0


def _backup_json(path: Path) -> dict[str, object]:
    stat = path.stat()
    made = datetime.fromtimestamp(stat.st_mtime).astimezone()
    return {
        "name": path.name,
        "path": str(path),
        "bytes": stat.st_size,
        "made_at": made.isoformat(),
        "kind": _kind(path),
    }
