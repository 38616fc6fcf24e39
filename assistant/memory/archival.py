"""Archival memory: documents cut into chunks, keyword-indexed and queued for vectors.

``hippo document add PATH`` and the model's ``archival_insert`` tool both land here. A file
is known by its resolved path within a profile and by the SHA-256 of its bytes:
ingesting it again unchanged does nothing, and a changed file has its chunks
replaced in one transaction (the schema's triggers clear the old chunks' keyword
rows, vectors and queue entries).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import apsw

from assistant.clock import Clock, from_iso, to_iso
from assistant.errors import HippoError, InvalidInput
from assistant.files import file_kind, require_file
from assistant.memory.base import Store, ids_clause
from assistant.memory.chunking import Chunk, chunk_text
from assistant.memory.common_terms import COMMON_MIN, COMMON_SHARE, CommonTerms
from assistant.memory.decoding import NotText, decode_text
from assistant.memory.long_text import MESSAGE_PREFIX, message_id, message_path, segments
from assistant.memory.textindex import fts_query, index_text
from assistant.memory.vectors import enqueue
from assistant.textcheck import not_utf8, printable_path
from assistant.tokens import estimate_tokens
from data_schema.rows import all_rows, scalar

__all__ = [
    "MARKDOWN_SUFFIXES",
    "MAX_FILE_BYTES",
    "ArchiveStore",
    "Document",
    "IngestReport",
    "IngestResult",
    "StoredChunk",
]

MAX_FILE_BYTES = 5 * 1024 * 1024
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
_ACCEPTED = (
    "Hippo ingests text: .txt, .md, .markdown, .rst, or any other file that is text "
    "(UTF-8 best). Convert PDFs and office documents to text or Markdown first."
)
_NOTE_PREFIX = "note:"
# How many hits a keyword search reads at most while skipping other profiles' hits.
_MAX_FETCH = 10_000
_CHUNK_COLUMNS = (
    "id, document_id, profile_id, ordinal, heading, content, tokens, importance, created_at"
)
_DOCUMENT_SELECT = (
    "SELECT d.id, d.profile_id, d.path, d.title, d.sha256, d.size, d.ingested_at,"
    " (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) FROM documents d"
)


@dataclass(frozen=True, slots=True)
class Document:
    """An ingested file or note (a note's ``path`` is ``note:<sha256 prefix>``)."""

    id: int
    profile_id: int
    path: str
    title: str
    sha256: str
    size: int
    ingested_at: datetime
    chunk_count: int


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A chunk of a document, as stored."""

    id: int
    document_id: int
    profile_id: int
    ordinal: int
    heading: str
    content: str
    tokens: int
    importance: float
    created_at: datetime


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What ingesting one file did."""

    document_id: int
    status: Literal["added", "unchanged", "replaced"]
    chunks: int
    path: str = ""
    note: str = ""  # e.g. that the file was not UTF-8, and how it was read


@dataclass(slots=True)
class IngestReport:
    """What ingesting a folder did: each file's result, and what was skipped and why."""

    results: list[IngestResult] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _document(row: tuple[Any, ...]) -> Document:
    # The leading columns, typed: mypy cannot check a spread of a variable-length row.
    head: tuple[int, int, str, str, str, int] = row[:6]
    return Document(*head, from_iso(row[6]), row[7])


def _chunk(row: tuple[Any, ...]) -> StoredChunk:
    # The leading columns, typed: mypy cannot check a spread of a variable-length row.
    head: tuple[int, int, int, int, str, str, int, float] = row[:8]
    return StoredChunk(*head, from_iso(row[8]))


def _decode(path: Path, data: bytes) -> tuple[str, str]:
    try:
        return decode_text(data)
    except NotText as exc:
        raise InvalidInput(f"Can't ingest {path}: {exc}. {_ACCEPTED}") from None


def _checked_path(path: Path) -> Path:
    """``path`` resolved, once it is known to be a regular file with a UTF-8 name."""
    if where := not_utf8(str(path)):
        raise InvalidInput(
            f"Can't ingest {printable_path(path)}: its name is not UTF-8 ({where}), which "
            "Hippo can't store. Rename it (e.g. with `convmv -f latin1 -t utf-8`)."
        )
    require_file(path, "Can't ingest")
    return path.resolve()


def _link(path: Path) -> str:
    """Why a symbolic link inside a folder is skipped: links there are not followed, as
    they may lead out of the folder, or back into it for ever."""
    if file_kind(path) == "a symbolic link loop":
        return "a symbolic link loop"
    return f"a symbolic link (not followed; ingest {printable_path(path.resolve())} itself)"


def _skipped_folder(path: Path) -> str:
    """Why a folder met in a walk is not walked ("" if it is)."""
    if path.name.startswith("."):
        return "hidden folder"
    if path.is_symlink():
        return _link(path)
    return ""


def _title(path: Path, chunks: list[Chunk]) -> str:
    first = chunks[0].heading.split(" > ")[0] if chunks else ""
    return first or path.stem


class ArchiveStore(Store):
    """Reads and writes documents and their chunks.

    Args:
        conn: returns the calling thread's connection.
        clock: the time source for every timestamp written.
        max_bytes: the largest file ingested (bigger ones are refused or skipped).
        common_share: a query term in more than this share of chunks (and at least
            ``common_min`` of them) is too common to search by (see `common_terms`).
        common_min: see ``common_share``.
    """

    def __init__(
        self,
        conn: Callable[[], apsw.Connection],
        clock: Clock,
        *,
        max_bytes: int = MAX_FILE_BYTES,
        common_share: float = COMMON_SHARE,
        common_min: int = COMMON_MIN,
    ) -> None:
        super().__init__(conn, clock)
        self._max_bytes = max_bytes
        self._common = CommonTerms("chunks_fts", "chunks", common_share, common_min)

    # -- writing ----------------------------------------------------------------

    def ingest_file(self, profile_id: int, path: Path | str) -> IngestResult:
        """Add a text or Markdown file, or replace its chunks if its bytes changed.

        A file that is not UTF-8 is read as Windows-1252 or Latin-1, and the result's
        ``note`` says so.

        Raises:
            HippoError: the file is missing or no regular file (a folder, a pipe, a
                device, a link loop), its name is not UTF-8, or it is too large, binary
                or empty.
        """
        path = _checked_path(Path(path).expanduser())
        size = path.stat().st_size
        if size > self._max_bytes:
            raise InvalidInput(
                f"Can't ingest {path}: it is {size / 1e6:.1f} MB, over the "
                f"{self._max_bytes / 1e6:.0f} MB limit. Split it into smaller files."
            )
        data = path.read_bytes()
        text, note = _decode(path, data)
        chunks = chunk_text(text, markdown=path.suffix.lower() in MARKDOWN_SUFFIXES)
        if not chunks:  # an earlier version, if any, stays
            raise InvalidInput(f"Can't ingest {path}: it is empty, so there is nothing to keep.")
        result = self._write(profile_id, str(path), _title(path, chunks), data, chunks)
        return replace(result, note=note)

    def ingest_path(self, profile_id: int, path: Path | str) -> IngestReport:
        """Ingest a file, or every file under a folder (hidden ones and huge ones skipped).

        A file that can't be read as text inside a folder is skipped with its reason;
        a single file given directly raises instead.
        """
        root = Path(path).expanduser()
        report = IngestReport()
        if not root.is_dir():
            report.results.append(self.ingest_file(profile_id, root))
            return report
        for folder, dirs, files in os.walk(root):
            walked = []
            for name in sorted(dirs):
                where = Path(folder, name)
                if why := _skipped_folder(where):
                    report.skipped.append((printable_path(where), why))
                else:
                    walked.append(name)
            dirs[:] = walked
            for name in sorted(files):
                self._ingest_one(profile_id, Path(folder, name), report)
        return report

    def _ingest_one(self, profile_id: int, file: Path, report: IngestReport) -> None:
        shown = printable_path(file)
        if file.name.startswith("."):
            report.skipped.append((shown, "hidden file"))
        elif file.is_symlink():
            report.skipped.append((shown, _link(file)))
        elif (kind := file_kind(file)) is not None:
            report.skipped.append((shown, f"{kind}, not a regular file"))
        elif file.stat().st_size > self._max_bytes:
            report.skipped.append((shown, f"over {self._max_bytes / 1e6:.0f} MB"))
        else:
            try:
                report.results.append(self.ingest_file(profile_id, file))
            except HippoError as exc:
                report.skipped.append((shown, str(exc)))

    def insert_note(self, profile_id: int, text: str, *, title: str = "note") -> list[int]:
        """Store a note (the model's archival_insert) as a document; return its chunk ids.

        The same note text stored twice is kept once.

        Raises:
            HippoError: the note is empty.
        """
        if not text.strip():
            raise InvalidInput("An archival note needs some text; nothing was stored.")
        data = text.encode("utf-8")
        path = _NOTE_PREFIX + hashlib.sha256(data).hexdigest()[:16]
        result = self._write(profile_id, path, title, data, chunk_text(text))
        return [chunk.id for chunk in self.chunks(result.document_id)]

    def _write(
        self, profile_id: int, path: str, title: str, data: bytes, chunks: list[Chunk]
    ) -> IngestResult:
        digest = hashlib.sha256(data).hexdigest()
        now = to_iso(self._clock.now())
        conn = self._conn()
        with conn:
            row = conn.execute(
                "SELECT id, sha256 FROM documents WHERE profile_id = ? AND path = ?",
                (profile_id, path),
            ).fetchone()
            if row and row[1] == digest:
                count = scalar(conn, "SELECT count(*) FROM chunks WHERE document_id = ?", (row[0],))
                return IngestResult(row[0], "unchanged", count, path)
            stale = (
                conn.execute("SELECT id FROM chunks WHERE document_id = ?", (row[0],)).fetchall()
                if row
                else []
            )
            document = (profile_id, path, title, digest, len(data), now)
            document_id = self._upsert_document(conn, row[0] if row else None, document)
            for chunk in chunks:
                self._insert_chunk(conn, profile_id, document_id, chunk, now)
            # New chunks first: SQLite hands out max(id) + 1, so the old ids are never
            # reused, and evidence citing an old chunk can't come to cite a new one.
            conn.executemany("DELETE FROM chunks WHERE id = ?", stale)
        return IngestResult(document_id, "replaced" if row else "added", len(chunks), path)

    def _upsert_document(
        self, conn: apsw.Connection, document_id: int | None, document: tuple[Any, ...]
    ) -> int:
        if document_id is None:
            conn.execute(
                "INSERT INTO documents(profile_id, path, title, sha256, size, ingested_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                document,
            )
            return conn.last_insert_rowid()
        conn.execute(
            "UPDATE documents SET title = ?, sha256 = ?, size = ?, ingested_at = ? WHERE id = ?",
            (*document[2:], document_id),
        )
        return document_id

    def _insert_chunk(
        self, conn: apsw.Connection, profile_id: int, document_id: int, chunk: Chunk, now: str
    ) -> None:
        conn.execute(
            "INSERT INTO chunks(document_id, profile_id, ordinal, heading, content, tokens,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                document_id,
                profile_id,
                chunk.ordinal,
                chunk.heading,
                chunk.content,
                estimate_tokens(chunk.content),
                now,
            ),
        )
        chunk_id = conn.last_insert_rowid()
        conn.execute(
            "INSERT INTO chunks_fts(rowid, body) VALUES (?, ?)",
            (chunk_id, index_text(f"{chunk.heading}\n{chunk.content}")),
        )
        enqueue(conn, "chunk", chunk_id, profile_id)

    # -- long messages (see long_text) --------------------------------------------------

    def open_message(self, profile_id: int, message_id: int, size: int, title: str) -> int:
        """Start the document that is to hold a long message's chunks; return its id.

        Called in the transaction that stores the message: the document stays unfinished
        (no digest) until `keep_message` writes its last chunk, so a message whose
        chunks were cut short is found again (`unkept_messages`). A document left under
        the same path (an imported profile's) is replaced.
        """
        conn = self._conn()
        path = message_path(message_id)
        conn.execute(
            "DELETE FROM chunks WHERE document_id IN"
            " (SELECT id FROM documents WHERE profile_id = ? AND path = ?)",
            (profile_id, path),
        )
        conn.execute("DELETE FROM documents WHERE profile_id = ? AND path = ?", (profile_id, path))
        conn.execute(
            "INSERT INTO documents(profile_id, path, title, sha256, size, ingested_at)"
            " VALUES (?, ?, ?, '', ?, ?)",
            (profile_id, path, title, size, to_iso(self._clock.now())),
        )
        return conn.last_insert_rowid()

    def keep_message(self, document_id: int, profile_id: int, text: str) -> int:
        """Cut a long message into its document's chunks; return how many there are.

        A segment of the text at a time, each in its own transaction (a 50 MB message
        never holds the file's write lock for long, nor more than a segment's pieces in
        memory); chunks of an earlier try are replaced. The last one finishes the
        document with the text's digest.
        """
        conn = self._conn()
        now = to_iso(self._clock.now())
        digest = hashlib.sha256()
        conn.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
        count = 0
        for segment in segments(text):
            digest.update(segment.encode("utf-8"))
            pieces = chunk_text(segment, markdown=False)
            with conn:
                for piece in pieces:
                    chunk = replace(piece, ordinal=count)
                    self._insert_chunk(conn, profile_id, document_id, chunk, now)
                    count += 1
        conn.execute(
            "UPDATE documents SET sha256 = ?, ingested_at = ? WHERE id = ?",
            (digest.hexdigest(), now, document_id),
        )
        return count

    def unkept_messages(self, profile_id: int) -> list[tuple[int, int]]:
        """(document id, message id) of the profile's long messages not yet all in chunks."""
        rows = self._conn().execute(
            "SELECT id, path FROM documents WHERE profile_id = ? AND path >= ? AND path < ?"
            " AND sha256 = ''",
            (profile_id, MESSAGE_PREFIX, MESSAGE_PREFIX[:-1] + chr(ord(MESSAGE_PREFIX[-1]) + 1)),
        )
        return [
            (document_id, found)
            for document_id, path in rows
            if (found := message_id(path)) is not None
        ]

    def remove_document(self, document_id: int) -> bool:
        """Delete a document and its chunks (with their index rows); False if it was gone."""
        conn = self._conn()
        # apsw types the `with` exit as able to swallow errors, so the result leaves it.
        with conn:
            conn.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
            conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))
            removed = conn.changes() > 0
        return removed

    # -- reading ----------------------------------------------------------------

    def documents(self, profile_id: int) -> list[Document]:
        """The profile's documents, by path."""
        rows = self._conn().execute(
            f"{_DOCUMENT_SELECT} WHERE d.profile_id = ? ORDER BY d.path", (profile_id,)
        )
        return [_document(row) for row in rows]

    def chunks(self, document_id: int) -> list[StoredChunk]:
        """A document's chunks, in order."""
        rows = self._conn().execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE document_id = ? ORDER BY ordinal",
            (document_id,),
        )
        return [_chunk(row) for row in rows]

    def get_chunks(
        self, ids: Sequence[int], profile_id: int | None = None
    ) -> dict[int, StoredChunk]:
        """The chunks with these ids (of one profile, if given), keyed by id."""
        if not ids:
            return {}
        where, args = ids_clause(ids, profile_id)
        rows = self._conn().execute(f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE {where}", args)
        return {row[0]: _chunk(row) for row in rows}

    def keyword_search(self, profile_id: int, query: str, limit: int) -> list[tuple[int, float]]:
        """Chunk ids matching ``query`` by BM25, best first, with their (positive) scores.

        FTS5 ranks alone (its top-n path, no join), by the query's terms less those too
        common to rank by (every chunk of a pasted report says "committee": see
        `common_terms`); the profile is filtered after, the search widening while other
        profiles' hits crowd out this one's.
        """
        conn = self._conn()
        expression = fts_query(query, keep=lambda term: not self._common.common(conn, term))
        if expression is None:
            return []
        fetch = 2 * limit
        while True:
            hits = all_rows(
                conn,
                "SELECT rowid, -rank FROM chunks_fts WHERE chunks_fts MATCH ?"
                " ORDER BY rank LIMIT ?",
                (expression, fetch),
            )
            where, args = ids_clause([h[0] for h in hits], profile_id)
            mine = {row[0] for row in conn.execute(f"SELECT id FROM chunks WHERE {where}", args)}
            found = [(rowid, score) for rowid, score in hits if rowid in mine]
            if len(found) >= limit or len(hits) < fetch or fetch >= _MAX_FETCH:
                return found[:limit]
            fetch *= 4
