"""Step 2: close idle sessions and summarise each into episodes (one model call each).

A long session may become several episodes, split where its topic shifts. Each episode
keeps its messages, topics and importance; its dated items (plans, deadlines) get an
absolute date worked out from the day the message was said, and become candidate facts
that expire after that day.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from assistant.memory.episodes import Episode
from assistant.memory.facts import Evidence
from assistant.memory.records import Message
from assistant.memory.sleep_candidates import Candidate
from assistant.memory.sleep_marks import DueSession
from assistant.sleep.context import SleepContext
from assistant.sleep.dates import resolve_date
from assistant.sleep.evidence import fingerprint
from assistant.sleep.extract import session_messages, step_failed, vet
from assistant.sleep.prompts import EPISODES_PROMPT, transcript
from assistant.sleep.schemas import episodes_schema
from assistant.sleep.trust import is_strong

__all__ = ["summarise_sessions"]

_TRIVIAL = 2.0  # a session whose user messages all rate this low is small talk


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
    if not any(m.role == "user" and m.importance > _TRIVIAL for m in messages):
        with ctx.store.unit():  # small talk: nothing to remember, no model call
            ctx.store.mark("summarise", due, state="done", run_id=ctx.run_id)
            ctx.store.mark("extract", due, state="done", run_id=ctx.run_id)
        ctx.count("sessions_trivial")
        return
    ids = [m.id for m in messages]
    value, errors = ctx.asker.ask(
        EPISODES_PROMPT,
        transcript(messages, ctx.tz),
        episodes_schema(ids),
        check=lambda v: _check(v, ids),
    )
    if value is None:
        step_failed(ctx, "summarise", due, errors)
        return
    by_id = {m.id: m for m in messages}
    with ctx.store.unit():
        for part in value["episodes"]:
            episode = _write_episode(ctx, due, part, messages)
            for item in part["dated_items"]:
                _dated_item(ctx, episode, item, by_id)
        ctx.store.mark("summarise", due, state="done", run_id=ctx.run_id)
    ctx.count("episodes", len(value["episodes"]))
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


def _dated_item(
    ctx: SleepContext, episode: Episode, item: dict[str, Any], by_id: dict[int, Message]
) -> None:
    message = by_id[item["message_id"]]
    text = " ".join(item["text"].split())
    due_on = resolve_date(item["when"], item.get("date", ""), ctx.local_date(message.created_at))
    if due_on is None:
        ctx.count("dated_items_unresolved")
        ctx.error("episodes", f"could not date {text!r} ({item['when']!r}); not kept")
        return
    source = "user_stated" if message.role == "user" else "assistant_inferred"
    recalled = ctx.deps.usage.recalled_texts([message.id])
    verdict = vet(text, [message.id], source, by_id, recalled, to_do=True)
    if verdict.reason:
        refs = [Evidence("message", message.id)]
        ctx.candidates.reject(
            episode.profile_id, fingerprint(text, refs), verdict.reason, text, ctx.run_id
        )
        ctx.count("candidates_rejected")
        return
    ctx.candidates.add_dated_item(
        episode.profile_id, episode.id, message.id, text, item["when"], due_on
    )
    statement = _absolute(text, item["when"], due_on)
    ctx.candidates.add_candidate(
        Candidate(
            id=0,
            profile_id=episode.profile_id,
            session_id=episode.session_id,
            statement=statement,
            subject="user",
            predicate="",
            scope=episode.scope,
            source_kind=verdict.source_kind,
            confidence=0.8,
            importance=max(float(episode.importance), 5.0),
            said_at=message.created_at,
            valid_to=ctx.end_of_day(due_on),
            evidence=(Evidence("message", message.id), Evidence("episode", episode.id)),
            strong=is_strong(text, verdict.source_kind, verdict.cited),
        ),
        ctx.run_id,
    )
    ctx.count("dated_items")
    ctx.count("candidates")


def _absolute(text: str, phrase: str, day: date) -> str:
    """The item's text with its relative time words replaced by the date they mean."""
    when = f"on {day:%A} {day.isoformat()}"
    if phrase.strip():
        replaced, n = re.subn(re.escape(phrase.strip()), when, text, count=1, flags=re.I)
        if n:
            return replaced
    return f"{text.rstrip('.')} ({when})"
