"""The running summary of a session's older turns (working memory's summary strategies).

Updated after the reply, off the critical path; if the model can't be reached the
old summary stays and the turns wait for the next try (they are in recall anyway).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from assistant.errors import OllamaError
from assistant.memory.long_text import clip
from assistant.memory.records import Message
from assistant.memory.working import working_memory

if TYPE_CHECKING:
    from assistant.llm.backend import ChatBackend
    from assistant.llm.shown import ShownModels
    from assistant.memory.messages import MessageStore
    from assistant.turn_settings import TurnSettings

__all__ = ["SUMMARY_PROMPT", "Summaries", "fold_into_summary"]

# The most of one turn the summary is written from (about 4 KB of English).
_TURN_TOKENS = 1_000

SUMMARY_PROMPT = (
    "You keep a running summary of a conversation between a user and their assistant. "
    "Rewrite the summary so that it also covers the new turns: keep names, dates, decisions, "
    "plans and preferences; drop small talk; at most 200 words; plain text; write dates as "
    "absolute dates. Reply with the summary only."
)


def fold_into_summary(
    llm: ChatBackend, model: str, summary: str, turns: Sequence[Message], *, can_think: bool
) -> str:
    """The summary rewritten to cover ``turns`` too (one LLM call, thinking off).

    A long turn (a pasted log) goes as its head and tail: it is kept whole in recall.
    """
    lines = "\n".join(
        f"[{m.created_at.astimezone():%Y-%m-%d %H:%M}] {m.role}:"
        f" {clip(m.content, _TURN_TOKENS, m.tokens or None)}"
        for m in turns
    )
    result = llm.chat_once(
        model,
        [
            {"role": "system", "content": SUMMARY_PROMPT},
            {
                "role": "user",
                "content": f"Summary so far:\n{summary or '(none)'}\n\nNew turns:\n{lines}",
            },
        ],
        think=False if can_think else None,
    )
    return result.content.strip() or summary


class Summaries:
    """Folds turns that left the prompt into their sessions' summaries, in the background.

    Args:
        messages: the message store.
        llm: the gateway the summary is written with (swapped whole when the user gives
            a token for the host).
        shown: what Ollama says of each model (its window and capabilities).
        settings: the current turn settings (read afresh at each update).

    Thread safety: the turn thread marks sessions due and the embedding worker's
    thread folds them; the set of due sessions is guarded by a lock.
    """

    def __init__(
        self,
        messages: MessageStore,
        llm: ChatBackend,
        shown: ShownModels,
        settings: Callable[[], TurnSettings],
    ) -> None:
        self._messages = messages
        self.llm = llm
        self._shown = shown
        self._settings = settings
        self._lock = threading.Lock()
        self._due: set[int] = set()

    def due(self, session_id: int) -> None:
        """Queue the session's summary update, if the strategy keeps a summary."""
        if self._settings().working_strategy in ("summary", "summary_buffer"):
            with self._lock:
                self._due.add(session_id)

    def update(self) -> int:
        """Fold turns that left the prompt into their sessions' summaries; return how many.

        A failure keeps the old summary, and the session stays due.
        """
        with self._lock:
            due, self._due = self._due, set()
        done = 0
        for session_id in due:
            try:
                done += self._fold(session_id)
            except OllamaError:
                with self._lock:
                    self._due.update(due)  # this one and those not reached: next time
                break
            due = due - {session_id}
        return done

    def _fold(self, session_id: int) -> int:
        settings = self._settings()
        model = settings.chat_model
        window = self._shown.window(model, settings.context_tokens)
        working = working_memory(
            self._messages, session_id, settings.working_strategy, window, read_long=True
        )
        if not working.to_summarise:
            return 0
        text = fold_into_summary(
            self.llm,
            model,
            working.summary,
            working.to_summarise,
            can_think="thinking" in self._shown.capabilities(model),
        )
        self._messages.set_summary(session_id, text, working.to_summarise[-1].id)
        return 1
