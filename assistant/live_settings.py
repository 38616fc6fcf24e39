"""`LiveSettings`: the running engine's settings, read by any thread, changed in one place.

The turn settings are one immutable value (``TurnSettings``), replaced whole under a
lock, so a turn, the background summaries and the UI each see the old value or the new
one, never half of a change. The retrieval weights live in ``Memory`` (swapped whole
there too) and the embedding model in its ``Embedder``; ``current`` gathers them all as
config.toml's sections, and ``apply`` is the one way to change them.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any

from assistant.memory.recall import Memory
from assistant.settings import MemorySettings, ModelSettings, Settings, SleepSettings
from assistant.turn_settings import TurnSettings

__all__ = ["LiveSettings"]


class LiveSettings:
    """The settings in use, and the one place that changes them.

    Args:
        turn: what a chat turn is answered with.
        sleep: the consolidation's settings (config.toml's ``[sleep]``).
        memory: the memory whose retrieval weights and embedding model are settings too.
        wake: wakes the background work (a new embedding model has every message to embed).
    """

    def __init__(
        self,
        turn: TurnSettings,
        sleep: SleepSettings,
        memory: Memory,
        wake: Callable[[], None],
    ) -> None:
        self._lock = threading.Lock()
        self.turn = turn
        self.sleep = sleep
        self._memory = memory
        self._wake = wake

    def change(self, /, **changes: Any) -> TurnSettings:
        """Change turn settings (``chat_model``, ``context_budget``...); a turn already
        under way keeps those it started with."""
        with self._lock:
            self.turn = dataclasses.replace(self.turn, **changes)
            return self.turn

    @property
    def embedding_model(self) -> str:
        """The model that embeds messages and queries now."""
        return self._memory.embedder.model

    def use_models(self, *, chat: str | None = None, embedding: str | None = None) -> bool:
        """Switch models (the caller saves the choice); True if a new embedding model
        re-embeds every message (another tag of the same weights, ``x`` for ``x:latest``,
        does not)."""
        if chat:
            self.change(chat_model=chat)
        embedder = self._memory.embedder
        if embedding and embedder.use(embedding):
            self._memory.vectors.requeue_missing(embedder.vector_key)
            self._wake()
            return True
        return False

    @property
    def current(self) -> Settings:
        """The settings in use, as config.toml's sections."""
        turn = self.turn
        return Settings(
            ModelSettings(turn.chat_model, self._memory.embedder.model, turn.context_tokens),
            MemorySettings(turn.working_strategy, turn.core_edits, turn.context_budget),
            self._memory.weights,
            self.sleep,
        )

    def apply(self, settings: Settings) -> bool:
        """Use ``settings`` from now on; True if a new embedding model re-embeds.

        A turn under way keeps those it started with; a new embedding model re-embeds
        every message in the background (``use_models``).
        """
        reembeds = self.use_models(chat=settings.models.chat, embedding=settings.models.embedding)
        self.change(
            context_tokens=settings.models.context_tokens,
            working_strategy=settings.memory.strategy,
            core_edits=settings.memory.core_edits,
            context_budget=settings.memory.budget,
        )
        self._memory.weights = settings.retrieval
        self.sleep = settings.sleep
        return reembeds
