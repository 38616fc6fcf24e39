"""A fake Ollama server for tests and terminal demos (`python -m tests.fake_ollama`).

from tests.fake_ollama import FakeOllama, Reply
"""

from __future__ import annotations

from tests.fake_ollama.fooled import FooledModel
from tests.fake_ollama.schema import schema_instance
from tests.fake_ollama.server import FakeOllama
from tests.fake_ollama.wire import FAILURE_KINDS, RecordedRequest, Reply

__all__ = [
    "FAILURE_KINDS",
    "FakeOllama",
    "FooledModel",
    "RecordedRequest",
    "Reply",
    "schema_instance",
]
