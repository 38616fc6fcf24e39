"""Step 6: hygiene. No model calls; each part idempotent, in short transactions.

* expire facts and dated items whose time has passed (temporal incoherence);
* keep expired events that were never consolidated as pending facts when important,
  drop the rest (sensory memory is short-lived by design);
* merge duplicate active facts, keeping the evidence of both (nothing is deleted: the
  duplicate is closed as superseded by the kept fact);
* link new facts and episodes to the entities they name (fragmentation);
* raise the importance of facts and episodes used often in prompts since the last run.
"""

from __future__ import annotations

from collections import defaultdict

from assistant.errors import MemoryWriteError, NotFound
from assistant.memory.entities import extract_entities
from assistant.memory.facts import Evidence, Fact
from assistant.memory.statements import read_statement
from assistant.sleep.context import SleepContext
from assistant.sleep.evidence import fingerprint, normal_statement, similar_statements
from assistant.sleep.report import Proposal

__all__ = ["hygiene"]

_LINK_CHUNK = 200


def hygiene(ctx: SleepContext, profile_id: int) -> None:
    """Run every hygiene part for one profile."""
    with ctx.store.unit():
        ctx.count("facts_expired", ctx.deps.facts.expire_due(profile_id, ctx.now, actor="sleep"))
        today = ctx.local_date(ctx.now)
        ctx.count("dated_items_expired", ctx.candidates.expire_dated_items(profile_id, today))
    _expired_events(ctx, profile_id)
    _merge_duplicates(ctx, profile_id)
    _link_entities(ctx, profile_id)
    _refine_importance(ctx, profile_id)
    ctx.tick("hygiene", 1, 1)


def _expired_events(ctx: SleepContext, profile_id: int) -> None:
    for event in ctx.deps.events.expired(profile_id, ctx.now):
        if event.consolidated_at is not None:
            continue
        with ctx.store.unit():
            if event.importance >= ctx.settings.keep_event_importance:
                _keep_event(ctx, profile_id, event.id, event.text)
                ctx.deps.events.mark_consolidated([event.id], ctx.now)
            else:
                ctx.deps.events.remove(event.id)
                ctx.count("events_dropped")


def _keep_event(ctx: SleepContext, profile_id: int, event_id: int, text: str) -> None:
    evidence = [Evidence("event", event_id)]
    if ctx.candidates.rejected_in_review(profile_id, text, evidence):
        return
    for fact_id in ctx.fact_reads.rejected_citing(profile_id, evidence):
        if similar_statements(ctx.deps.facts.get(fact_id).statement, text, 0.5):
            return
    refused = read_statement(text, to_do=True).refused  # a question or request is no fact
    if refused:
        ctx.candidates.reject(profile_id, fingerprint(text, evidence), refused, text, ctx.run_id)
        ctx.count("candidates_rejected")
        return
    fact = ctx.deps.facts.add(
        profile_id, text, evidence=evidence, source_kind="event", actor="sleep", status="pending"
    )
    ctx.propose(Proposal("event", profile_id, fact.id, fact.status, fact.statement))
    ctx.count("events_kept")


def _merge_duplicates(ctx: SleepContext, profile_id: int) -> None:
    groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for fact in ctx.deps.facts.list(profile_id, status="active", limit=100_000, order="recent"):
        groups[(normal_statement(fact.statement), fact.scope)].append(fact)
    for facts in groups.values():
        if len(facts) < 2:
            continue
        # Keep a pinned one, else the newest: the older copies close where it begins.
        keep = max(facts, key=lambda f: (f.pinned, f.valid_from or f.learned_at, f.id))
        with ctx.store.unit():
            for dup in facts:
                if dup.id == keep.id:
                    continue
                ctx.deps.facts.reinforce(keep.id, dup.evidence, actor="sleep", boost=0.0)
                ctx.deps.facts.supersede(dup.id, keep.id, actor="sleep")
                ctx.propose(
                    Proposal("merged", profile_id, keep.id, "active", keep.statement, dup.id)
                )
                ctx.count("facts_merged")


def _link_entities(ctx: SleepContext, profile_id: int) -> None:
    for kind in ("fact", "episode"):
        key = f"linked_{kind}_upto"
        after = int(ctx.store.state(profile_id, key, "0"))
        ids = (
            ctx.fact_reads.ids_after(profile_id, after)
            if kind == "fact"
            else ctx.deps.episodes.ids_after(profile_id, after)
        )
        for start in range(0, len(ids), _LINK_CHUNK):
            chunk = ids[start : start + _LINK_CHUNK]
            with ctx.store.unit():
                for item_id in chunk:
                    names = extract_entities(_text(ctx, kind, item_id))
                    if names:
                        ctx.deps.entities.link(profile_id, kind, item_id, names)
                        ctx.count("entity_links")
                ctx.store.set_state(profile_id, key, str(chunk[-1]))


def _text(ctx: SleepContext, kind: str, item_id: int) -> str:
    if kind == "fact":
        return ctx.deps.facts.get(item_id).statement
    episode = ctx.deps.episodes.get(item_id)
    return "\n".join((episode.title, episode.summary, " ".join(episode.topics)))


def _refine_importance(ctx: SleepContext, profile_id: int) -> None:
    after = int(ctx.store.state(profile_id, "usage_upto", "0"))
    uses, last = ctx.deps.usage.uses_since(profile_id, after)
    with ctx.store.unit():
        for (kind, item_id), n in sorted(uses.items()):
            if n < ctx.settings.often_used:
                continue
            try:
                if kind == "fact":
                    fact = ctx.deps.facts.get(item_id, profile_id=profile_id)
                    if fact.status == "active" and fact.importance < 10:
                        ctx.deps.facts.update(
                            item_id, actor="sleep", importance=min(10.0, fact.importance + 1)
                        )
                        ctx.count("importance_raised")
                elif kind == "episode":
                    ctx.deps.episodes.raise_importance(item_id, 1.0)
                    ctx.count("importance_raised")
            except (NotFound, MemoryWriteError):
                continue  # forgotten since it was used
        ctx.store.set_state(profile_id, "usage_upto", str(last))
