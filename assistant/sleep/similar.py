"""Finding the active (and pending) facts a candidate may repeat, replace or contradict.

Hybrid: facts with the same subject and predicate, keyword (BM25) hits on the candidate's
key terms, and, where vectors exist, the nearest facts by meaning (one embedding request
per batch).
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.errors import NotFound
from assistant.memory.facts import Fact
from assistant.memory.sleep_candidates import Candidate
from assistant.sleep.context import SleepContext
from assistant.sleep.evidence import coverage, key_terms

__all__ = ["similar_facts"]

_STATUSES = ("active", "pending")
_PER_CANDIDATE = 4
_MIN_COVERAGE = 0.34
_MIN_COSINE = 0.75


def similar_facts(
    ctx: SleepContext, profile_id: int, batch: Sequence[Candidate]
) -> list[list[Fact]]:
    """For each candidate, up to four facts it should be compared with, closest first."""
    nearest = _nearest(ctx, profile_id, batch)
    out = []
    for cand, near in zip(batch, nearest, strict=True):
        ids = ctx.fact_reads.about(profile_id, cand.subject, cand.predicate, _STATUSES)
        query = " ".join(sorted(key_terms(cand.statement)))
        ids += [
            i for i, _ in ctx.deps.facts.keyword_search(profile_id, query, 8, statuses=_STATUSES)
        ]
        ids += near
        facts = []
        for fact_id in dict.fromkeys(ids):
            try:
                fact = ctx.deps.facts.get(fact_id, profile_id=profile_id)
            except NotFound:
                continue
            if fact.status in _STATUSES and _related(cand, fact, fact_id in near):
                facts.append(fact)
        out.append(facts[:_PER_CANDIDATE])
    return out


def _related(cand: Candidate, fact: Fact, near: bool) -> bool:
    same_topic = bool(cand.predicate) and (
        fact.predicate.casefold() == cand.predicate.casefold()
        and fact.subject.casefold() == cand.subject.casefold()
    )
    return same_topic or near or coverage(cand.statement, [fact.statement]) >= _MIN_COVERAGE


def _nearest(ctx: SleepContext, profile_id: int, batch: Sequence[Candidate]) -> list[list[int]]:
    model = ctx.deps.vectors.model(ctx.deps.models.embedding)
    if model is None:
        return [[] for _ in batch]
    vectors = ctx.asker.embed(ctx.deps.models.embedding, [c.statement for c in batch])
    if not vectors:
        return [[] for _ in batch]
    found = []
    for vector in vectors:
        hits = ctx.deps.vectors.nearest(model, "fact", profile_id, vector, 5)
        found.append([i for i, cosine in hits if cosine >= _MIN_COSINE])
    return found
