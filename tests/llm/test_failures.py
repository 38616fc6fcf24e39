"""Failure translation works alone: a context manager and functions, given the host."""

from __future__ import annotations

import json

import httpx
import pytest

from assistant.errors import ModelNotFound, OllamaAuthError, OllamaResponseError, OllamaUnreachable
from assistant.llm.failures import status_error, translated

HOST = "http://127.0.0.1:9"


def test_a_refused_connection_becomes_unreachable_naming_the_host():
    refused = httpx.ConnectError("boom")
    refused.__cause__ = ConnectionRefusedError()
    with pytest.raises(OllamaUnreachable) as caught, translated(HOST, 5.0):
        raise refused
    assert HOST in str(caught.value) and "connection refused" in str(caught.value)


def test_a_connect_timeout_names_the_limit_in_use():
    with pytest.raises(OllamaUnreachable, match=r"no answer within 2\.5 s"), translated(HOST, 2.5):
        raise httpx.ConnectTimeout("slow")


def test_bad_json_is_an_unreadable_reply():
    with pytest.raises(OllamaResponseError, match="cannot read"), translated(HOST, 5.0):
        json.loads("<html>")


def test_a_bug_is_not_translated():
    with pytest.raises(KeyError), translated(HOST, 5.0):
        raise KeyError("a bug")


@pytest.mark.parametrize(
    ("status", "text", "expected"),
    [(401, "", OllamaAuthError), (404, 'model "x" not found', ModelNotFound)],
)
def test_error_statuses_become_their_domain_errors(status, text, expected):
    assert isinstance(status_error(HOST, status, text, "x"), expected)
