"""Step 3: extract candidate facts from each summarised session (one model call each).

Every candidate is vetted before it is kept: its statement must be a declarative sentence
(never a question, a request to the assistant or a name alone; the transcript's ids, time
stamps and role labels taken out), its confidence at least ``[sleep] min_confidence``, its
cited messages must be in the conversation (not invented), say what it claims
(hallucination, on more than names), and not merely repeat memory recalled into the
assistant's prompt (feedback loop); "the user said it" needs a user message that states
it (not one that only asks). Rejections are recorded, so a rerun never proposes them again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from assistant.memory.facts import Evidence
from assistant.memory.records import Message
from assistant.memory.sleep_candidates import Candidate
from assistant.memory.sleep_marks import DueSession
from assistant.memory.statements import declarative_part, read_statement, strip_scaffolding
from assistant.sleep.context import SleepContext
from assistant.sleep.dates import resolve_phrase
from assistant.sleep.evidence import fingerprint, similar_statements, supports
from assistant.sleep.prompts import EXTRACT_PROMPT, MAX_CHARS, transcript
from assistant.sleep.schemas import candidates_schema
from assistant.sleep.trust import is_strong, tainted_messages
from assistant.tokens import estimate_tokens

if TYPE_CHECKING:
    from assistant.memory.episodes import Episode

__all__ = ["Vetted", "extract_sessions", "session_messages", "step_failed", "vet"]


@dataclass(frozen=True, slots=True)
class Vetted:
    """A candidate's verdict: the evidence left after the defences, or why it was rejected."""

    cited: tuple[Message, ...]
    source_kind: str
    reason: str = ""


def session_messages(ctx: SleepContext, due: DueSession) -> tuple[list[Message], DueSession]:
    """The session's messages a step still has to read, oldest first, as many as fit.

    A session too long for one prompt is taken in parts: the returned ``DueSession`` ends
    at the last message that fits, and the rest stays due for the next run.
    """
    ids = ctx.deps.messages.said_ids(due.id, due.done_upto, due.last_id)
    found = ctx.deps.messages.messages_by_id(ids, due.profile_id)
    budget = ctx.transcript_budget
    kept: list[Message] = []
    for message in (found[i] for i in ids if i in found):
        budget -= estimate_tokens(message.content[:MAX_CHARS]) + 12
        if budget < 0 and kept:
            return kept, replace(due, last_id=kept[-1].id)
        kept.append(message)
    return kept, due


def vet(
    statement: str,
    message_ids: Sequence[int],
    source: str,
    messages: Mapping[int, Message],
    recalled: Mapping[int, list[str]],
    *,
    to_do: bool = False,
) -> Vetted:
    """Check a candidate against the defences (see the module docstring).

    ``to_do``: the statement is a dated item's text ("Call mom on Sunday", "Dentist next
    Friday"), where a note to oneself or a phrase is fine (see `read_statement`).
    """
    reading = read_statement(statement, to_do=to_do)
    if reading.refused:
        return Vetted((), source, f"the statement {reading.refused}")
    statement = reading.statement
    missing = [i for i in message_ids if i not in messages]
    if missing or not message_ids:
        return Vetted((), source, f"cites messages not in the conversation: {missing}")
    cited = [messages[i] for i in dict.fromkeys(message_ids)]
    # An assistant reply that repeats memory from its prompt is an echo, not evidence.
    kept = [
        m for m in cited if m.role == "user" or not supports(statement, recalled.get(m.id, []), 0.5)
    ]
    if not kept:
        return Vetted((), source, "repeats memory recalled into the assistant's prompt")
    if not supports(statement, [m.content for m in kept]):
        return Vetted((), source, "the cited messages do not say it")
    # What the user asked is not what they said: only the sentences that state something.
    typed = [declarative_part(m.content) for m in kept if m.role == "user" and m.origin != "pasted"]
    if source in ("user_stated", "pasted") and not supports(statement, [t for t in typed if t]):
        # Attribution: the model's reading is not the user's word, nor is pasted text.
        pasted = [m.content for m in kept if m.role == "user" and m.origin == "pasted"]
        source = "pasted" if supports(statement, pasted) else "assistant_inferred"
    return Vetted(tuple(kept), source)


def step_failed(
    ctx: SleepContext,
    step: str,
    due: DueSession,
    errors: Sequence[str],
    *,
    problem: str = "the model's answer could not be used",
) -> None:
    """Record a session the model failed on; give it up after too many runs."""
    give_up = due.attempts + 1 >= ctx.settings.max_attempts
    with ctx.store.unit():
        ctx.store.mark(step, due, state="given_up" if give_up else "failed", run_id=ctx.run_id)
    ctx.count(f"{step}_failed")
    if give_up:
        ctx.count("sessions_given_up")
    what = ctx.retry_note(give_up=give_up)
    detail = f": {'; '.join(errors[:3])}" if errors else ""
    ctx.error(step, f"session {due.id}: {problem} ({what}){detail}")


def extract_sessions(ctx: SleepContext, profile_id: int) -> None:
    """Extract candidates from every summarised session not yet extracted."""
    cutoff = ctx.now - timedelta(minutes=ctx.settings.idle_minutes)
    due = ctx.store.due_sessions(profile_id, "extract", cutoff)
    for done, session in enumerate(due, start=1):
        _extract_one(ctx, session)
        ctx.tick("extract", done, len(due))


def _extract_one(ctx: SleepContext, due: DueSession) -> None:
    messages, due = session_messages(ctx, due)
    if not messages:
        with ctx.store.unit():
            ctx.store.mark("extract", due, state="done", run_id=ctx.run_id)
        return
    schema = candidates_schema([m.id for m in messages])
    # Invented ids reach ``vet``, which records them as rejected (never proposed again).
    value, errors = ctx.asker.ask(
        EXTRACT_PROMPT, transcript(messages, ctx.tz), schema, validate=candidates_schema()
    )
    if value is None:
        step_failed(ctx, "extract", due, errors)
        return
    by_id = {m.id: m for m in messages}
    tainted = tainted_messages(messages)
    recalled = ctx.deps.usage.recalled_texts([m.id for m in messages if m.role == "assistant"])
    episodes = ctx.deps.episodes.for_session(due.id)
    scope = ctx.deps.messages.session(due.id).scope
    kept: list[Candidate] = []
    rejected: list[tuple[str, str, str]] = []
    for item in value["facts"]:
        item = _unframed(item)
        verdict = vet(item["statement"], item["message_ids"], item["source"], by_id, recalled)
        if not verdict.reason and float(item["confidence"]) < ctx.settings.min_confidence:
            verdict = replace(verdict, reason=_too_unsure(item, ctx.settings.min_confidence))
        if verdict.reason:
            refs = [Evidence("message", i) for i in item["message_ids"]]
            rejected.append(
                (fingerprint(item["statement"], refs), verdict.reason, item["statement"])
            )
            continue
        item = {**item, "scope": item.get("scope") or scope}
        draft = _draft(ctx, due, item, verdict, episodes, tainted)
        twin = next(
            (c for c in kept if similar_statements(c.statement, draft.statement, 0.8)), None
        )
        if twin is None:
            kept.append(draft)
    with ctx.store.unit():
        for print_, reason, statement in rejected:
            ctx.candidates.reject(due.profile_id, print_, reason, statement, ctx.run_id)
        for draft in kept:
            ctx.candidates.add_candidate(draft, ctx.run_id)
        ctx.store.mark("extract", due, state="done", run_id=ctx.run_id)
    ctx.count("candidates", len(kept))
    ctx.count("candidates_rejected", len(rejected))
    ctx.count("sessions_extracted")


def _unframed(item: dict[str, Any]) -> dict[str, Any]:
    """The item with the transcript's ids, time stamps and role labels taken out of its
    statement and subject (a weak model copies "2022-01-23 Sun 14:29 | Joanna")."""
    subject = strip_scaffolding(item.get("subject", ""))
    return {**item, "statement": strip_scaffolding(item["statement"]), "subject": subject}


def _too_unsure(item: dict[str, Any], floor: float) -> str:
    return f"its confidence {float(item['confidence']):g} is below the floor {floor:g}"


def _draft(
    ctx: SleepContext,
    due: DueSession,
    item: dict[str, Any],
    verdict: Vetted,
    episodes: list[Episode],
    tainted: set[int],
) -> Candidate:
    cited_ids = {m.id for m in verdict.cited}
    evidence = [Evidence("message", m.id) for m in verdict.cited]
    evidence += [Evidence("episode", e.id) for e in episodes if cited_ids & set(e.message_ids)]
    said_at = max(m.created_at for m in verdict.cited)
    return Candidate(
        id=0,
        profile_id=due.profile_id,
        session_id=due.id,
        statement=" ".join(item["statement"].split()),
        subject=item.get("subject", "").strip()[:60],
        predicate=item.get("predicate", "").strip()[:60],
        scope=(item.get("scope") or "").strip()[:30],
        source_kind=verdict.source_kind,
        confidence=float(item["confidence"]),
        importance=float(item["importance"]),
        said_at=said_at,
        valid_to=_until(ctx, item.get("until", ""), said_at),
        evidence=tuple(evidence),
        strong=is_strong(item["statement"], verdict.source_kind, verdict.cited, tainted),
    )


def _until(ctx: SleepContext, phrase: str, said_at: datetime) -> datetime | None:
    day = resolve_phrase(phrase, ctx.local_date(said_at)) if phrase.strip() else None
    return ctx.end_of_day(day) if day else None
