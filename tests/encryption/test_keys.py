"""Where the data file's key is kept, found and said to be missing."""

from __future__ import annotations

import pytest

from assistant.cli import main
from assistant.config import load_config
from assistant.datakey import KEY_FILE, KEYRING_ENTRY, KEYRING_SERVICE, KeyStore
from assistant.errors import ConfigError, DataKeyError
from data_schema.cipher import file_state
from data_schema.connect import connect


def _store() -> KeyStore:
    return KeyStore.for_config(load_config())


def test_a_new_file_is_encrypted_with_a_random_key_kept_in_the_keyring(memory_keyring):
    path = load_config().db_path
    connect(path, keys=_store()).close()

    stored = memory_keyring.secrets[(KEYRING_SERVICE, KEYRING_ENTRY)]
    assert len(bytes.fromhex(stored)) == 32
    assert file_state(path) == "encrypted"
    assert not (load_config().config_dir / KEY_FILE).exists()
    connect(path, keys=_store()).close()  # the stored key opens it again
    assert memory_keyring.secrets[(KEYRING_SERVICE, KEYRING_ENTRY)] == stored


def test_two_users_files_get_different_keys(memory_keyring, tmp_path):
    connect(load_config().db_path, keys=_store()).close()
    first = memory_keyring.secrets.pop((KEYRING_SERVICE, KEYRING_ENTRY))
    connect(tmp_path / "other.db", keys=_store()).close()
    assert memory_keyring.secrets[(KEYRING_SERVICE, KEYRING_ENTRY)] != first


def test_without_a_keyring_the_key_goes_to_a_private_file_and_the_risk_is_said_once(no_keyring):
    config = load_config()
    keys = _store()
    connect(config.db_path, keys=keys).close()

    key_file = config.config_dir / KEY_FILE
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    assert len(bytes.fromhex(key_file.read_text())) == 32
    (notice,) = keys.notices
    assert "No keyring backend" in notice and str(key_file) in notice
    assert "Anyone who can read that file" in notice
    again = _store()
    connect(config.db_path, keys=again).close()
    assert again.notices == []  # said once, when the file was made


def test_hippo_db_key_beats_the_keyring_and_is_never_stored(memory_keyring, monkeypatch):
    monkeypatch.setenv("HIPPO_DB_KEY", "ab" * 32)
    connect(load_config().db_path, keys=_store()).close()
    assert memory_keyring.secrets == {}
    monkeypatch.delenv("HIPPO_DB_KEY")
    with pytest.raises(DataKeyError, match="its key is missing"):
        connect(load_config().db_path, keys=_store())


def test_a_malformed_hippo_db_key_is_refused_with_advice(monkeypatch, capsys):
    monkeypatch.setenv("HIPPO_DB_KEY", "hunter2")
    with pytest.raises(ConfigError, match="HIPPO_DB_KEY must hold the data file's key as 64 hex"):
        connect(load_config().db_path, keys=_store())
    assert main(["sessions"]) == 1
    assert "64 hex digits" in capsys.readouterr().err


def test_without_its_key_hippo_says_where_it_looked_and_what_to_do(
    memory_keyring, capsys, ollama_up
):
    assert main(["log", "a first event"]) == 0
    memory_keyring.secrets.clear()  # the keyring lost it

    assert main(["sessions"]) == 1
    err = capsys.readouterr().err
    assert "is encrypted, and its key is missing" in err
    assert "HIPPO_DB_KEY (not set)" in err and f"entry '{KEYRING_ENTRY}'" in err
    assert KEY_FILE in err and "hippo profile import FILE NAME" in err
    assert "Traceback" not in err and "file is not a database" not in err
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "missing: see the problem below" in out and "its key is missing" in out


def test_with_the_wrong_key_hippo_says_so(memory_keyring, monkeypatch, capsys, ollama_up):
    assert main(["log", "a first event"]) == 0
    monkeypatch.setenv("HIPPO_DB_KEY", "cd" * 32)

    assert main(["sessions"]) == 1
    err = capsys.readouterr().err
    assert "encrypted (or damaged), and the key from HIPPO_DB_KEY does not open it" in err
    assert "Traceback" not in err
    # Today's spellings: no `hippo import ... --profile`, no `hippo memory ...`.
    assert "`hippo profile import FILE NAME`" in err and "--profile" not in err


def test_doctor_shows_the_cipher_and_where_the_key_comes_from(memory_keyring, capsys, ollama_up):
    assert main(["log", "a first event"]) == 0
    main(["doctor"])
    facts = dict(
        line.split(None, 1) if not line.startswith("key from") else ("key from", line[8:].strip())
        for line in capsys.readouterr().out.splitlines()
        if line.startswith(("encrypted", "key from"))
    )
    assert facts["encrypted"] == "yes (AEGIS-256 per page)"
    assert facts["key from"] == f"the system keyring (service 'hippo', entry '{KEYRING_ENTRY}')"


def test_a_key_file_opens_the_file_without_asking_the_keyring(memory_keyring, monkeypatch):
    # Made where no keyring worked, the key sits in the key file. Asking the keyring loads
    # its backends, which costs more than the rest of `hippo log`: the file opens without.
    config = load_config()
    key_file = config.config_dir / KEY_FILE
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key_file.write_text("cd" * 32 + "\n")
    key_file.chmod(0o600)  # as Hippo writes it
    connect(config.db_path, keys=_store()).close()
    assert file_state(config.db_path) == "encrypted" and memory_keyring.secrets == {}

    asked: list[str] = []
    real = memory_keyring.get_password
    monkeypatch.setattr(memory_keyring, "get_password", lambda s, u: asked.append(u) or real(s, u))
    connect(config.db_path, keys=_store()).close()
    assert asked == []


def test_a_stale_key_file_does_not_hide_the_keyring_key_that_opens_the_file(memory_keyring):
    config = load_config()
    connect(config.db_path, keys=_store()).close()  # the key goes to the keyring
    key_file = config.config_dir / KEY_FILE
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key_file.write_text("ef" * 32 + "\n")  # a key file left from elsewhere, not this file's
    key_file.chmod(0o600)

    keys = _store()
    connect(config.db_path, keys=keys).close()  # tried first, refused, then the keyring's
    assert keys.current().origin.startswith("the system keyring")


def test_a_key_file_others_can_read_is_refused_with_the_fix(no_keyring, capsys):
    config = load_config()
    connect(config.db_path, keys=_store()).close()
    key_file = config.config_dir / KEY_FILE
    key_file.chmod(0o644)
    with pytest.raises(DataKeyError, match=r"open to others \(mode 0644\)") as refused:
        connect(config.db_path, keys=_store())
    assert f"chmod 600 {key_file}" in str(refused.value)
    assert main(["event", "list"]) == 1
    assert f"`chmod 600 {key_file}`" in capsys.readouterr().err
    key_file.chmod(0o600)
    connect(config.db_path, keys=_store()).close()


def test_a_data_file_others_can_read_is_made_private_again_with_a_notice(capsys):
    config = load_config()
    assert main(["event", "add", "a first event"]) == 0
    config.db_path.chmod(0o644)
    capsys.readouterr()
    assert main(["event", "list"]) == 0
    assert oct(config.db_path.stat().st_mode & 0o777) == "0o600"
    err = capsys.readouterr().err
    assert "hippo: The data file was readable by others: hippo.db (was 0644)" in err
    assert main(["event", "list"]) == 0
    assert "readable by others" not in capsys.readouterr().err  # said once
