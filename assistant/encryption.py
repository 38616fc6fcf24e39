"""Keeping the data file and its backups encrypted: first-start conversion, rekey, status.

A plaintext file from an older Hippo is encrypted on the first start of this version,
before anything else opens it: re-encrypted into a copy, checked (it opens with the key,
every table holds as many rows), kept as a backup, then swapped in atomically (see
``data_schema.recrypt``). The plaintext backups beside it follow. A file encrypted with
an older, slower cipher is rewritten with the current one the same way (same key), at
a start when no other Hippo has it open. Progress is reported as it goes, so a large
file never looks frozen.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from assistant.datakey import KeyStore
from assistant.errors import DataKeyError, StorageError
from data_schema.cipher import (
    CIPHER,
    CIPHER_NAMES,
    KEY_BYTES,
    DataKey,
    cipher_of,
    file_state,
)
from data_schema.recrypt import recrypt

__all__ = ["Rekeyed", "StepProgress", "encryption_status", "prepare_data_file", "rekey"]

StepProgress = Callable[[str, float], None]
"""Told what is being done (e.g. "Encrypting the data file") and how far, 0.0 to 1.0."""

BACKUP_DIR = "backups"


def _backups(db_path: Path) -> list[Path]:
    folder = db_path.parent / BACKUP_DIR
    return sorted(folder.glob("*.db")) if folder.is_dir() else []


def _step(progress: StepProgress | None, what: str) -> Callable[[float], None] | None:
    return None if progress is None else (lambda share: progress(what, share))


def _keep_backup(db_path: Path) -> Callable[[Path], None]:
    """Copy the checked, encrypted copy into backups/ (owner-only) before it is swapped in."""

    def keep(copy: Path) -> None:
        folder = db_path.parent / BACKUP_DIR
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = folder / f"hippo-{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}.db"
        fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "wb") as out, open(copy, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
            out.flush()
            os.fsync(out.fileno())

    return keep


def prepare_data_file(db_path: Path, keys: KeyStore, progress: StepProgress | None = None) -> None:
    """Make sure the data file (new or old) and its backups are encrypted.

    A new file gets the key now (made and stored if there is none), so the place it is
    kept in is said at once. Cheap when all is encrypted already: a header read per file.

    Args:
        db_path: the data file.
        keys: where the key is kept.
        progress: told each step and how far it is.

    What to tell the user once (the conversion; the key's place where it is a file) is
    added to ``keys.notices``.

    Raises:
        StorageError: another Hippo has the plaintext file open, or the conversion failed
            (the file is then as it was).
    """
    db_path = Path(db_path)
    told = keys.notices
    _keep_private(db_path, told)
    state = file_state(db_path)
    plain_backups = [b for b in _backups(db_path) if file_state(b) == "plaintext"]
    if state == "encrypted":
        _upgrade_cipher(db_path, keys, progress)
        if not plain_backups:
            return
    key = keys.for_new_file()
    if key is None:  # a key source that keeps files in plaintext (benchmarks)
        return
    if state == "plaintext":
        counts = recrypt(
            db_path,
            old=None,
            new=key,
            progress=_step(progress, "Encrypting the data file"),
            before_swap=_keep_backup(db_path),
        )
        told.append(
            f"Your data file is now encrypted ({CIPHER_NAMES[CIPHER]}; "
            f"{sum(counts.values())} rows in {len(counts)} tables checked). Its key is kept "
            f"in {key.origin}: without it the file can't be read."
        )
    for n, backup in enumerate(plain_backups, start=1):
        what = f"Encrypting backup {n} of {len(plain_backups)}"
        recrypt(backup, old=None, new=key, progress=_step(progress, what))
    if plain_backups:
        told.append(f"{len(plain_backups)} backup(s) in {db_path.parent / BACKUP_DIR} encrypted.")


def _keep_private(db_path: Path, told: list[str]) -> None:
    """Make the data file (and its WAL) readable by its owner only again, saying so.

    Hippo creates it so (0600); a copy or a ``chmod`` may have opened it to others. Its
    pages are encrypted, but its size and times still say something, and a key leaked
    later would open every copy others took meanwhile.
    """
    if os.name == "nt":
        return
    opened = []
    for path in (db_path, Path(f"{db_path}-wal"), Path(f"{db_path}-shm")):
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
            if mode & 0o077:
                path.chmod(0o600)
                opened.append(f"{path.name} (was {mode:04o})")
        except OSError:  # absent, or not ours to change: connect says what matters
            continue
    if opened:
        told.append(
            f"The data file was readable by others: {', '.join(opened)} in {db_path.parent} "
            "made readable by you only (0600) again."
        )


def _upgrade_cipher(db_path: Path, keys: KeyStore, progress: StepProgress | None) -> None:
    """Rewrite ``db_path`` with `CIPHER` if an older Hippo encrypted it with an older cipher.

    The same key, the same checked and atomic rewrite as a conversion. Skipped, to be
    done at a later start, while another Hippo has the file open; left to ``connect``
    to report when no key at hand opens it. Costs one keyed read when all is current.
    """
    for key in keys.candidates():
        cipher = cipher_of(db_path, key)
        if cipher is None:
            continue
        if cipher == CIPHER:
            return
        try:
            recrypt(
                db_path,
                old=key,
                new=key,
                old_cipher=cipher,
                progress=_step(progress, "Moving the data file to a faster cipher"),
            )
        except StorageError as exc:
            keys.notices.append(
                f"The data file is still under {CIPHER_NAMES[cipher]}, which reads a large "
                f"file more slowly; Hippo moves it to {CIPHER_NAMES[CIPHER]} at a start when "
                f"nothing else has it open. ({exc})"
            )
            return
        keys.notices.append(
            f"The data file was re-encrypted with {CIPHER_NAMES[CIPHER]} (same key): large "
            "files read faster."
        )
        return


@dataclass(frozen=True)
class Rekeyed:
    """What a rekey did: the files re-encrypted, and where the new key is kept."""

    files: tuple[Path, ...]
    origin: str

    def text(self) -> str:
        """The receipt, in words."""
        return (
            f"Re-encrypted {len(self.files)} file(s) with a new key, kept in {self.origin}; "
            "the old key is gone. Copies saved elsewhere (`hippo backup create PATH`) are "
            "still under the old key: make new ones."
        )


def rekey(db_path: Path, keys: KeyStore, progress: StepProgress | None = None) -> Rekeyed:
    """Re-encrypt the data file and its backups under a new key; keep the old until done.

    The new key is stored beside the old first; each file is re-encrypted (checked and
    swapped in atomically); only then does the new key replace the old. Interrupted,
    each file opens with one of the two, and running it again finishes the job.

    Raises:
        DataKeyError: the key is missing, or comes from HIPPO_DB_KEY (Hippo can't change it).
        StorageError: another Hippo has the file open, or a copy failed (that file unchanged).
    """
    db_path = Path(db_path)
    prepare_data_file(db_path, keys, progress)
    old = keys.current()
    if old is None:
        raise DataKeyError(keys.missing(db_path))
    pending = keys.pending()
    new = keys.stage(pending or DataKey(secrets.token_bytes(KEY_BYTES), "new"))
    done: list[Path] = []
    files = [*_backups(db_path), db_path]
    for n, path in enumerate(files, start=1):
        if cipher_of(path, new) is not None:
            continue  # done by an interrupted rekey
        cipher = cipher_of(path, old)
        if cipher is None:
            if path == db_path:
                raise DataKeyError(keys.missing(db_path))
            continue  # a backup under some other key: not ours to change
        what = "Re-encrypting the data file" if path == db_path else f"Re-encrypting backup {n}"
        recrypt(path, old=old, new=new, old_cipher=cipher, progress=_step(progress, what))
        done.append(path)
    keys.commit(new)
    stored = keys.current()
    return Rekeyed(tuple(done), stored.origin if stored else new.origin)


def encryption_status(db_path: Path, keys: KeyStore) -> tuple[str, str]:
    """Whether the file is encrypted (and with what), and where its key comes from."""
    state = file_state(Path(db_path))
    if state == "plaintext":
        return "no (plaintext: Hippo encrypts it at its next start)", keys.describe()
    if state == "new":
        return f"yes, once created ({CIPHER_NAMES[CIPHER]} per page)", keys.describe()
    key = keys.current()
    if key is None:
        return "yes", "missing: see the problem below"
    cipher = cipher_of(Path(db_path), key)
    if cipher is None:
        return "yes (the key at hand does not open it)", keys.describe()
    later = "" if cipher == CIPHER else f"; {CIPHER_NAMES[CIPHER]} from the next start"
    return f"yes ({CIPHER_NAMES[cipher]} per page{later})", keys.describe()
