"""The embedding model, as memory uses it: queries and documents, with its bookkeeping.

It knows which model embeds (the user may switch it), what its vectors are recorded as
made with (weights digest and prefix), how well it reads each script (the reading
probe), and it drops the stored vectors when the model changed under them.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from assistant.errors import OllamaError
from assistant.llm.shown import full_name
from assistant.memory.vectors import VectorStore
from assistant.memory.weights import Digests, renew_if_resized, renew_if_reweighted, stamp

if TYPE_CHECKING:
    from assistant.llm.backend import ChatBackend
    from assistant.llm.prefixes import Purpose
    from assistant.memory.script_probe import Embed, Reading, ReadingProbe

__all__ = ["MULTILINGUAL", "Embedder", "Notices"]

# Embedding models on Ollama that read many languages, Chinese among them.
MULTILINGUAL = ("embeddinggemma", "bge-m3")

Notices = deque[str]
"""What background work has to tell the user; appended and taken from any thread."""


class Probe(Protocol):
    """How far the embedding model reads a text's script (see `assistant.memory.script_probe`)."""

    def reading(self, model: str, text: str) -> Reading: ...

    def forget(self, model: str) -> None: ...


class Embedder:
    """Embeds queries and documents with the chosen embedding model.

    Args:
        llm: the gateway that embeds and lists models (swapped whole when the user
            gives a token for the host).
        model: the embedding model's name.
        vectors: the vector store whose vectors the model made.
        probe: the reading probe, or a builder of it (built on first use: start-up
            needs none).
        clock_now: the time, for the digest listing's age.
        notices: where to leave what the user must be told.
        listing: the latest listing of digests, shared with whoever lists models.

    Thread safety: the model's name changes only through `use`, and the gateway by
    assignment: each swaps one reference (atomic); the probe is built once under a
    lock; ``Digests`` and the notices' deque are safe to share.
    """

    def __init__(
        self,
        llm: ChatBackend,
        model: str,
        vectors: VectorStore,
        probe: Probe | Callable[[], Probe],
        *,
        clock_now: Callable[[], datetime],
        notices: Notices,
        listing: Digests | None = None,
    ) -> None:
        self.llm = llm
        self.model = model
        self._vectors = vectors
        self._probe_or_builder = probe
        self._probe: Probe | None = None if callable(probe) else probe
        self._probe_lock = threading.Lock()
        self._now = clock_now
        self._notices = notices
        self.listing = listing or Digests()

    @property
    def probe(self) -> Probe:
        """The reading probe (built on first use)."""
        with self._probe_lock:
            if self._probe is None:
                self._probe = self._probe_or_builder()  # type: ignore[operator]
            return self._probe

    @property
    def vector_key(self) -> str:
        """The model's full name, which keys its vectors (``name:latest``...)."""
        return full_name(self.model)

    def use(self, model: str) -> bool:
        """Embed with ``model`` from now on; True if it is another model than before."""
        if full_name(model) == self.vector_key:
            return False
        self.model = model
        return True

    def query(self, text: str) -> tuple[Sequence[float] | None, Reading | None]:
        """``text``'s embedding as a query, and what the probe knows of the model on its
        script. An empty text, or an Ollama that can't embed: neither."""
        if not text.strip():
            return None, None
        model = self.model
        try:
            (vector,) = self.embed(model, [text], purpose="query")
        except OllamaError:
            return None, None
        self.check_size(len(vector))
        return vector, self.probe.reading(model, text)

    def reading(self, text: str) -> Reading:
        """How far the model reads ``text``'s script."""
        return self.probe.reading(self.model, text)

    def documents(self, texts: Sequence[str]) -> list[list[float]]:
        """The texts' embeddings as stored documents.

        Raises:
            OllamaError: Ollama can't embed them.
        """
        return self.embed(self.model, texts, purpose="document")

    def embed(self, model: str, texts: Sequence[str], *, purpose: Purpose) -> list[list[float]]:
        """Embed ``texts`` with ``model`` through the current gateway (see ``Embed``)."""
        return self.llm.embed(model, texts, purpose=purpose)

    def digest(self) -> str | None:
        """What new vectors are recorded as made with: weights and prefix (see ``stamp``)."""
        return stamp(self.listing.known(self.vector_key), self.vector_key)

    def check_weights(self) -> None:
        """Re-embed everything if the model's weights changed (a pull, say).

        Lists Ollama's models when the latest listing is a few minutes old.
        """
        key = self.vector_key
        digest = self.listing.current(key, self.llm.digests, self._now())
        self._tell(renew_if_reweighted(self._vectors, self.probe, key, digest))  # type: ignore[arg-type]

    def check_size(self, dim: int) -> None:
        """Re-embed everything if the model now makes vectors of ``dim`` numbers where the
        stored ones have another size."""
        self._tell(renew_if_resized(self._vectors, self.probe, self.vector_key, dim))  # type: ignore[arg-type]

    def _tell(self, notice: str | None) -> None:
        if notice is not None:
            self._notices.append(notice)


def unread_script_notice(model: str, language: str) -> str:
    """What to tell the user when ``model`` does not read ``language``."""
    others = ", ".join(m for m in MULTILINGUAL if full_name(m) != full_name(model))
    return (
        f"The embedding model {model} does not read {language}: Hippo finds your "
        f"{language} memories by their words, not their meaning. A model that reads it "
        f"({others}) can be chosen with F2, or `hippo model use --embedding NAME`."
    )


def reading_probe(
    embed: Embed, conn: Callable[[], object], clock: object, notices: Notices
) -> ReadingProbe:
    """The reading probe over the data file, telling the user once per model and script
    that the model does not read it."""
    # Loaded on first use: `hippo log` embeds nothing.
    from assistant.memory.script_probe import SCRIPT_NAMES, ReadingProbe, ReadingStore

    def measured(model: str, script: str, trust: float) -> None:
        if trust <= 0:
            notices.append(unread_script_notice(model, SCRIPT_NAMES.get(script, script)))

    return ReadingProbe(embed, ReadingStore(conn, clock), on_measured=measured)  # type: ignore[arg-type]
