"""Terms computed line by line (and cached so) are those of the whole text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.memory.scoring import coverage_terms, coverage_terms_of, terms, terms_of
from assistant.memory.textindex import query_terms

_WORDS = ["the", "and", "what", "Berlin", "moving", "moved", "İstanbul", "x", "is", "running"]
_CJK = ["我", "的", "了", "喜欢", "北京", "求婚", "什么", "吗"]
_GLUE = [" ", "\n", "  ", "\t", ", ", "。", "\r\n", ""]

texts = st.lists(st.sampled_from(_WORDS + _CJK + _GLUE), max_size=12).map("".join)


def _query_terms_by_list(text: str) -> list[str]:
    """query_terms as first written (a list for de-duplication)."""
    from assistant.memory import textindex

    found: list[str] = []
    for token in re.findall(r"\w+", textindex._spaced(text, textindex._bigrams)):
        token = token.lower()
        if token not in found:
            found.append(token)
    content = [
        t for t in found if t not in textindex._STOPWORDS and not set(t) <= textindex._CJK_STOP
    ]
    return content or found


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, max_size=4))
def test_terms_of_several_texts_are_those_of_the_texts_joined(parts):
    for glue in (" ", "\n"):
        joined = glue.join(parts)
        assert terms_of(parts) == terms(joined)
        assert coverage_terms_of(parts) == coverage_terms(joined)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_query_terms_are_the_distinct_terms_in_order(text):
    assert query_terms(text) == _query_terms_by_list(text)


def test_a_text_of_function_words_only_keeps_them_unless_another_line_has_content():
    assert terms_of(["the and", "what"]) == terms("the and what")
    assert terms_of(["the and", "Berlin"]) == frozenset({"berlin"})
