"""Semantic facts: the long-term profile, each fact backed by evidence, every change undoable.

The defences live here, at the one place facts are written:

* hallucination: a fact cites evidence that exists in its own profile (and a quote must
  occur in the cited text), or it is not stored;
* attribution: the source kind sets the default status and confidence, and the model
  (actor ``agent``) can never create, approve or relabel a fact as active or user-stated;
* injection: instruction-like text is held as pending until a person reviews it;
* temporal incoherence: validity intervals, ``expire_due`` and ``active_facts(as_of=)``;
* scope creep and cross-profile contamination: every list and search takes a profile and
  a scope filter; id-based calls take an optional ``profile_id`` that must own the fact.

The modules, each importing only those above it:

* ``models``: `Fact`, `Evidence`, `FactChange` and the allowed sources, statuses, actors;
* ``rules``: admission and guard rules, and `looks_like_instruction`;
* ``table``: the facts table's columns and row conversions, and its search index;
* ``evidence``: checking, storing and reading a fact's evidence;
* ``reading``: `FactReader`, facts by id, by filter, true now (or then), by keyword;
* ``history``: `FactHistory`, the change log: recording, undo, and reading it back;
* ``listing``: `FactListing`, the inspector's filtered, searched, counted pages;
* ``store``: `FactStore`, the one writer, which holds one of each of the three above
  (``reader``, ``changes``, ``listing``) and offers their common reads.

Every SQL statement on ``facts``, ``fact_evidence``, ``fact_history`` and ``facts_fts``
lives in this package, except the whole-profile operations of
`assistant.memory.profile_data` (forget, export, import) and sleep's own reads.
"""

from __future__ import annotations

from assistant.errors import MemoryWriteError
from assistant.memory.facts.fact import (
    ACTORS,
    SOURCE_KINDS,
    STATUSES,
    Actor,
    Evidence,
    Fact,
    FactChange,
    FactStatus,
    SourceKind,
)

# Importable from here as before, though never in __all__.
from assistant.memory.facts.fact import EvidenceKind as EvidenceKind
from assistant.memory.facts.rules import looks_like_instruction
from assistant.memory.facts.store import FactStore

__all__ = [
    "ACTORS",
    "SOURCE_KINDS",
    "STATUSES",
    "Actor",
    "Evidence",
    "Fact",
    "FactChange",
    "FactStatus",
    "FactStore",
    "MemoryWriteError",
    "SourceKind",
    "looks_like_instruction",
]
