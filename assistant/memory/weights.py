"""Vectors from one set of an embedding model's weights only: new weights, new vectors.

``ollama pull embeddinggemma`` may bring new weights under the same name. Vectors made
with the old ones, compared with a query's made with the new ones, rank by chance, and
nothing fails to say so. Ollama's listing gives each model's digest, which changes with
its weights, and the file records the digest each model's vectors were made with
(``EmbeddingModel.digest``). When the listing shows another, the reading probe's answers
for the model are forgotten, then its vectors and cells are dropped and every item is
queued to be embedded again (one transaction, `VectorStore.renew`); until the queue
drains, an item without a vector is found by its words, as with a new model. A model
whose vectors change size under the same digest is renewed the same way, when a
vector of the new size is first seen (`renew_if_resized`). A record
from before digests were kept takes the first digest seen, without re-embedding.

The record also names the prefix a model's stored texts were given (see
`assistant.llm.prefixes`): "<digest>+<prefix>" (the digest may be empty: not known). A
model whose prefix changed, or that has one while its vectors were made before Hippo
gave models theirs (a record without a digest), is re-embedded the same way, since its
documents' vectors change as much as with new weights.

Ollama is listed at most every few minutes, by background work only; the start-up
check of the models hands over the listing it makes anyway.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from assistant.errors import OllamaError
from assistant.llm.prefixes import document_prefix

if TYPE_CHECKING:  # the engine imports this module at start-up; the probe loads on first use
    from assistant.memory.script_probe import ReadingProbe
    from assistant.memory.vectors import EmbeddingModel, VectorStore

__all__ = ["LISTING_TTL", "Digests", "renew_if_resized", "renew_if_reweighted", "stamp"]

log = logging.getLogger(__name__)

# How long a listing of Ollama's models is trusted before background work lists again.
LISTING_TTL = timedelta(minutes=5)


class Digests:
    """The installed models' digests from Ollama's latest listing; thread-safe.

    Args:
        ttl: how long a listing is trusted before `current` lists again.
    """

    def __init__(self, ttl: timedelta = LISTING_TTL) -> None:
        self._ttl = ttl
        self._known: dict[str, str] = {}
        self._listed_at: datetime | None = None
        self._lock = threading.Lock()

    def saw(self, digests: Mapping[str, str], at: datetime) -> None:
        """Keep a listing of full model names and their digests, made at ``at``."""
        with self._lock:
            self._known, self._listed_at = dict(digests), at

    def expire(self) -> None:
        """Make the next `current` list again (a pull may have changed a model)."""
        with self._lock:
            self._listed_at = None

    def known(self, model: str) -> str | None:
        """The digest of ``model`` (full name) in the latest listing, without listing."""
        with self._lock:
            return self._known.get(model)

    def current(
        self, model: str, list_digests: Callable[[], Mapping[str, str]], now: datetime
    ) -> str | None:
        """The digest of ``model``, listing again first if the latest listing is stale.

        None when Ollama can't be asked (then not again before the listing would be
        stale) or lacks the model.
        """
        with self._lock:
            fresh = self._listed_at is not None and now - self._listed_at < self._ttl
        if not fresh:
            try:
                listed: Mapping[str, str] = list_digests()
            except OllamaError as exc:
                log.info("could not list Ollama's models to check their weights: %s", exc)
                listed = {}
            self.saw(listed, now)
        return self.known(model)


def stamp(digest: str | None, model_name: str) -> str | None:
    """What ``model_name``'s vectors are recorded as made with: weights and document prefix.

    Args:
        digest: the digest of its weights (None: not known).
        model_name: the embedding model's full name.
    """
    prefix = document_prefix(model_name)
    return f"{digest or ''}+{prefix}" if prefix else digest


def _made_with(recorded: str | None) -> tuple[str | None, str]:
    """A record's (digest, document prefix); a record without a digest had no prefix."""
    if recorded is None:
        return None, ""
    digest, _, prefix = recorded.partition("+")
    return digest or None, prefix


def renew_if_reweighted(
    vectors: VectorStore, reading: ReadingProbe, model_name: str, digest: str | None
) -> str | None:
    """Re-embed everything if ``model_name``'s vectors were not made as it now embeds.

    That is, with other weights, or with another document prefix.

    Args:
        vectors: the vector store.
        reading: the reading probe, whose answers for the model go with its vectors.
        model_name: the embedding model's full name.
        digest: the digest of its weights now (None: not known, nothing is done).

    Returns:
        A notice for the user when the vectors were dropped, else None.
    """
    model = vectors.model(model_name)
    wanted = stamp(digest, model_name)
    if digest is None or model is None or model.digest == wanted:
        return None
    had_digest, had_prefix = _made_with(model.digest)
    prefix_changed = had_prefix != document_prefix(model_name)
    if had_digest is None and not prefix_changed:
        vectors.adopt_digest(model, wanted or digest)
        return None
    queued = _renew(vectors, reading, model)
    log.info(
        "%s: vectors made with %r, the model now embeds with %r: dropped, %d items requeued",
        model_name,
        model.digest,
        wanted,
        queued,
    )
    if prefix_changed:
        return (
            f"Hippo now gives the embedding model {model_name} the instructions it was "
            f"trained with, so it is embedding your {queued} memories again to match. "
            "Until it is done, they are found by their words."
        )
    return (
        f"Ollama has new weights for the embedding model {model_name}, and the vectors made "
        f"with the old ones don't match them: Hippo is embedding your {queued} memories "
        "again. Until it is done, they are found by their words."
    )


def renew_if_resized(
    vectors: VectorStore, reading: ReadingProbe, model_name: str, dim: int
) -> str | None:
    """Re-embed everything if ``model_name`` now makes vectors of another size.

    The same name and digest may bring vectors of another size (a proxy or a mirror
    listing stale digests, another server): they can't be compared with the stored
    ones at all (sqlite-vec refuses the query), so this is new weights too.

    Args:
        vectors: the vector store.
        reading: the reading probe, whose answers for the model go with its vectors.
        model_name: the embedding model's full name.
        dim: the size of a vector it made just now.

    Returns:
        A notice for the user when the vectors were dropped, else None.
    """
    model = vectors.model(model_name)
    if model is None or model.dim == dim:
        return None
    queued = _renew(vectors, reading, model)
    log.info(
        "%s now makes %d-d vectors, not %d-d: %d items requeued", model_name, dim, model.dim, queued
    )
    return (
        f"The embedding model {model_name} now makes vectors of {dim} numbers, not "
        f"{model.dim}, and the vectors made before can't be compared with them: Hippo is "
        f"embedding your {queued} memories again. Until it is done, they are found by "
        "their words."
    )


def _renew(vectors: VectorStore, reading: ReadingProbe, model: EmbeddingModel) -> int:
    """Drop the model's vectors and reading-probe answers; return how many items requeued."""
    # Forgotten first: if a crash stops the renewal, the next check forgets again.
    reading.forget(model.name)
    return vectors.renew(model)
