"""Every table of the data file is placed in the whole-profile operations, and truly so.

A table a migration adds must be listed in `profile_data.tables.TABLES`: forgotten and
exported, or left out with a reason. Each claim is checked against the schema and code.
"""

from __future__ import annotations

import inspect
import re

import pytest

from assistant.memory.profile_data import dump, purge_find, purge_plan, purge_run, restore
from assistant.memory.profile_data.tables import DUMP, PLAN, TABLES
from data_schema.connect import connect

_PURGE_SOURCE = "".join(inspect.getsource(m) for m in (purge_plan, purge_find, purge_run))


def _names(source: str, table: str) -> bool:
    """Whether code names ``table`` in SQL, or as a quoted name it builds SQL from."""
    return re.search(rf'(FROM|INTO|UPDATE|JOIN)\s+{table}\b|"{table}"', source) is not None


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("schema") / "hippo.db")
    yield conn
    conn.close()


def _real_tables(conn) -> set[str]:
    """Plain tables: not SQLite's own, not virtual tables or their shadow tables."""
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    virtual = {name for name, sql in rows if sql.upper().startswith("CREATE VIRTUAL TABLE")}
    return {
        name
        for name, _ in rows
        if not name.startswith("sqlite_")
        and name not in virtual
        and not any(name.startswith(f"{v}_") for v in virtual)
    }


def test_every_table_of_the_schema_is_listed_and_none_other(conn):
    assert set(TABLES) == _real_tables(conn)


@pytest.mark.parametrize("table", sorted(t for t, r in TABLES.items() if r.forget == PLAN))
def test_a_table_the_purge_plan_covers_is_named_in_the_purge_code(table):
    assert _names(_PURGE_SOURCE, table)


@pytest.mark.parametrize("table", sorted(t for t, r in TABLES.items() if r.export == DUMP))
def test_a_table_an_export_covers_is_read_by_dump_and_written_by_restore(table):
    assert f" {table}" in inspect.getsource(dump)
    assert f'"{table}"' in inspect.getsource(restore) or f" {table}" in inspect.getsource(restore)


@pytest.mark.parametrize(
    "table", sorted(t for t, r in TABLES.items() if r.forget.startswith("cascade:"))
)
def test_a_table_said_to_cascade_has_that_foreign_key(conn, table):
    parent = TABLES[table].forget.removeprefix("cascade:")
    keys = conn.execute(f"PRAGMA foreign_key_list({table})").fetchall()
    assert any(key[2] == parent and key[6] == "CASCADE" for key in keys)


@pytest.mark.parametrize(
    "table", sorted(t for t, r in TABLES.items() if r.forget.startswith("trigger:"))
)
def test_a_table_said_to_be_cleared_by_a_trigger_has_one(conn, table):
    parent = TABLES[table].forget.removeprefix("trigger:")
    triggers = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", (parent,)
    ).fetchall()
    assert any(f"DELETE FROM {table} " in sql for (sql,) in triggers)


def test_every_exclusion_says_why():
    for role in TABLES.values():
        for part in (role.forget, role.export):
            assert part in (PLAN, DUMP) or ":" in part or len(part.split()) >= 3
