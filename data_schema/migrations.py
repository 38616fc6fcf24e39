"""Append-only, named schema migrations, each applied in one transaction with its record.

A shipped migration is never edited: change the schema by appending a new function.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import apsw

from assistant.errors import MigrationError

__all__ = ["MIGRATIONS", "applied_migrations", "apply_migrations", "schema_version"]

Migration = Callable[[apsw.Connection], None]
MIGRATIONS: list[Migration] = []


def migration(fn: Migration) -> Migration:
    """Register ``fn`` as the next migration; its name is its identity in the file."""
    MIGRATIONS.append(fn)
    return fn


def _ensure_table(conn: apsw.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations ( name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )


def applied_migrations(conn: apsw.Connection) -> list[str]:
    """Names of the migrations recorded in the file, oldest first."""
    _ensure_table(conn)
    return [row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]


def schema_version(conn: apsw.Connection) -> str:
    """The newest applied migration's name (``none`` for a blank file)."""
    names = applied_migrations(conn)
    return names[-1] if names else "none"


def apply_migrations(conn: apsw.Connection) -> list[str]:
    """Apply every migration not yet recorded, in order; return the names applied.

    Raises:
        MigrationError: a migration failed; it and its record were rolled back.
    """
    known = {fn.__name__ for fn in MIGRATIONS}
    done = applied_migrations(conn)
    unknown = [name for name in done if name not in known]
    if unknown:
        raise MigrationError(
            f"This data file was written by a newer Hippo (it has migration {unknown[-1]}). "
            "Upgrade Hippo (`pip install -U hippo-memory`) to open it."
        )
    applied = []
    for fn in MIGRATIONS:
        if fn.__name__ in done:
            continue
        try:
            with conn:
                fn(conn)
                conn.execute(
                    "INSERT INTO _migrations(name, applied_at) VALUES (?, ?)",
                    (fn.__name__, datetime.now(UTC).isoformat(timespec="seconds")),
                )
        except apsw.Error as exc:
            raise MigrationError(
                f"Migration {fn.__name__} failed and was rolled back: {exc}. "
                "The data file is unchanged; please report this with `hippo doctor` output."
            ) from exc
        applied.append(fn.__name__)
    return applied


@migration
def m001_initial(conn: apsw.Connection) -> None:
    """Profiles, sessions, messages, their keyword index, and embedding bookkeeping.

    Vectors live in one sqlite-vec table per embedding model (its dimension follows
    the model), created on first use and named in ``embedding_models``.
    """
    conn.execute(
        """
        CREATE TABLE profiles (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        );

        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            title TEXT NOT NULL DEFAULT '',
            scope TEXT NOT NULL DEFAULT '',
            incognito INTEGER NOT NULL DEFAULT 0,
            started_at TEXT NOT NULL,
            last_active_at TEXT NOT NULL,
            ended_at TEXT
        );
        CREATE INDEX sessions_by_recent ON sessions(profile_id, last_active_at DESC);

        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
            content TEXT NOT NULL,
            thinking TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'complete'
                CHECK (status IN ('complete', 'streaming', 'cancelled', 'failed')),
            error TEXT NOT NULL DEFAULT '',
            model TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            tokens INTEGER NOT NULL DEFAULT 0,
            importance REAL NOT NULL DEFAULT 5
        );
        CREATE INDEX messages_by_session ON messages(session_id, id);
        CREATE INDEX messages_by_time ON messages(profile_id, created_at);

        -- Contentless: the text lives once, in messages; the index holds CJK bigrams
        -- and stemmed words (see assistant.memory.textindex).
        CREATE VIRTUAL TABLE messages_fts USING fts5(
            body,
            tokenize = 'porter unicode61 remove_diacritics 2',
            content = '',
            contentless_delete = 1
        );

        CREATE TABLE embedding_models (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            dim INTEGER NOT NULL CHECK (dim > 0),
            vec_table TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        );

        CREATE TABLE message_embeddings (
            message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            model_id INTEGER NOT NULL REFERENCES embedding_models(id) ON DELETE CASCADE,
            embedded_at TEXT NOT NULL,
            PRIMARY KEY (message_id, model_id)
        ) WITHOUT ROWID;

        -- Messages waiting for a vector; a failed attempt waits until retry_at.
        CREATE TABLE embedding_queue (
            message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
            attempts INTEGER NOT NULL DEFAULT 0,
            retry_at TEXT,
            last_error TEXT NOT NULL DEFAULT ''
        );
        """
    )
