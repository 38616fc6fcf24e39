"""Archival memory: ingesting files and notes, re-ingesting, searching, removing."""

from __future__ import annotations

import pytest

from assistant.clock import ManualClock
from assistant.errors import HippoError
from assistant.memory.archival import ArchiveStore
from assistant.memory.messages import MessageStore
from data_schema.connect import Database


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "hippo.db")
    yield database
    database.close()


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def archive(db, clock):
    return ArchiveStore(lambda: db.conn, clock, max_bytes=4096)


@pytest.fixture
def profile(db, clock):
    return MessageStore(lambda: db.conn, clock).profile("work")


def _queued(db, kind):
    rows = db.conn.execute("SELECT item_id FROM embedding_queue WHERE kind = ?", (kind,))
    return {row[0] for row in rows}


def test_a_markdown_file_is_chunked_indexed_and_queued_for_vectors(archive, profile, db, tmp_path):
    path = tmp_path / "trip.md"
    path.write_text("# Lisbon trip\n\nWe fly on May 3.\n\n## Food\n\nEat pastel de nata.\n")
    result = archive.ingest_file(profile.id, path)
    assert (result.status, result.chunks) == ("added", 2)
    (document,) = archive.documents(profile.id)
    assert (document.title, document.chunk_count) == ("Lisbon trip", 2)
    chunks = archive.chunks(document.id)
    assert [c.heading for c in chunks] == ["Lisbon trip", "Lisbon trip > Food"]
    assert _queued(db, "chunk") == {c.id for c in chunks}
    (hit,) = archive.keyword_search(profile.id, "nata", 10)
    assert hit[0] == chunks[1].id and hit[1] > 0
    assert archive.keyword_search(profile.id, "food", 10)[0][0] == chunks[1].id


def test_reingesting_an_unchanged_file_does_nothing(archive, profile, clock, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("The boiler was serviced in March.")
    first = archive.ingest_file(profile.id, path)
    before = archive.chunks(first.document_id)
    clock.advance(days=1)
    again = archive.ingest_file(profile.id, path)
    assert (again.status, again.document_id, again.chunks) == ("unchanged", first.document_id, 1)
    assert archive.chunks(first.document_id) == before


def test_a_changed_file_replaces_its_chunks(archive, profile, db, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("The boiler was serviced in March.")
    first = archive.ingest_file(profile.id, path)
    (old,) = archive.chunks(first.document_id)
    path.write_text("The car goes to the garage in June.")
    result = archive.ingest_file(profile.id, path)
    assert (result.status, result.document_id) == ("replaced", first.document_id)
    assert archive.keyword_search(profile.id, "boiler", 10) == []
    assert len(archive.keyword_search(profile.id, "garage", 10)) == 1
    assert archive.get_chunks([old.id]) == {}
    assert old.id not in _queued(db, "chunk")
    assert len(archive.documents(profile.id)) == 1


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        bytes(range(1, 32)) * 40 + "caf\xe9".encode("latin-1"),  # no NUL, not UTF-8
    ],
)
def test_a_binary_file_is_refused_clearly(archive, profile, tmp_path, data):
    path = tmp_path / "picture.png"
    path.write_bytes(data)
    with pytest.raises(HippoError) as caught:
        archive.ingest_file(profile.id, path)
    message = str(caught.value)
    assert str(path) in message and ".md" in message and "binary" in message
    assert archive.documents(profile.id) == []


def test_a_latin1_file_is_read_with_a_note_saying_so(archive, profile, tmp_path):
    path = tmp_path / "recette.txt"
    path.write_bytes("Crème brûlée: 4 œufs, 50 cl de crème, “vanille”.".encode("cp1252"))
    result = archive.ingest_file(profile.id, path)
    assert result.status == "added" and "read as Windows-1252" in result.note
    (chunk,) = archive.chunks(result.document_id)
    assert chunk.content == "Crème brûlée: 4 œufs, 50 cl de crème, “vanille”."


def test_a_utf16_file_with_a_byte_order_mark_is_read(archive, profile, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Ölwechsel im Mai", encoding="utf-16")
    result = archive.ingest_file(profile.id, path)
    assert result.note == ""
    assert archive.chunks(result.document_id)[0].content == "Ölwechsel im Mai"


def test_an_empty_file_is_refused_and_an_earlier_version_stays(archive, profile, tmp_path):
    path = tmp_path / "todo.md"
    path.write_text("# Todo\n\nfix the gate")
    first = archive.ingest_file(profile.id, path)
    for empty in ("", "  \n\n\t"):
        path.write_text(empty)
        with pytest.raises(HippoError, match="it is empty, so there is nothing to keep"):
            archive.ingest_file(profile.id, path)
    assert [c.content for c in archive.chunks(first.document_id)] == ["fix the gate"]


def test_a_missing_or_oversized_file_is_refused_clearly(archive, profile, tmp_path):
    with pytest.raises(HippoError, match="no such file"):
        archive.ingest_file(profile.id, tmp_path / "nowhere.txt")
    big = tmp_path / "big.txt"
    big.write_text("word " * 2000)
    with pytest.raises(HippoError, match="limit"):
        archive.ingest_file(profile.id, big)


def test_a_folder_walk_skips_hidden_large_and_binary_files_and_says_so(archive, profile, tmp_path):
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / ".git").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nalpha")
    (tmp_path / "docs" / "sub" / "b.txt").write_text("bravo")
    (tmp_path / "docs" / ".secret.txt").write_text("hidden")
    (tmp_path / "docs" / ".git" / "config").write_text("hidden too")
    (tmp_path / "docs" / "big.txt").write_text("x " * 4000)
    (tmp_path / "docs" / "blob.bin").write_bytes(b"\x00\x01\x02")
    report = archive.ingest_path(profile.id, tmp_path / "docs")
    assert sorted(r.path.rsplit("/", 1)[-1] for r in report.results) == ["a.md", "b.txt"]
    reasons = {path.rsplit("/", 1)[-1]: why for path, why in report.skipped}
    assert set(reasons) == {".git", ".secret.txt", "big.txt", "blob.bin"}
    assert "binary" in reasons["blob.bin"]


def test_a_note_is_stored_once_and_found_by_search(archive, profile):
    ids = archive.insert_note(profile.id, "The Wi-Fi password at the cabin is moose42.")
    assert archive.insert_note(profile.id, "The Wi-Fi password at the cabin is moose42.") == ids
    (document,) = archive.documents(profile.id)
    assert document.path.startswith("note:")
    assert [hit[0] for hit in archive.keyword_search(profile.id, "cabin password", 5)] == ids
    with pytest.raises(HippoError):
        archive.insert_note(profile.id, "   ")


def test_chinese_keyword_search_finds_its_chunk(archive, profile, tmp_path):
    path = tmp_path / "旅行.md"
    path.write_text(
        "# 计划\n\n我们五月去杭州看西湖。\n\n## 预算\n\n机票大约两千元。\n", encoding="utf-8"
    )
    archive.ingest_file(profile.id, path)
    (hit,) = archive.keyword_search(profile.id, "西湖", 10)
    assert "西湖" in archive.get_chunks([hit[0]])[hit[0]].content
    best = archive.keyword_search(profile.id, "机票多少钱？", 10)[0]
    assert "机票" in archive.get_chunks([best[0]])[best[0]].content


def test_removing_a_document_removes_its_chunks_from_search(archive, profile, db, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("The boiler was serviced in March.")
    result = archive.ingest_file(profile.id, path)
    assert archive.remove_document(result.document_id) is True
    assert archive.keyword_search(profile.id, "boiler", 10) == []
    assert _queued(db, "chunk") == set()
    assert archive.remove_document(result.document_id) is False
