"""Ollama's version over the standard library: the status line's first question at start-up."""

from __future__ import annotations

import socket

import pytest

from assistant.errors import (
    OllamaAuthError,
    OllamaResponseError,
    OllamaTimeout,
    OllamaUnreachable,
)
from assistant.llm import OllamaGateway
from assistant.llm.version import ask_version, quick_probe_fits
from tests.fake_ollama import FakeOllama


def test_it_answers_the_version_the_gateway_answers(fake_ollama: FakeOllama):
    with OllamaGateway(fake_ollama.host) as gateway:
        assert ask_version(fake_ollama.host, 5.0) == gateway.probe() == "0.12.6"
    assert [r.path for r in fake_ollama.requests] == ["/api/version"] * 2


def test_a_closed_port_is_unreachable():
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(OllamaUnreachable, match="connection refused"):
        ask_version(f"http://127.0.0.1:{port}", 5.0)


@pytest.mark.parametrize(
    ("kind", "error", "words"),
    [
        ("500", OllamaResponseError, "HTTP 500"),
        ("junk", OllamaResponseError, "cannot read"),
        ("unauthorized", OllamaAuthError, "bearer token"),
    ],
)
def test_a_bad_answer_fails_as_the_gateway_says_it(fake_ollama, kind, error, words):
    fake_ollama.fail_next("/api/version", kind)
    with pytest.raises(error, match=words):
        ask_version(fake_ollama.host, 5.0)


def test_a_host_that_takes_the_request_and_says_nothing_times_out(fake_ollama):
    fake_ollama.fail_next("/api/version", "hang")
    try:
        with pytest.raises(OllamaTimeout, match=r"did not answer within 0\.2 s"):
            ask_version(fake_ollama.host, 0.2)
    finally:
        fake_ollama.release()


def test_the_token_is_sent_as_a_bearer(fake_ollama):
    fake_ollama.require_token("s3cret")
    with pytest.raises(OllamaAuthError):
        ask_version(fake_ollama.host, 5.0)
    assert ask_version(fake_ollama.host, 5.0, token="s3cret") == "0.12.6"


@pytest.mark.parametrize(
    ("host", "fits"),
    [
        ("http://127.0.0.1:11434", True),
        ("http://localhost:11434", True),
        ("http://[::1]:11434", True),
        ("https://127.0.0.1:11434", False),  # TLS: the gateway's client verifies it
        ("http://ollama.example.com:11434", False),  # may need the environment's proxy
        ("http://127.example.com:11434", False),
    ],
)
def test_only_a_plain_http_host_on_this_machine_is_asked_this_way(host, fits):
    assert quick_probe_fits(host) is fits
