"""A dated item of an episode (a plan, a deadline): its absolute date, and its candidate fact.

The date is worked out from the day the message was said; the fact expires after it.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from assistant.memory.episodes import Episode
from assistant.memory.facts import Evidence
from assistant.memory.records import Message
from assistant.memory.sleep_candidates import Candidate
from assistant.sleep.context import SleepContext
from assistant.sleep.dates import resolve_date
from assistant.sleep.evidence import fingerprint
from assistant.sleep.extract import vet
from assistant.sleep.trust import is_strong

__all__ = ["dated_item"]


def dated_item(
    ctx: SleepContext, episode: Episode, item: dict[str, Any], by_id: dict[int, Message]
) -> None:
    """Date one item of ``episode`` and propose it as a fact, or record why not."""
    message = by_id[item["message_id"]]
    text = " ".join(item["text"].split())
    due_on = resolve_date(item["when"], item.get("date", ""), ctx.local_date(message.created_at))
    if due_on is None:
        ctx.count("dated_items_unresolved")
        # The item's text is the model's, and may be a transcript line: said by its message.
        ctx.error(
            "episodes",
            f"session {episode.session_id}: could not date the plan in message {message.id}; "
            "not kept",
        )
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
