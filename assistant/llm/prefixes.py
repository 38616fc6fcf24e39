"""What an embedding model is told a text is for: a search query, or a document to be found.

Several embedding models were trained with a short instruction in front of each text,
one for queries and one for the documents they should find, and compare a query with a
document best when both carry theirs: multilingual-e5 ("query: " / "passage: "),
embeddinggemma ("task: search result | query: " / "title: none | text: ") and
nomic-embed-text ("search_query: " / "search_document: "), as their model cards say.
Ollama passes text through as it is, so the caller adds them. A model not listed here
(all-minilm, bge-m3...) was trained without them and gets the text alone.

A model's document prefix is part of what its stored vectors were made with: vectors
made with another one (or none, before Hippo gave models theirs) don't compare with
today's queries as the model was trained to, so they are made again (see
`assistant.memory.weights`). A query prefix changes only queries, which are embedded
afresh each time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from assistant.llm.names import base_name

__all__ = ["Purpose", "document_prefix", "prefixed", "prefixes", "unprefixed"]

Purpose = Literal["query", "document"]


@dataclass(frozen=True, slots=True)
class Prefixes:
    """What a model family puts in front of a query and of a document."""

    query: str
    document: str


# Keyed by a pattern on the model's base name (no namespace, no tag), so that
# "embeddinggemma:300m" and "jeffh/intfloat-multilingual-e5-small:f16" are found.
_FAMILIES: tuple[tuple[re.Pattern[str], Prefixes], ...] = (
    (
        re.compile(r"embeddinggemma"),
        Prefixes("task: search result | query: ", "title: none | text: "),
    ),
    (re.compile(r"nomic-embed-text"), Prefixes("search_query: ", "search_document: ")),
    (re.compile(r"(?:^|[-_.])e5(?:$|[-_.])"), Prefixes("query: ", "passage: ")),
)
_NONE = Prefixes("", "")


def prefixes(model: str) -> Prefixes:
    """The prefixes ``model``'s family was trained with (both empty when it has none)."""
    base = base_name(model)
    return next((p for pattern, p in _FAMILIES if pattern.search(base)), _NONE)


def document_prefix(model: str) -> str:
    """What ``model`` puts in front of a stored text ("" when nothing)."""
    return prefixes(model).document


def prefixed(model: str, texts: Sequence[str], purpose: Purpose) -> list[str]:
    """``texts`` as ``model`` should read them for ``purpose``."""
    found = prefixes(model)
    prefix = found.query if purpose == "query" else found.document
    return [prefix + text for text in texts] if prefix else list(texts)


def unprefixed(model: str, text: str) -> str:
    """``text`` without ``model``'s query or document prefix, if it starts with one.

    What a model reads as content: a stand-in embedder (the test server's) uses it
    to read a prefix as the instruction it is, not as words of the text.
    """
    found = prefixes(model)
    for prefix in (found.query, found.document):
        if prefix and text.startswith(prefix):
            return text[len(prefix) :]
    return text
