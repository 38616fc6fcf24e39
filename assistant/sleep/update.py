"""Step 4: compare candidates with similar facts and add, reinforce, supersede or ignore.

One model call per batch (a session's candidates, at most ``update_batch``), and none for
candidates with nothing similar or with an exact duplicate. Conflicts resolve by time: the
newer statement wins; when it can't become active at once (it is inferred, or waits for
review), the conflict is proposed for review instead. Nothing is deleted: a replaced fact
is closed (valid_to, superseded_by) and kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from assistant.errors import MemoryWriteError
from assistant.memory.facts import Fact, looks_like_instruction
from assistant.memory.facts.settle import ACTIVE_LIMIT
from assistant.memory.sleep_candidates import Candidate
from assistant.memory.statements import claim_reason
from assistant.sleep.agree import contradicted, disputed, judged
from assistant.sleep.context import SleepContext
from assistant.sleep.evidence import normal_statement, similar_statements
from assistant.sleep.prompts import UPDATE_PROMPT
from assistant.sleep.report import Proposal
from assistant.sleep.schemas import update_schema
from assistant.sleep.similar import similar_facts
from assistant.sleep.trust import admitted_status

__all__ = ["PROMOTABLE", "Decision", "update_facts"]

# A pending fact of these sources that the user then states clearly becomes active.
PROMOTABLE = ("user_stated", "assistant_inferred")


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with one candidate."""

    action: str  # add, reinforce, supersede, dispute, ignore, blocked
    fact_id: int | None = None
    note: str = ""


def update_facts(ctx: SleepContext, profile_id: int) -> None:
    """Decide every new candidate of the profile, a session's batch at a time, in time order."""
    batches = _batches(ctx.candidates.new_candidates(profile_id), ctx.settings.update_batch)
    for done, batch in enumerate(batches, start=1):
        if not ctx.review_room():  # the run proposed its most: the rest waits, unasked
            ctx.defer_review(sum(len(b) for b in batches[done - 1 :]))
            return
        _decide_batch(ctx, profile_id, batch)
        ctx.tick("update", done, len(batches))
    _retire_contradicted(ctx, profile_id)


def _retire_contradicted(ctx: SleepContext, profile_id: int) -> None:
    """Two active facts where the newer corrects the older: the older is superseded."""
    pairs = contradicted(ctx.deps.facts.active_facts(profile_id, limit=ACTIVE_LIMIT))
    if not pairs:
        return
    with ctx.store.unit():
        for older, newer in pairs:
            ctx.deps.facts.supersede(older.id, newer.id, actor="sleep")
            ctx.propose(
                Proposal("superseded", profile_id, newer.id, "active", newer.statement, older.id)
            )
            ctx.count("contradictions_retired")


def _batches(candidates: list[Candidate], size: int) -> list[list[Candidate]]:
    out: list[list[Candidate]] = []
    for _, group in groupby(candidates, key=lambda c: c.session_id):
        items = list(group)
        out += [items[i : i + max(size, 1)] for i in range(0, len(items), max(size, 1))]
    return out


def _decide_batch(ctx: SleepContext, profile_id: int, batch: list[Candidate]) -> None:
    similar = similar_facts(ctx, profile_id, batch)
    active = ctx.deps.facts.active_facts(profile_id, limit=ACTIVE_LIMIT)
    plans: dict[int, Decision] = {}
    asks: list[tuple[Candidate, list[Fact]]] = []
    for cand, facts in zip(batch, similar, strict=True):
        same = next((f for f in facts if _same(f, cand)), None)
        words = judged(active, cand)
        if _previously_rejected(ctx, profile_id, cand):
            plans[cand.id] = Decision("blocked", note="rejected before, from the same evidence")
        elif words is not None:
            plans[cand.id] = Decision(*words)
        elif same is not None:
            plans[cand.id] = Decision("reinforce", same.id, "same statement")
        elif not facts or cand.attempts >= ctx.settings.max_attempts:
            plans[cand.id] = Decision("add")
        else:
            asks.append((cand, facts))
    if asks:
        answer = _ask(ctx, asks)
        if answer is None:
            with ctx.store.unit():
                ctx.candidates.retry_later(c.id for c, _ in asks)
        else:
            plans.update(answer)
    with ctx.store.unit():
        added: list[tuple[str, int]] = []
        for cand in batch:
            if cand.id in plans:
                plan = _dedupe(plans[cand.id], cand, added)
                _apply(ctx, cand, _unless_disputed(ctx, profile_id, cand, plan), added)


def _unless_disputed(
    ctx: SleepContext, profile_id: int, cand: Candidate, plan: Decision
) -> Decision:
    """An "add" beside a fact it may contradict becomes a conflict for review."""
    if plan.action != "add":
        return plan
    active = ctx.deps.facts.active_facts(profile_id, limit=ACTIVE_LIMIT)
    old = disputed(active, cand)
    return plan if old is None else Decision("dispute", old.id, "may contradict it")


def _same(fact: Fact, cand: Candidate) -> bool:
    return normal_statement(fact.statement) == normal_statement(cand.statement)


def _dedupe(plan: Decision, cand: Candidate, added: list[tuple[str, int]]) -> Decision:
    """A candidate like one just added in this batch reinforces that fact instead."""
    if plan.action in ("add", "supersede"):
        for statement, fact_id in added:
            if similar_statements(statement, cand.statement, 0.8):
                return Decision("reinforce", fact_id, "same as a fact added in this batch")
    return plan


def _previously_rejected(ctx: SleepContext, profile_id: int, cand: Candidate) -> bool:
    """Whether the user rejected a fact like this one, citing the same evidence."""
    if ctx.candidates.rejected_in_review(profile_id, cand.statement, cand.evidence):
        return True
    for fact_id in ctx.fact_reads.rejected_citing(profile_id, cand.evidence):
        if similar_statements(ctx.deps.facts.get(fact_id).statement, cand.statement, 0.5):
            return True
    return False


def _ask(
    ctx: SleepContext, asks: Sequence[tuple[Candidate, list[Fact]]]
) -> dict[int, Decision] | None:
    lines = []
    for n, (cand, facts) in enumerate(asks):
        said = "the user said" if cand.source_kind == "user_stated" else "inferred"
        lines.append(f"Candidate {n}: {cand.statement!r} ({said}, {cand.said_at:%Y-%m-%d})")
        lines += [
            f"  fact {f.id}: {f.statement!r} ({f.source_kind}, {f.status}, since "
            f"{(f.valid_from or f.learned_at):%Y-%m-%d})"
            for f in facts
        ]
    schema = update_schema(len(asks), [f.id for _, facts in asks for f in facts])
    value, errors = ctx.asker.ask(
        UPDATE_PROMPT, "\n".join(lines), schema, check=lambda v: _check(v, asks)
    )
    if value is None:
        ctx.error(
            "update",
            f"the model's answer could not be used ({ctx.retry_note()}): {'; '.join(errors[:3])}",
        )
        ctx.count("update_failed")
        return None
    return {
        asks[d["candidate"]][0].id: Decision(
            d["action"], int(d["fact_id"]) or None, d.get("reason", "")
        )
        for d in value["decisions"]
    }


def _check(value: dict[str, Any], asks: Sequence[tuple[Candidate, list[Fact]]]) -> list[str]:
    errors, seen = [], set()
    for d in value["decisions"]:
        n = d["candidate"]
        if n >= len(asks):
            errors.append(f"there is no candidate {n}")
            continue
        seen.add(n)
        offered = {f.id for f in asks[n][1]}
        if d["action"] in ("reinforce", "supersede") and d["fact_id"] not in offered:
            errors.append(f"candidate {n}: fact {d['fact_id']} is not one of {sorted(offered)}")
    missing = sorted(set(range(len(asks))) - seen)
    return errors + ([f"no decision for candidates {missing}"] if missing else [])


def _apply(
    ctx: SleepContext, cand: Candidate, plan: Decision, added: list[tuple[str, int]]
) -> None:
    facts = ctx.deps.facts
    pending = admitted_status(cand, ctx.settings) != "active"
    if plan.action in ("add", "supersede") and pending and not ctx.review_room():
        ctx.defer_review()  # it stays new: a later run proposes it
        return
    try:
        if plan.action == "reinforce" and plan.fact_id is not None:
            _reinforce(ctx, cand, facts.get(plan.fact_id))
            _done(ctx, cand, "reinforced", plan.fact_id, plan.note)
        elif plan.action == "supersede" and plan.fact_id is not None:
            _supersede(ctx, cand, facts.get(plan.fact_id), added)
        elif plan.action == "dispute" and plan.fact_id is not None:
            _dispute(ctx, cand, facts.get(plan.fact_id), added)
        elif plan.action in ("ignore", "blocked"):
            _done(ctx, cand, "ignored" if plan.action == "ignore" else "blocked", None, plan.note)
        else:
            fact = _add(ctx, cand, added)
            _done(ctx, cand, "added", fact.id, plan.note)
    except MemoryWriteError as exc:  # e.g. its evidence was deleted since extraction
        _done(ctx, cand, "blocked", None, str(exc))
        ctx.error("update", f"candidate {cand.statement!r} not stored: {exc}")


def _reinforce(ctx: SleepContext, cand: Candidate, fact: Fact) -> None:
    """Add the candidate's evidence to ``fact``; the user's own clear word activates a guess."""
    ctx.deps.facts.reinforce(fact.id, cand.evidence, actor="sleep")
    promotable = fact.status == "pending" and fact.source_kind in PROMOTABLE
    clear = admitted_status(cand, ctx.settings) == "active"
    held = looks_like_instruction(fact.statement) or claim_reason(fact.statement)
    if promotable and clear and not held:
        ctx.deps.facts.update(fact.id, actor="sleep", status="active", source_kind="user_stated")
        ctx.propose(Proposal("fact", fact.profile_id, fact.id, "active", fact.statement))


def _add(ctx: SleepContext, cand: Candidate, added: list[tuple[str, int]]) -> Fact:
    fact = _store(ctx, cand, admitted_status(cand, ctx.settings), added)
    ctx.propose(Proposal("fact", fact.profile_id, fact.id, fact.status, fact.statement))
    return fact


def _store(ctx: SleepContext, cand: Candidate, status: str, added: list[tuple[str, int]]) -> Fact:
    """The candidate stored as a fact of ``status``, noted in ``added``."""
    fact = ctx.deps.facts.add(
        cand.profile_id,
        cand.statement,
        evidence=cand.evidence,
        source_kind=cand.source_kind,  # type: ignore[arg-type]
        actor="sleep",
        scope=cand.scope,
        confidence=cand.confidence,
        importance=min(max(cand.importance, 1.0), 10.0),
        status=status,  # type: ignore[arg-type]
        valid_from=cand.said_at,
        valid_to=cand.valid_to,
        subject=cand.subject,
        predicate=cand.predicate,
    )
    added.append((fact.statement, fact.id))
    return fact


def _supersede(ctx: SleepContext, cand: Candidate, old: Fact, added: list[tuple[str, int]]) -> None:
    if old.status != "active":  # only an active fact can be replaced; propose the new one
        fact = _add(ctx, cand, added)
        _done(ctx, cand, "added", fact.id, f"fact {old.id} is {old.status}")
        return
    new = _add(ctx, cand, added)
    newer = cand.said_at >= (old.valid_from or old.learned_at)
    if new.status != "active":
        ctx.propose(Proposal("conflict", new.profile_id, new.id, new.status, new.statement, old.id))
    elif newer:
        ctx.deps.facts.supersede(old.id, new.id, actor="sleep")
        ctx.propose(Proposal("superseded", new.profile_id, new.id, "active", new.statement, old.id))
    else:  # said before the fact it contradicts: history, closed where the newer one begins
        ctx.deps.facts.supersede(new.id, old.id, actor="sleep")
    _done(ctx, cand, "superseded", new.id, f"{'replaces' if newer else 'older than'} {old.id}")


def _dispute(ctx: SleepContext, cand: Candidate, old: Fact, added: list[tuple[str, int]]) -> None:
    """Store the candidate for review, recorded as disputing ``old`` (both marked disputed)."""
    fact = _store(ctx, cand, "pending", added)
    ctx.deps.facts.dispute(fact.id, old.id, actor="sleep")
    ctx.propose(Proposal("conflict", fact.profile_id, fact.id, fact.status, fact.statement, old.id))
    _done(ctx, cand, "added", fact.id, f"disputes {old.id}")


def _done(ctx: SleepContext, cand: Candidate, status: str, fact_id: int | None, note: str) -> None:
    ctx.candidates.decide(cand.id, status, fact_id, note)
    ctx.count(f"candidates_{status}")
