"""Each embedding model is told whether a text is a query or a document, as it was trained."""

from __future__ import annotations

import pytest

from assistant.llm import OllamaGateway
from assistant.llm.prefixes import document_prefix, prefixed, prefixes, unprefixed


@pytest.mark.parametrize(
    ("model", "query", "document"),
    [
        ("embeddinggemma", "task: search result | query: ", "title: none | text: "),
        ("embeddinggemma:300m", "task: search result | query: ", "title: none | text: "),
        ("nomic-embed-text:v1.5", "search_query: ", "search_document: "),
        ("jeffh/intfloat-multilingual-e5-small:f16", "query: ", "passage: "),
        ("multilingual-e5-small", "query: ", "passage: "),
        ("e5-large-v2", "query: ", "passage: "),
        ("all-minilm", "", ""),
        ("bge-m3:latest", "", ""),
        ("repo5-embed", "", ""),  # "e5" inside a word is no e5 model
    ],
)
def test_a_model_family_gets_the_prefixes_its_card_gives(model, query, document):
    assert (prefixes(model).query, prefixes(model).document) == (query, document)
    assert document_prefix(model) == document


def test_texts_are_prefixed_for_their_purpose_and_a_bare_model_gets_them_as_they_are():
    assert prefixed("multilingual-e5-small", ["a", "b"], "query") == ["query: a", "query: b"]
    assert prefixed("multilingual-e5-small", ["a"], "document") == ["passage: a"]
    assert prefixed("all-minilm", ["a"], "query") == ["a"]
    assert unprefixed("multilingual-e5-small", "passage: a") == "a"
    assert unprefixed("all-minilm", "passage: a") == "passage: a"


def test_the_gateway_sends_a_query_and_a_document_with_their_prefixes(fake_ollama):
    gateway = OllamaGateway(fake_ollama.host)
    gateway.embed("embeddinggemma", ["where is the cat?"], purpose="query")
    gateway.embed("embeddinggemma", ["the cat sleeps"], purpose="document")
    gateway.embed("all-minilm", ["the cat sleeps"], purpose="query")
    sent = [r.body["input"] for r in fake_ollama.requests if r.path == "/api/embed"]
    assert sent == [
        ["task: search result | query: where is the cat?"],
        ["title: none | text: the cat sleeps"],
        ["the cat sleeps"],
    ]


def test_stored_text_is_embedded_as_a_document_and_a_recall_as_a_query(engine, fake_ollama):
    session = engine.conversations.new_session()
    engine.memory.messages.add_message(session.id, "user", "my passport expires in March")
    engine.background.embed_pending()
    engine.memory.recall("when does my passport expire?", kinds=("message",))
    sent = [r.body["input"] for r in fake_ollama.requests if r.path == "/api/embed"]
    assert ["title: none | text: my passport expires in March"] in sent
    assert ["task: search result | query: when does my passport expire?"] in sent
