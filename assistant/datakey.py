"""The data file's key: where it is kept, found, made, and changed.

Looked for in this order, and a new one kept in the first place that works:

1. ``HIPPO_DB_KEY`` in the environment (64 hex digits), when set: it beats the rest and
   is never stored by Hippo.
2. The system keyring: service ``hippo``, entry ``data-file-key``.
3. Where no keyring backend exists: the key file ``data-file.key`` beside config.toml,
   readable by its owner only. Hippo says once, when it makes it, what that risks.

A rekey first keeps the new key beside the old (entry ``data-file-key.next``, file
``data-file.key.next``) and makes it the key only once the re-encrypted file is in
place, so an interruption at any point leaves a key that opens the file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import stat
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Literal

from assistant.errors import ConfigError, DataKeyError
from assistant.secrets import keyring_usable
from data_schema.cipher import KEY_BYTES, DataKey

if TYPE_CHECKING:
    from assistant.config import Config

__all__ = ["KEYRING_ENTRY", "KEYRING_SERVICE", "KEY_ENV", "KEY_FILE", "KeyStore"]

KEY_ENV = "HIPPO_DB_KEY"
KEYRING_SERVICE = "hippo"
KEYRING_ENTRY = "data-file-key"
KEY_FILE = "data-file.key"
_NEXT = ".next"
Place = Literal["env", "keyring", "file"]


def _parse(text: str, where: str) -> bytes:
    try:
        secret = bytes.fromhex(text.strip())
    except ValueError:
        secret = b""
    if len(secret) != KEY_BYTES:
        raise ConfigError(
            f"{where} must hold the data file's key as {2 * KEY_BYTES} hex digits. Fix it "
            f"(`hippo doctor` says where the key is kept), or unset {KEY_ENV}."
        )
    return secret


def _keyring() -> ModuleType:
    # Imported when first used: keyring is optional and slow to import.
    import keyring

    return keyring


class KeyStore:
    """The key of this user's data files, with the places it is looked for.

    Args:
        config_dir: the folder of config.toml (the key file lives there if it must).
        environ: the environment to read ``HIPPO_DB_KEY`` from (default ``os.environ``).
    """

    def __init__(self, config_dir: Path, *, environ: Mapping[str, str] | None = None) -> None:
        self.config_dir = Path(config_dir)
        self._env = os.environ if environ is None else environ
        self._asked: dict[str, DataKey | None] = {}
        self.notices: list[str] = []
        """What the user should hear once (the key went to a file); taken by the engine."""

    @classmethod
    def for_config(cls, config: Config) -> KeyStore:
        """The key store beside ``config``'s config.toml."""
        return cls(config.config_dir)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> KeyStore:
        """The key store beside the config.toml this environment points to."""
        from assistant.config import config_dir_from

        env = os.environ if environ is None else environ
        return cls(config_dir_from(env), environ=env)

    @property
    def key_file(self) -> Path:
        """The key file used where no keyring backend exists."""
        return self.config_dir / KEY_FILE

    # -- finding ---------------------------------------------------------------------

    def _env_key(self) -> DataKey | None:
        text = self._env.get(KEY_ENV, "").strip()
        return DataKey(_parse(text, KEY_ENV), KEY_ENV) if text else None

    def _keyring_key(self, entry: str) -> DataKey | None:
        if not keyring_usable():
            return None
        try:
            text = _keyring().get_password(KEYRING_SERVICE, entry)
        except Exception:  # a locked or broken keyring: looked, found nothing
            return None
        where = f"the system keyring (service '{KEYRING_SERVICE}', entry '{entry}')"
        return DataKey(_parse(text, where), where) if text else None

    def _file_key(self, path: Path) -> DataKey | None:
        try:
            text = path.read_text(encoding="ascii")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise DataKeyError(f"Can't read the data file's key from {path}: {exc}.") from exc
        _require_private(path)
        return DataKey(_parse(text, str(path)), f"the key file {path}")

    def _ask(self, place: str) -> DataKey | None:
        """The key kept in one ``place`` (``keyring``, ``file``, or either + ``.next``).

        Each place is asked once per store (until a key is stored): the keyring's first
        question loads its backends, which costs more than all the rest of `hippo log`.
        """
        if place not in self._asked:
            if place.startswith("keyring"):
                self._asked[place] = self._keyring_key(KEYRING_ENTRY + place[len("keyring") :])
            else:
                self._asked[place] = self._file_key(self.key_file.with_name(KEY_FILE + place[4:]))
        return self._asked[place]

    def place(self) -> Place:
        """Where the key is kept (or would be kept, if it is made now)."""
        if self._env.get(KEY_ENV, "").strip():
            return "env"
        if self.key_file.exists() and self._ask("keyring") is None:
            return "file"
        return "keyring" if keyring_usable() else "file"

    def current(self) -> DataKey | None:
        """The key, from the first place that holds one."""
        return self._env_key() or self._ask("keyring") or self._ask("file")

    def pending(self) -> DataKey | None:
        """The new key of a rekey not yet finished, if any."""
        if self._env_key() is not None:
            return None
        return self._ask("keyring" + _NEXT) or self._ask("file" + _NEXT)

    def candidates(self) -> Iterator[DataKey]:
        """The keys to try on an encrypted file, the cheapest place to ask first.

        A key that opens the file is the right one wherever it is kept, so the order only
        decides what is asked: ``HIPPO_DB_KEY`` alone when set; else the key file first
        when there is one (a key file exists because the keyring could not keep the key,
        and reading it costs nothing), the keyring after; else the keyring. Each key, then
        its rekey's new key. Only the keys tried are asked for.
        """
        env = self._env_key()
        if env is not None:
            yield env
            return
        has_file = any(self.key_file.with_name(KEY_FILE + tail).exists() for tail in ("", _NEXT))
        first, second = ("file", "keyring") if has_file else ("keyring", "file")
        seen: set[bytes] = set()
        for place in (first, first + _NEXT, second, second + _NEXT):
            key = self._ask(place)
            if key is not None and key.secret not in seen:
                seen.add(key.secret)
                yield key

    def for_new_file(self) -> DataKey:
        """The key to encrypt a new file with: the one there is, or a new one, stored."""
        found = self.current() or self.pending()
        if found is not None:
            return found
        return self._store(DataKey(secrets.token_bytes(KEY_BYTES), "new"), next_=False)

    def opened_with(self, key: DataKey) -> None:
        """``key`` opened the file: if it is a rekey's new key, the rekey got that far."""
        staged = [self._asked.get(place) for place in ("keyring" + _NEXT, "file" + _NEXT)]
        if all(s is None or s.secret != key.secret for s in staged):
            return  # the usual case: the key is the key (and the keyring need not be asked)
        current, pending = self.current(), self.pending()
        if pending is not None and key.secret == pending.secret != getattr(current, "secret", None):
            self.commit(key)

    def missing(self, path: Path) -> str:
        """Why no key is at hand for ``path``: where Hippo looked, and what to do."""
        backend = "" if keyring_usable() else " (no keyring backend is available here)"
        return (
            f"{path} is encrypted, and its key is missing. Hippo looked in {KEY_ENV} (not set), "
            f"the system keyring (service '{KEYRING_SERVICE}', entry '{KEYRING_ENTRY}'){backend}"
            f" and the key file {self.key_file} (absent). Restore the key: put it back in the "
            f"keyring or the key file, or set {KEY_ENV} to it. Without it the file can't be "
            "read: move it aside, and restore your memories from an export with "
            "`hippo profile import FILE NAME`."
        )

    def unreadable(self, path: Path, tried: Sequence[str]) -> str:
        """Why the keys from ``tried`` don't open ``path``: a damaged file, or a wrong key.

        A key that opens the file's own backups is the file's key: then the file itself
        is what changed (overwritten, or damaged), and the newest good backup is named.
        """
        from assistant.integrity import newest_good_backup

        keys = " or ".join(tried)
        good = newest_good_backup(path, keys=self)
        if good is not None:
            return (
                f"{path} is not a readable Hippo database, yet the key from {keys} opens its "
                f"backup {good.name}: the file is damaged, not the key wrong. Restore that "
                f"backup with `hippo backup restore {good}` (the damaged file is kept aside)."
            )
        return (
            f"{path} is not a readable Hippo database: it is encrypted (or damaged), and the "
            f"key from {keys} does not open it. If the key was changed, put back the one this "
            f"file was written with (in the keyring, {KEY_ENV} or the key file; `hippo doctor` "
            "shows which is used). Else move the file aside and restore a backup (`hippo "
            "backup list`), or an export with `hippo profile import FILE NAME`."
        )

    def describe(self) -> str:
        """Where the key comes from, in words (for `hippo doctor`)."""
        key = self.current()
        if key is None:
            return "none yet (made when a new data file is created)"
        if key.origin.startswith("the key file"):
            return f"{key.origin} (no keyring backend: anyone who can read it can read Hippo)"
        return key.origin

    # -- storing ---------------------------------------------------------------------

    def _store(self, key: DataKey, *, next_: bool) -> DataKey:
        place = self.place()
        self._asked.clear()  # a place is about to change: ask again next time
        if place == "env":
            env = self._env_key()
            assert env is not None
            return env
        entry = KEYRING_ENTRY + (_NEXT if next_ else "")
        if place == "keyring":
            try:
                _keyring().set_password(KEYRING_SERVICE, entry, key.hex)
                return DataKey(key.secret, f"the system keyring (service 'hippo', entry '{entry}')")
            except Exception as exc:  # the keyring refused: fall back to the file, saying why
                self.notices.append(f"The system keyring refused the data file's key ({exc}).")
        path = self.key_file.with_name(KEY_FILE + (_NEXT if next_ else ""))
        _write_private(path, key.hex + "\n")
        if not next_:
            self.notices.append(
                f"No keyring backend is available, so the data file's key is kept in {path} "
                "(readable by you only). Anyone who can read that file, a backup tool or a "
                "synced folder among them, can read your memories with it. Install a keyring "
                f"(e.g. gnome-keyring or KWallet), or keep the key elsewhere and set {KEY_ENV}."
            )
        return DataKey(key.secret, f"the key file {path}")

    def stage(self, key: DataKey) -> DataKey:
        """Keep ``key`` beside the current one, as a rekey's new key.

        Raises:
            DataKeyError: the key comes from ``HIPPO_DB_KEY``, which Hippo can't change.
        """
        if self.place() == "env":
            raise DataKeyError(
                f"The data file's key comes from {KEY_ENV}, which Hippo can't change. Unset it "
                "to let Hippo keep the key (in the keyring, or the key file), or re-encrypt "
                "with a key you choose yourself."
            )
        return self._store(key, next_=True)

    def commit(self, key: DataKey) -> None:
        """Make ``key`` the key, then forget the old one and the staged copy."""
        self._store(DataKey(key.secret, key.origin), next_=False)
        self.discard_pending()

    def discard_pending(self) -> None:
        """Forget a staged key (a rekey that did not get far enough)."""
        with contextlib.suppress(Exception):
            if keyring_usable():
                _keyring().delete_password(KEYRING_SERVICE, KEYRING_ENTRY + _NEXT)
        self.key_file.with_name(KEY_FILE + _NEXT).unlink(missing_ok=True)
        self._asked.clear()


def _require_private(path: Path) -> None:
    """Refuse a key file others may read, as ssh refuses such a private key.

    Raises:
        DataKeyError: the file's group or others have any access to it.
    """
    if os.name == "nt":  # no POSIX modes: the folder's ACL protects it
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise DataKeyError(
            f"The key file {path} is open to others (mode {mode:04o}): anyone who can read it "
            "can read your memories, so Hippo will not use it. Make it yours alone with "
            f"`chmod 600 {shlex.quote(str(path))}`, then try again."
        )


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, readable by its owner only, and flush it."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    try:
        os.write(fd, text.encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
