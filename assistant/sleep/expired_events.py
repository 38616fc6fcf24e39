"""Expired events that were never consolidated: kept for review in groups, or dropped.

Sensory memory is short-lived by design. An expired event important enough
(``keep_event_importance``) is kept for review; all such events of one source on one day
become one review item citing every one of them, so 3,000 imported events make a few
items, not 1,500 (burst). A group the run has no room for (``max_review_items``) stays
for the next run; less important events are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from assistant.memory.facts import Evidence
from assistant.memory.sensory import Event
from assistant.memory.statements import read_statement
from assistant.sleep.context import SleepContext
from assistant.sleep.evidence import fingerprint, similar_statements
from assistant.sleep.report import Proposal

__all__ = ["expired_events", "group_statement"]

_DROP_CHUNK = 500  # events removed per transaction
_SHOWN = 5  # event texts a group's statement quotes
_TEXT = 80  # characters of each


def expired_events(ctx: SleepContext, profile_id: int) -> None:
    """Drop the minor expired events; keep the others for review, a group per source and day."""
    events = [e for e in ctx.deps.events.expired(profile_id, ctx.now) if e.consolidated_at is None]
    minor = [e.id for e in events if e.importance < ctx.settings.keep_event_importance]
    for start in range(0, len(minor), _DROP_CHUNK):
        with ctx.store.unit():
            for event_id in minor[start : start + _DROP_CHUNK]:
                ctx.deps.events.remove(event_id)
        ctx.count("events_dropped", len(minor[start : start + _DROP_CHUNK]))
    groups: dict[tuple[str, date], list[Event]] = {}
    for event in events:
        if event.importance >= ctx.settings.keep_event_importance and _states(ctx, event):
            key = (event.source, ctx.local_date(event.occurred_at))
            groups.setdefault(key, []).append(event)
    for (source, day), group in groups.items():
        if not ctx.review_room():
            ctx.defer_review()
            continue
        with ctx.store.unit():
            _keep(ctx, profile_id, group_statement(source, day, group), group)
            ctx.deps.events.mark_consolidated([e.id for e in group], ctx.now)


def group_statement(source: str, day: date, group: Sequence[Event]) -> str:
    """What a review item says of its events: the event itself, or a few of a group's."""
    if len(group) == 1:
        return group[0].text
    texts = [" ".join(e.text.split())[:_TEXT] for e in group[:_SHOWN]]
    more = f"; and {len(group) - _SHOWN:,} more" if len(group) > _SHOWN else ""
    return f"{len(group):,} events from {source} on {day.isoformat()}: {'; '.join(texts)}{more}"


def _states(ctx: SleepContext, event: Event) -> bool:
    """Whether an event's text may be kept as a fact: one that asks or commands is not (a
    note to oneself may be); it is rejected, with its reason, and counts as done."""
    refused = read_statement(event.text, to_do=True).refused
    if not refused:
        return True
    evidence = [Evidence("event", event.id)]
    with ctx.store.unit():
        ctx.candidates.reject(
            event.profile_id, fingerprint(event.text, evidence), refused, event.text, ctx.run_id
        )
        ctx.deps.events.mark_consolidated([event.id], ctx.now)
    ctx.count("candidates_rejected")
    return False


def _keep(ctx: SleepContext, profile_id: int, statement: str, group: Sequence[Event]) -> None:
    evidence = [Evidence("event", e.id) for e in group]
    if ctx.candidates.rejected_in_review(profile_id, statement, evidence):
        return
    for fact_id in ctx.fact_reads.rejected_citing(profile_id, evidence):
        if similar_statements(ctx.deps.facts.get(fact_id).statement, statement, 0.5):
            return
    fact = ctx.deps.facts.add(
        profile_id,
        statement,
        evidence=evidence,
        source_kind="event",
        actor="sleep",
        status="pending",
    )
    ctx.propose(Proposal("event", profile_id, fact.id, fact.status, fact.statement))
    ctx.count("events_kept", len(group))
