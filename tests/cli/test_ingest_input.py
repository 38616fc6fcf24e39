"""`hippo document add` of paths that are not plain UTF-8 files: each said, the rest ingested."""

from __future__ import annotations

import os

from assistant.cli import main


def _ingest(capsys, *paths) -> tuple[int, str, str]:
    code = main(["ingest", *map(str, paths)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def _documents(engine) -> list[str]:
    return sorted(os.path.basename(d.path) for d in engine.admin.browse.documents())


def test_a_file_whose_name_is_not_utf8_is_skipped_and_the_rest_ingested(
    engine, ollama_up, tmp_path, capsys
):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "garden.md").write_text("Plant the tomatoes in May.")
    bad = os.fsdecode(bytes(folder) + b"/caf\xe9.txt")
    with open(bad, "w") as file:
        file.write("Coffee notes.")
    code, out, _ = _ingest(capsys, folder)
    assert code == 1 and _documents(engine) == ["garden.md"]
    assert f"skipped   {folder}/caf\\xe9.txt: " in out
    assert "its name is not UTF-8 (byte 0xe9 at character" in out and "Rename it" in out


def test_devices_pipes_and_link_loops_are_named_and_later_paths_still_ingested(
    engine, ollama_up, tmp_path, capsys
):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    good = tmp_path / "good.txt"
    good.write_text("The spare key is under the blue pot.")
    code, out, err = _ingest(capsys, "/dev/zero", pipe, loop, tmp_path / "gone.txt", good)
    assert code == 1 and _documents(engine) == ["good.txt"]
    assert err.splitlines() == [
        "hippo: Can't ingest /dev/zero: it is a device (like /dev/zero), not a regular file.",
        f"hippo: Can't ingest {pipe}: it is a named pipe, not a regular file.",
        f"hippo: Can't ingest {loop}: it is a symbolic link loop, not a regular file.",
        f"hippo: Can't ingest {tmp_path / 'gone.txt'}: there is no such file.",
    ]
    assert out.startswith("added")


def test_links_inside_a_folder_are_reported_not_silently_dropped(
    engine, ollama_up, tmp_path, capsys
):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("alpha")
    (folder / "up").symlink_to("..")
    (folder / "self").symlink_to("self")
    code, out, _ = _ingest(capsys, folder)
    assert code == 1 and _documents(engine) == ["a.md"]
    assert f"skipped   {folder}/up: a symbolic link (not followed; ingest {tmp_path} itself)" in out
    assert f"skipped   {folder}/self: a symbolic link loop" in out


def test_an_empty_file_is_skipped_with_a_notice(engine, ollama_up, tmp_path, capsys):
    (tmp_path / "empty.txt").write_text("")
    code, _, err = _ingest(capsys, tmp_path / "empty.txt")
    assert code == 1 and "it is empty, so there is nothing to keep" in err
    assert _documents(engine) == []


def test_a_latin1_file_is_ingested_with_a_note(engine, ollama_up, tmp_path, capsys):
    path = tmp_path / "liste.txt"
    path.write_bytes("Café, crème, pâté".encode("latin-1"))
    code, out, _ = _ingest(capsys, path)
    assert code == 0 and _documents(engine) == ["liste.txt"]
    assert "note: it is not UTF-8 (byte 0xe9 at offset 3), so it was read as Windows-1252" in out
