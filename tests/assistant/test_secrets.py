"""The remote host's token: keyring when there is one, the environment always, never a file."""

from __future__ import annotations

import keyring
import keyring.backend
import pytest
from keyring.backends import fail

from assistant.errors import SecretStoreError
from assistant.secrets import TOKEN_ENV, clear_token, keyring_usable, load_token, save_token


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring backend that keeps secrets in a dict, for tests."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.secrets.get((service, username))

    def set_password(self, service, username, password):
        self.secrets[(service, username)] = password

    def delete_password(self, service, username):
        if self.secrets.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring():
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def test_a_token_is_stored_in_the_keyring_and_read_back(memory_keyring, tmp_path):
    save_token("https://ollama.example", "s3cret")
    assert load_token("https://ollama.example") == "s3cret"
    assert list(memory_keyring.secrets.values()) == ["s3cret"]
    assert not any(
        "s3cret" in p.read_text(errors="ignore") for p in tmp_path.rglob("*") if p.is_file()
    )
    assert clear_token("https://ollama.example") is True
    assert load_token("https://ollama.example") is None


def test_without_a_keyring_saving_says_how_to_fix_it(no_keyring):
    assert not keyring_usable()
    with pytest.raises(SecretStoreError, match=TOKEN_ENV) as info:
        save_token("https://ollama.example", "s3cret")
    assert "keyrings.alt" in str(info.value)


def test_the_environment_supplies_the_token_without_a_keyring(no_keyring):
    assert load_token("https://ollama.example", environ={TOKEN_ENV: "from-env"}) == "from-env"
