"""Append-only, named schema migrations, each applied in one transaction with its record.

A shipped migration is never edited: change the schema by appending a new function.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import apsw

from assistant.errors import MigrationError
from data_schema.rows import scalar

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

    Message and session ids are AUTOINCREMENT: never reused after a delete.

    Vectors live in sqlite-vec tables, one per item kind and embedding model (the
    dimension follows the model), created on first use.
    """
    conn.execute(
        """
        CREATE TABLE profiles (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        );

        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
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
            id INTEGER PRIMARY KEY AUTOINCREMENT,
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
        -- and stemmed words (see assistant.memory.textindex), and in `context` the
        -- neighbouring turns' words.
        CREATE VIRTUAL TABLE messages_fts USING fts5(
            body,
            context,
            tokenize = 'porter unicode61 remove_diacritics 2',
            content = '',
            contentless_delete = 1
        );

        CREATE TABLE embedding_models (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            dim INTEGER NOT NULL CHECK (dim > 0),
            created_at TEXT NOT NULL
        );

        -- Which item of which kind has a vector from which model. The vectors themselves
        -- live in sqlite-vec tables named vec_<kind>_m<model id>, one per kind and model.
        CREATE TABLE embeddings (
            kind TEXT NOT NULL,
            item_id INTEGER NOT NULL,
            model_id INTEGER NOT NULL REFERENCES embedding_models(id) ON DELETE CASCADE,
            embedded_at TEXT NOT NULL,
            PRIMARY KEY (kind, item_id, model_id)
        ) WITHOUT ROWID;

        -- Items waiting for a vector; a failed attempt waits until retry_at.
        CREATE TABLE embedding_queue (
            kind TEXT NOT NULL,
            item_id INTEGER NOT NULL,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            attempts INTEGER NOT NULL DEFAULT 0,
            retry_at TEXT,
            last_error TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (kind, item_id)
        ) WITHOUT ROWID;

        CREATE TRIGGER messages_forget_vectors AFTER DELETE ON messages BEGIN
            DELETE FROM embedding_queue WHERE kind = 'message' AND item_id = old.id;
            DELETE FROM embeddings WHERE kind = 'message' AND item_id = old.id;
            DELETE FROM messages_fts WHERE rowid = old.id;
        END;
        """
    )


def _fts(table: str) -> str:
    return (
        f"CREATE VIRTUAL TABLE {table} USING fts5(body,"
        " tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);"
    )


def _forget_vectors(kind: str, table: str) -> str:
    return f"""
        CREATE TRIGGER {table}_forget_vectors AFTER DELETE ON {table} BEGIN
            DELETE FROM embedding_queue WHERE kind = '{kind}' AND item_id = old.id;
            DELETE FROM embeddings WHERE kind = '{kind}' AND item_id = old.id;
            DELETE FROM entity_links WHERE kind = '{kind}' AND item_id = old.id;
            DELETE FROM {table}_fts WHERE rowid = old.id;
        END;"""


@migration
def m002_memory_tiers(conn: apsw.Connection) -> None:
    """Core memory, episodes, facts with evidence and history, entities, archival, events.

    Item ids are AUTOINCREMENT: evidence and "memories used" point at them, so an id
    freed by a delete must never be handed to an unrelated new row.

    Also what each reply used from memory, and per-message fields for imported
    conversations (speaker, outside id) and for injected recall (never re-learned).
    """
    conn.execute(
        """
        ALTER TABLE messages ADD COLUMN speaker TEXT NOT NULL DEFAULT '';
        ALTER TABLE messages ADD COLUMN source_id TEXT NOT NULL DEFAULT '';
        ALTER TABLE messages ADD COLUMN recalled INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE messages ADD COLUMN last_accessed_at TEXT;
        ALTER TABLE sessions ADD COLUMN summary TEXT NOT NULL DEFAULT '';
        ALTER TABLE sessions ADD COLUMN summary_upto INTEGER NOT NULL DEFAULT 0;

        CREATE TABLE core_blocks (
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            label TEXT NOT NULL CHECK (label IN ('human', 'persona')),
            value TEXT NOT NULL DEFAULT '',
            char_limit INTEGER NOT NULL DEFAULT 2000 CHECK (char_limit > 0),
            updated_at TEXT NOT NULL,
            PRIMARY KEY (profile_id, label)
        ) WITHOUT ROWID;
        CREATE TABLE core_block_history (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            label TEXT NOT NULL,
            before TEXT NOT NULL,
            after TEXT NOT NULL,
            actor TEXT NOT NULL CHECK (actor IN ('user', 'agent', 'sleep', 'system')),
            at TEXT NOT NULL
        );

        CREATE TABLE entities (
            id INTEGER PRIMARY KEY,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            norm TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT '',
            UNIQUE (profile_id, norm)
        );
        CREATE TABLE entity_links (
            entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('fact', 'episode', 'message', 'chunk', 'event')),
            item_id INTEGER NOT NULL,
            PRIMARY KEY (entity_id, kind, item_id)
        ) WITHOUT ROWID;
        CREATE INDEX entity_links_by_item ON entity_links(kind, item_id);

        CREATE TABLE episodes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
            title TEXT NOT NULL DEFAULT '',
            summary TEXT NOT NULL CHECK (summary != ''),
            topics TEXT NOT NULL DEFAULT '[]',
            scope TEXT NOT NULL DEFAULT '',
            importance REAL NOT NULL DEFAULT 5 CHECK (importance BETWEEN 1 AND 10),
            started_at TEXT NOT NULL,
            ended_at TEXT NOT NULL,
            created_at TEXT NOT NULL,
            last_accessed_at TEXT
        );
        CREATE INDEX episodes_by_time ON episodes(profile_id, ended_at DESC);
        CREATE TABLE episode_messages (
            episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
            message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            PRIMARY KEY (episode_id, message_id)
        ) WITHOUT ROWID;

        CREATE TABLE facts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            statement TEXT NOT NULL CHECK (statement != ''),
            subject TEXT NOT NULL DEFAULT '',
            predicate TEXT NOT NULL DEFAULT '',
            scope TEXT NOT NULL DEFAULT '',
            source_kind TEXT NOT NULL CHECK (source_kind IN
                ('user_stated', 'assistant_inferred', 'document', 'event', 'reflection')),
            confidence REAL NOT NULL DEFAULT 0.5 CHECK (confidence BETWEEN 0 AND 1),
            importance REAL NOT NULL DEFAULT 5 CHECK (importance BETWEEN 1 AND 10),
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN
                ('pending', 'active', 'superseded', 'rejected', 'expired')),
            valid_from TEXT,
            valid_to TEXT,
            learned_at TEXT NOT NULL,
            last_accessed_at TEXT,
            access_count INTEGER NOT NULL DEFAULT 0,
            pinned INTEGER NOT NULL DEFAULT 0,
            superseded_by INTEGER REFERENCES facts(id) ON DELETE SET NULL,
            depth INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX facts_by_status ON facts(profile_id, status, pinned DESC, importance DESC);
        CREATE TABLE fact_evidence (
            fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('message', 'episode', 'chunk', 'event', 'fact')),
            ref_id INTEGER NOT NULL,
            quote TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (fact_id, kind, ref_id)
        ) WITHOUT ROWID;
        CREATE INDEX fact_evidence_by_ref ON fact_evidence(kind, ref_id);
        CREATE TABLE fact_history (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            actor TEXT NOT NULL CHECK (actor IN ('user', 'agent', 'sleep', 'system')),
            action TEXT NOT NULL,
            before TEXT,
            after TEXT,
            at TEXT NOT NULL
        );
        CREATE INDEX fact_history_by_fact ON fact_history(fact_id, id);

        CREATE TABLE documents (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            sha256 TEXT NOT NULL,
            size INTEGER NOT NULL DEFAULT 0,
            ingested_at TEXT NOT NULL,
            UNIQUE (profile_id, path)
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            heading TEXT NOT NULL DEFAULT '',
            content TEXT NOT NULL,
            tokens INTEGER NOT NULL DEFAULT 0,
            importance REAL NOT NULL DEFAULT 5,
            created_at TEXT NOT NULL,
            last_accessed_at TEXT
        );
        CREATE INDEX chunks_by_document ON chunks(document_id, ordinal);

        CREATE TABLE events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            text TEXT NOT NULL CHECK (text != ''),
            source TEXT NOT NULL DEFAULT 'cli',
            occurred_at TEXT NOT NULL,
            expires_at TEXT,
            importance REAL NOT NULL DEFAULT 5,
            consolidated_at TEXT,
            created_at TEXT NOT NULL,
            last_accessed_at TEXT
        );
        CREATE INDEX events_by_time ON events(profile_id, occurred_at DESC);

        CREATE TABLE reply_memories (
            message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            item_id INTEGER NOT NULL,
            section TEXT NOT NULL,
            rank INTEGER NOT NULL,
            score REAL NOT NULL DEFAULT 0,
            relevance REAL NOT NULL DEFAULT 0,
            recency REAL NOT NULL DEFAULT 0,
            importance REAL NOT NULL DEFAULT 0,
            PRIMARY KEY (message_id, kind, item_id)
        ) WITHOUT ROWID;
        """
        + "".join(_fts(f"{t}_fts") for t in ("episodes", "facts", "chunks", "events"))
        + "".join(
            _forget_vectors(kind, table)
            for kind, table in (
                ("episode", "episodes"),
                ("fact", "facts"),
                ("chunk", "chunks"),
                ("event", "events"),
            )
        )
    )


@migration
def m003_sleep(conn: apsw.Connection) -> None:
    """The nightly consolidation ("sleep"): runs, a cross-process lock, progress marks.

    * ``sleep_runs``: each consolidation with its counts, model use, errors and proposals.
    * ``sleep_lock``: one row while a consolidation runs; a heartbeat and the owner's pid
      let the next process take over a lock whose owner died.
    * ``sleep_marks``: which session each step has done, up to which message (resumability).
    * ``sleep_state``: small per-profile bookmarks (last reflection, last usage counted...).
    * ``sleep_candidates``: facts extracted and waiting for the update phase, then decided.
    * ``sleep_rejections``: candidates that failed a defence, so a rerun never re-proposes them.
    * ``dated_items``: plans and deadlines from episodes, with their absolute date.
    """
    conn.execute(
        """
        CREATE TABLE sleep_runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            status TEXT NOT NULL DEFAULT 'running' CHECK (status IN
                ('running', 'done', 'capped', 'failed', 'interrupted')),
            trigger TEXT NOT NULL DEFAULT 'manual',
            dry_run INTEGER NOT NULL DEFAULT 0,
            owner TEXT NOT NULL DEFAULT '',
            backup_path TEXT NOT NULL DEFAULT '',
            llm_calls INTEGER NOT NULL DEFAULT 0,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            llm_seconds REAL NOT NULL DEFAULT 0,
            seconds REAL NOT NULL DEFAULT 0,
            counts TEXT NOT NULL DEFAULT '{}',
            errors TEXT NOT NULL DEFAULT '[]',
            proposals TEXT NOT NULL DEFAULT '[]',
            seen_at TEXT
        );

        CREATE TABLE sleep_lock (
            name TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            pid INTEGER NOT NULL,
            host TEXT NOT NULL,
            acquired_at TEXT NOT NULL,
            heartbeat_at TEXT NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE sleep_marks (
            step TEXT NOT NULL,
            item_id INTEGER NOT NULL,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            upto INTEGER NOT NULL DEFAULT 0,
            attempts INTEGER NOT NULL DEFAULT 0,
            state TEXT NOT NULL CHECK (state IN ('done', 'failed', 'given_up')),
            run_id INTEGER,
            at TEXT NOT NULL,
            PRIMARY KEY (step, item_id)
        ) WITHOUT ROWID;

        CREATE TABLE sleep_state (
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (profile_id, key)
        ) WITHOUT ROWID;

        CREATE TABLE sleep_candidates (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            session_id INTEGER,
            run_id INTEGER,
            statement TEXT NOT NULL,
            subject TEXT NOT NULL DEFAULT '',
            predicate TEXT NOT NULL DEFAULT '',
            scope TEXT NOT NULL DEFAULT '',
            source_kind TEXT NOT NULL,
            confidence REAL NOT NULL DEFAULT 0.5,
            importance REAL NOT NULL DEFAULT 5,
            said_at TEXT NOT NULL,
            valid_to TEXT,
            evidence TEXT NOT NULL DEFAULT '[]',
            strong INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'new' CHECK (status IN
                ('new', 'added', 'reinforced', 'superseded', 'ignored', 'blocked')),
            attempts INTEGER NOT NULL DEFAULT 0,
            fact_id INTEGER REFERENCES facts(id) ON DELETE SET NULL,
            note TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX sleep_candidates_new ON sleep_candidates(profile_id, status, id);

        CREATE TABLE sleep_rejections (
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            fingerprint TEXT NOT NULL,
            reason TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '',
            run_id INTEGER,
            at TEXT NOT NULL,
            PRIMARY KEY (profile_id, fingerprint)
        ) WITHOUT ROWID;

        CREATE TABLE dated_items (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            episode_id INTEGER REFERENCES episodes(id) ON DELETE CASCADE,
            message_id INTEGER,
            text TEXT NOT NULL CHECK (text != ''),
            phrase TEXT NOT NULL DEFAULT '',
            due_on TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'upcoming' CHECK (status IN ('upcoming', 'expired')),
            created_at TEXT NOT NULL
        );
        CREATE INDEX dated_items_by_due ON dated_items(profile_id, status, due_on);
        """
    )


@migration
def m004_memory_admin(conn: apsw.Connection) -> None:
    """Indexes for the memory inspector, the review queue and forgetting.

    * facts listed by when they were learned, and filtered by scope or source;
    * "which replies used this item" (provenance, and deleting an item's uses);
    * history by time, for the as-of view.
    """
    conn.execute(
        """
        CREATE INDEX facts_by_learned ON facts(profile_id, learned_at DESC);
        CREATE INDEX facts_by_scope ON facts(profile_id, scope, status);
        CREATE INDEX facts_by_source ON facts(profile_id, source_kind, status);
        CREATE INDEX reply_memories_by_item ON reply_memories(kind, item_id);
        CREATE INDEX fact_history_by_time ON fact_history(fact_id, at);
        """
    )


@migration
def m005_binary_vectors(conn: apsw.Connection) -> None:
    """A 1-bit companion of every float vector table, for fast approximate search.

    Each ``vec_<kind>_m<id>`` table (made on first use by the vector store) gets a
    ``vecbit_<kind>_m<id>`` table of the same vectors quantised to one bit a dimension
    (48 bytes a row for 384-d); a large table's nearest neighbours are prefiltered by
    Hamming distance over it and rescored exactly with the float vectors. Existing
    vectors are copied over here; new ones are written to both tables.
    """
    tables: list[tuple[str, int]] = list(
        conn.execute(
            "SELECT t.name, m.dim FROM sqlite_master t JOIN embedding_models m"
            " ON t.name GLOB 'vec_*_m' || m.id"
            " WHERE t.type = 'table' AND t.sql LIKE 'CREATE VIRTUAL TABLE%'"
        )
    )
    for table, dim in tables:
        if dim % 8:
            continue
        bits = "vecbit_" + table.removeprefix("vec_")
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {bits} USING vec0(item_id INTEGER PRIMARY KEY,"
            f" profile_id INTEGER PARTITION KEY, embedding BIT[{int(dim)}])"
        )
        conn.execute(
            f"INSERT INTO {bits}(item_id, profile_id, embedding)"
            f" SELECT item_id, profile_id, vec_quantize_binary(embedding) FROM {table}"
        )


@migration
def m006_streaming_index(conn: apsw.Connection) -> None:
    """A partial index of replies still streaming, so start-up finds them without a scan."""
    conn.execute(
        "CREATE INDEX IF NOT EXISTS messages_streaming ON messages(id) WHERE status = 'streaming'"
    )


def _episode_body(title: str, summary: str, topics: str) -> str:
    return "\n".join((title, summary, " ".join(json.loads(topics))))


# Each tier's keyword-index body, as its writer makes it from the row.
_INDEXED_BODIES: dict[str, tuple[str, Callable[..., str]]] = {
    "episodes": ("SELECT id, title, summary, topics FROM episodes", _episode_body),
    "facts": ("SELECT id, statement FROM facts", str),
    "chunks": ("SELECT id, heading, content FROM chunks", lambda h, c: f"{h}\n{c}"),
    "events": ("SELECT id, text FROM events", str),
}
# The rows among those an index holds (rowids), each as (rowid, *indexed columns).
_IndexedRows = Callable[[apsw.Connection, set[int]], Iterator[tuple[Any, ...]]]
# Each finished message with the finished messages just before and after it.
_MESSAGES_IN_CONTEXT = """
    SELECT id, content, speaker, created_at,
        lag(id) OVER turns, lag(content) OVER turns, lead(id) OVER turns, lead(content) OVER turns
    FROM messages WHERE status != 'streaming'
    WINDOW turns AS (PARTITION BY session_id ORDER BY id)
"""


@migration
def m007_cjk_characters_in_keyword_indexes(conn: apsw.Connection) -> None:
    """Re-index CJK text with its single characters beside its bigrams.

    The keyword indexes are contentless, so an index that holds CJK text is emptied
    and every row it held is written again from its source, as its writer writes it:
    a message with its date, speaker and neighbours; an episode's title, summary and
    topics; a fact's statement; a chunk's heading and content; an event's text. (One
    bulk rewrite is several times faster than replacing rows one by one.) An index
    without CJK text is left as it is.
    """
    _rewrite_cjk_index(conn, "messages_fts", ("body", "context"), _indexed_messages)
    for table, (select, body) in _INDEXED_BODIES.items():
        _rewrite_cjk_index(conn, f"{table}_fts", ("body",), _indexed_bodies(select, body))


def _indexed_bodies(select: str, body: Callable[..., str]) -> _IndexedRows:
    def rows(conn: apsw.Connection, held: set[int]) -> Iterator[tuple[Any, ...]]:
        for item_id, *columns in conn.execute(select):
            if item_id in held:
                yield item_id, _m007_index_text(body(*columns))

    return rows


def _indexed_messages(conn: apsw.Connection, held: set[int]) -> Iterator[tuple[Any, ...]]:
    for item_id, content, speaker, at, *around in conn.execute(_MESSAGES_IN_CONTEXT):
        if item_id not in held:
            continue
        before, text_before, after, text_after = around
        pairs = ((before, text_before), (after, text_after))
        neighbours = [text for n, text in pairs if n is not None]
        yield item_id, *_m007_message_columns(content, speaker, at, neighbours)


def _rewrite_cjk_index(
    conn: apsw.Connection,
    table: str,
    columns: tuple[str, ...],
    rows: _IndexedRows,
) -> None:
    """Rewrite ``table`` from ``rows`` (rowid, indexed columns) if any row it holds has CJK.

    ``rows`` yields the rows among ``held`` (the rowids the index holds), freshly indexed.
    """
    held = {row[0] for row in conn.execute(f"SELECT rowid FROM {table}")}
    if not any(_M007_CJK_RUN.search("".join(row[1:])) for row in rows(conn, held)):
        return
    conn.execute(f"INSERT INTO {table}({table}) VALUES ('delete-all')")
    names = ", ".join(columns)
    marks = ", ".join("?" * (len(columns) + 1))
    insert = f"INSERT INTO {table}(rowid, {names}) VALUES ({marks})"
    for row in rows(conn, held):
        conn.execute(insert, row)


# m007's text forms, frozen as it shipped (assistant.memory.textindex and
# assistant.memory.messages at 148cf0b): the engine's writers may change how they index
# text, but what this migration writes must not change with them.
_M007_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


def _m007_grams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)] + list(run)


def _m007_index_text(text: str) -> str:
    """A keyword-index body as m007 writes it: CJK runs as bigrams and characters."""
    return _M007_CJK_RUN.sub(lambda m: " " + " ".join(_m007_grams(m.group())) + " ", text)


def _m007_message_columns(
    content: str, speaker: str, created_at: str, neighbours: list[str]
) -> tuple[str, str]:
    """A message's two index columns as m007 writes them: dated body, and its neighbours."""
    said = datetime.fromisoformat(created_at)
    body = f"{said.day} {said:%B %Y} " + (f"{speaker}: {content}" if speaker else content)
    return _m007_index_text(body), _m007_index_text("\n".join(neighbours))


@migration
def m008_model_reading(conn: apsw.Connection) -> None:
    """What the reading probe learnt of each embedding model, per script.

    The probe embeds a few paraphrases to see how far a model's similarities can be
    trusted on a script (see ``assistant.memory.script_probe``); kept here, it runs once per
    model and script, not on the first query of every start.
    """
    conn.execute(
        """
        CREATE TABLE model_reading (
            model TEXT NOT NULL,
            script TEXT NOT NULL,
            trust REAL NOT NULL CHECK (trust BETWEEN 0 AND 1),
            measured_at TEXT NOT NULL,
            PRIMARY KEY (model, script)
        )
        """
    )


@migration
def m009_vector_cells(conn: apsw.Connection) -> None:
    """Cells (an inverted-file index) replace the 1-bit codes for searching large tables.

    The binary prefilter of m005 ranked clustered embeddings poorly (recall@10 0.63 at
    1M rows), so its ``vecbit_*`` tables are dropped. ``vector_cells`` records which
    vector tables have learnt cells (``veccent_*`` centroids, ``vecpart_*`` copy, both
    made by the vector store when a table grows large) and whether every vector has
    been copied into them; a table without a complete record is searched exactly.
    """
    conn.execute(
        "CREATE TABLE vector_cells (vectors TEXT PRIMARY KEY,"
        " complete INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1)))"
    )
    bits = conn.execute(
        "SELECT name FROM sqlite_master WHERE name GLOB 'vecbit_*'"
        " AND sql LIKE 'CREATE VIRTUAL TABLE%'"
    ).fetchall()
    for (name,) in bits:
        conn.execute(f"DROP TABLE {name}")


@migration
def m010_embedding_digest(conn: apsw.Connection) -> None:
    """The digest of the weights each embedding model's vectors were made with.

    Ollama keeps a model's name when ``ollama pull`` fetches new weights for it, and
    vectors from the old weights don't compare with a query's from the new ones. The
    listing gives each model's digest, which changes with its weights: recorded here,
    a change makes Hippo embed everything again. Existing rows get NULL (unknown),
    and the first digest seen is taken as theirs.
    """
    conn.execute("ALTER TABLE embedding_models ADD COLUMN digest TEXT")


@migration
def m011_injection_defences(conn: apsw.Connection) -> None:
    """What the defences against injected instructions need to record.

    * ``messages.origin``: ``typed`` by the user, or ``pasted`` (a bracketed paste, or a
      message that quotes an email, a page or a log); what sleep draws from pasted text
      is not the user's own word.
    * ``facts.source_kind`` may be ``pasted``. SQLite can't alter a CHECK constraint, and
      rebuilding ``facts`` would cascade into its evidence and history, so the constraint
      is widened in place as SQLite documents for loosening one (the schema text is
      rewritten and the schema version bumped, inside this migration's transaction);
      every existing row satisfies the wider constraint.
    * ``core_proposals``: the model's edits of a core memory block, waiting for the user,
      each with the message of the turn that caused it and why it waits.
    """
    conn.execute(
        "ALTER TABLE messages ADD COLUMN origin TEXT NOT NULL DEFAULT 'typed'"
        " CHECK (origin IN ('typed', 'pasted'))"
    )
    _widen_check(
        conn,
        "facts",
        "('user_stated', 'assistant_inferred', 'document', 'event', 'reflection')",
        "('user_stated', 'assistant_inferred', 'document', 'event', 'reflection', 'pasted')",
    )
    conn.execute(
        """
        CREATE TABLE core_proposals (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
            label TEXT NOT NULL CHECK (label IN ('human', 'persona')),
            action TEXT NOT NULL CHECK (action IN ('append', 'replace')),
            content TEXT NOT NULL,
            old_content TEXT NOT NULL DEFAULT '',
            message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,
            reason TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'approved', 'rejected')),
            proposed_at TEXT NOT NULL,
            decided_at TEXT
        );
        CREATE INDEX core_proposals_by_status ON core_proposals(profile_id, status, id);
        """
    )


def _widen_check(conn: apsw.Connection, table: str, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` in ``table``'s CHECK constraint (only ever to allow more)."""
    sql = scalar(conn, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,))
    spaced = re.compile(r"\s+".join(map(re.escape, old.split())))
    if len(spaced.findall(sql)) != 1:
        raise apsw.SchemaChangeError(f"{table}'s CHECK constraint is not the expected one")
    version = scalar(conn, "PRAGMA schema_version")
    conn.execute("PRAGMA writable_schema = ON")
    try:
        conn.execute(
            "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?",
            (spaced.sub(new, sql), table),
        )
        conn.execute(f"PRAGMA schema_version = {int(version) + 1}")
    finally:
        conn.execute("PRAGMA writable_schema = OFF")


@migration
def m012_vectors_stored_once(conn: apsw.Connection) -> None:
    """A large vector table keeps its vectors once: in its cells, in smaller chunks.

    Cells used to copy every vector of a large table (two copies of 1.5 KB each), in
    128-vector chunks of which each cell's last was mostly empty. The cells are
    dropped here (a table without them is searched exactly); the app's background
    work builds them again in the new layout, then drops the table they copy.
    """
    tables: list[str] = [row[0] for row in conn.execute("SELECT vectors FROM vector_cells")]
    for table in tables:
        for index in ("veccent_", "vecpart_"):
            conn.execute(f"DROP TABLE IF EXISTS {index}{table.removeprefix('vec_')}")
    conn.execute("DELETE FROM vector_cells")


@migration
def m013_reading_gap(conn: apsw.Connection) -> None:
    """The reading probe also keeps how far a model puts paraphrases above other sentences.

    Retrieval measures a memory's similarity against that gap (see
    ``assistant.memory.script_probe``). Readings kept before have none, and are measured
    again on the next query in their script.
    """
    conn.execute("ALTER TABLE model_reading ADD COLUMN gap REAL")


@migration
def m014_cut_replies(conn: apsw.Connection) -> None:
    """A reply may be stored as ``cut``: it ended at the model's length limit.

    Such replies were stored ``complete``, and read as whole. The messages CHECK
    constraint is widened in place as in m011 (rebuilding ``messages`` would rewrite
    every message and its keyword index); every existing row satisfies the wider one.
    """
    _widen_check(
        conn,
        "messages",
        "('complete', 'streaming', 'cancelled', 'failed')",
        "('complete', 'streaming', 'cancelled', 'failed', 'cut')",
    )
