"""A disk another program filled, and a folder Hippo may not write: said as such; reading goes on.

The OS answers as it would (ENOSPC, EACCES) through SQLite's own system calls
(`tests.disk`), so the real paths are taken without root or a mount.
"""

from __future__ import annotations

import re

import pytest

from assistant.cli import main
from assistant.config import load_config
from tests.disk import full_from_outside, read_only_folder

FULL = re.compile(r"The disk holding \S+hippo\.db is full \(\d+ MB free\)")


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def saved(capsys, fake_ollama, monkeypatch) -> str:
    """A data file holding one event and one fact, closed (as between two commands).

    Ollama answers: recall then embeds the query and measures the model's reading, which
    it would keep in the file where it may.
    """
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    assert main(["event", "add", "The greenhouse roof was mended on Tuesday."]) == 0
    assert main(["fact", "add", "My greenhouse is in the back garden."]) == 0
    capsys.readouterr()
    return str(load_config().data_dir)


def _reading_works(capsys, tmp_path) -> None:
    code, out, err = _run(capsys, "event", "list")
    assert code == 0 and "greenhouse roof was mended" in out, err
    code, out, err = _run(capsys, "fact", "list")
    assert code == 0 and "My greenhouse is in the back garden." in out, err
    code, out, err = _run(capsys, "memory", "recall", "greenhouse")
    assert code == 0 and "greenhouse" in out, err
    code, out, err = _run(capsys, "profile", "export", "-o", str(tmp_path / "out.json"))
    assert code == 0 and (tmp_path / "out.json").stat().st_size > 0, err


def test_a_disk_filled_by_another_program_is_named_and_reading_goes_on(saved, capsys, tmp_path):
    with full_from_outside(saved):
        _reading_works(capsys, tmp_path)
        code, _, err = _run(capsys, "event", "add", "Not saved: the disk is full.")
        assert code == 1 and FULL.search(err) and "Traceback" not in err, err
        assert "permissions" not in err and "disk I/O error" not in err
    code, out, _ = _run(capsys, "event", "list")
    assert code == 0 and "Not saved" not in out and "greenhouse" in out


def test_a_folder_hippo_may_not_write_opens_read_only_and_says_why(saved, capsys, tmp_path):
    with read_only_folder(saved):
        _reading_works(capsys, tmp_path)
        code, _, err = _run(capsys, "event", "add", "Not saved: the folder is read-only.")
        assert code == 1 and "Traceback" not in err
        assert f"Hippo may not write {saved}/hippo.db or its folder" in err
        assert "open for reading only" in err
        code, out, _ = _run(capsys, "doctor")
        assert "key at hand does not open it" not in out
    code, out, _ = _run(capsys, "event", "list")
    assert code == 0 and "Not saved" not in out
