"""What sleep left for later, and why; and putting given-up sessions back in line.

A session is consolidated once it is over: its app closed, its ``hippo ask`` ended,
another session was opened in its place, or nobody wrote in it for ``idle_minutes``.
A session the model failed on ``max_attempts`` runs in a row, nightly or manual (each
run is a real try with the model), is given up until ``hippo sleep run --retry``.
"""

from __future__ import annotations

from datetime import timedelta

from assistant.sleep.deps import SleepDeps
from assistant.sleep.settings import SleepSettings

__all__ = ["due_sessions", "retry_given_up", "skipped_notes"]

_STEPS = {"summarise": "summarising", "extract": "drawing facts from"}


def skipped_notes(deps: SleepDeps, settings: SleepSettings) -> list[str]:
    """One line per session sleep did not take, saying why and what to do."""
    store = deps.marks
    now = deps.clock.now()
    cutoff = now - timedelta(minutes=settings.idle_minutes)
    notes = []
    for profile in deps.messages.profiles():
        where = f" (profile {profile.name!r})" if profile.name != deps.profile.name else ""
        for session_id, last in store.waiting(profile.id, cutoff):
            idle = max(int((now - last).total_seconds() // 60), 0)
            notes.append(
                f"session {session_id}{where} is still open (last message {idle} min ago): a "
                "session is taken once its app closes, or after "
                f"{settings.idle_minutes} idle minutes"
            )
        for step, session_id in store.given_up(profile.id):
            notes.append(
                f"session {session_id}{where}: sleep gave up {_STEPS.get(step, step)} it "
                f"after {settings.max_attempts} failed runs; `hippo sleep run --retry` tries again"
            )
    return notes


def retry_given_up(deps: SleepDeps) -> int:
    """Give every given-up session fresh attempts, in every profile; say how many."""
    store = deps.marks
    return sum(store.retry_given_up(p.id) for p in deps.messages.profiles())


def due_sessions(deps: SleepDeps, settings: SleepSettings) -> int:
    """How many sessions, in every profile, a run would take now (to summarise or extract)."""
    store = deps.marks
    cutoff = deps.clock.now() - timedelta(minutes=settings.idle_minutes)
    due = {
        session.id
        for profile in deps.messages.profiles()
        for step in ("summarise", "extract")
        for session in store.due_sessions(profile.id, step, cutoff, closed=False)
    }
    return len(due)
