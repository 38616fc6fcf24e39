"""The first start of this version encrypts an old plaintext file; a kill at any point is safe."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.config import load_config
from assistant.datakey import KEY_FILE, KEYRING_ENTRY, KEYRING_SERVICE, KeyStore
from assistant.encryption import prepare_data_file, rekey
from assistant.errors import DataKeyError, StorageError
from data_schema.cipher import NoEncryption, file_state, opens_with
from data_schema.connect import connect
from tests.encryption.helpers import SENTENCE, plaintext_file, row_counts
from tests.plaintext import plaintext_bytes

ROOT = Path(__file__).resolve().parents[2]


def _raw(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(f"{path.name}*"))


@pytest.fixture
def old_file() -> tuple[Path, dict[str, int]]:
    """A plaintext data file with a plaintext nightly backup beside it."""
    path = load_config().db_path
    counts = plaintext_file(path)
    backups = path.parent / "backups"
    backups.mkdir()
    conn = connect(path, keys=NoEncryption())
    conn.execute("VACUUM INTO ?", (str(backups / "hippo-20250101-030000-000000.db"),))
    conn.close()
    return path, counts


def test_an_old_plaintext_file_is_encrypted_checked_and_backed_up(old_file):
    path, counts = old_file
    reports: list[tuple[str, float]] = []
    keys = KeyStore.for_config(load_config())

    prepare_data_file(path, keys, lambda what, share: reports.append((what, share)))

    assert file_state(path) == "encrypted" and row_counts(path) == counts
    files = sorted((path.parent / "backups").glob("*.db"))
    assert len(files) == 2  # the old nightly one, and one made before the swap
    assert all(file_state(f) == "encrypted" and row_counts(f) == counts for f in files)
    assert SENTENCE.encode() not in _raw(path) + b"".join(f.read_bytes() for f in files)
    assert SENTENCE.encode() in plaintext_bytes(path)
    steps = [share for what, share in reports if what == "Encrypting the data file"]
    assert len(steps) > 3 and steps == sorted(steps)  # it never looks frozen
    assert steps[-3:] == [0.85, 0.95, 1.0]  # copied, checked, swapped in
    assert ("Encrypting backup 1 of 1", 1.0) in reports
    assert "now encrypted" in keys.notices[0] and "rows in" in keys.notices[0]
    assert not list(path.parent.rglob("*.recrypting"))


def test_the_conversion_waits_for_another_hippo_to_close_the_file(old_file):
    path, counts = old_file
    other = connect(path, keys=NoEncryption())  # the app, still open on the old file
    try:
        with pytest.raises(StorageError, match=r"has .* open, so it can't be re-encrypted now"):
            prepare_data_file(path, KeyStore.for_config(load_config()))
        assert file_state(path) == "plaintext"
        assert other.execute("SELECT count(*) FROM filler").fetchone()[0] == counts["filler"]
    finally:
        other.close()


def _kill(path: Path, action: str, step: str, share: float) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "tests.encryption.killer", str(path), action, step, str(share)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -9, done.stdout + done.stderr  # it was killed where asked


@pytest.mark.parametrize(
    ("step", "share"),
    [
        ("Encrypting the data file", 0.2),  # in the middle of the copy
        ("Encrypting the data file", 0.85),  # the copy complete, not yet checked
        ("Encrypting the data file", 0.95),  # checked, not yet backed up nor swapped in
        ("Encrypting the data file", 1.0),  # swapped in
        ("Encrypting backup", 0.0),  # the data file done, its old backup not yet
    ],
)
def test_a_kill_during_the_conversion_leaves_a_file_that_opens_and_a_restart_finishes(
    old_file, step, share
):
    path, counts = old_file

    _kill(path, "convert", step, share)

    assert row_counts(path) == counts  # opens, plaintext or encrypted, with everything in it
    prepare_data_file(path, KeyStore.for_config(load_config()))
    assert file_state(path) == "encrypted" and row_counts(path) == counts
    for backup in (path.parent / "backups").glob("*.db"):
        assert file_state(backup) == "encrypted" and row_counts(backup) == counts
    assert not list(path.parent.rglob("*.recrypting"))


def test_rekey_changes_the_key_of_the_file_and_its_backups(old_file, memory_keyring):
    path, counts = old_file
    keys = KeyStore.for_config(load_config())
    prepare_data_file(path, keys)
    old = keys.current()

    done = rekey(path, KeyStore.for_config(load_config()))

    new = KeyStore.for_config(load_config()).current()
    assert new is not None and old is not None and new.secret != old.secret
    assert memory_keyring.secrets == {(KEYRING_SERVICE, KEYRING_ENTRY): new.hex}  # old is gone
    assert len(done.files) == 3 and path in done.files
    for file in done.files:
        assert opens_with(file, new) and not opens_with(file, old)
        assert row_counts(file) == counts
    assert "new key" in done.text()


@pytest.mark.parametrize("step", ["Re-encrypting backup", "Re-encrypting the data file"])
def test_a_kill_during_a_rekey_keeps_both_keys_and_a_rerun_finishes(old_file, no_keyring, step):
    path, counts = old_file
    prepare_data_file(path, KeyStore.for_config(load_config()))

    _kill(path, "rekey", step, 0.2)

    assert (load_config().config_dir / f"{KEY_FILE}.next").exists()  # the new key, kept
    assert row_counts(path) == counts
    rekey(path, KeyStore.for_config(load_config()))
    assert not (load_config().config_dir / f"{KEY_FILE}.next").exists()
    assert row_counts(path) == counts
    for backup in (path.parent / "backups").glob("*.db"):
        assert row_counts(backup) == counts


def test_a_rekey_stopped_after_the_swap_opens_with_the_new_key_and_makes_it_the_key(
    old_file, memory_keyring
):
    from data_schema.cipher import DataKey
    from data_schema.recrypt import recrypt

    path, counts = old_file
    keys = KeyStore.for_config(load_config())
    prepare_data_file(path, keys)
    old = keys.current()
    new = keys.stage(DataKey(os.urandom(32), "new"))
    recrypt(path, old=old, new=new)  # ...and the process died before the new key was made the key

    assert row_counts(path) == counts
    assert memory_keyring.secrets == {(KEYRING_SERVICE, KEYRING_ENTRY): new.hex}


def test_rekey_refuses_a_key_that_comes_from_the_environment(old_file):
    path, _ = old_file
    prepare_data_file(path, KeyStore.for_config(load_config()))
    with pytest.raises(DataKeyError, match="comes from HIPPO_DB_KEY"):
        rekey(path, KeyStore.for_config(load_config()))


def test_hippo_memory_rekey_from_the_command_line(old_file, memory_keyring, capsys):
    from assistant.cli import main

    path, _ = old_file
    assert main(["memory", "stats"]) == 0  # converts on the way in
    counts = row_counts(path)
    before = dict(memory_keyring.secrets)
    assert main(["memory", "rekey"]) == 0
    out, err = capsys.readouterr()
    assert "Re-encrypted 3 file(s) with a new key" in out
    assert "Re-encrypting the data file: 100%" in err
    # The line is rewritten in place: a carriage return, not its escape printed.
    assert "\rRe-encrypting the data file" in err and "\\x0d" not in err
    assert memory_keyring.secrets != before and row_counts(path) == counts


def test_a_copy_of_the_old_file_is_not_kept_in_plaintext(old_file):
    path, _ = old_file
    spare = shutil.copy(path, path.with_name("elsewhere.db"))
    prepare_data_file(path, KeyStore.for_config(load_config()))
    plain = [p for p in path.parent.rglob("*.db") if file_state(p) == "plaintext"]
    assert plain == [Path(spare)]  # only what the user copied away by hand
