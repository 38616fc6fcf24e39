"""Deselecting lines of a forget's preview: the plan without them, and what stays with them.

A preview lists every row a forget removes; the user may keep some (by the lines' keys).
`PlanSelector.select` takes exactly those out of the plan, and with them what they can't
exist without, each marked kept with the reason:

* a message keeps its session, a chunk its document, a sleep record the episode it was
  drawn from, a history entry its fact (deleting those would take them along);
* an evidence row that is kept keeps the item it cites (and evidence that went only
  because its item went stays when that item stays);
* a kept fact that the plan deleted loses the evidence that goes (those rows are
  listed, as ``latent`` lines); if none is left, the user's choice becomes its evidence
  (``vouched``: the runner records it), so no fact is ever left without evidence.

Nothing else is taken out: what goes only because of a kept row still goes while its
line is selected (deleting it is sound on its own), so a forget removes exactly the
selected lines.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterator

from assistant.memory.profile_data.purge_plan import (
    KINDS,
    PlanBuilder,
    PurgePlan,
    Target,
    evidence_ref,
)

__all__ = ["YOU_KEEP", "PlanSelector"]

YOU_KEEP = "you keep it"
# A row and the row it can't exist without: its column, the tier and plan set holding the
# other row, and how the reason reads ({0} the row's id).
_PARENTS = {
    "message": ("SELECT id, session_id FROM messages WHERE id IN ({})", "sessions", "sessions"),
    "chunk": ("SELECT id, document_id FROM chunks WHERE id IN ({})", "documents", "documents"),
    "fact_history": ("SELECT id, fact_id FROM fact_history WHERE id IN ({})", "facts", "fact"),
    "dated": ("SELECT id, episode_id FROM dated_items WHERE id IN ({})", "episodes", "episode"),
}
_PARENT_WHY = {
    "message": "message {0}, which stays, is in it",
    "chunk": "chunk {0}, which stays, is in it",
    "fact_history": "its change {0}, which stays, needs it",
    "dated": "sleep record {0}, which stays, was drawn from it",
}


class PlanSelector:
    """The plan of a forget once the user deselected some of its lines.

    Args:
        plans: builds and completes plans (and reads the rows a selection asks about).
    """

    def __init__(self, plans: PlanBuilder) -> None:
        self._plans = plans

    def select(self, plan: PurgePlan, pid: int, keep: Collection[str]) -> PurgePlan:
        """A copy of ``plan`` without the lines ``keep`` names (keys of its preview lines)
        and what they need; its ``kept`` says why each line stays. Unknown keys are ignored.
        """
        out = copy.deepcopy(plan)
        if not keep:
            return out
        parents = self._parents(out)
        gone_facts = set(plan.items["fact"])
        while True:
            before = (len(out.kept), sum(len(rows) for rows in out.hits.values()))
            self._keep(out, keep, parents)
            self._follow_evidence(out)
            self._lose_evidence(out, gone_facts - out.items["fact"])
            if before == (len(out.kept), sum(len(rows) for rows in out.hits.values())):
                break
        out.vouched = self._unsupported(out, gone_facts - out.items["fact"])
        out.neighbours = self._plans.neighbours(out)
        return out

    def _parents(self, plan: PurgePlan) -> dict[str, dict[int, int]]:
        """For each row kind with a parent, row id -> parent id (rows the plan holds)."""
        ids = {
            "message": plan.items["message"],
            "chunk": plan.items["chunk"],
            "fact_history": plan.fact_history,
            "dated": plan.dated,
        }
        return {
            name: {row: parent for row, parent in self._plans.rows_in(_PARENTS[name][0], ids[name])}
            for name in _PARENTS
        }

    def _keep(
        self, plan: PurgePlan, keep: Collection[str], parents: dict[str, dict[int, int]]
    ) -> None:
        """Mark the wanted lines kept, with everything they need, and take them out."""
        queue = [(key, YOU_KEEP) for key in sorted(keep, reverse=True) if key in plan.targets]
        for key, why in queue:  # the user's own choices first, so that they say so
            plan.kept.setdefault(key, why)
        while queue:
            key, why = queue.pop()
            if key in plan.kept and why != YOU_KEEP:
                continue
            plan.kept.setdefault(key, why)
            needs = list(self._needs(plan, key, parents))
            plan.drop(key)
            queue += needs

    def _needs(
        self, plan: PurgePlan, key: str, parents: dict[str, dict[int, int]]
    ) -> Iterator[tuple[str, str]]:
        """The lines (key, why) that must stay for line ``key`` to stay."""
        for name, value in plan.targets.get(key, ()):
            if name in parents and (parent := parents[name].get(value)) is not None:
                tier, held = _PARENTS[name][1], _PARENTS[name][2]
                if parent in (plan.items[held] if held in KINDS else getattr(plan, held)):
                    yield self._line(plan, tier, parent), _PARENT_WHY[name].format(value)
            if name == "evidence":
                fact_id, kind, ref_id = value
                if ref_id in plan.items[kind]:
                    why = f"fact {fact_id}'s evidence, which stays, cites it"
                    yield self._line(plan, KINDS[kind], ref_id), why

    @staticmethod
    def _line(plan: PurgePlan, tier: str, item_id: int) -> str:
        """The key of the line for ``item_id`` of ``tier`` (made if the plan lists none)."""
        key = f"{tier}:{item_id}"
        kind = tier.removesuffix("s")
        target: Target = (kind, item_id) if kind in KINDS else (tier, item_id)
        plan.targets.setdefault(key, [target])
        return key

    @staticmethod
    def _follow_evidence(plan: PurgePlan) -> None:
        """Evidence that went only because the item it cites went stays when that item stays."""
        for row in sorted(plan.evidence - plan.quoted):
            _, kind, ref_id = row
            key = f"evidence:{evidence_ref(*row)}"
            if ref_id not in plan.items[kind] and key not in plan.kept:
                plan.kept[key] = f"the {kind} it cites stays"
                plan.drop(key)

    def _lose_evidence(self, plan: PurgePlan, kept_facts: set[int]) -> None:
        """List, and remove, the evidence kept facts lose: rows citing items that go, and
        rows whose quote mentions the words."""
        listed = {hit.key for hit in plan.hits.get("evidence", ())}
        for fact_id, kind, ref_id in self._evidence_of(kept_facts):
            row = (fact_id, kind, ref_id)
            key = f"evidence:{evidence_ref(*row)}"
            if key in listed or key in plan.kept:
                continue
            if row in plan.quoted:
                why = f"a quote in fact {fact_id}'s evidence"
            elif ref_id in plan.items[kind]:
                why = f"fact {fact_id} stays; the {kind} it cites goes"
            else:
                continue
            plan.evidence.add(row)
            plan.hit(
                "evidence",
                fact_id,
                f"{kind} {ref_id}",
                None,
                why,
                target=("evidence", row),
                ref=evidence_ref(*row),
                latent=True,
            )

    def _evidence_of(self, facts: set[int]) -> list[tuple[int, str, int]]:
        return sorted(
            (fact_id, kind, ref_id)
            for fact_id, kind, ref_id in self._plans.rows_in(
                "SELECT fact_id, kind, ref_id FROM fact_evidence WHERE fact_id IN ({})", facts
            )
        )

    def _unsupported(self, plan: PurgePlan, kept_facts: set[int]) -> set[int]:
        """Kept facts that would be left with no evidence at all."""
        left = {fact_id for fact_id, *_ in set(self._evidence_of(kept_facts)) - plan.evidence}
        return kept_facts - left
