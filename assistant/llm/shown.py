"""What Ollama's ``/api/show`` says of each model, asked once and kept, for every thread.

The chat turn, the background summaries and sleep each ask for a model's context
length and capabilities; the answer is asked for once per model and kept until a
pull may have changed it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from assistant.errors import OllamaError

if TYPE_CHECKING:
    from assistant.llm.backend import ChatBackend
    from assistant.llm.values import ModelInfo

__all__ = ["ShownModels", "full_name"]


def full_name(model: str) -> str:
    """Ollama's name for a model: ``name:latest`` where no tag is given."""
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"


class ShownModels:
    """Kept answers of ``/api/show``; the turn, embedder and UI threads share one.

    Args:
        llm: the gateway that asks Ollama (``llm`` is swapped whole when the user gives
            a token for the host).

    Thread safety: the kept answers are guarded by a lock; the call to Ollama is made
    outside it, so a slow host holds up only the thread that asks.
    """

    def __init__(self, llm: ChatBackend) -> None:
        self.llm = llm
        self._lock = threading.Lock()
        self._shown: dict[str, ModelInfo] = {}

    def show(self, model: str) -> ModelInfo | None:
        """What ``/api/show`` says about ``model``; None while it can't be asked."""
        with self._lock:
            known = self._shown.get(model)
        if known is not None:
            return known
        try:
            info = self.llm.show(model)
        except OllamaError:
            return None
        with self._lock:
            self._shown[model] = info
        return info

    def forget(self, model: str) -> None:
        """Ask again next time (a pull may have changed the model)."""
        with self._lock:
            self._shown.pop(model, None)

    def clear(self) -> None:
        """Ask again about every model (another gateway, perhaps another host)."""
        with self._lock:
            self._shown.clear()

    def capabilities(self, model: str) -> frozenset[str]:
        """What ``model`` can do (tools, thinking...); empty if unknown."""
        shown = self.show(model)
        return shown.capabilities if shown is not None else frozenset()

    def window(self, model: str, tokens: int) -> int:
        """The tokens Hippo fills for ``model``: ``tokens``, or less where the model reads
        less (its context length), as asking for more than the model has makes Ollama
        truncate the prompt from the start."""
        shown = self.show(model)
        length = shown.context_length if shown is not None else None
        return min(tokens, length) if length else tokens
