"""Embedding stored messages off the critical path: batches, retries, a worker thread."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta
from typing import TYPE_CHECKING

import apsw

from assistant.errors import HippoError, OllamaError

if TYPE_CHECKING:
    from assistant.engine import Hippo

__all__ = ["EmbeddingWorker", "embed_queued", "retry_delay"]

log = logging.getLogger(__name__)
_MAX_DELAY = timedelta(hours=1)


def retry_delay(attempts: int) -> timedelta:
    """How long a batch that failed ``attempts`` times waits: 5 s doubling, at most 1 h."""
    return min(timedelta(seconds=5 * 2 ** min(attempts, 12)), _MAX_DELAY)


def embed_queued(
    engine: Hippo,
    batch_size: int = 32,
    max_batches: int | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Embed queued items with the engine's embedding model; return how many were stored.

    First, vectors from weights the model no longer has are dropped and their items
    queued again. ``stop`` is checked between batches.
    """
    engine.check_embedding_weights()
    stored = 0
    batches = 0
    while (max_batches is None or batches < max_batches) and not (stop and stop.is_set()):
        batch = engine.vectors.pending(batch_size, engine.clock.now())
        if not batch:
            break
        batches += 1
        try:
            vectors = engine.llm.embed(
                engine.embedding_model, [item.text for item in batch], purpose="document"
            )
        except OllamaError as exc:
            attempts = max(item.attempts for item in batch) + 1
            engine.vectors.postpone(batch, str(exc), engine.clock.now() + retry_delay(attempts))
            log.info("embedding postponed for %d messages: %s", len(batch), exc)
            break
        engine.check_embedding_size(len(vectors[0]))
        model = engine.vectors.ensure_model(
            engine.vector_key, len(vectors[0]), engine.embedding_digest()
        )
        engine.vectors.store(model, batch, vectors)
        stored += len(batch)
        engine.embedded.set()
    return stored


class EmbeddingWorker:
    """A daemon thread that embeds new memories and updates summaries as they come.

    Args:
        engine: the engine whose queue to drain.
        idle_s: how often to look for due retries when nothing new arrives.
    """

    def __init__(self, engine: Hippo, idle_s: float = 30.0) -> None:
        self._engine = engine
        self._idle_s = idle_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hippo-embedder", daemon=True)

    def start(self) -> None:
        """Start draining the queue in the background."""
        self._thread.start()

    def stopping(self) -> None:
        """Ask the thread to stop once its current step ends; do not wait for it."""
        self._stop.set()
        self._engine.wake()

    def stop(self, timeout: float = 2.0) -> None:
        """Ask the thread to stop and wait briefly for it."""
        self.stopping()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        vectors = self._engine.vectors
        if vectors.model(self._engine.vector_key) is None:
            # A model never used before (a fresh file, or changed in config.toml).
            vectors.requeue_missing(self._engine.vector_key)
        while not self._stop.is_set():
            try:
                self._engine.maintain(self._stop)
            except HippoError as exc:
                log.warning("background memory work failed: %s", exc)
            except apsw.Error as exc:  # a full disk, say: tried again when text next comes
                log.warning("background memory work failed: %s", self._engine.db.write_failed(exc))
            self._engine.wait_for_text(self._idle_s)
