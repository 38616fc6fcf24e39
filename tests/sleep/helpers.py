"""Building conversations and scripting the model's structured replies for sleep tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from assistant.engine import Hippo
from assistant.memory.records import Message, Session
from assistant.sleep import SleepReport, SleepSettings
from tests.fake_ollama import Reply

__all__ = [
    "chat",
    "decisions",
    "episode",
    "episodes",
    "fact",
    "facts",
    "insights",
    "questions",
    "sleep",
    "snapshot",
]

SETTINGS = SleepSettings()


def chat(
    engine: Hippo, at: datetime, *turns: str, scope: str = "", incognito: bool = False
) -> tuple[Session, list[Message]]:
    """A finished conversation at ``at``: turns alternate user, assistant (a minute apart)."""
    # An incognito one in the file, as an older Hippo left it (today's live in memory).
    store = engine.memory.messages.file if incognito else engine.memory.messages
    session = store.create_session(
        engine.memory.profile.id, started_at=at, scope=scope, incognito=incognito
    )
    said = []
    for n, text in enumerate(turns):
        role = "user" if n % 2 == 0 else "assistant"
        said.append(
            engine.memory.messages.add_message(
                session.id, role, text, created_at=at + timedelta(minutes=n), importance=6.0
            )
        )
    return session, said


def day(text: str, hour: int = 10) -> datetime:
    """A time on a date, e.g. ``day("2026-11-25")``."""
    return datetime.fromisoformat(text).replace(hour=hour, tzinfo=UTC)


def episode(
    first: int | Message,
    last: int | Message,
    summary: str | None = None,
    *,
    title: str = "",
    topics: Sequence[str] = (),
    importance: int = 5,
    dated: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """One episode as the model returns it.

    Given the first and last messages rather than their ids, its summary defaults to the
    first one's words (which its messages back); given ids, to words no message says.
    """
    if summary is None:
        summary = first.content if isinstance(first, Message) else "They talked."
    return {
        "first_message_id": first.id if isinstance(first, Message) else first,
        "last_message_id": last.id if isinstance(last, Message) else last,
        "title": title,
        "summary": summary,
        "topics": list(topics),
        "importance": importance,
        "dated_items": list(dated),
    }


def episodes(*parts: dict[str, Any]) -> Reply:
    """The summarise step's reply."""
    return Reply(content=json.dumps({"episodes": list(parts)}))


def fact(
    statement: str,
    ids: Sequence[int],
    *,
    source: str = "user_stated",
    subject: str = "user",
    predicate: str = "",
    confidence: float = 0.9,
    importance: int = 6,
    **extra: Any,
) -> dict[str, Any]:
    """One extracted fact as the model returns it."""
    return {
        "statement": statement,
        "subject": subject,
        "predicate": predicate,
        "source": source,
        "message_ids": list(ids),
        "confidence": confidence,
        "importance": importance,
        **extra,
    }


def facts(*items: dict[str, Any]) -> Reply:
    """The extract step's reply."""
    return Reply(content=json.dumps({"facts": list(items)}))


def decisions(*items: tuple[int, str, int]) -> Reply:
    """The update step's reply: (candidate, action, fact id)."""
    return Reply(
        content=json.dumps(
            {"decisions": [{"candidate": c, "action": a, "fact_id": f} for c, a, f in items]}
        )
    )


def questions(*items: str) -> Reply:
    """The reflection's questions."""
    return Reply(content=json.dumps({"questions": list(items)}))


def insights(*items: tuple[str, Sequence[str], int]) -> Reply:
    """The reflection's insights: (statement, evidence labels, importance)."""
    return Reply(
        content=json.dumps(
            {
                "insights": [
                    {"statement": s, "evidence": list(e), "importance": i} for s, e, i in items
                ]
            }
        )
    )


def sleep(engine: Hippo, **options: Any) -> SleepReport:
    """Run the consolidation in UTC with test settings (override any of them)."""
    settings = SETTINGS.with_changes(**options.pop("settings", {}))
    return engine.consolidate(tz=UTC, settings=settings, **options)


def snapshot(engine: Hippo) -> dict[str, Any]:
    """The memory a run leaves, by content (ids aside), for comparing runs."""
    pid = engine.memory.profile.id
    every = engine.memory.facts.list(pid, limit=1000)
    statements = {f.id: f.statement for f in every}
    rows = [
        (
            f.statement,
            f.status,
            f.source_kind,
            str(f.valid_from),
            str(f.valid_to),
            statements.get(f.superseded_by or 0, ""),
            len(f.evidence),
        )
        for f in every
    ]
    return {
        "facts": sorted(rows),
        "episodes": sorted(
            (e.summary, e.session_id, e.message_ids, e.importance)
            for e in engine.memory.episodes.recent(pid, limit=1000)
        ),
        "dated": sorted((e.text, str(e.due_on), e.status) for e in engine.sleep.dated_items()),
    }
