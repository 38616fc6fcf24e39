"""Renumbering every id in an export, and every reference to one, in one place.

An export numbers each kind of row 1, 2, 3... in the order of the file's ids, so it names
no internal id; an import renumbers again into ids free in the new file. Both go through
`rewrite`, which knows every field that refers to a row: evidence, episode messages,
entity links, "memories used", history records (their before/after states, the evidence
a reinforcement added, the change an undo undid), sleep's marks and dated items. A
reference to a row the export does not hold (deleted before the export) is dropped, never
left pointing at an unrelated row, and reported.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Callable
from typing import Any

__all__ = ["IdMaps", "collect_ids", "rank_maps", "rewrite"]

IdMaps = dict[str, dict[int, int]]


def collect_ids(data: dict[str, Any]) -> dict[str, list[int]]:
    """Every row id in an export, by kind, ascending."""
    ids: dict[str, list[int]] = {
        "session": [s["id"] for s in data["sessions"]],
        "message": [m["id"] for s in data["sessions"] for m in s["messages"]],
        "episode": [e["id"] for e in data["episodes"]],
        "fact": [f["id"] for f in data["facts"]],
        "fact_change": [h["id"] for f in data["facts"] for h in f["history"]],
        "document": [d["id"] for d in data["documents"]],
        "chunk": [c["id"] for d in data["documents"] for c in d["chunks"]],
        "event": [e["id"] for e in data["events"]],
        "entity": [e["id"] for e in data["entities"]],
        "core_change": [h["id"] for h in data["core"]["history"]],
        "dated": [d["id"] for d in data["dated_items"]],
    }
    return {kind: sorted(values) for kind, values in ids.items()}


def rank_maps(data: dict[str, Any], start: Callable[[str], int] = lambda kind: 0) -> IdMaps:
    """Ids renumbered from ``start(kind) + 1`` upwards, in the order of the old ids."""
    return {
        kind: {old: start(kind) + n for n, old in enumerate(ids, start=1)}
        for kind, ids in collect_ids(data).items()
    }


class _Rewriter:
    def __init__(self, maps: IdMaps, profile_id: int) -> None:
        self.maps = maps
        self.profile_id = profile_id
        self.dropped: list[str] = []

    def ref(self, kind: str, old: int | None, where: str) -> int | None:
        if old is None:
            return None
        new = self.maps.get(kind, {}).get(old)
        if new is None:
            self.dropped.append(f"{where}: {kind} {old} is not in the export")
        return new

    def state(self, state: dict[str, Any] | None, where: str) -> dict[str, Any] | None:
        if state is None:
            return None
        out = dict(state)
        if "id" in out:
            out["id"] = self.ref("fact", out["id"], where)
        if "profile_id" in out:
            out["profile_id"] = self.profile_id
        if out.get("superseded_by") is not None:
            out["superseded_by"] = self.maps["fact"].get(out["superseded_by"])
        if "added_evidence" in out:
            pairs = [(k, self.maps.get(k, {}).get(r)) for k, r in out["added_evidence"]]
            out["added_evidence"] = [[k, r] for k, r in pairs if r is not None]
        if out.get("undone") is not None:
            out["undone"] = self.maps["fact_change"].get(out["undone"])
        return out


def _floor(ids: list[int], maps: dict[int, int], upto: int) -> int:
    """The new id of the last message at or before ``upto`` (0 if none)."""
    at = bisect.bisect_right(ids, upto)
    return maps[ids[at - 1]] if at else 0


def rewrite(
    data: dict[str, Any], maps: IdMaps, profile_id: int = 0
) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``data`` with every id and reference renumbered by ``maps``; what was dropped.

    Args:
        data: an export (as ``Dumper.dump`` or an export file holds it).
        maps: old id -> new id, per kind (see ``collect_ids`` for the kinds).
        profile_id: written where a history record names its profile.
    """
    out = copy.deepcopy(data)
    w = _Rewriter(maps, profile_id)
    _sessions(out, w)
    for episode in out["episodes"]:
        episode["id"] = maps["episode"][episode["id"]]
        episode["session_id"] = maps["session"].get(episode["session_id"])
        ids = [w.ref("message", m, f"episode {episode['id']}") for m in episode["message_ids"]]
        episode["message_ids"] = [m for m in ids if m is not None]
    for document in out["documents"]:
        document["id"] = maps["document"][document["id"]]
        for chunk in document["chunks"]:
            chunk["id"] = maps["chunk"][chunk["id"]]
    for event in out["events"]:
        event["id"] = maps["event"][event["id"]]
    _facts(out, w)
    for change in out["core"]["history"]:
        change["id"] = maps["core_change"][change["id"]]
    _links(out, w)
    return out, w.dropped


def _sessions(out: dict[str, Any], w: _Rewriter) -> None:
    for session in out["sessions"]:
        old_ids = [m["id"] for m in session["messages"]]
        session["id"] = w.maps["session"][session["id"]]
        for message in session["messages"]:
            message["id"] = w.maps["message"][message["id"]]
        session["summary_upto"] = _floor(old_ids, w.maps["message"], session["summary_upto"])
        for mark in session["sleep_marks"]:
            mark["upto"] = _floor(old_ids, w.maps["message"], mark["upto"])


def _facts(out: dict[str, Any], w: _Rewriter) -> None:
    for fact in out["facts"]:
        where = f"fact {fact['id']}"
        fact["id"] = w.maps["fact"][fact["id"]]
        fact["superseded_by"] = w.ref("fact", fact["superseded_by"], where)
        kept = []
        for item in fact["evidence"]:
            item["ref_id"] = w.ref(item["kind"], item["ref_id"], f"{where}'s evidence")
            if item["ref_id"] is not None:
                kept.append(item)
        fact["evidence"] = sorted(kept, key=lambda e: (e["kind"], e["ref_id"]))
        for change in fact["history"]:
            change["id"] = w.maps["fact_change"][change["id"]]
            change["before"] = w.state(change["before"], f"{where}'s history")
            change["after"] = w.state(change["after"], f"{where}'s history")


def _links(out: dict[str, Any], w: _Rewriter) -> None:
    for entity in out["entities"]:
        entity["id"] = w.maps["entity"][entity["id"]]
        links = [
            {"kind": link["kind"], "item_id": w.maps.get(link["kind"], {}).get(link["item_id"])}
            for link in entity["links"]
        ]
        entity["links"] = sorted(
            (link for link in links if link["item_id"] is not None),
            key=lambda link: (link["kind"], link["item_id"]),
        )
    uses = []
    for use in out["memories_used"]:
        use["message_id"] = w.maps["message"].get(use["message_id"])
        use["item_id"] = w.maps.get(use["kind"], {}).get(use["item_id"])
        if use["message_id"] is not None and use["item_id"] is not None:
            uses.append(use)
    out["memories_used"] = uses
    for item in out["dated_items"]:
        item["id"] = w.maps["dated"][item["id"]]
        item["episode_id"] = w.maps["episode"].get(item["episode_id"])
        item["message_id"] = w.maps["message"].get(item["message_id"])
