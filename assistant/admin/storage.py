"""Where the data file's bytes are, and deleting the vectors of a model no longer used.

`StorageAdmin.usage` answers ``hippo memory stats``'s second half: each tier's rows and
bytes (its text, keyword index and vectors), each embedding model's vectors, the rest,
the free pages, and the backups. `StorageAdmin.drop_vectors` deletes the vectors a model
made (the one in use is refused: memory is searched with it) and compacts the file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from assistant.errors import InvalidInput, NotFound
from assistant.llm.shown import full_name
from assistant.memory.profile_data.census import table_rows
from assistant.memory.profile_data.space import FileSpace, file_space
from assistant.sleep.backup import BACKUP_DIR, BACKUPS_SHARE, backup_files
from data_schema.compact import compact

if TYPE_CHECKING:
    from assistant.memory.vectors import VectorStore

__all__ = ["ModelSpace", "StorageAdmin", "StorageUsage", "TierSpace", "VectorsDropped"]

# Each tier: its table, and the kind its vectors are kept under (see VectorStore).
TIER_TABLES = (
    ("sessions", None),
    ("messages", "message"),
    ("episodes", "episode"),
    ("facts", "fact"),
    ("documents", None),
    ("chunks", "chunk"),
    ("events", "event"),
)


@dataclass(frozen=True, slots=True)
class TierSpace:
    """One tier's rows (every profile) and its bytes: text, keyword index, vectors."""

    tier: str
    rows: int
    text_bytes: int
    keyword_bytes: int
    vector_bytes: int


@dataclass(frozen=True, slots=True)
class ModelSpace:
    """The vectors one embedding model made, and their bytes (cells included)."""

    name: str
    dim: int
    vectors: int
    bytes: int
    in_use: bool


@dataclass(frozen=True, slots=True)
class StorageUsage:
    """Where the data file's bytes are.

    Attributes:
        file_bytes: the data file and its write-ahead log.
        space: every table's bytes (`FileSpace`: groups, free pages).
        tiers: each tier's rows and bytes.
        models: each embedding model's vectors.
        other_bytes: every other table (history, queues, sleep's records, the schema).
        backup_folder: where the backups are.
        backups: how many files it holds (sleep's, manual ones, set-aside ones).
        backup_bytes: their size together.
    """

    file_bytes: int
    space: FileSpace
    tiers: tuple[TierSpace, ...]
    models: tuple[ModelSpace, ...]
    other_bytes: int
    backup_folder: Path
    backups: int
    backup_bytes: int

    @property
    def backups_share(self) -> int:
        """At most how many times the compacted file sleep's backups may take together."""
        return BACKUPS_SHARE


@dataclass(frozen=True, slots=True)
class VectorsDropped:
    """What deleting a model's vectors did."""

    name: str
    vectors: int
    before_bytes: int
    after_bytes: int
    compacted: bool  # False: the file was busy; it shrinks at the next sleep run


class StorageAdmin:
    """The data file's bytes, and the vectors of models no longer used.

    Args:
        conn: returns the calling thread's connection.
        vectors: the vectors store.
        data_file: the data file.
        in_use: returns the full name of the embedding model in use.
    """

    def __init__(
        self,
        *,
        conn: Callable[[], apsw.Connection],
        vectors: VectorStore,
        data_file: Path,
        in_use: Callable[[], str],
    ) -> None:
        self._conn = conn
        self._vectors = vectors
        self._data_file = Path(data_file)
        self._in_use = in_use

    def usage(self) -> StorageUsage:
        """Where the bytes are (reads every page of the file: about 1 s a GB)."""
        space = file_space(self._conn())
        rows = table_rows(self._conn(), tuple(t for t, _ in TIER_TABLES))
        tiers = tuple(self._tier(space, table, kind, rows[table]) for table, kind in TIER_TABLES)
        models = self._models(space)
        counted = sum(t.text_bytes + t.keyword_bytes + t.vector_bytes for t in tiers)
        copies = backup_files(self._data_file)
        return StorageUsage(
            file_bytes=_size(self._data_file) + _size(Path(f"{self._data_file}-wal")),
            space=space,
            tiers=tiers,
            models=models,
            other_bytes=max(sum(t.bytes for t in space.tables) - counted, 0),
            backup_folder=self._data_file.parent / BACKUP_DIR,
            backups=len(copies),
            backup_bytes=sum(_size(p) for p in copies),
        )

    @staticmethod
    def _tier(space: FileSpace, table: str, kind: str | None, rows: int) -> TierSpace:
        vectors = 0
        if kind is not None:
            prefixes = (f"vec_{kind}_m", f"vecpart_{kind}_m", f"veccent_{kind}_m")
            vectors = sum(t.bytes for t in space.tables if t.name.startswith(prefixes))
        keyword = space.of({f"{table}_fts"})
        return TierSpace(table, rows, space.of({table}), keyword, vectors)

    def _models(self, space: FileSpace) -> tuple[ModelSpace, ...]:
        in_use = full_name(self._in_use())
        return tuple(
            ModelSpace(model.name, model.dim, count, space.of(set(tables)), model.name == in_use)
            for model, count, tables in self._vectors.stored()
        )

    def droppable(self, name: str) -> ModelSpace:
        """The vectors of the model ``name``, if they may be deleted.

        Raises:
            InvalidInput: ``name`` is the embedding model in use.
            NotFound: the file holds no vectors of a model of that name.
        """
        wanted = full_name(name.strip())
        if wanted == full_name(self._in_use()):
            raise InvalidInput(
                f"{wanted} is the embedding model in use: memory is searched with its "
                "vectors. Choose another first (`hippo model use --embedding NAME`); its "
                "vectors are then made in the background, and these can go."
            )
        models = self.usage().models
        found = next((m for m in models if m.name == wanted), None)
        if found is None:
            known = ", ".join(m.name for m in models) or "none"
            raise NotFound(
                f"The data file holds no vectors of {wanted!r} (it holds: {known}). "
                "`hippo db vectors list` shows each model's."
            )
        return found

    def drop_vectors(self, name: str) -> VectorsDropped:
        """Delete every vector the model ``name`` made, then compact the file.

        Raises:
            InvalidInput: ``name`` is the embedding model in use.
            NotFound: the file holds no vectors of a model of that name.
        """
        model = self._vectors.model(self.droppable(name).name)
        if model is None:  # deleted meanwhile, by another process
            raise NotFound(f"The vectors of {name!r} were deleted meanwhile.")
        count = self._vectors.drop(model)
        done = compact(self._conn(), rewrite=True)
        return VectorsDropped(
            model.name, count, done.before_bytes, done.after_bytes, done.how != "busy"
        )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone meanwhile (a backup pruned by a sleep run), or never there
        return 0
