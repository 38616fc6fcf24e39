"""An Ollama-protocol server answering with real models, for tests, benches and trying Hippo.

    with RealOllama() as server:
        hippo = Hippo(db, OllamaGateway(server.host), chat_model="smollm2:135m",
                      embedding_model="multilingual-e5-small")

It shares the fake's protocol code (`tests.fake_ollama`: the HTTP transport, the shapes of
Ollama's answers, lifecycle, recording and failure injection) and answers the endpoints
Hippo uses with what the models really produce: version, tags, show (true capabilities and
context length), chat (streamed or whole; `format` schemas enforced by llama.cpp's grammar;
tools; `think` where emulated), embed, ps and pull (of what is installed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.fake_ollama.base import OllamaServer
from tests.fake_ollama.wire import (
    ModelSpec,
    PullPlan,
    Response,
    canonical,
    chat_line,
    done_stats,
    error,
    pull_lines,
    show_body,
    tags_entry,
)
from tests.real_ollama.generate import Generation, Piece, grammar_for
from tests.real_ollama.models import DEFAULT_CHAT, ChatGguf, ChatModel, Embedder, chat_gguf

__all__ = ["CHAT_MODEL", "EMBEDDING_MODEL", "RealOllama"]

VERSION = "0.12.6"
CHAT_MODEL = canonical(DEFAULT_CHAT)  # the chat model served unless another is given
EMBEDDING_MODEL = canonical(Embedder.name)

Route = Callable[[dict[str, Any]], Response]


class RealOllama(OllamaServer):
    """Ollama's protocol over a chat GGUF (SmolLM2-135M unless given) and e5 (embed).

    Args:
        model: The chat model (see `chat_gguf`); default SmolLM2-135M, as ``CHAT_MODEL``.
        port: The port to bind; 0 picks a free one.
        n_ctx: The chat model's context window (what `/api/show` reports).
        max_tokens: The reply cap when a request sets no `num_predict`.
        thinking: Emulate a thinking model (`think` asks for `<think>` first).
        threads: CPU threads for generation (default 1).
        verbose: Log each request to stderr.
    """

    def __init__(
        self,
        *,
        model: ChatGguf | None = None,
        port: int = 0,
        n_ctx: int = 4096,
        max_tokens: int = 512,
        thinking: bool = False,
        threads: int | None = None,
        verbose: bool = False,
    ) -> None:
        super().__init__(port=port, verbose=verbose)
        self.chat_model = ChatModel(model or chat_gguf(), n_ctx, threads)
        self.chat_name = canonical(self.chat_model.name)
        self.embedder = Embedder()
        self.max_tokens = max_tokens
        self.thinking = thinking
        self._used: dict[str, datetime] = {}

    # -- what is installed --------------------------------------------------------------

    def _specs(self) -> dict[str, ModelSpec]:
        chat_caps = (
            ("completion", "tools", "thinking") if self.thinking else ("completion", "tools")
        )
        gguf = self.chat_model.model.info
        return {
            self.chat_name: ModelSpec(
                self.chat_name,
                chat_caps,
                self.chat_model.size(),
                self.chat_model.n_ctx,
                None,
                gguf.family,
                gguf.parameter_size,
            ),
            EMBEDDING_MODEL: ModelSpec(
                EMBEDDING_MODEL,
                ("embedding",),
                self.embedder.size(),
                Embedder.context_length,
                Embedder.dim,
                "bert",
                "117.65M",
            ),
        }

    def stop(self) -> None:
        """Stop serving, then free the chat model's weights (once a generation under way ends)."""
        super().stop()
        with self.chat_model.lock:
            self.chat_model.close()

    def _find(self, name: Any) -> ModelSpec | None:
        if not isinstance(name, str) or not name.strip():
            return None
        return self._specs().get(canonical(name))

    # -- answering ---------------------------------------------------------------------------

    def _route(self, method: str, path: str, body: dict[str, Any]) -> Response:
        routes: dict[tuple[str, str], Route] = {
            ("GET", "/"): lambda _: Response(text="Ollama is running"),
            ("HEAD", "/"): lambda _: Response(text=""),
            ("GET", "/api/version"): lambda _: Response(body={"version": VERSION}),
            ("GET", "/api/tags"): self._tags,
            ("GET", "/api/ps"): self._ps,
            ("POST", "/api/show"): self._show,
            ("POST", "/api/pull"): self._pull,
            ("POST", "/api/chat"): self._chat,
            ("POST", "/api/embed"): self._embed,
        }
        route = routes.get((method, path))
        return route(body) if route else Response(status=404, text="404 page not found")

    def _tags(self, _: dict[str, Any]) -> Response:
        return Response(body={"models": [self._entry(m) for m in self._specs().values()]})

    def _entry(self, spec: ModelSpec) -> dict[str, Any]:
        """The model as `/api/tags` lists it, the chat model's quantization its file's."""
        entry = tags_entry(spec)
        if spec.name == self.chat_name:
            entry["details"]["quantization_level"] = self.chat_model.model.info.quantization
        return entry

    def _show(self, body: dict[str, Any]) -> Response:
        model = self._find(body.get("model"))
        if model is None:
            return error(404, f"model '{body.get('model', '')}' not found")
        shown = show_body(model)
        if model.name == self.chat_name:
            gguf = self.chat_model.model
            shown["details"]["quantization_level"] = gguf.info.quantization
            shown["template"] = gguf.template
            shown["model_info"] = _model_info(gguf, self.chat_model.n_ctx)
        return Response(body=shown)

    def _ps(self, _: dict[str, Any]) -> Response:
        specs = self._specs()
        loaded = [
            spec
            for spec, is_loaded in (
                (specs[self.chat_name], self.chat_model.loaded),
                (specs[EMBEDDING_MODEL], self.embedder.loaded),
            )
            if is_loaded
        ]
        return Response(body={"models": [self._running(spec) for spec in loaded]})

    def _running(self, spec: ModelSpec) -> dict[str, Any]:
        used = self._used.get(spec.name, datetime.now(UTC))
        return {
            **self._entry(spec),
            "expires_at": (used + timedelta(minutes=5)).isoformat(),
            "size_vram": 0,
            "context_length": spec.context_length,
        }

    def _pull(self, body: dict[str, Any]) -> Response:
        name = body.get("model")
        if not isinstance(name, str) or not name.strip():
            return error(400, "model is required")
        model = self._find(name)
        missing = "pull model manifest: file does not exist"
        if model is None:
            if not body.get("stream", True):
                return error(500, missing)
            return Response(lines=[{"status": "pulling manifest"}, {"error": missing}])
        if not body.get("stream", True):
            return Response(body={"status": "success"})
        plan = PullPlan((model.size,), 0.0, model.capabilities, model.context_length, None)
        return Response(lines=pull_lines(model.name, plan))

    def _embed(self, body: dict[str, Any]) -> Response:
        name = body.get("model", "")
        model = self._find(name)
        if model is None:
            return error(404, f"model '{name}' not found")
        if "embedding" not in model.capabilities:
            return error(400, f'"{name}" does not support embeddings')
        raw = body.get("input", [])
        texts = ([raw] if raw else []) if isinstance(raw, str) else raw
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return error(400, "invalid input type")
        vectors, tokens = self.embedder.embed(texts)
        self._used[model.name] = datetime.now(UTC)
        return Response(
            body={
                "model": name,
                "embeddings": vectors,
                "total_duration": 0,
                "load_duration": 0,
                "prompt_eval_count": tokens,
            }
        )

    def _chat(self, body: dict[str, Any]) -> Response:
        name = body.get("model", "")
        model = self._find(name)
        if model is None:
            return error(404, f"model '{name}' not found")
        if "completion" not in model.capabilities:
            return error(400, f'"{name}" does not support chat')
        if body.get("think") not in (None, False) and "thinking" not in model.capabilities:
            return error(400, f'"{name}" does not support thinking')
        messages = body.get("messages")
        if messages is not None and not isinstance(messages, list):
            return error(400, "messages must be a list")
        generation = Generation(
            self.chat_model, body, max_tokens=self.max_tokens, thinking=self.thinking
        )
        try:
            grammar_for(body.get("format"), [])  # a format llama.cpp can't follow: 400 now
        except Exception as exc:  # the converter asserts on what it does not know
            return error(400, f"invalid format: {exc}")
        self._used[model.name] = datetime.now(UTC)
        if body.get("stream", True):
            return Response(generated=_lines(name, generation))
        try:
            return Response(body=_whole(name, generation))
        except Exception as exc:  # llama.cpp failing mid-way: Ollama answers 500
            return error(500, f"the model failed: {exc}")


def _model_info(gguf: ChatGguf, window: int) -> dict[str, Any]:
    """The GGUF's own metadata, as Ollama's `model_info` gives it (arrays and the template
    left out), its context length being the window it is loaded with (Hippo fills that)."""
    info = {k: v for k, v in gguf.info.metadata.items() if k != "tokenizer.chat_template"}
    info["general.parameter_count"] = gguf.info.parameters
    info[f"{gguf.info.family}.context_length"] = window
    return info


def _message(piece: Piece) -> dict[str, Any]:
    if piece.kind == "tool_calls":
        return {"tool_calls": list(piece.calls)}
    return {piece.kind: piece.text}


def _final(name: str, generation: Generation, **message: Any) -> dict[str, Any]:
    return chat_line(
        name,
        message,
        **done_stats(
            generation.done_reason,
            prompt_tokens=generation.prompt_tokens,
            eval_count=generation.eval_count,
            eval_ns=generation.eval_ns,
            prompt_ns=generation.prompt_ns,
        ),
    )


def _lines(name: str, generation: Generation) -> Iterator[dict[str, Any]]:
    try:
        for piece in generation.pieces():
            yield chat_line(name, _message(piece), done=False)
    except Exception as exc:  # once streaming, Ollama reports a failure in-band
        yield {"error": f"the model failed: {exc}"}
        return
    yield _final(name, generation)


def _whole(name: str, generation: Generation) -> dict[str, Any]:
    content, thinking, calls = [], [], []
    for piece in generation.pieces():
        if piece.kind == "tool_calls":
            calls.extend(piece.calls)
        else:
            (thinking if piece.kind == "thinking" else content).append(piece.text)
    message: dict[str, Any] = {"content": "".join(content)}
    if thinking:
        message["thinking"] = "".join(thinking)
    if calls:
        message["tool_calls"] = calls
    return _final(name, generation, **message)
