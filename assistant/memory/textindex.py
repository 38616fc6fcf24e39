"""Text as the keyword index sees it: words for alphabetic scripts, bigrams and characters for CJK.

FTS5's unicode61 tokenizer keeps a run of Chinese characters as one token, so a
search for a word inside a sentence finds nothing. Hippo writes each CJK run into
the index as overlapping character bigrams (the classic strong baseline for Chinese
retrieval) and as its single characters, and turns queries into the same, with no
dictionary to load. Bigrams rank whole words; characters find a word that a bigram
misses: one split by a particle ("求的婚" for "求婚"), one word of a query bigram that
straddles two words ("远养" in "思远养"), or a one-character word ("喝").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

__all__ = [
    "MAX_QUERY_TERMS",
    "cjk_characters",
    "fts_query",
    "has_cjk",
    "index_text",
    "query_terms",
    "split_terms",
]

_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
_WORD = re.compile(r"\w+", re.UNICODE)
# At most this many terms go into one keyword query (see `fts_query`).
MAX_QUERY_TERMS = 64
_STOPWORDS = frozenset(
    """a an and are as at be but by did do does for from had has have he her his how i if in
    into is it its me my of on or our she so than that the their them then there these they
    this to was we were what when where which who whom why will with would you your""".split()
)
_CJK_STOP = frozenset("的了是在我你他她它们吗呢吧啊和与就都也还又很")
# Function and question characters: they say nothing about what a text is about.
_CJK_FUNCTION = _CJK_STOP | frozenset("什么哪谁怎")


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _spaced(text: str, grams: Callable[[str], list[str]]) -> str:
    return _CJK_RUN.sub(lambda m: " " + " ".join(grams(m.group())) + " ", text)


def _indexed_grams(run: str) -> list[str]:
    return _bigrams(run) + list(run) if len(run) > 1 else [run]


def index_text(text: str) -> str:
    """The form of ``text`` stored in an FTS5 column: CJK runs become bigrams and characters."""
    return _spaced(text, _indexed_grams)


def has_cjk(text: str) -> bool:
    """Whether ``text`` has CJK characters (whose indexed form is not the text itself)."""
    return _CJK_RUN.search(text) is not None


def cjk_characters(text: str) -> list[str]:
    """The distinct CJK characters of ``text`` that carry content, in order."""
    return list(_cjk_characters(text))


# Asked once per tier searched, like `_split_terms` below: kept for the last few texts.
@functools.lru_cache(maxsize=4)
def _cjk_characters(text: str) -> tuple[str, ...]:
    found = "".join(_CJK_RUN.findall(text))
    return tuple(ch for ch in dict.fromkeys(found) if ch not in _CJK_FUNCTION)


def split_terms(text: str) -> tuple[list[str], list[str]]:
    """Distinct terms of ``text`` in order (words, CJK bigrams), and those that carry content."""
    terms, content = _split_terms(text)
    return list(terms), list(content)


# One query is split once per tier searched and again for ranking: a pasted 1 MB
# message took ~0.2 s a split. The last few splits are kept (fresh lists each call).
@functools.lru_cache(maxsize=4)
def _split_terms(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    terms = tuple(dict.fromkeys(token.lower() for token in _WORD.findall(_spaced(text, _bigrams))))
    # An ASCII term is never made of CJK function characters: no set to build for it.
    content = [t for t in terms if t not in _STOPWORDS and (t.isascii() or not set(t) <= _CJK_STOP)]
    return terms, tuple(content)


def query_terms(text: str) -> list[str]:
    """Distinct search terms of a query, in order: words, and bigrams for CJK runs.

    Common function words are dropped unless nothing else is left.
    """
    terms, content = split_terms(text)
    return content or terms


def fts_query(text: str, keep: Callable[[str], bool] | None = None) -> str | None:
    """An FTS5 MATCH expression that ORs the query's terms (BM25 ranks the overlap).

    CJK text searches by its content characters too (see the module docstring).
    ``keep`` may leave terms out (e.g. ones too common to be worth ranking by); if it
    would leave none, every term stays. Returns None when the text has no searchable term.
    """
    terms = query_terms(text)
    seen = set(terms)
    terms += [ch for ch in cjk_characters(text) if ch not in seen]
    if not terms:
        return None
    # A pasted report as the query (a 1 MB message has tens of thousands of distinct
    # words) would OR them all, for minutes; its first words say what it is about.
    terms = terms[:MAX_QUERY_TERMS]
    if keep is not None:
        terms = [t for t in terms if keep(t)] or terms
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)
