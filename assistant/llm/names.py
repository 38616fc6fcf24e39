"""Model names as Ollama reads them: a missing tag means ``latest``.

"qwen3" and "qwen3:latest" name one model; "qwen3:1.7b" another. A registry host with a
port ("host:5000/team/model") is not a tag: only the last path part can carry one.
Every comparison of model names in Hippo goes through these functions.
"""

from __future__ import annotations

__all__ = ["base_name", "full_name", "same_model", "short_name"]

_LATEST = ":latest"


def full_name(model: str) -> str:
    """Ollama's full name for ``model``: ``name:latest`` where no tag is given."""
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}{_LATEST}"


def short_name(model: str) -> str:
    """The name as people write it: ``embeddinggemma``, not ``embeddinggemma:latest``."""
    return model.removesuffix(_LATEST)


def same_model(a: str, b: str) -> bool:
    """Whether two names mean the same model (a missing tag means ``latest``)."""
    return full_name(a) == full_name(b)


def base_name(model: str) -> str:
    """The model's family name, lower case: no registry, namespace or tag."""
    return model.rsplit("/", 1)[-1].split(":", 1)[0].lower()
