"""Text as the keyword index sees it: words for alphabetic scripts, bigrams for CJK.

FTS5's unicode61 tokenizer keeps a run of Chinese characters as one token, so a
search for a word inside a sentence finds nothing. Hippo writes each CJK run into
the index as overlapping character bigrams (the classic strong baseline for Chinese
retrieval) and turns queries into the same bigrams, with no dictionary to load.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["fts_query", "index_text", "query_terms"]

_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = frozenset(
    """a an and are as at be but by did do does for from had has have he her his how i if in
    into is it its me my of on or our she so than that the their them then there these they
    this to was we were what when where which who whom why will with would you your""".split()
)
_CJK_STOP = frozenset("的了是在我你他她它们吗呢吧啊和与就都也还又很")


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def index_text(text: str) -> str:
    """The form of ``text`` stored in an FTS5 column: CJK runs become spaced bigrams."""
    return _CJK_RUN.sub(lambda m: " " + " ".join(_bigrams(m.group())) + " ", text)


def query_terms(text: str) -> list[str]:
    """Distinct search terms of a query, in order: words, and bigrams for CJK runs.

    Common function words are dropped unless nothing else is left.
    """
    terms: list[str] = []
    for token in _WORD.findall(index_text(text)):
        token = token.lower()
        if token not in terms:
            terms.append(token)
    content = [t for t in terms if t not in _STOPWORDS and not set(t) <= _CJK_STOP]
    return content or terms


def fts_query(text: str, keep: Callable[[str], bool] | None = None) -> str | None:
    """An FTS5 MATCH expression that ORs the query's terms (BM25 ranks the overlap).

    ``keep`` may leave terms out (e.g. ones too common to be worth ranking by); if it
    would leave none, every term stays. Returns None when the text has no searchable term.
    """
    terms = query_terms(text)
    if not terms:
        return None
    if keep is not None:
        terms = [t for t in terms if keep(t)] or terms
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)
