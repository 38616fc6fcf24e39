"""Step 5: reflection (Generative Agents), when enough has happened since the last one.

When the importance of episodes and facts learned since the last reflection passes the
threshold (150 by default), the model is shown the most recent memories and asked for
the most salient questions (one call); memories are retrieved for each question, and
the model writes insights citing them (one call). An insight's depth is one more than
the deepest reflection it cites, and depth is capped (compounding error). Insights are
always pending review, and one the user rejected is not proposed again from the same
evidence.
"""

from __future__ import annotations

from typing import Any

from assistant.clock import to_iso
from assistant.memory.facts import Evidence, EvidenceKind
from assistant.memory.retrieval import Query
from assistant.memory.statements import read_statement
from assistant.sleep.context import SleepContext
from assistant.sleep.evidence import fingerprint, similar_statements
from assistant.sleep.prompts import INSIGHTS_PROMPT, QUESTIONS_PROMPT
from assistant.sleep.report import Proposal
from assistant.sleep.schemas import insights_schema, questions_schema

__all__ = ["reflect"]

_RECENT = 30
_PER_QUESTION = 6

Pool = dict[str, tuple[str, int]]  # label ("fact:12") -> (text, depth)


def reflect(ctx: SleepContext, profile_id: int) -> None:
    """Reflect once if the importance summed since the last reflection passes the threshold."""
    since = ctx.store.state(profile_id, "reflected_at")
    gained = ctx.deps.episodes.importance_since(profile_id, since)
    gained += ctx.fact_reads.importance_since(profile_id, since)
    if gained < ctx.settings.reflection_threshold or not ctx.review_room():
        return  # (a run that proposed its most reflects next time)
    pool = _recent(ctx, profile_id)
    if not pool:
        return
    n = ctx.settings.max_questions
    value, errors = ctx.asker.ask(QUESTIONS_PROMPT.format(n=n), _lines(pool), questions_schema())
    if value is None:
        ctx.error("reflect", f"invalid questions ({ctx.retry_note()}): {'; '.join(errors[:3])}")
        ctx.count("reflect_failed")
        return
    questions = [q.strip() for q in value["questions"][:n]]
    for question in questions:
        pool.update(_retrieve(ctx, profile_id, question))
    prompt = "Questions:\n" + "\n".join(f"- {q}" for q in questions) + "\n\nMemories:\n"
    value, errors = ctx.asker.ask(
        INSIGHTS_PROMPT.format(n=ctx.settings.max_insights),
        prompt + _lines(pool),
        insights_schema(list(pool)),
        check=lambda v: _unknown_labels(v, pool),
    )
    if value is None:
        ctx.error("reflect", f"invalid insights ({ctx.retry_note()}): {'; '.join(errors[:3])}")
        ctx.count("reflect_failed")
        return
    with ctx.store.unit():
        room = min(ctx.settings.max_insights, ctx.review_room())
        for insight in value["insights"][:room]:
            _write(ctx, profile_id, insight, pool)
        ctx.store.set_state(profile_id, "reflected_at", to_iso(ctx.now))
    ctx.count("reflections_run")
    ctx.tick("reflect", 1, 1)


def _recent(ctx: SleepContext, profile_id: int) -> Pool:
    """The latest episodes and active facts (reviewed or trusted: never pending guesses)."""
    pool: Pool = {}
    for e in ctx.deps.episodes.recent(profile_id, limit=_RECENT // 2):
        pool[f"episode:{e.id}"] = (f"{e.title}: {e.summary}" if e.title else e.summary, 0)
    for f in ctx.deps.facts.list(profile_id, status="active", order="recent", limit=_RECENT):
        pool[f"fact:{f.id}"] = (f.statement, f.depth)
    return pool


def _retrieve(ctx: SleepContext, profile_id: int, question: str) -> Pool:
    query = Query(
        text=question,
        profile_id=profile_id,
        now=ctx.now,
        limit=_PER_QUESTION,
        kinds=("fact", "episode"),
    )
    found: Pool = {}
    for memory in ctx.deps.retrieve(query):
        depth = ctx.deps.facts.get(memory.item_id).depth if memory.kind == "fact" else 0
        found[f"{memory.kind}:{memory.item_id}"] = (memory.text, depth)
    return found


def _lines(pool: Pool) -> str:
    return "\n".join(f"[{label}] {text}" for label, (text, _) in pool.items())


def _unknown_labels(value: dict[str, Any], pool: Pool) -> list[str]:
    unknown = {ref for i in value["insights"] for ref in i["evidence"] if ref not in pool}
    return [f"these labels are not among the memories shown: {sorted(unknown)}"] if unknown else []


def _write(ctx: SleepContext, profile_id: int, insight: dict[str, Any], pool: Pool) -> None:
    statement = " ".join(insight["statement"].split())
    refs = list(dict.fromkeys(insight["evidence"]))
    evidence = [_evidence(ref) for ref in refs]
    depth = 1 + max(pool[ref][1] for ref in refs)
    refused = read_statement(statement).refused  # "What does the user value?" is no insight
    if refused:
        ctx.candidates.reject(
            profile_id, fingerprint(statement, evidence), refused, statement, ctx.run_id
        )
        ctx.count("candidates_rejected")
        return
    if depth > ctx.settings.max_depth:
        ctx.candidates.reject(
            profile_id, fingerprint(statement, evidence), "depth cap", statement, ctx.run_id
        )
        ctx.count("reflections_capped")
        return
    if ctx.candidates.rejected_in_review(profile_id, statement, evidence):
        ctx.count("reflections_blocked")
        return
    for fact_id in ctx.fact_reads.rejected_citing(profile_id, evidence):
        if similar_statements(ctx.deps.facts.get(fact_id).statement, statement, 0.5):
            ctx.count("reflections_blocked")
            return
    existing = ctx.deps.facts.list(
        profile_id, status=("pending", "active"), source_kind="reflection", limit=200
    )
    if any(similar_statements(f.statement, statement, 0.8) for f in existing):
        ctx.count("reflections_repeated")
        return
    fact = ctx.deps.facts.add(
        profile_id,
        statement,
        evidence=evidence,
        source_kind="reflection",
        actor="sleep",
        importance=int(insight["importance"]),
        status="pending",
        depth=depth,
    )
    ctx.propose(Proposal("reflection", profile_id, fact.id, fact.status, fact.statement))
    ctx.count("reflections")


def _evidence(ref: str) -> Evidence:
    kind, _, ident = ref.partition(":")
    item_kind: EvidenceKind = "fact" if kind == "fact" else "episode"
    return Evidence(item_kind, int(ident))
