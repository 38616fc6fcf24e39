"""Memories written the way a test needs them, through the engine's stores."""

from __future__ import annotations

from typing import Any

from assistant.engine import Hippo
from assistant.memory.facts import Evidence, Fact

__all__ = ["state_fact"]


def state_fact(engine: Hippo, text: str, *, said: str | None = None, **kwargs: Any) -> Fact:
    """A fact the user stated, citing the message that says it (``said``, else ``text``).

    The message is in a session of its own, in the fact's scope.
    """
    session = engine.memory.messages.create_session(
        engine.memory.profile.id, scope=kwargs.get("scope", "")
    )
    message = engine.memory.messages.add_message(session.id, "user", said or text)
    return engine.memory.facts.add(
        engine.memory.profile.id,
        text,
        evidence=[Evidence("message", message.id)],
        source_kind="user_stated",
        actor="user",
        **kwargs,
    )
