"""Step 2: close idle sessions and summarise each into episodes (one model call each).

A long session may become several episodes, split where its topic shifts. Each episode
keeps its messages, topics and importance; its dated items (plans, deadlines) become
candidate facts (``dated.py``). An episode whose messages do not back its summary and
title is dropped and counted (``episode_check.py``). A stretch of the session that no
kept episode covers is asked about in a further call; what stays uncovered after those
stays due, and only the episodes before it are written.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from assistant.memory.episodes import Episode
from assistant.memory.records import Message
from assistant.memory.sleep_marks import DueSession
from assistant.sleep.context import SleepContext
from assistant.sleep.dated import dated_item
from assistant.sleep.episode_check import TRIVIAL, covered_prefix, is_supported, uncovered
from assistant.sleep.errors import BudgetExhausted
from assistant.sleep.extract import session_messages, step_failed
from assistant.sleep.prompts import EPISODES_PROMPT, transcript
from assistant.sleep.schemas import episodes_schema

__all__ = ["summarise_sessions"]

# Further calls for stretches of a session the first answer's episodes leave uncovered.
_FURTHER_CALLS = 2


def summarise_sessions(ctx: SleepContext, profile_id: int) -> None:
    """Close idle sessions, then summarise each one not yet summarised, oldest first."""
    cutoff = ctx.now - timedelta(minutes=ctx.settings.idle_minutes)
    with ctx.store.unit():
        ctx.count("sessions_closed", ctx.deps.messages.close_idle_sessions(profile_id, cutoff))
    due = ctx.store.due_sessions(profile_id, "summarise", cutoff)
    for done, session in enumerate(due, start=1):
        _summarise_one(ctx, session)
        ctx.tick("episodes", done, len(due))


def _summarise_one(ctx: SleepContext, due: DueSession) -> None:
    messages, due = session_messages(ctx, due)
    if not any(m.role == "user" and m.importance > TRIVIAL for m in messages):
        with ctx.store.unit():  # small talk: nothing to remember, no model call
            ctx.store.mark("summarise", due, state="done", run_id=ctx.run_id)
            ctx.store.mark("extract", due, state="done", run_id=ctx.run_id)
        ctx.count("sessions_trivial")
        return
    parts: list[dict[str, Any]] = []
    errors: list[str] = []
    stretch, stopped = messages, None
    try:
        for _ in range(1 + _FURTHER_CALLS):
            value, errors = _ask(ctx, stretch)
            backed = _supported(ctx, value["episodes"] if value else [], messages)
            parts += backed
            gaps = uncovered(messages, [_span(p) for p in parts])
            # A further call only goes on from a reply that covered some of it: a model
            # whose every summary its messages don't back is not asked again this run
            # (the session stays due, and says why).
            if value is None or not gaps or not backed:
                break
            stretch = gaps[0]  # the first stretch no episode covers: a further call
    except BudgetExhausted as exc:  # keep what the calls so far covered, then stop
        stopped = exc
    if stopped is None or covered_prefix(messages, uncovered(messages, [_span(p) for p in parts])):
        _keep(ctx, due, messages, parts, errors)
    if stopped is not None:  # (a session the cap cut off before any cover is not a failure)
        raise stopped


def _ask(ctx: SleepContext, messages: list[Message]) -> tuple[dict[str, Any] | None, list[str]]:
    ids = [m.id for m in messages]
    value, errors = ctx.asker.ask(
        EPISODES_PROMPT,
        transcript(messages, ctx.tz),
        episodes_schema(ids),
        check=lambda v: _check(v, ids),
    )
    return value, errors


def _span(part: dict[str, Any]) -> tuple[int, int]:
    return part["first_message_id"], part["last_message_id"]


def _supported(
    ctx: SleepContext, parts: list[dict[str, Any]], messages: list[Message]
) -> list[dict[str, Any]]:
    """The episodes their messages back; the others are dropped and counted."""
    kept = []
    for part in parts:
        first, last = _span(part)
        if is_supported(part, [m for m in messages if first <= m.id <= last]):
            kept.append(part)
        else:
            ctx.count("episodes_unsupported")
    return kept


def _keep(
    ctx: SleepContext,
    due: DueSession,
    messages: list[Message],
    parts: list[dict[str, Any]],
    errors: list[str],
) -> None:
    """Write the episodes up to the first stretch none covers; the rest stays due."""
    covered = covered_prefix(messages, uncovered(messages, [_span(p) for p in parts]))
    if not covered and errors:
        step_failed(ctx, "summarise", due, errors)
        return
    if not covered:
        step_failed(ctx, "summarise", due, [], problem="no episode its messages back")
        return
    upto = messages[covered - 1].id
    kept = sorted((p for p in parts if _span(p)[1] <= upto), key=_span)
    by_id = {m.id: m for m in messages}
    with ctx.store.unit():
        for part in kept:
            episode = _write_episode(ctx, due, part, messages)
            for item in part["dated_items"]:
                dated_item(ctx, episode, item, by_id)
        ctx.store.mark("summarise", due, state="done", run_id=ctx.run_id, upto=upto)
    ctx.count("episodes", len(kept))
    if covered < len(messages):
        ctx.count("sessions_partly_summarised")
        ctx.error(
            "episodes",
            f"session {due.id}: episodes cover only {covered} of its {len(messages)} "
            f"messages (the rest: {ctx.retry_note()})",
        )
    else:
        ctx.count("sessions_summarised")


def _check(value: dict[str, Any], ids: list[int]) -> list[str]:
    """Episode spans must use the conversation's ids, in order, without overlapping."""
    known, errors, last_end = set(ids), [], 0
    for n, part in enumerate(sorted(value["episodes"], key=lambda p: p["first_message_id"])):
        first, last = part["first_message_id"], part["last_message_id"]
        if first not in known or last not in known or first > last:
            errors.append(f"episode {n}: {first}..{last} is not a span of the message ids shown")
        elif first <= last_end:
            errors.append(f"episode {n}: {first}..{last} overlaps the previous episode")
        last_end = max(last_end, last)
        errors += [
            f"episode {n}: dated item cites message {item['message_id']}, which is not shown"
            for item in part["dated_items"]
            if item["message_id"] not in known
        ]
    return errors


def _write_episode(
    ctx: SleepContext, due: DueSession, part: dict[str, Any], messages: list[Message]
) -> Episode:
    first, last = part["first_message_id"], part["last_message_id"]
    span = [m for m in messages if first <= m.id <= last]
    return ctx.deps.episodes.add(
        due.profile_id,
        summary=part["summary"],
        title=part["title"],
        topics=[t.strip() for t in part["topics"] if t.strip()],
        importance=int(part["importance"]),
        started_at=span[0].created_at,
        ended_at=span[-1].created_at,
        session_id=due.id,
        scope=ctx.deps.messages.session(due.id).scope,
        message_ids=[m.id for m in span],
    )
