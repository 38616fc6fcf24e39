"""Files that are not what they should be, for export, import and backup: clear refusals."""

from __future__ import annotations

import json
import os
import threading

import pytest

from assistant.cli import main
from tests.cli.stored import stored_rows


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def test_export_into_a_folder_says_to_name_a_file(seeded, tmp_path, capsys):
    code, _, err = _run(capsys, "memory", "export", "-o", str(tmp_path))
    assert code == 1 and f"{tmp_path} is a folder; give a file name in it" in err


def test_export_into_a_missing_folder_says_to_create_it(seeded, tmp_path, capsys):
    target = tmp_path / "no" / "such" / "me.json"
    code, _, err = _run(capsys, "memory", "export", "-o", str(target))
    assert code == 1 and f"the folder {target.parent} does not exist" in err
    assert f"mkdir -p {target.parent}" in err


def test_export_replaces_a_file_whole_and_owner_only(seeded, tmp_path, capsys):
    target = tmp_path / "me.json"
    target.write_text("an older export")
    target.chmod(0o644)
    assert _run(capsys, "memory", "export", "-o", str(target))[0] == 1  # not without --force
    assert target.read_text() == "an older export"
    assert _run(capsys, "memory", "export", "-o", str(target), "--force")[0] == 0
    assert json.loads(target.read_text())["format"] == "hippo-export"
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (bytes(range(256)) * 8, "is not a Hippo export: it is not UTF-8 text (byte 0x80 at offset"),
        (b"[" * 100_000 + b"]" * 100_000, "its JSON is nested too deeply to read"),
        (b'{"text": "' + b"x" * 100 + b'"}', "no 'format': 'hippo-export'"),
        (b"", "This is not a Hippo export"),
    ],
    ids=["binary", "nested", "other-json", "empty"],
)
def test_import_of_what_is_not_an_export_is_refused(
    seeded, engine, tmp_path, capsys, content, said
):
    before = stored_rows(engine.memory.db.path)
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    code, _, err = _run(capsys, "import", str(bad), "--profile", "restored")
    assert code == 1 and said in err
    assert stored_rows(engine.memory.db.path) == before


def test_import_of_a_device_a_pipe_or_a_link_loop_says_what_it_is(seeded, tmp_path, capsys):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for path, kind in (
        ("/dev/zero", "a device (like /dev/zero)"),
        (pipe, "a named pipe"),
        (loop, "a symbolic link loop"),
        (tmp_path, "a folder"),
    ):
        code, _, err = _run(capsys, "import", str(path), "--profile", "restored")
        assert code == 1 and f"Can't import {path}: it is {kind}, not a regular file." in err
    code, _, err = _run(capsys, "import", str(tmp_path / "gone.json"), "--profile", "restored")
    assert code == 1 and "there is no such file" in err


def test_import_above_the_size_limit_is_refused_with_the_reason(seeded, tmp_path, capsys):
    export = tmp_path / "me.json"
    assert _run(capsys, "memory", "export", "-o", str(export))[0] == 0
    with export.open("ab") as file:  # past the limit, without writing a gigabyte
        file.truncate(2_500_000)
    code, _, err = _run(capsys, "import", str(export), "--profile", "big", "--max-mb", "2")
    assert code == 1 and "it is 2.5 MB, over the 2 MB limit" in err
    assert "reads the whole export into memory" in err
    assert "--max-mb 3" in err


def test_a_backup_to_a_name_that_is_not_utf8_is_refused_and_leaves_no_file(
    seeded, tmp_path, capsys
):
    target = os.fsdecode(bytes(tmp_path / "b") + b"\xff.db")
    code, _, err = _run(capsys, "memory", "backup", target)
    assert code == 1 and "needs a file name that is UTF-8 text" in err
    assert not os.path.exists(target)


def test_export_into_a_pipe_nothing_reads_fails_at_once_instead_of_hanging(
    seeded, tmp_path, capsys
):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    code, _, err = _run(capsys, "memory", "export", "-o", str(pipe))
    assert code == 1 and f"Can't write {pipe}: it is a named pipe that nothing reads." in err
    assert pipe.is_fifo()


def test_export_into_a_pipe_writes_to_it_and_never_replaces_it(seeded, tmp_path, capsys):
    # A pipe stands for every file that is no regular file (/dev/stdout, a device): the
    # test never names a real device, as a regression would replace it for the machine.
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    code = _run(capsys, "memory", "export", "-o", str(pipe))[0]
    reader.join()
    assert code == 0 and pipe.is_fifo()
    assert json.loads(received[0])["format"] == "hippo-export"


def test_export_through_a_link_replaces_the_file_it_points_at(seeded, tmp_path, capsys):
    target = tmp_path / "me.json"
    target.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    assert _run(capsys, "memory", "export", "-o", str(link), "--force")[0] == 0
    assert link.is_symlink() and json.loads(target.read_text())["format"] == "hippo-export"
