"""Embedding stored memories off the critical path: batches, retries, a worker thread."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

import apsw

from assistant.errors import HippoError, OllamaError

if TYPE_CHECKING:
    from assistant.clock import Clock
    from assistant.memory.embedder import Embedder
    from assistant.memory.summary import Summaries
    from assistant.memory.vectors import VectorStore

__all__ = ["EmbeddingWorker", "embed_queued", "retry_delay"]

log = logging.getLogger(__name__)
_MAX_DELAY = timedelta(hours=1)
RETRY_FIRST_S = 1.0
"""The rest after a failed round of background work; it doubles with each failure in a row."""


def retry_delay(attempts: int) -> timedelta:
    """How long a batch that failed ``attempts`` times waits: 5 s doubling, at most 1 h."""
    return min(timedelta(seconds=5 * 2 ** min(attempts, 12)), _MAX_DELAY)


def embed_queued(
    vectors: VectorStore,
    embedder: Embedder,
    clock: Clock,
    *,
    batch_size: int = 32,
    max_batches: int | None = None,
    stop: threading.Event | None = None,
    stored_batch: threading.Event | None = None,
) -> int:
    """Embed queued items with the embedding model; return how many were stored.

    First, vectors from weights the model no longer has are dropped and their items
    queued again. ``stop`` is checked between batches; ``stored_batch`` is set after
    each stored batch.
    """
    embedder.check_weights()
    stored = 0
    batches = 0
    while (max_batches is None or batches < max_batches) and not (stop and stop.is_set()):
        batch = vectors.pending(batch_size, clock.now())
        if not batch:
            break
        batches += 1
        try:
            made = embedder.documents([item.text for item in batch])
        except OllamaError as exc:
            attempts = max(item.attempts for item in batch) + 1
            vectors.postpone(batch, str(exc), clock.now() + retry_delay(attempts))
            log.info("embedding postponed for %d messages: %s", len(batch), exc)
            break
        embedder.check_size(len(made[0]))
        model = vectors.ensure_model(embedder.vector_key, len(made[0]), embedder.digest())
        vectors.store(model, batch, made)
        stored += len(batch)
        if stored_batch is not None:
            stored_batch.set()
    return stored


class EmbeddingWorker:
    """Background memory work: embeds new memories, folds summaries, indexes large tables.

    Its thread (started by `start`) sleeps until new text comes (`wake`) or ``idle_s``
    passes, to pick up retries that fell due.

    Args:
        vectors: the vector store whose queue to drain.
        embedder: the embedding model.
        summaries: the sessions' running summaries to fold.
        clock: the time source.
        write_failed: says in words why the data file refused a write.
        idle_s: how often to look for due retries when nothing new arrives.

    Thread safety: the events are thread-safe; the thread itself is started and
    stopped under a lock, so `start` is idempotent from any thread.
    """

    def __init__(
        self,
        vectors: VectorStore,
        embedder: Embedder,
        summaries: Summaries,
        clock: Clock,
        *,
        write_failed: Callable[[apsw.Error], HippoError],
        idle_s: float = 30.0,
    ) -> None:
        self._vectors = vectors
        self._embedder = embedder
        self.summaries = summaries
        self._clock = clock
        self._write_failed = write_failed
        self._idle_s = idle_s
        self.embedded = threading.Event()  # set after each stored batch, for waiters
        self._new_text = threading.Event()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- the queue, from any thread ----------------------------------------------------

    def wake(self) -> None:
        """New text to embed (or time to stop): wake whatever waits in `wait_for_text`."""
        self._new_text.set()

    def summarise_later(self, session_id: int) -> None:
        """Queue the session's summary update for the background, and wake it."""
        self.summaries.due(session_id)
        self.wake()

    def wait_for_text(self, timeout: float) -> bool:
        """Block until new text is stored (or ``timeout``); True if it was."""
        woke = self._new_text.wait(timeout)
        self._new_text.clear()
        return woke

    def embed_pending(self, batch_size: int = 32, max_batches: int | None = None) -> int:
        """Embed queued items now, in this thread; return how many were stored."""
        return embed_queued(
            self._vectors,
            self._embedder,
            self._clock,
            batch_size=batch_size,
            max_batches=max_batches,
            stored_batch=self.embedded,
        )

    def index(self) -> None:
        """Fit the embedding model's vector tables to their sizes now (cells, chunks).

        What `maintain` does last, for a command with no background work: `hippo ask`
        after a long message's tens of thousands of chunks were embedded.
        """
        model = self._vectors.model(self._embedder.vector_key)
        if model is not None:
            self._vectors.build_cells(model)

    def maintain(self, stop: threading.Event | None = None) -> None:
        """Embed, fold old turns into summaries, index large tables.

        ``stop`` is checked between batches, so a closing app is not held up.
        """
        embed_queued(
            self._vectors, self._embedder, self._clock, stop=stop, stored_batch=self.embedded
        )
        if stop is None or not stop.is_set():
            self.summaries.update()
        model = self._vectors.model(self._embedder.vector_key)
        if model is not None and (stop is None or not stop.is_set()):
            self._vectors.build_cells(model, stop)

    # -- the thread ------------------------------------------------------------------

    def start(self) -> None:
        """Start draining the queue in a daemon thread (idempotent)."""
        with self._lock:
            if self._thread is not None:
                return
            self._stop = threading.Event()
            self._thread = threading.Thread(
                target=self._run, args=(self._stop,), name="hippo-embedder", daemon=True
            )
            self._thread.start()

    def stopping(self) -> None:
        """Ask the thread to stop once its current step ends; do not wait for it."""
        self._stop.set()
        self.wake()

    def stop(self, timeout: float = 2.0) -> None:
        """Ask the thread to stop and wait briefly for it; `start` may start a new one."""
        self.stopping()
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None and thread.is_alive():
            thread.join(timeout)

    def _run(self, stop: threading.Event) -> None:
        vectors, key = self._vectors, self._embedder.vector_key
        checked = False
        failures = 0
        while not stop.is_set():
            try:  # every step in here: a busy file at start-up must not end the thread
                if not checked:
                    if vectors.model(key) is None:
                        # A model never used before (a fresh file, or changed in config.toml).
                        vectors.requeue_missing(key)
                    checked = True
                self.maintain(stop)
                failures = 0
            except HippoError as exc:
                failures += 1
                log.warning("background memory work failed: %s", exc)
            except apsw.Error as exc:  # a busy or full disk, say
                failures += 1
                log.warning("background memory work failed: %s", self._write_failed(exc))
            self.wait_for_text(self._pause(failures))

    def _pause(self, failures: int) -> float:
        """How long to rest before the next round, after ``failures`` failed rounds in a row.

        Most failures pass within seconds (another process writing a long transaction
        past the busy timeout): try again after 1 s, then 2, 4... up to the idle pace,
        so that a new embedding model's re-embedding is not held up half a minute by one
        busy moment, and a lasting fault (a full disk) is not retried in a tight loop.
        """
        if failures == 0:
            return self._idle_s
        return min(self._idle_s, RETRY_FIRST_S * 2.0 ** min(failures - 1, 16))
