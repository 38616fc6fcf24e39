"""One reading of model names (a missing tag means latest) and of which hosts are local."""

from __future__ import annotations

import pytest

from assistant.llm.names import base_name, full_name, same_model, short_name


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("qwen3", "qwen3:latest", True),
        ("qwen3:1.7b", "qwen3", False),
        ("team/embed", "team/embed:latest", True),
        # A registry's port is not a tag: the old "':' in name" test called this tagged.
        ("localhost:5000/team/embed", "localhost:5000/team/embed:latest", True),
        ("localhost:5000/team/embed:v2", "localhost:5000/team/embed", False),
    ],
)
def test_two_spellings_of_one_model_are_the_same_model(a, b, same):
    assert same_model(a, b) is same
    assert (full_name(a) == full_name(b)) is same


def test_short_and_base_names():
    assert short_name("embeddinggemma:latest") == "embeddinggemma"
    assert short_name("qwen3:1.7b") == "qwen3:1.7b"
    assert base_name("hf.co/Team/Multilingual-E5-Small:Q4_K_M") == "multilingual-e5-small"


def test_the_reading_store_forgets_a_model_under_either_spelling(engine):
    from assistant.memory.script_probe import Reading, ReadingStore

    store = ReadingStore(lambda: engine.memory.db.conn, engine.clock)
    store.keep("all-minilm", "latin", Reading(trust=1.0, gap=0.5))
    store.keep("all-minilm:latest", "han", Reading(trust=0.0, gap=0.0))
    store.forget("all-minilm")  # the short spelling drops both
    assert store.reading("all-minilm", "latin") is None
    assert store.reading("all-minilm:latest", "han") is None


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:11434", True),
        ("http://localhost:11434", True),
        ("http://LOCALHOST.:11434", True),
        ("http://[::1]:11434", True),
        # Where the two old checks disagreed:
        ("http://127.example.com:11434", False),  # a name, not an address: not this machine
        ("http://[0:0:0:0:0:0:0:1]:11434", True),  # ::1 spelt out
        ("http://[::ffff:127.0.0.1]:11434", True),  # IPv4-mapped loopback
        ("http://127.1.2.3:11434", True),
        ("https://ollama.example.com", False),
        ("http://192.168.1.20:11434", False),
    ],
)
def test_one_loopback_check_for_the_proxy_and_the_keyring(url, local):
    from assistant.llm.hosts import is_loopback

    assert is_loopback(url) is local
