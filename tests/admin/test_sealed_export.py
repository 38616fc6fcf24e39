"""`hippo profile export` is plaintext and says so; `--encrypt` seals it with a passphrase."""

from __future__ import annotations

import io

import pytest

from assistant.admin.sealed import seal, unseal
from assistant.cli import main
from assistant.errors import HippoError
from tests.admin.helpers import seed


@pytest.fixture
def seeded(engine, tmp_path, fake_ollama, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    return seed(engine, tmp_path)


def _typed(monkeypatch, *lines: str) -> None:
    """What the user types at the prompts (stdin is not a terminal: one line each)."""
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))


def test_a_plain_export_says_it_is_plaintext(seeded, capsys, tmp_path):
    target = tmp_path / "me.json"
    assert main(["memory", "export", "-o", str(target)]) == 0
    out = capsys.readouterr().out
    assert "It is plaintext" in out and "--encrypt" in out
    assert b"Zalando" in target.read_bytes()

    assert main(["memory", "export"]) == 0
    assert "It is plaintext" in capsys.readouterr().err  # stdout stays the export


def test_a_sealed_export_hides_everything_and_imports_with_its_passphrase(
    seeded, capsys, tmp_path, monkeypatch
):
    target = tmp_path / "me.sealed"
    _typed(monkeypatch, "correct horse battery")
    assert main(["memory", "export", "--format", "markdown", "--encrypt", "-o", str(target)]) == 0
    assert "sealed with your passphrase" in capsys.readouterr().out
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    blob = target.read_bytes()
    assert b"Zalando" not in blob and b"Anna" not in blob and b"Berlin" not in blob

    _typed(monkeypatch, "wrong horse battery")
    assert main(["import", str(target), "--profile", "laptop"]) == 1
    err = capsys.readouterr().err
    assert "passphrase does not open this export" in err and "Traceback" not in err

    _typed(monkeypatch, "correct horse battery")
    assert main(["import", str(target), "--profile", "laptop"]) == 0
    assert "Imported into profile 'laptop'" in capsys.readouterr().out


def test_a_sealed_export_needs_a_file_and_a_long_enough_passphrase(seeded, capsys, monkeypatch):
    assert main(["memory", "export", "--encrypt"]) == 1
    assert "--encrypt needs -o FILE" in capsys.readouterr().err
    with pytest.raises(HippoError, match="at least 8 characters"):
        seal("{}", "short")


def test_a_changed_byte_is_refused_not_half_read():
    blob = bytearray(seal('{"format": "hippo-export"}', "a long passphrase", cost=1 << 10))
    blob[-5] ^= 1
    with pytest.raises(HippoError, match="does not open this export"):
        unseal(bytes(blob), "a long passphrase")
