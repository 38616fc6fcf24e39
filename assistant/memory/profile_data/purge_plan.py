"""What a forget touches: the rows that mention a text (or belong to a session), and their kin.

A `PurgePlan` is built in two passes. First the seeds: the rows that mention the words
(`purge_find.PurgeFinder`), or the sessions or items to delete (`PlanBuilder`). Then what
goes with them (`PlanBuilder`):

* a document whose title or path mentions it takes all its chunks;
* a session all of whose messages go is deleted too, with its episodes;
* a fact whose every piece of evidence goes is deleted too ("a fact with no evidence
  does not exist"), and so on for facts citing it; a fact with other evidence stays,
  minus the evidence that went;
* entities left with no links, the surviving messages next to a deleted one (their
  keyword rows and vectors carry its words), and "memories used" rows of deleted items.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import apsw

from assistant.clock import from_iso
from assistant.memory.long_text import message_path

__all__ = [
    "KINDS",
    "ForgetHit",
    "PlanBuilder",
    "PurgePlan",
    "Target",
    "chunks",
    "evidence_ref",
    "marks",
    "mentions",
    "register_mentions",
    "vector_tables",
]

# Memory item kinds -> their table (the kinds evidence, vectors and links use).
KINDS = {
    "message": "messages",
    "episode": "episodes",
    "fact": "facts",
    "chunk": "chunks",
    "event": "events",
}
_BATCH = 500
# What a preview line stands for in a plan: a memory item (kind, id), or one of the
# plan's other sets and the value in it (("sessions", 3), ("core", "human")...).
Target = tuple[str, Any]
# A kind's float vectors, and their cell-partitioned copies (see memory.vector_cells:
# a table's newer generations of cells are suffixed _g<n>).
_VEC = re.compile(r"^vec(?:part)?_(message|episode|fact|chunk|event)_m\d+(?:_g\d+)?$")


@functools.lru_cache(maxsize=64)
def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def mentions(value: object, needle: str) -> bool:
    """Whether stored ``value`` contains ``needle``, case and width aside (JSON escapes too)."""
    if value is None or not needle:
        return False
    text = str(value)
    if "\\u" in text:  # JSON written with ensure_ascii: look at the characters it encodes
        with contextlib.suppress(ValueError):
            text = json.dumps(json.loads(text), ensure_ascii=False)
    return _fold(needle) in unicodedata.normalize("NFKC", text).casefold()


def register_mentions(conn: apsw.Connection) -> None:
    """Make ``hippo_mentions(value, needle)`` available to SQL on this connection."""
    conn.create_scalar_function("hippo_mentions", _sql_mentions, 2, deterministic=True)


def _sql_mentions(*args: apsw.SQLiteValue) -> int:
    """`mentions` for SQL, which passes exactly two values (the function takes 2)."""
    value, needle = args
    if not isinstance(needle, str):  # a NULL needle mentions nothing, as in `mentions`
        return 0
    return int(mentions(value, needle))


def evidence_ref(fact_id: int, kind: str, ref_id: int) -> str:
    """How a preview line names one evidence row (``fact:kind:ref``)."""
    return f"{fact_id}:{kind}:{ref_id}"


def chunks(ids: Iterable[int]) -> Iterable[list[int]]:
    """``ids`` sorted, in slices small enough for one IN (...) list."""
    ordered = sorted(ids)
    for start in range(0, len(ordered), _BATCH):
        yield ordered[start : start + _BATCH]


def marks(values: Sequence[object]) -> str:
    """Placeholders for an IN (...) list."""
    return ",".join("?" * len(values))


def vector_tables(conn: apsw.Connection) -> dict[str, list[str]]:
    """The sqlite-vec tables of each item kind (one per embedding model)."""
    out: dict[str, list[str]] = {}
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE 'vec%\\_%' ESCAPE '\\'"
    ):
        found = _VEC.match(name)
        if found:
            out.setdefault(found.group(1), []).append(name)
    return out


@dataclass(frozen=True, slots=True)
class ForgetHit:
    """One stored row that matches what is to be forgotten (or goes with it).

    Attributes:
        key: names the row across previews of the same forget (e.g. ``messages:12``), so
            that a selection made on one preview applies to the next and to the forget.
        latent: listed only because the user keeps something it belongs to (the evidence
            a kept fact loses with the items it cites); it has no number in the preview.
    """

    tier: str
    item_id: int
    text: str
    at: datetime | None = None
    why: str = "mentions it"
    key: str = ""
    latent: bool = False


@dataclass
class PurgePlan:
    """Every row a forget deletes or rewrites, and the preview's hits."""

    items: dict[str, set[int]] = field(default_factory=lambda: {k: set() for k in KINDS})
    sessions: set[int] = field(default_factory=set)
    documents: set[int] = field(default_factory=set)
    entities: set[int] = field(default_factory=set)
    evidence: set[tuple[int, str, int]] = field(default_factory=set)
    fact_history: set[int] = field(default_factory=set)
    core_history: set[int] = field(default_factory=set)
    core_proposals: set[int] = field(default_factory=set)
    core: dict[str, str] = field(default_factory=dict)
    redact_sessions: set[int] = field(default_factory=set)
    dated: set[int] = field(default_factory=set)
    candidates: set[int] = field(default_factory=set)
    rejections: set[str] = field(default_factory=set)
    state_keys: set[str] = field(default_factory=set)
    runs: set[int] = field(default_factory=set)
    neighbours: set[int] = field(default_factory=set)
    needle: str = ""
    hits: dict[str, list[ForgetHit]] = field(default_factory=dict)
    targets: dict[str, list[Target]] = field(default_factory=dict)
    """What each preview line's key stands for in the plan (see `drop`)."""
    quoted: set[tuple[int, str, int]] = field(default_factory=set)
    """Evidence rows whose own quote mentions the words (they go whatever they cite)."""
    kept: dict[str, str] = field(default_factory=dict)
    """Lines the user deselected, or that stay with them, by key: why each stays."""
    vouched: set[int] = field(default_factory=set)
    """Kept facts left with no evidence: the user's choice becomes their evidence."""

    def hit(
        self,
        tier: str,
        item_id: int,
        text: str,
        at: str | None,
        why: str = "",
        *,
        target: Target | None = None,
        ref: str | None = None,
        latent: bool = False,
    ) -> None:
        """Add a preview line for what ``target`` names in the plan (``(kind, item_id)``
        for a memory item by default); ``ref`` tells lines of one tier apart."""
        when = from_iso(at) if at else None
        key = f"{tier}:{item_id if ref is None else ref}"
        clean = " ".join(str(text).split())[:200]
        self.hits.setdefault(tier, []).append(
            ForgetHit(tier, item_id, clean, when, why or "mentions it", key, latent)
        )
        kind = tier.removesuffix("s")
        found = target or ((kind, item_id) if kind in KINDS else (tier, item_id))
        listed = self.targets.setdefault(key, [])
        if found not in listed:
            listed.append(found)

    def drop(self, key: str) -> None:
        """Take what the line ``key`` stands for out of the plan (the user keeps it)."""
        for name, value in self.targets.get(key, ()):
            if name in KINDS:
                self.items[name].discard(value)
            elif name == "core":
                self.core.pop(value, None)
            else:
                getattr(self, name).discard(value)

    @property
    def empty(self) -> bool:
        """Nothing to delete or rewrite."""
        return not (self.hits or self.deleted() or self.sessions or self.neighbours)

    def deleted(self) -> set[tuple[str, int]]:
        """(kind, id) of every memory item the plan deletes."""
        return {(kind, i) for kind, ids in self.items.items() for i in ids}


class PlanBuilder:
    """Builds plans from ids (sessions, items) and completes any plan with what goes with it.

    ``PurgeFinder`` (in ``purge_find``) seeds plans from a text and completes them here.

    Args:
        conn: returns the calling thread's connection.
    """

    def __init__(self, conn: Callable[[], apsw.Connection]) -> None:
        self._conn = conn

    def _rows(self, sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        return list(self._conn().execute(sql, list(params)))

    def rows_in(self, sql: str, ids: Iterable[int], *before: object) -> list[tuple[Any, ...]]:
        """The rows of ``sql`` run once per slice of ``ids`` (its IN list is ``{}``)."""
        found: list[tuple[Any, ...]] = []
        for part in chunks(ids):
            found += self._rows(sql.format(marks(part)), (*before, *part))
        return found

    def _ids(self, sql: str, ids: Iterable[int], *before: object) -> set[int]:
        """The first column of ``sql`` run once per slice of ``ids`` (its IN list is {})."""
        return {row[0] for row in self.rows_in(sql, ids, *before)}

    def vector_rows(self, plan: PurgePlan) -> int:
        """How many vectors (in every model's tables) the plan's items and neighbours have."""
        tables = vector_tables(self._conn())
        stale = {**plan.items, "message": plan.items["message"] | plan.neighbours}
        return sum(
            self.rows_in(f"SELECT count(*) FROM {table} WHERE item_id IN ({{}})", ids)[0][0]
            for kind, ids in stale.items()
            if ids
            for table in tables.get(kind, [])
        )

    # -- seeds by id ---------------------------------------------------------------------

    def by_sessions(self, profile_id: int, session_ids: Iterable[int]) -> PurgePlan:
        """Everything of these sessions of the profile, and what goes with it."""
        plan = PurgePlan()
        for part in chunks(session_ids):
            for sid, title, at in self._rows(
                "SELECT id, title, started_at FROM sessions"
                f" WHERE profile_id = ? AND id IN ({marks(part)})",
                (profile_id, *part),
            ):
                plan.sessions.add(sid)
                plan.hit("sessions", sid, title or "(untitled)", at, "the session")
        return self.complete(plan, profile_id)

    def by_items(self, profile_id: int, kind: str, ids: Iterable[int]) -> PurgePlan:
        """These memory items of the profile (``kind`` as in ``KINDS``), and what goes with them.

        ``kind`` ``document`` takes documents (with their chunks).
        """
        plan = PurgePlan()
        table = "documents" if kind == "document" else KINDS[kind]
        found = self._ids(
            f"SELECT id FROM {table} WHERE profile_id = ? AND id IN ({{}})", ids, profile_id
        )
        (plan.documents if kind == "document" else plan.items[kind]).update(found)
        return self.complete(plan, profile_id)

    # -- what goes with them --------------------------------------------------------------

    def complete(self, plan: PurgePlan, pid: int) -> PurgePlan:
        """Add to ``plan`` everything that goes with what it holds (see the module)."""
        self._documents_and_sessions(plan, pid)
        self._orphaned_facts(plan, pid)
        self._dependants(plan, pid)
        _count_as_carried_out(plan)
        return plan

    def _documents_and_sessions(self, plan: PurgePlan, pid: int) -> None:
        self._sessions(plan, pid)
        self._message_documents(plan, pid)
        self._documents(plan)

    def _message_documents(self, plan: PurgePlan, pid: int) -> None:
        """A long message's chunks (its document, see ``long_text``) go with it."""
        for part in chunks(plan.items["message"]):
            paths = [message_path(mid) for mid in part]
            for doc_id, title in self._rows(
                "SELECT id, title FROM documents"
                f" WHERE profile_id = ? AND path IN ({marks(paths)})",
                (pid, *paths),
            ):
                if doc_id not in plan.documents:
                    plan.documents.add(doc_id)
                    plan.hit("documents", doc_id, title, None, "its message goes")

    def _documents(self, plan: PurgePlan) -> None:
        """A document's chunks go with it; a document whose chunks all go goes too."""
        for cid, content in self.rows_in(
            "SELECT id, content FROM chunks WHERE document_id IN ({})", plan.documents
        ):
            if cid not in plan.items["chunk"]:
                plan.items["chunk"].add(cid)
                plan.hit("chunks", cid, content, None, "its document goes")
        touched = self._ids(
            "SELECT DISTINCT document_id FROM chunks WHERE id IN ({})", plan.items["chunk"]
        )
        for doc_id in sorted(touched - plan.documents):
            left = self._rows("SELECT id FROM chunks WHERE document_id = ?", (doc_id,))
            if all(cid in plan.items["chunk"] for (cid,) in left):
                plan.documents.add(doc_id)
                plan.hit("documents", doc_id, f"document {doc_id}", None, "all its chunks go")

    def _sessions(self, plan: PurgePlan, pid: int) -> None:
        """A session's messages and episodes go with it; a session emptied goes too."""
        touched = self._ids(
            "SELECT DISTINCT session_id FROM messages WHERE id IN ({})", plan.items["message"]
        )
        for sid in sorted(touched - plan.sessions):
            left = self._rows("SELECT id FROM messages WHERE session_id = ?", (sid,))
            if all(mid in plan.items["message"] for (mid,) in left):
                plan.sessions.add(sid)
                plan.hit("sessions", sid, f"session {sid}", None, "all its messages go")
        for mid, content, at in self.rows_in(
            "SELECT id, content, created_at FROM messages WHERE session_id IN ({})", plan.sessions
        ):
            if mid not in plan.items["message"]:
                plan.items["message"].add(mid)
                plan.hit("messages", mid, content, at, "its session goes")
        for eid, summary, at in self.rows_in(
            "SELECT id, summary, ended_at FROM episodes WHERE profile_id = ?"
            " AND session_id IN ({})",
            plan.sessions,
            pid,
        ):
            if eid not in plan.items["episode"]:
                plan.items["episode"].add(eid)
                plan.hit("episodes", eid, summary, at, "its session goes")
        plan.redact_sessions -= plan.sessions

    def _orphaned_facts(self, plan: PurgePlan, pid: int) -> None:
        """Drop evidence citing deleted items; delete facts left with none (to a fixpoint)."""
        quoted = set(plan.evidence)
        new = plan.deleted()
        while new:
            affected: set[int] = set()
            for kind in KINDS:
                ids = [i for k, i in new if k == kind]
                for part in chunks(ids):
                    for fact_id, ref_id in self._rows(
                        "SELECT e.fact_id, e.ref_id FROM fact_evidence e JOIN facts f"
                        " ON f.id = e.fact_id WHERE f.profile_id = ? AND e.kind = ?"
                        f" AND e.ref_id IN ({marks(part)})",
                        (pid, kind, *part),
                    ):
                        plan.evidence.add((fact_id, kind, ref_id))
                        affected.add(fact_id)
            affected |= {fact_id for fact_id, _, _ in plan.evidence}
            new = set()
            for fact_id in sorted(affected - plan.items["fact"]):
                rows = self._rows(
                    "SELECT kind, ref_id FROM fact_evidence WHERE fact_id = ?", (fact_id,)
                )
                if all((fact_id, k, r) in plan.evidence for k, r in rows):
                    statement, at = self._rows(
                        "SELECT statement, learned_at FROM facts WHERE id = ?", (fact_id,)
                    )[0]
                    plan.items["fact"].add(fact_id)
                    plan.hit("facts", fact_id, statement, at, "all its evidence goes")
                    new.add(("fact", fact_id))
        plan.evidence = {e for e in plan.evidence if e[0] not in plan.items["fact"]}
        for fact_id, kind, ref_id in sorted(plan.evidence - quoted):
            plan.hit(
                "evidence",
                fact_id,
                f"{kind} {ref_id}",
                None,
                f"fact {fact_id} keeps other evidence",
                target=("evidence", (fact_id, kind, ref_id)),
                ref=evidence_ref(fact_id, kind, ref_id),
            )

    def _dependants(self, plan: PurgePlan, pid: int) -> None:
        plan.dated |= self._ids(
            "SELECT id FROM dated_items WHERE profile_id = ? AND message_id IN ({})",
            plan.items["message"],
            pid,
        )
        plan.dated |= self._ids(
            "SELECT id FROM dated_items WHERE episode_id IN ({})", plan.items["episode"]
        )
        gone = plan.deleted()
        for cid, sid, evidence in self._rows(
            "SELECT id, session_id, evidence FROM sleep_candidates WHERE profile_id = ?", (pid,)
        ):
            cited = {(kind, ref) for kind, ref, *_ in json.loads(evidence)}
            if sid in plan.sessions or cited & gone:
                plan.candidates.add(cid)
        listed = {hit.key for hit in plan.hits.get("sleep", ())}
        for name in ("dated", "candidates"):
            for row_id in sorted(getattr(plan, name)):
                if f"sleep:{name}:{row_id}" not in listed:
                    why = "what it was drawn from goes"
                    target = (name, row_id)
                    text = f"sleep record {row_id}"
                    plan.hit(
                        "sleep", row_id, text, None, why, target=target, ref=f"{name}:{row_id}"
                    )
        for key in sorted(plan.state_keys):
            plan.hit(
                "sleep",
                0,
                f"sleep bookmark {key}",
                None,
                "a sleep bookmark",
                target=("state_keys", key),
                ref=f"bookmark:{pid}:{key}",
            )
        for eid, name in self.rows_in(
            "SELECT id, name FROM entities WHERE id IN ({})", self._orphan_entities(plan)
        ):
            plan.entities.add(eid)
            plan.hit("entities", eid, name, None, "nothing else links to it")
        plan.neighbours = self.neighbours(plan)

    def _orphan_entities(self, plan: PurgePlan) -> set[int]:
        """Entities linked only to items the plan deletes."""
        gone = plan.deleted()
        linked: set[int] = set()
        for kind in KINDS:
            linked |= self._ids(
                "SELECT entity_id FROM entity_links WHERE kind = ? AND item_id IN ({})",
                plan.items[kind],
                kind,
            )
        orphans = set()
        for eid in sorted(linked - plan.entities):
            links = self._rows("SELECT kind, item_id FROM entity_links WHERE entity_id = ?", (eid,))
            if all((kind, item) in gone for kind, item in links):
                orphans.add(eid)
        return orphans

    def neighbours(self, plan: PurgePlan) -> set[int]:
        """Surviving messages just before or after a deleted one, in a surviving session."""
        deleted = plan.items["message"]
        sessions = self._ids("SELECT DISTINCT session_id FROM messages WHERE id IN ({})", deleted)
        out: set[int] = set()
        for sid in sessions - plan.sessions:
            ids = [
                row[0]
                for row in self._rows(
                    "SELECT id FROM messages WHERE session_id = ? AND status != 'streaming'"
                    " ORDER BY id",
                    (sid,),
                )
            ]
            for n, mid in enumerate(ids):
                if mid in deleted:
                    continue
                around = ids[max(n - 1, 0) : n] + ids[n + 1 : n + 2]
                if any(other in deleted for other in around):
                    out.add(mid)
        return out


def _count_as_carried_out(plan: PurgePlan) -> None:
    """Leave one preview line per row the forget deletes or rewrites, so that the
    preview counts what the receipt will: no line for the evidence of a fact that goes
    whole (its row goes with the fact), and one line for a session both renamed and
    deleted."""
    facts, _sessions = plan.items["fact"], plan.sessions
    hits = plan.hits
    if "evidence" in hits:
        hits["evidence"] = [h for h in hits["evidence"] if h.item_id not in facts]
    if "sessions" in hits:
        seen: set[int] = set()
        kept = []
        for hit in sorted(hits["sessions"], key=lambda h: h.why != "all its messages go"):
            if hit.item_id not in seen:
                seen.add(hit.item_id)
                kept.append(hit)
        hits["sessions"] = kept
    for tier in [tier for tier, rows in hits.items() if not rows]:
        del hits[tier]
