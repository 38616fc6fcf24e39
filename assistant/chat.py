"""One chat turn: keep the user's message, build the context, stream the reply, run tools.

Exactly one LLM call sits on the critical path when the model calls no tool; each
tool round adds one. The reply is saved while it streams (a killed process keeps
what had arrived) and closed as done, cancelled or failed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from assistant.errors import HippoError
from assistant.llm.events import Done, TextDelta, ToolCall
from assistant.memory.importance import rate_importance
from assistant.memory.models import Message, MessageStatus, Session
from assistant.memory.tools import TOOL_SPECS, MemoryTools
from assistant.turns import (
    MemoryUsed,
    MemoryWritten,
    ReplyCancelled,
    ReplyDone,
    ReplyFailed,
    ReplyStarted,
    TurnEvent,
    UserSaved,
)

if TYPE_CHECKING:
    from assistant.engine import Hippo

__all__ = ["MAX_TOOL_ROUNDS", "ChatTurn"]

MAX_TOOL_ROUNDS = 3
# How often a streaming reply's partial text is saved, so a killed process keeps it.
_SAVE_EVERY_S = 1.0


class ChatTurn:
    """Answers one user message in a session.

    Args:
        engine: the engine.
        session: the session.
        text: the user's message.
        cancel: set to stop the reply.
    """

    def __init__(self, engine: Hippo, session: Session, text: str, cancel: threading.Event) -> None:
        self._engine = engine
        self._session = session
        self._text = text
        self._cancel = cancel
        self._content: list[str] = []
        self._thinking: list[str] = []
        self._saved_at = time.monotonic()

    def run(self) -> Iterator[TurnEvent]:
        """Stream the turn's events; errors arrive as ``ReplyFailed``, never raised."""
        engine, session = self._engine, self._session
        user = engine.messages.add_message(
            session.id, "user", self._text, importance=rate_importance(self._text, "user")
        )
        engine.wake()
        yield UserSaved(user)
        reply = engine.messages.add_message(
            session.id, "assistant", "", status="streaming", model=engine.chat_model
        )
        yield ReplyStarted(reply)
        outcome: TurnEvent | None = None
        try:
            context = engine.context_for(session, user)
            engine.record_use(reply.id, context.used)
            yield MemoryUsed(reply.id, tuple(context.used))
            yield from self._rounds(reply, user, context.messages)
            if self._cancel.is_set():
                outcome = ReplyCancelled(self._save(reply, "cancelled"))
            else:
                outcome = ReplyDone(self._save(reply, "complete"))
                engine.after_reply(session.id)
        except HippoError as exc:
            outcome = ReplyFailed(self._save(reply, "failed", str(exc)), exc)
        finally:
            if outcome is None:  # the caller stopped iterating: a cancel by another name
                self._save(reply, "cancelled")
        yield outcome

    def _rounds(
        self, reply: Message, user: Message, messages: list[dict[str, Any]]
    ) -> Iterator[TurnEvent]:
        engine = self._engine
        capabilities = engine.model_capabilities(engine.chat_model)
        think = True if "thinking" in capabilities else None
        tools = MemoryTools(engine, self._session, user) if "tools" in capabilities else None
        for round_ in range(MAX_TOOL_ROUNDS + 1):
            offer = TOOL_SPECS if tools is not None and round_ < MAX_TOOL_ROUNDS else None
            calls: list[ToolCall] = []
            said = len(self._content)
            for event in engine.llm.chat(
                engine.chat_model,
                messages,
                tools=offer,
                think=think,
                options=engine.chat_options(),
                cancel=self._cancel,
            ):
                if isinstance(event, Done):
                    break
                if isinstance(event, ToolCall):
                    calls.append(event)
                    continue
                (self._content if isinstance(event, TextDelta) else self._thinking).append(
                    event.text
                )
                yield event
                self._save_now_and_then(reply)
            if not calls or tools is None or self._cancel.is_set():
                return
            messages.append(
                {
                    "role": "assistant",
                    "content": "".join(self._content[said:]),
                    "tool_calls": [
                        {"function": {"name": c.name, "arguments": c.arguments}} for c in calls
                    ],
                }
            )
            for call in calls:
                result = tools.run(call)
                if result.notice:
                    yield MemoryWritten(result.notice, result.name)
                messages.append(
                    {"role": "tool", "content": result.content, "tool_name": result.name}
                )

    def _save_now_and_then(self, reply: Message) -> None:
        if time.monotonic() - self._saved_at > _SAVE_EVERY_S:
            self._save(reply, "streaming")
            self._saved_at = time.monotonic()

    def _save(self, reply: Message, status: MessageStatus, error: str = "") -> Message:
        content = "".join(self._content)
        return self._engine.messages.update_message(
            reply.id,
            content=content,
            thinking="".join(self._thinking),
            status=status,
            error=error,
            importance=rate_importance(content, "assistant") if status == "complete" else None,
        )
