"""How a candidate memory is scored: relevance (keyword + vector), recency, importance.

Generative Agents scores a memory by recency (0.99 per hour since it was last used or
made), importance (1-10) and relevance; Hippo's relevance is itself a fusion of BM25
keyword evidence and vector similarity, and anything below a relevance floor is
dropped, so that nothing is injected when nothing is relevant. Cheap priors move the
rest: a memory said by the person the query names, one whose neighbours (the turns
around it) are relevant, and, for a question about the present ("where does she live
now?"), a newer one, rank a little higher.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache

from assistant.memory.textindex import cjk_characters, query_terms, split_terms
from assistant.settings import RetrievalWeights

__all__ = [
    "READ_CHARS",
    "RetrievalWeights",
    "asks_about_now",
    "coverage",
    "coverage_terms",
    "coverage_terms_of",
    "names",
    "recency",
    "relevance",
    "similar",
    "terms",
    "terms_of",
    "window",
]

READ_CHARS = 16_384
"""The most of one text that scoring reads (see `window`)."""
_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# Words that ask about the present state of things, where the newest word counts.
_NOW = re.compile(
    r"\b(?:now|currently|current|these days|nowadays|latest|lately|still|anymore)\b"
    r"|现在|目前|眼下|如今|当前|最近|还在",
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)
def terms(text: str) -> frozenset[str]:
    """A text's content terms, crudely stemmed, for overlap measures."""
    return frozenset(
        _SUFFIX.sub("", t) if t.isascii() and len(t) > 4 else t for t in query_terms(text)
    )


@lru_cache(maxsize=8192)
def coverage_terms(text: str) -> frozenset[str]:
    """Terms for coverage: words, and the single characters of CJK text.

    Query bigrams that straddle two words ("远目" in "思远目前") occur nowhere, so
    bigram coverage stays low even for a perfect match; characters don't have that flaw.
    """
    words = {t for t in terms(text) if not _CJK_CHAR.match(t)}
    return frozenset(words.union(cjk_characters(text)))


def _stem(term: str) -> str:
    return _SUFFIX.sub("", term) if term.isascii() and len(term) > 4 else term


@lru_cache(maxsize=32768)
def _line_parts(line: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """A line's stemmed content terms, all its stemmed terms, and its CJK content characters."""
    every, content = split_terms(line)
    return (
        frozenset(map(_stem, content)),
        frozenset(map(_stem, every)),
        frozenset(cjk_characters(line)),
    )


def _parts(
    texts: Iterable[str], near: frozenset[str] = frozenset()
) -> list[tuple[frozenset[str], frozenset[str], frozenset[str]]]:
    return [_line_parts(line) for text in texts for line in window(text, near).split("\n")]


def window(text: str, near: frozenset[str] = frozenset()) -> str:
    """The part of ``text`` that scoring reads: all of it, up to ``READ_CHARS``.

    A longer text is read in the window of ``READ_CHARS`` that holds the most of the
    terms ``near`` (the query's), found by one regular-expression pass, or its head if
    none is in it. A long message reaches recall as chunks (see ``long_text``); this
    bounds any other text: each line of a 50 MB message was split on every query.
    """
    if len(text) <= READ_CHARS:
        return text
    hits = _hits(text, near) if near else []
    if not hits:
        return text[:READ_CHARS]
    best, start, first = (0, 0), 0, 0
    counts: dict[str, int] = {}
    for end, (at, term) in enumerate(hits):
        counts[term] = counts.get(term, 0) + 1
        while at - hits[first][0] > READ_CHARS // 2:
            gone = hits[first][1]
            counts[gone] -= 1
            if not counts[gone]:
                del counts[gone]
            first += 1
        if len(counts) > best[0]:
            best, start = (len(counts), end), hits[first][0]
    start = max(0, min(start - READ_CHARS // 4, len(text) - READ_CHARS))
    return text[start : start + READ_CHARS]


def _hits(text: str, near: frozenset[str]) -> list[tuple[int, str]]:
    """Where the terms (stemmed words, CJK characters or bigrams) occur, at most 10,000."""
    words = sorted(near, key=len, reverse=True)
    pattern = re.compile(
        "|".join(re.escape(t) if _CJK_CHAR.match(t) else rf"\b{re.escape(t)}" for t in words),
        re.IGNORECASE,
    )
    found = []
    for match in pattern.finditer(text):
        found.append((match.start(), match.group().lower()))
        if len(found) == 10_000:
            break
    return found


def _chosen(parts: list[tuple[frozenset[str], frozenset[str], frozenset[str]]]) -> frozenset[str]:
    # As query_terms does for the whole text: content terms, or every term if none.
    content = frozenset().union(*(p[0] for p in parts))
    return content or frozenset().union(*(p[1] for p in parts))


def terms_of(texts: Iterable[str]) -> frozenset[str]:
    """`terms` of the texts joined by whitespace, from each line's terms (cached by line).

    No term spans whitespace, so a text's terms are its lines' terms together; a
    candidate's lines recur as its neighbours' context, in other queries too.
    """
    return _chosen(_parts(texts))


def coverage_terms_of(texts: Iterable[str], near: frozenset[str] = frozenset()) -> frozenset[str]:
    """`coverage_terms` of the texts joined by whitespace, from each line's (see `terms_of`).

    A text longer than ``READ_CHARS`` counts by its window that best holds ``near`` (the
    query's terms, see `window`).
    """
    parts = _parts(texts, near)
    words = {t for t in _chosen(parts) if not _CJK_CHAR.match(t)}
    return frozenset(words.union(*(p[2] for p in parts)))


def asks_about_now(text: str) -> bool:
    """Whether a query asks how things stand now ("currently", "still", "现在")."""
    return _NOW.search(text) is not None


def coverage(
    query: frozenset[str],
    text: frozenset[str],
    context: frozenset[str] = frozenset(),
    context_weight: float = 0.0,
) -> float:
    """Share of the query's terms that the text contains.

    A term found only in the text's context (the turns around a message) counts
    ``context_weight`` of one found in the text itself.
    """
    if not query:
        return 0.0
    found = query & text
    return (len(found) + context_weight * len((query & context) - found)) / len(query)


def names(query: frozenset[str], speaker: str) -> bool:
    """Whether the query names the speaker (any word of the name, e.g. a first name)."""
    return bool(speaker) and not query.isdisjoint(terms(speaker))


def recency(moment: datetime, now: datetime, decay_per_hour: float) -> float:
    """``decay_per_hour`` to the power of the hours since ``moment`` (1.0 for the future)."""
    hours = max((now - moment).total_seconds() / 3600.0, 0.0)
    # float ** float is typed Any (a negative base gives a complex); decay is positive.
    decayed: float = decay_per_hour**hours
    return decayed


def relevance(
    keyword: float,
    vector: float | None,
    weights: RetrievalWeights,
    background: float = 0.0,
    trust: float = 1.0,
    gap: float | None = None,
) -> float:
    """Fuse a keyword score in [0, 1] with a cosine similarity (None: no vector search ran).

    Similarity counts only above ``weights.vector_floor``, or above ``background`` (what
    the query's typical near neighbour gets) where that is higher, and in proportion
    to how far above: a lead of ``gap`` (how far the model puts a paraphrase above
    unrelated sentences, see ``reading``) counts in full, as a paraphrase would. Models
    differ in scale: e5's similarities all sit between 0.8 and 0.95, MiniLM's spread
    from 0 to 0.7, so a fixed yardstick (the room up to 1) gave e5's best hits a third
    of the credit MiniLM's got. Without a measured gap, the room up to 1 is the yardstick.

    ``trust`` is how far the model reads the query's script (see ``reading``): the
    share of the vector weight it does not earn goes to the keyword score, so with no
    trust at all relevance is the keyword score, as when no vector search ran.
    """
    if vector is None:
        return keyword
    floor = max(weights.vector_floor, background)
    span = gap if gap is not None and gap > 0 else 1.0 - floor
    scaled = min(max((vector - floor) / span, 0.0), 1.0) if span > 0 else 0.0
    earned = weights.vector * trust
    return (weights.keyword + weights.vector - earned) * keyword + earned * scaled


def similar(a: frozenset[str], b: frozenset[str], overlap: float) -> bool:
    """Whether two term sets are near-duplicates (Jaccard overlap at least ``overlap``)."""
    if not a or not b:
        return False
    return len(a & b) / len(a | b) >= overlap
