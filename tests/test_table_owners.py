"""One owner per table: every SQL statement that writes a table sits in its owner's module.

The owners are ARCHITECTURE.md's "Who owns which table". Two kinds of module write every
table by design and are allowed everywhere: the schema's migrations (`data_schema/`) and
`memory/profile_data/` (forget, purge, export and import of a whole profile). The writes
are found in the source's string constants (INSERT, UPDATE, DELETE, REPLACE).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_WRITE = re.compile(r"\b(?:INSERT(?: OR \w+)? INTO|UPDATE|DELETE FROM|REPLACE INTO)\s+(\w+)")
_EVERYWHERE = ("data_schema/", "assistant/memory/profile_data/")
_MEMORY = "assistant/memory/"
OWNERS = {
    "profiles": ("profiles.py",),
    "sessions": ("messages.py", "incognito.py"),
    "messages": ("messages.py", "incognito.py"),
    "messages_fts": ("messages.py",),
    "sqlite_sequence": ("incognito.py",),  # an incognito chat leaves no trace of its ids
    "facts": ("facts/",),
    "facts_fts": ("facts/",),
    "fact_evidence": ("facts/",),
    "fact_history": ("facts/",),
    "episodes": ("episodes.py",),
    "episodes_fts": ("episodes.py",),
    "episode_messages": ("episodes.py",),
    "documents": ("archival.py",),
    "chunks": ("archival.py",),
    "chunks_fts": ("archival.py",),
    "events": ("sensory.py",),
    "events_fts": ("sensory.py",),
    "core_blocks": ("core.py",),
    "core_block_history": ("core.py",),
    "core_proposals": ("core_proposals.py",),
    "entities": ("entities.py",),
    "entity_links": ("entities.py",),
    "embeddings": ("vectors.py",),
    "embedding_models": ("vectors.py",),
    "embedding_queue": ("vectors.py",),
    "vector_cells": ("vectors.py", "vector_cell_build.py"),
    "model_reading": ("script_probe.py",),
    "reply_memories": ("usage.py", "incognito.py"),
    "sleep_runs": ("sleep_runs.py",),
    "sleep_lock": ("sleep_runs.py",),
    "sleep_marks": ("sleep_marks.py",),
    "sleep_state": ("sleep_marks.py",),
    "sleep_candidates": ("sleep_candidates.py",),
    "sleep_rejections": ("sleep_candidates.py",),
    "dated_items": ("sleep_candidates.py",),
}


@functools.cache
def _writes() -> dict[str, set[str]]:
    """Each table written by the code -> the modules whose SQL writes it."""
    tables = _tables()
    found: dict[str, set[str]] = {}
    for package in ("assistant", "data_schema", "scheduler", "ui"):
        for path in (ROOT / package).rglob("*.py"):
            module = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    for table in _WRITE.findall(node.value):
                        if table in tables:
                            found.setdefault(table, set()).add(module)
    return found


def _tables() -> set[str]:
    """The names the owners table knows, and those the schema creates."""
    text = (ROOT / "data_schema" / "migrations.py").read_text(encoding="utf-8")
    created = re.findall(r"CREATE (?:VIRTUAL )?TABLE (?:IF NOT EXISTS )?(\w+)", text)
    return set(created) | set(OWNERS)


def test_every_table_is_written_only_by_its_owner():
    strays = sorted(
        f"{table}: {module}"
        for table, modules in _writes().items()
        for module in modules
        if not module.startswith(_EVERYWHERE)
        and not any(module.startswith(_MEMORY + owner) for owner in OWNERS.get(table, ()))
    )
    assert strays == []


def test_the_check_sees_the_writes_it_guards():
    writes = _writes()
    assert "assistant/memory/profiles.py" in writes["profiles"]
    assert "assistant/memory/facts/store.py" in writes["facts"]
