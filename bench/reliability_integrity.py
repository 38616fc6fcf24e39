"""The data file in trouble, from outside: damaged, on a full disk, on read-only media, its
key file open to others. Each case runs the real `hippo` command in its own data folder,
counts the writes it acknowledged (exit 0, "Logged event N") and looks for each of them
at the end; a case passes with 0 lost and a message that names the real cause.

The disk is made full and read-only for real where this process may mount a small
tmpfs (root, or a container that allows it); elsewhere those cases say they were skipped.
"""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.reliability_lab import Lab, Run, mentions

__all__ = ["CaseOutcome", "run_integrity"]


@dataclass
class CaseOutcome:
    """How one case ended."""

    case: str
    acked: int
    lost: int
    said: str
    named: bool

    def line(self) -> str:
        mark = "ok " if self.named and self.lost == 0 else "BAD"
        return (
            f"  {mark} {self.case:<20} acknowledged writes lost: {self.lost} of {self.acked};"
            f" said: {self.said[:150]}"
        )


def _said(run: Run) -> str:
    return next((line for line in run.err.splitlines() if line.startswith("hippo: ")), "")[7:]


class _Writes:
    """Events added through `hippo event add`, each with a word of its own to find it by."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self.acked: list[str] = []

    def add(self, n: int, label: str) -> list[Run]:
        runs = []
        for _ in range(n):
            word = f"w{secrets.token_hex(5)}"
            run = self.lab.run("event", "add", f"{label} {word}")
            if run.rc == 0 and "Logged event" in run.out:
                self.acked.append(word)
            runs.append(run)
        return runs

    def lost(self, db_path: Path) -> int:
        return sum(mentions(db_path, word) == 0 for word in self.acked)


def _damaged(keep: bool) -> CaseOutcome:
    lab = Lab("damaged", keep=keep)
    try:
        writes = _Writes(lab)
        writes.add(12, "before the backup")
        lab.run("backup", "create")
        writes.add(4, "after the backup")
        size = lab.db_path.stat().st_size
        with open(lab.db_path, "r+b") as handle:  # one byte flipped in the middle
            handle.seek(size // 2)
            byte = handle.read(1)
            handle.seek(size // 2)
            handle.write(bytes([byte[0] ^ 0xFF]))
        doctor = lab.run("doctor")
        refused = writes.add(3, "after the damage")
        said = _said(refused[-1])
        search = lab.run("message", "search", "anything")
        good = sorted((lab.db_path.parent / "backups").glob("manual-*.db"))[-1]
        restore = lab.run("backup", "restore", str(good), "--yes")
        named = (
            "is damaged" in doctor.out
            and "is damaged" in said
            and search.rc == 0
            and restore.rc == 0
            and "Carried over" in restore.out
        )
        return CaseOutcome("damaged file", len(writes.acked), writes.lost(lab.db_path), said, named)
    finally:
        lab.close()


@contextmanager
def _small_disk(folder: Path, mb: int = 8) -> Iterator[bool]:
    """A tmpfs of ``mb`` MB mounted at ``folder``; False where mounting is not allowed."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={mb}m,mode=0700", "tmpfs", str(folder)],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def _reads_work(lab: Lab, word: str) -> bool:
    listing = lab.run("event", "list")
    search = lab.run("memory", "recall", word)
    export = lab.run("profile", "export", "-o", str(lab.folder / "export.json"))
    for run in (listing, search, export):
        if run.rc != 0 or (run is search and word not in run.out):
            print(f"    ({' '.join(run.argv[:2])}: rc {run.rc}: {run.err.strip()[-300:]})")
            return False
    return True


def _on_small_disk(case: str, keep: bool, trouble: Callable[[Lab], None]) -> CaseOutcome:
    lab = Lab(case.split()[0], keep=keep)
    data = lab.folder / "data"
    try:
        with _small_disk(data) as mounted:
            if not mounted:
                return CaseOutcome(case, 0, 0, "skipped: mounting a tmpfs is not allowed", True)
            writes = _Writes(lab)
            writes.add(6, "before the trouble")
            trouble(lab)
            reads = _reads_work(lab, writes.acked[0])
            said = _said(writes.add(2, "during the trouble")[-1])
            expected = "is full (" if "full" in case else "read-only media"
            return CaseOutcome(
                case, len(writes.acked), writes.lost(lab.db_path), said, reads and expected in said
            )
    finally:
        lab.close()


def _fill(lab: Lab) -> None:
    """Another program fills the disk: a file grown until the disk refuses."""
    with open(lab.folder / "data" / "filler", "wb") as out:
        try:
            while True:
                out.write(b"\0" * (1 << 16))
                out.flush()
        except OSError:
            pass


def _remount_read_only(lab: Lab) -> None:
    subprocess.run(
        ["mount", "-o", "remount,ro", str(lab.folder / "data")], capture_output=True, check=False
    )


def _open_key(keep: bool) -> CaseOutcome:
    lab = Lab("key", keep=keep)
    lab.env.pop("HIPPO_DB_KEY", None)
    lab.env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"  # the key file
    try:
        writes = _Writes(lab)
        writes.add(4, "before the chmod")
        key = lab.folder / "config" / "data-file.key"
        os.chmod(key, 0o644)
        listing = lab.run("event", "list")
        said = _said(writes.add(1, "with the key open to others")[-1])
        os.chmod(key, 0o600)
        named = listing.rc == 1 and "chmod 600" in said and "open to others" in said
        return CaseOutcome(
            "key file 0644", len(writes.acked), _lost_keyed(lab, writes), said, named
        )
    finally:
        lab.close()


def _lost_keyed(lab: Lab, writes: _Writes) -> int:
    listing = lab.run("event", "list", "-n", "1000")
    return sum(word not in listing.out for word in writes.acked)


def run_integrity(*, keep: bool = False) -> list[CaseOutcome]:
    """Each case once, each in a fresh data folder."""
    return [
        _damaged(keep),
        _on_small_disk("disk full (outside)", keep, _fill),
        _on_small_disk("read-only media", keep, _remount_read_only),
        _open_key(keep),
    ]
