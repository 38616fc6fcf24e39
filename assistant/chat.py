"""One chat turn: keep the user's message, build the context, stream the reply, run tools.

Exactly one LLM call sits on the critical path when the model calls no tool; each
tool round adds one. The reply is saved while it streams (a killed process keeps
what had arrived) and closed as done, cancelled or failed. A data file that can't be
written (a full disk) refuses the message whole, before anything is sent, or fails
the reply with advice while keeping the user's message.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import apsw

from assistant.errors import HippoError
from assistant.llm.values import Done, TextDelta, ToolCall
from assistant.memory.context import TurnContext, build_context, in_prompt
from assistant.memory.importance import rate_importance
from assistant.memory.injection import looks_pasted
from assistant.memory.long_text import head, is_long
from assistant.memory.records import Message, MessageStatus, Session
from assistant.memory.tools import TOOL_SPECS, MemoryTools, turn_taint
from assistant.memory.working import working_memory
from assistant.tokens import estimate_tokens
from assistant.turns import (
    MemoryUsed,
    MemoryWritten,
    PromptTooLong,
    ReplyCancelled,
    ReplyDone,
    ReplyFailed,
    ReplyStarted,
    TurnEvent,
    UserSaved,
)

if TYPE_CHECKING:
    from assistant.llm.backend import ChatBackend
    from assistant.llm.shown import ShownModels
    from assistant.memory.recall import Memory
    from assistant.turn_settings import TurnSettings

__all__ = ["MAX_TOOL_ROUNDS", "Chores", "Turn", "context_for"]

MAX_TOOL_ROUNDS = 3
log = logging.getLogger(__name__)


class Chores(Protocol):
    """The background work a turn hands on (the embedding worker does it)."""

    def wake(self) -> None:
        """New text was stored: embed it."""
        ...

    def summarise_later(self, session_id: int) -> None:
        """A reply was stored: fold turns that left the prompt into the summary."""
        ...


def context_for(
    memory: Memory, settings: TurnSettings, window: int, session: Session, user: Message
) -> TurnContext:
    """The prompt for answering ``user``: memory sections and working memory.

    Args:
        memory: the memory to recall from.
        settings: the turn's settings (working-memory strategy, budgets).
        window: the chat model's context window, in tokens (working memory gets half).
        session: the session.
        user: the message to answer (already stored).
    """
    working = working_memory(memory.messages, session.id, settings.working_strategy, window)
    scopes = (session.scope,) if session.scope else None
    # A long message is asked about by its head: its words would all be query terms,
    # and the embedder would be handed all of it (see long_text).
    query = head(user.content) if is_long(user.tokens) else user.content
    recalled = memory.recall(query, limit=12, scopes=scopes, exclude=in_prompt(working))
    return build_context(
        stores=memory.stores,
        profile_id=memory.profile.id,
        now=memory.clock.now(),
        working=working,
        recalled=recalled,
        query=query,
        scopes=scopes,
        budget=settings.context_budget,
    )


class Turn:
    """Answers one user message in a session.

    Args:
        memory: the memory of the profile.
        llm: the gateway to Ollama.
        settings: the settings as they stand when the turn starts.
        shown: what Ollama says of each model (window, capabilities).
        chores: where the turn hands on background work.

    A ``Turn`` answers one message: call `run` once.
    """

    def __init__(
        self,
        memory: Memory,
        llm: ChatBackend,
        settings: TurnSettings,
        *,
        shown: ShownModels,
        chores: Chores,
    ) -> None:
        self._memory = memory
        self._llm = llm
        self._settings = settings
        self._shown = shown
        self._chores = chores
        self._taint: Callable[[], str] = lambda: ""
        self._content: list[str] = []
        self._thinking: list[str] = []
        self._saved_at = time.monotonic()
        self._cut = False  # the last round ended at the model's length limit

    def run(
        self, session: Session, text: str, cancel: threading.Event, *, pasted: bool = False
    ) -> Iterator[TurnEvent]:
        """Stream the turn's events; errors arrive as ``ReplyFailed``.

        The user's message is stored before anything is sent; the reply is stored as it
        streams and closed as done, cancelled (``cancel`` set, or the caller stops
        iterating) or failed.

        Args:
            session: the session.
            text: the user's message.
            cancel: set to stop the reply.
            pasted: the user pasted the text (else it counts as pasted only if it quotes
                an email, a page or a chat log).

        Raises:
            StorageError: the message could not be saved (nothing of it was): a data
                file that can't take it (a full disk), raised as iteration starts.
        """
        self._session = session
        self._text = text
        # Nobody types a message of thousands of words: a long one is pasted text.
        long = is_long(estimate_tokens(text))
        self._origin = "pasted" if pasted or long or looks_pasted(text) else "typed"
        self._cancel = cancel
        return self._events()

    def _events(self) -> Iterator[TurnEvent]:
        user, reply = self._save_message()
        self._chores.wake()
        yield UserSaved(user)
        corrected = self._correct(user)
        if corrected is not None:
            yield corrected
        yield ReplyStarted(reply)
        memory, session, model = self._memory, self._session, self._settings.chat_model
        outcome: TurnEvent | None = None
        try:
            window = self._shown.window(model, self._settings.context_tokens)
            context = context_for(memory, self._settings, window, session, user)
            memory.record_use(reply.id, context.used)
            earlier = [m["content"] for m in context.messages[1:] if m["role"] == "user"]
            quoted = [item.text for _, item in context.used] + earlier
            # The message as the model reads it (a long one's head and tail, see long_text).
            read = dataclasses.replace(user, content=earlier[-1]) if earlier else user
            self._taint = lambda: turn_taint(read, quoted)
            yield MemoryUsed(reply.id, tuple(context.used))
            size = sum(estimate_tokens(m["content"]) for m in context.messages)
            # What the prompt would be with the message whole (it goes cut to fit).
            size += max(user.tokens - estimate_tokens(read.content), 0)
            if size > window:
                yield PromptTooLong(size, window)
            yield from self._rounds(reply, user, context.messages)
            if self._cancel.is_set():
                outcome = ReplyCancelled(self._save(reply, "cancelled"))
            else:
                outcome = ReplyDone(self._save(reply, "cut" if self._cut else "complete"))
                self._chores.summarise_later(session.id)
        except apsw.Error as exc:
            error = memory.db.write_failed(exc)
            outcome = ReplyFailed(self._close(reply, "failed", str(error)), error)
        except HippoError as exc:
            outcome = ReplyFailed(self._close(reply, "failed", str(exc)), exc)
        finally:
            if outcome is None:  # the caller stopped iterating: a cancel by another name
                self._close(reply, "cancelled")
            self._keep_long(user)
        yield outcome

    def _keep_long(self, user: Message) -> None:
        """Cut long messages into archival chunks: this one, and any a turn cut short left.

        After the reply, so that the reply does not wait for it. A file that can't take
        the chunks now leaves the message's document unfinished, for the next turn.
        """
        memory, profile_id = self._memory, self._memory.profile.id
        try:
            archive = memory.archive
            for document_id, message_id in archive.unkept_messages(profile_id):
                said = (
                    user
                    if message_id == user.id
                    else memory.messages.messages_by_id([message_id], profile_id).get(message_id)
                )
                if said is None or not is_long(said.tokens):  # gone, or an import's stray
                    archive.remove_document(document_id)
                else:
                    archive.keep_message(document_id, profile_id, said.content)
        except (apsw.Error, HippoError) as exc:
            log.warning("a long message's chunks were not all written: %s", exc)

    def _save_message(self) -> tuple[Message, Message]:
        """Store the user's message and the reply's placeholder: both, or neither."""
        memory, session = self._memory, self._session
        messages = memory.messages
        try:
            with memory.db.conn:
                user = messages.add_message(
                    session.id,
                    "user",
                    self._text,
                    importance=rate_importance(self._text, "user"),
                    origin=self._origin,
                )
                if is_long(user.tokens) and not session.incognito:
                    title = f"a long message of {user.created_at.astimezone():%Y-%m-%d %H:%M}"
                    memory.archive.open_message(
                        memory.profile.id, user.id, len(user.content), title
                    )
                reply = messages.add_message(
                    session.id, "assistant", "", status="streaming", model=self._settings.chat_model
                )
        except apsw.Error as exc:
            raise memory.db.write_failed(exc) from exc
        return user, reply

    def _correct(self, user: Message) -> MemoryWritten | None:
        """Drift defence: a message that corrects a fact supersedes it now, not at night.

        No model call: the words are judged against the active facts (see
        `assistant.memory.facts.settle`). Incognito and pasted text state nothing.
        """
        if self._session.incognito or self._origin == "pasted":
            return None
        # The correction model and core memory's follower: a message's first claim only.
        from assistant.memory.core_follow import CoreFollows
        from assistant.memory.facts.settle import correct_from_message  # as above

        memory = self._memory
        try:
            settled = correct_from_message(
                memory.facts, memory.profile.id, user.content, user.id, scope=self._session.scope
            )
            if settled is None:
                return None
            follows = CoreFollows(memory.core, memory.core_proposals)
            proposed = follows.corrected(memory.profile.id, settled, user.id)
        except (HippoError, apsw.Error):  # the reply goes on; sleep reads the message later
            return None
        if settled.disputed:
            olds = "; ".join(f.statement for f in settled.disputed)
            notice = f"Disputed: {settled.fact.statement} (against: {olds}) (F4 → Review)"
            return MemoryWritten(notice, "correction", pending=True)
        olds = "; ".join(f.statement for f in settled.superseded)
        notice = f"Memory updated: {settled.fact.statement} (was: {olds})"
        if proposed:
            notice += "; core memory's update proposed (F4 → Review)"
        return MemoryWritten(notice, "correction")

    def _close(self, reply: Message, status: MessageStatus, error: str = "") -> Message:
        """Save the reply's end; if the data file can't take it, the reply as it stands.

        A reply left streaming in the file is closed as interrupted when Hippo next opens.
        """
        try:
            return self._save(reply, status, error)
        except apsw.Error:
            content, thinking = "".join(self._content), "".join(self._thinking)
            return dataclasses.replace(
                reply, content=content, thinking=thinking, status=status, error=error
            )

    def _rounds(
        self, reply: Message, user: Message, messages: list[dict[str, Any]]
    ) -> Iterator[TurnEvent]:
        model = self._settings.chat_model
        capabilities = self._shown.capabilities(model)
        think = True if "thinking" in capabilities else None
        tools = (
            MemoryTools(
                self._memory,
                self._session,
                user,
                self._taint,
                core_edits=self._settings.core_edits,
                noted=self._chores.wake,
            )
            if "tools" in capabilities
            else None
        )
        options = {"num_ctx": self._shown.window(model, self._settings.context_tokens)}
        for round_ in range(MAX_TOOL_ROUNDS + 1):
            offer = TOOL_SPECS if tools is not None and round_ < MAX_TOOL_ROUNDS else None
            calls: list[ToolCall] = []
            said = len(self._content)
            for event in self._llm.chat(
                model,
                messages,
                tools=offer,
                think=think,
                options=options,
                cancel=self._cancel,
            ):
                if isinstance(event, Done):
                    self._cut = event.done_reason == "length"
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
                    yield MemoryWritten(result.notice, result.name, result.pending)
                messages.append(
                    {"role": "tool", "content": result.content, "tool_name": result.name}
                )

    def _save_now_and_then(self, reply: Message) -> None:
        if time.monotonic() - self._saved_at > self._settings.save_every_s:
            self._save(reply, "streaming")
            self._saved_at = time.monotonic()

    def _save(self, reply: Message, status: MessageStatus, error: str = "") -> Message:
        content = "".join(self._content)
        ended = status in ("complete", "cut")
        return self._memory.messages.update_message(
            reply.id,
            content=content,
            thinking="".join(self._thinking),
            status=status,
            error=error,
            importance=rate_importance(content, "assistant") if ended else None,
        )
