"""Deterministic stand-in embeddings: texts that share words get closer vectors."""

from __future__ import annotations

import hashlib
import math
import re

__all__ = ["embedding", "normalised", "tokens"]

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_RUN = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+")
_CJK_START = re.compile(rf"[{_CJK}]")


def tokens(text: str, limit: int | None = None) -> list[str]:
    """Lower-case words; CJK runs become character bigrams, since they have no spaces.

    ``limit``: at most that many, the first (a model's window; the rest is not read).
    """
    found: list[str] = []
    for match in _RUN.finditer(text.lower()):
        run = match.group()
        if _CJK_START.match(run) and len(run) > 1:
            found.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            found.append(run)
        if limit is not None and len(found) >= limit:
            return found[:limit]
    return found


def normalised(vector: list[float]) -> list[float]:
    """`vector` scaled to length 1 (a zero vector becomes the first unit vector)."""
    norm = math.hypot(*vector)  # in C: a Python sum took most of the fake's embedding time
    if norm == 0.0:
        return [1.0] + [0.0] * (len(vector) - 1)
    return [v / norm for v in vector]


def embedding(text: str, dim: int, revision: int = 0, limit: int | None = None) -> list[float]:
    """A hashed bag of `tokens(text, limit)` in `dim` dimensions, L2-normalised.

    An empty text still gets a valid unit vector, as a real model gives some vector.
    Each `revision` of a model's weights hashes words to other places, so vectors of
    one revision are unrelated to another's, as a retrained model's would be.
    """
    vector = [0.0] * dim
    salt = f"{revision}:" if revision else ""
    for token in tokens(text, limit):
        digest = hashlib.blake2b((salt + token).encode(), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "little") % dim
        # A signed hash keeps collisions of unrelated words from adding up to similarity.
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    return normalised(vector)
