"""Cutting documents into chunks: headings first, then paragraphs, sentences, words."""

from __future__ import annotations

import itertools

import pytest

from assistant.memory.chunking import chunk_text
from assistant.tokens import estimate_tokens

LONG_ENGLISH = " ".join(
    f"On day {i} we walked along the river and ate pastel de nata." for i in range(60)
)
LONG_CHINESE = "".join(f"第{i}天我们在长城上走了很久，然后吃了北京烤鸭。" for i in range(60))


def test_markdown_chunks_keep_their_heading_path():
    text = (
        "# Trip\n\nWe go in May.\n\n## Lisbon\n\nTrams.\n\n### Food\n\nNata.\n\n## Porto\n\nWine."
    )
    chunks = chunk_text(text)
    assert [(c.heading, c.content) for c in chunks] == [
        ("Trip", "We go in May."),
        ("Trip > Lisbon", "Trams."),
        ("Trip > Lisbon > Food", "Nata."),
        ("Trip > Porto", "Wine."),
    ]
    assert [c.ordinal for c in chunks] == [0, 1, 2, 3]


def test_a_hash_inside_a_code_fence_is_not_a_heading():
    text = "# Setup\n\n```sh\n# install it\npip install hippo\n```"
    (chunk,) = chunk_text(text)
    assert chunk.heading == "Setup"
    assert "# install it" in chunk.content


def test_plain_text_is_not_cut_at_hash_lines():
    chunks = chunk_text("# not a heading\n\nsecond paragraph", markdown=False)
    assert [c.heading for c in chunks] == [""]


@pytest.mark.parametrize("text", [LONG_ENGLISH, LONG_CHINESE])
def test_no_chunk_is_larger_than_the_limit(text):
    chunks = chunk_text(text, max_tokens=60, overlap_tokens=10)
    assert len(chunks) > 3
    assert all(estimate_tokens(c.content) <= 60 for c in chunks)


def test_english_chunks_end_at_sentence_ends_and_never_mid_word():
    words = set(LONG_ENGLISH.split())
    for chunk in chunk_text(LONG_ENGLISH, max_tokens=60, overlap_tokens=10):
        assert chunk.content.endswith(".")
        assert set(chunk.content.split()) <= words


def test_chinese_chunks_end_at_chinese_sentence_ends():
    for chunk in chunk_text(LONG_CHINESE, max_tokens=60, overlap_tokens=10):
        assert chunk.content.endswith("。")


def test_neighbouring_chunks_overlap_a_little():
    chunks = chunk_text(LONG_ENGLISH, max_tokens=60, overlap_tokens=20)
    for before, after in itertools.pairwise(chunks):
        last_sentence = before.content.rsplit(". ", 1)[-1]
        assert after.content.startswith(last_sentence)


def test_a_sentence_longer_than_a_chunk_is_cut_between_words():
    sentence = " ".join(["hippopotamus"] * 200) + "."
    chunks = chunk_text(sentence, max_tokens=40, overlap_tokens=0)
    assert all(set(c.content.rstrip(".").split()) == {"hippopotamus"} for c in chunks)
    assert sum(len(c.content.split()) for c in chunks) == 200


def test_paragraphs_are_packed_together_while_they_fit():
    chunks = chunk_text("one.\n\ntwo.\n\nthree.", markdown=False)
    assert [c.content for c in chunks] == ["one.\n\ntwo.\n\nthree."]


def test_an_overlap_of_half_a_chunk_or_more_is_refused():
    with pytest.raises(ValueError):
        chunk_text("text", max_tokens=40, overlap_tokens=30)
