"""A fake Ollama server, faithful to what the official `ollama` client sends and parses.

Standard library only; it binds 127.0.0.1 and nothing else. Tests script it with replies
(`script`), failures (`fail_next`), a hung server (`fall_silent`), a bearer token
(`require_token`), pulls (`pull_plan`), updated weights (`new_weights`), vector sizes
(`resize_embeddings`) and what a model embeds a text into (`embed_as`), and read back
every request (`requests`); a client may delete
models (`/api/delete`); `stop()` then `start()` brings it back on the same port:

    with FakeOllama() as srv:
        srv.script(Reply(content="Hello!"))
        ollama.Client(srv.host).chat("qwen3:1.7b", messages, stream=True)

Model names are normalised as Ollama does: "embeddinggemma" is listed as
"embeddinggemma:latest", and requests may use either spelling.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from assistant.llm.prefixes import unprefixed
from tests.fake_ollama.base import ANSWERED_AT_ONCE, OllamaServer
from tests.fake_ollama.fooled import FooledModel
from tests.fake_ollama.vectors import embedding, normalised, tokens
from tests.fake_ollama.wire import (
    ChatTurn,
    ModelSpec,
    PullPlan,
    Reply,
    Response,
    canonical,
    error,
    pull_lines,
    show_body,
    tags_entry,
)

__all__ = ["FakeOllama"]

VERSION = "0.12.6"
_ANSWERED_AT_ONCE = ANSWERED_AT_ONCE

Route = Callable[[dict[str, Any]], Response]


class FakeOllama(OllamaServer):
    """A scriptable, protocol-faithful Ollama server on 127.0.0.1.

    Args:
        port: The port to bind; 0 picks a free one below the kernel's ephemeral range,
            kept across `stop()` and `start()`.
        default_models: Install "qwen3:1.7b", "embeddinggemma" and "all-minilm".
        reply_delay: Seconds between streamed chunks when a `Reply` sets none (for demos).
        version: What `/api/version` answers.
        verbose: Log each request to stderr.
    """

    def __init__(
        self,
        *,
        port: int = 0,
        default_models: bool = True,
        reply_delay: float = 0.0,
        version: str = VERSION,
        verbose: bool = False,
    ) -> None:
        super().__init__(port=port, verbose=verbose)
        self.reply_delay = reply_delay
        self.version = version
        self._models: dict[str, ModelSpec] = {}
        self._replies: deque[Reply] = deque()
        self._pull_plans: dict[str, PullPlan] = {}
        self._fooled: FooledModel | None = None
        self._embeds: dict[str, Callable[[str], Sequence[float]]] = {}
        if default_models:
            self._install_defaults()

    def _install_defaults(self) -> None:
        self.add_model(
            "qwen3:1.7b",
            capabilities=("completion", "tools", "thinking"),
            size=1_359_293_444,
            context_length=40960,
        )
        self.add_model(
            "embeddinggemma",
            capabilities=("embedding",),
            size=621_875_417,
            context_length=2048,
            embedding_length=768,
            family="gemma3",
            parameter_size="307.58M",
        )
        self.add_model(
            "all-minilm",
            capabilities=("embedding",),
            size=45_960_996,
            context_length=512,
            embedding_length=384,
            family="bert",
            parameter_size="23M",
        )

    # -- models ----------------------------------------------------------------------------

    def add_model(
        self,
        name: str,
        *,
        capabilities: Sequence[str] = ("completion",),
        size: int = 1_000_000_000,
        context_length: int = 4096,
        embedding_length: int | None = None,
        family: str = "qwen3",
        parameter_size: str = "1.7B",
    ) -> None:
        """Install a model, replacing one of the same name.

        Raises:
            ValueError: An "embedding" model without an `embedding_length`.
        """
        if "embedding" in capabilities and not embedding_length:
            raise ValueError("an embedding model needs an embedding_length")
        model = ModelSpec(
            canonical(name),
            tuple(capabilities),
            size,
            context_length,
            embedding_length,
            family,
            parameter_size,
        )
        with self._lock:
            self._models[model.name] = model
            self._lock.notify_all()

    def new_weights(self, name: str) -> str:
        """Give an installed model new weights under its name, as a pull that finds an update
        does: its digest changes, and so does every embedding it makes.

        Returns:
            The new digest.

        Raises:
            KeyError: The model is not installed.
        """
        with self._lock:
            return self._revise(name, self._models[canonical(name)].revision + 1)

    def resize_embeddings(self, name: str, dim: int) -> None:
        """Make an installed embedding model embed into ``dim`` numbers from now on, its
        digest unchanged: what a proxy or a mirror that lists stale digests, or another
        server under the same name, can bring.

        Raises:
            KeyError: The model is not installed.
            ValueError: ``dim`` is below 1.
        """
        if dim < 1:
            raise ValueError(f"an embedding needs at least 1 number, not {dim}")
        with self._lock:
            model = replace(self._models[canonical(name)], embedding_length=dim)
            self._models[model.name] = model
            self._lock.notify_all()

    def embed_as(self, name: str, vectors: Callable[[str], Sequence[float]] | None) -> None:
        """Make a model embed each text into ``vectors(text)`` instead of its hashed bag of
        words (None: as before), e.g. a model that reads meaning, placing paraphrases together.

        ``vectors`` gets the text without the prefix a model reads as an instruction; what
        it gives is padded with zeros to the model's size, cut to ``dimensions`` where a
        request asks fewer, and scaled to length 1.
        """
        with self._lock:
            if vectors is None:
                self._embeds.pop(canonical(name), None)
            else:
                self._embeds[canonical(name)] = vectors

    def _revise(self, name: str, revision: int) -> str:
        with self._lock:
            model = replace(self._models[canonical(name)], revision=revision)
            self._models[model.name] = model
            self._lock.notify_all()
        return model.digest

    def remove_model(self, name: str) -> None:
        """Uninstall a model; unknown names are ignored."""
        with self._lock:
            self._models.pop(canonical(name), None)
            self._lock.notify_all()

    @property
    def models(self) -> list[str]:
        """Installed model names, normalised ("embeddinggemma:latest")."""
        with self._lock:
            return list(self._models)

    def embed_dim(self, model: str) -> int:
        """The vector size `model` embeds into.

        Raises:
            KeyError: The model is not installed.
            ValueError: The model does not embed.
        """
        found = self._find(model)
        if found is None:
            raise KeyError(model)
        if found.embedding_length is None or "embedding" not in found.capabilities:
            raise ValueError(f"{model} is not an embedding model")
        return found.embedding_length

    def _find(self, name: Any) -> ModelSpec | None:
        if not isinstance(name, str) or not name.strip():
            return None
        with self._lock:
            return self._models.get(canonical(name))

    # -- scripting ---------------------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        """Queue chat replies, answered in order; once they run out, replies echo again."""
        with self._lock:
            self._replies.extend(replies)

    def fool(self, model: FooledModel | None) -> None:
        """Answer unscripted chats as a model fooled by injected text (None: stop).

        See `FooledModel`: its tool calls and sleep answers propose exactly the claim.
        """
        with self._lock:
            self._fooled = model

    def pull_plan(
        self,
        model: str,
        layers: Sequence[int | bytes] = (1_000_000,),
        delay: float = 0.0,
        *,
        capabilities: Sequence[str] = ("completion",),
        context_length: int = 4096,
        embedding_length: int | None = None,
    ) -> None:
        """Say what `/api/pull` streams for `model`; once a pull completes, it is installed.

        Args:
            model: The name to pull.
            layers: Each layer's size in bytes (or the layer's bytes).
            delay: Seconds between streamed progress lines.
            capabilities: What the model can do once installed.
            context_length: Its context window once installed.
            embedding_length: Its vector size, for embedding models.
        """
        sizes = tuple(len(x) if isinstance(x, bytes) else int(x) for x in layers)
        plan = PullPlan(sizes, delay, tuple(capabilities), context_length, embedding_length)
        with self._lock:
            self._pull_plans[canonical(model)] = plan

    # -- answering ---------------------------------------------------------------------------

    def _route(self, method: str, path: str, body: dict[str, Any]) -> Response:
        routes: dict[tuple[str, str], Route] = {
            ("GET", "/"): lambda _: Response(text="Ollama is running"),
            ("HEAD", "/"): lambda _: Response(text=""),
            ("GET", "/api/version"): lambda _: Response(body={"version": self.version}),
            ("GET", "/api/tags"): self._tags,
            ("POST", "/api/show"): self._show,
            ("POST", "/api/pull"): self._pull,
            ("DELETE", "/api/delete"): self._delete,
            ("POST", "/api/chat"): self._chat,
            ("POST", "/api/embed"): self._embed,
        }
        route = routes.get((method, path))
        # Ollama's Go router answers unknown paths in plain text, not JSON.
        return route(body) if route else Response(status=404, text="404 page not found")

    def _tags(self, _: dict[str, Any]) -> Response:
        with self._lock:
            models = list(self._models.values())
        return Response(body={"models": [tags_entry(m) for m in models]})

    def _show(self, body: dict[str, Any]) -> Response:
        model = self._find(body.get("model"))
        if model is None:
            return error(404, f"model '{body.get('model', '')}' not found")
        return Response(body=show_body(model))

    def _pull(self, body: dict[str, Any]) -> Response:
        name = body.get("model")
        if not isinstance(name, str) or not name.strip():
            return error(400, "model is required")
        name = canonical(name)
        plan = self._pull_plan_for(name)
        missing = "pull model manifest: file does not exist"
        if not body.get("stream", True):
            if plan is None:
                return error(500, missing)
            self._install_pulled(name, plan)
            return Response(body={"status": "success"})
        if plan is None:
            # The stream has begun (HTTP 200) before Ollama learns the name is unknown.
            return Response(lines=[{"status": "pulling manifest"}, {"error": missing}])
        return Response(
            lines=pull_lines(name, plan),
            delay=plan.delay,
            on_complete=lambda: self._install_pulled(name, plan),
        )

    def _delete(self, body: dict[str, Any]) -> Response:
        # As Ollama's DeleteHandler: "model" (or the older "name"); 200 with an empty body.
        name = body.get("model") or body.get("name")
        if not isinstance(name, str) or not name.strip():
            return error(400, f'name "{name or ""}" is invalid')
        with self._lock:
            removed = self._models.pop(canonical(name), None)
            self._lock.notify_all()
        if removed is None:
            return error(404, f"model '{name}' not found")
        return Response(text="")

    def _pull_plan_for(self, name: str) -> PullPlan | None:
        with self._lock:
            plan = self._pull_plans.get(name)
            installed = self._models.get(name)
        if plan is not None or installed is None:
            return plan
        # Pulling an installed model re-checks it: one layer, already complete.
        return PullPlan(
            (installed.size,),
            0.0,
            installed.capabilities,
            installed.context_length,
            installed.embedding_length,
        )

    def _install_pulled(self, name: str, plan: PullPlan) -> None:
        with self._lock:
            installed = self._models.get(name)
            downloaded = self._pull_plans.get(name) is plan  # not a re-check of what is there
        self.add_model(
            name,
            capabilities=plan.capabilities,
            size=sum(plan.layers),
            context_length=plan.context_length,
            embedding_length=plan.embedding_length,
            family="bert" if "embedding" in plan.capabilities else "qwen3",
        )
        if installed is not None:
            # A download over an installed model brings new weights; a re-check keeps them.
            self._revise(name, installed.revision + downloaded)

    def _chat(self, body: dict[str, Any]) -> Response:
        name = body.get("model", "")
        model = self._find(name)
        if model is None:
            return error(404, f"model '{name}' not found")
        refused = self._refusal(name, model, body)
        if refused is not None:
            return refused
        reply = self._next_reply(body)
        if reply.fail in _ANSWERED_AT_ONCE:
            return self._failure(reply.fail, body)
        turn = ChatTurn(name, body, reply, thinks=body.get("think") not in (None, False))
        hang, drop, junk = (reply.fail == kind for kind in ("hang", "drop", "junk"))
        if not body.get("stream", True):
            return Response(body=turn.whole(), hang=hang, drop=drop, junk=junk)
        delay = reply.delay or self.reply_delay
        return Response(
            lines=turn.stream(),
            delay=delay,
            hang=hang,
            drop=drop,
            junk=junk,
            hold_after=reply.hold_after,
            stall_after=reply.stall_after,
            stall=reply.stall,
        )

    @staticmethod
    def _refusal(name: str, model: ModelSpec, body: dict[str, Any]) -> Response | None:
        """Ollama's 400s for asking a model what it cannot do."""
        if "completion" not in model.capabilities:
            return error(400, f'"{name}" does not support chat')
        # The client always sends "tools": [], so only a non-empty list counts.
        if body.get("tools") and "tools" not in model.capabilities:
            return error(400, f"registry.ollama.ai/library/{name} does not support tools")
        if body.get("think") not in (None, False) and "thinking" not in model.capabilities:
            return error(400, f'"{name}" does not support thinking')
        return None

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
            fooled = self._fooled
        answer = fooled.reply(body) if fooled is not None else None
        if answer is not None:
            return answer
        if body.get("format"):
            return Reply()  # a minimal instance of the schema, not an echo
        messages = body.get("messages") or []
        users = [m.get("content", "") for m in messages if m.get("role") == "user"]
        return Reply(content=f"You said: {users[-1] if users else ''}")

    def _embed(self, body: dict[str, Any]) -> Response:
        name = body.get("model", "")
        model = self._find(name)
        if model is None:
            return error(404, f"model '{name}' not found")
        if "embedding" not in model.capabilities or not model.embedding_length:
            return error(400, f'"{name}" does not support embeddings')
        raw = body.get("input", [])
        # As Ollama does: a lone empty string is no input at all; inside a list it is embedded.
        texts = ([raw] if raw else []) if isinstance(raw, str) else raw
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return error(400, "invalid input type")
        full = model.embedding_length
        dim = int(body.get("dimensions") or full)
        if not 0 < dim <= full:
            return error(400, f"dimensions must be between 1 and {full}")
        # A model reads the prefix it was trained with as an instruction, not as words.
        texts = [unprefixed(name, t) for t in texts]
        with self._lock:
            given = self._embeds.get(canonical(name))
        # As Ollama does (`truncate`, true unless asked otherwise): a text longer than the
        # model's window is cut to it; asked not to, it is an error.
        window = model.context_length
        if body.get("truncate") is False and any(
            len(tokens(t, window + 1)) > window for t in texts
        ):
            return error(400, "the input length exceeds the context length")
        if given is None:
            whole = [embedding(t, full, model.revision, window) for t in texts]  # unit length
            vectors = whole if dim == full else [normalised(vector[:dim]) for vector in whole]
        else:
            padded = [[*given(t), *[0.0] * full][:full] for t in texts]
            vectors = [normalised(vector[:dim]) for vector in padded]
        return Response(
            body={
                "model": name,
                "embeddings": vectors,
                "total_duration": 14_000_000,
                "load_duration": 1_000_000,
                "prompt_eval_count": sum(len(tokens(t, window)) for t in texts),
            }
        )
