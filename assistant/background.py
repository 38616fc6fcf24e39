"""`Background`: the engine's background work, built on first use, and what it tells.

The ``EmbeddingWorker`` (embedding, summaries, indexing) is built once, when something
first needs it: `hippo log` stores an event and exits without loading any of its code.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from assistant.memory.embedder import Notices
from assistant.memory.embedding import EmbeddingWorker
from assistant.memory.vectors import VectorStore

__all__ = ["Background"]


class Background:
    """The background worker, built on first use, and the notices meant for the user.

    Args:
        build: builds the worker (called once).
        vectors: the vector store whose queue the worker drains.
        notices: what background work has to tell the user.
        told: what the data file's key store has to tell the user (its list, taken
            from as it is read), if it keeps one.

    Thread safety: the worker is built once under a lock; the notices' deque is safe to
    share; ``wake`` reads one reference.
    """

    def __init__(
        self,
        build: Callable[[], EmbeddingWorker],
        vectors: VectorStore,
        notices: Notices,
        told: list[str] | None = None,
    ) -> None:
        self._build = build
        self._vectors = vectors
        self._notices = notices
        self._told = told
        self._lock = threading.Lock()
        self._built: EmbeddingWorker | None = None

    @property
    def worker(self) -> EmbeddingWorker:
        """The background work: embedding, summaries, indexing (built once, on first use)."""
        with self._lock:
            if self._built is None:
                self._built = self._build()
            return self._built

    def wake(self) -> None:
        """New text to embed: wake the background worker."""
        if self._built is not None:  # none yet: no thread waits, and one starts awake
            self._built.wake()

    def embed_pending(self, batch_size: int = 32, max_batches: int | None = None) -> int:
        """Embed queued memories now, in batches; return how many were stored."""
        return self.worker.embed_pending(batch_size, max_batches)

    def index(self) -> None:
        """Fit the vector tables to their sizes now (see `EmbeddingWorker.index`)."""
        self.worker.index()

    def maintain(self, stop: threading.Event | None = None) -> None:
        """Background memory work: embed, fold summaries, index large tables."""
        self.worker.maintain(stop)

    def start_background(self) -> None:
        """Start embedding new memories in a background thread (idempotent)."""
        self.worker.start()

    def stop_background(self) -> None:
        """Stop the background thread, if running."""
        self.worker.stop()

    def pending_embeddings(self) -> int:
        """How many memories wait for a vector."""
        return self._vectors.queued()

    def take_notices(self) -> list[str]:
        """What background work has to tell the user, in plain words; each is given once."""
        taken = []
        while self._told:
            taken.append(self._told.pop(0))
        while self._notices:
            taken.append(self._notices.popleft())
        return taken

    def stopping(self) -> None:
        """Ask a running worker to stop once its current step ends; do not wait for it."""
        if self._built is not None:
            self._built.stopping()

    def stop(self) -> None:
        """Stop a running worker and wait briefly for it (built or not, nothing starts)."""
        if self._built is not None:
            self._built.stop()
