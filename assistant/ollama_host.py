"""`OllamaHost`: the Ollama host as the engine uses it, and the models on it.

It holds the gateway (swapped whole when the user gives a token, or another host), what
Ollama said of each model (``ShownModels``) and the digests the embedder lists; it lists,
checks, pulls and deletes models, and says how many tokens Hippo fills for a model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from assistant.clock import Clock
from assistant.errors import ModelNotFound, NotFound
from assistant.llm.shown import ShownModels, full_name
from assistant.memory.embedder import Embedder
from assistant.turn_settings import TurnSettings

if TYPE_CHECKING:
    from assistant.llm.backend import ChatBackend
    from assistant.llm.values import ModelInfo, PullProgress
    from assistant.model_choice import ModelProblem, Slot

__all__ = ["OllamaHost"]


class OllamaHost:
    """The gateway to Ollama and what the engine knows of the host's models.

    Args:
        gateway: the gateway to talk to Ollama through (see ``use_gateway``).
        shown: what Ollama says of each model (its window and capabilities).
        embedder: the embedding model (it holds the gateway too, and the digest listing).
        clock: the time, for the listing's age.
        settings: the current turn settings (the chat model, the context size).

    Thread safety: the gateway is one reference, swapped whole; those who hold one too
    follow the swap (``follow``), under a lock so that none is missed.
    """

    def __init__(
        self,
        gateway: ChatBackend,
        shown: ShownModels,
        embedder: Embedder,
        clock: Clock,
        settings: Callable[[], TurnSettings],
    ) -> None:
        self._gateway = gateway
        self.shown = shown
        self._embedder = embedder
        self._clock = clock
        self._settings = settings
        self._lock = threading.Lock()
        self._followers: list[Callable[[ChatBackend], None]] = []

    # -- the gateway -----------------------------------------------------------------

    @property
    def gateway(self) -> ChatBackend:
        """The gateway to Ollama now."""
        return self._gateway

    @property
    def ollama_host(self) -> str:
        """The URL of the Ollama host the engine talks to."""
        return self._gateway.host

    def follow(self, holder: Callable[[ChatBackend], None]) -> None:
        """Hand ``holder`` the gateway now and each one that replaces it."""
        with self._lock:
            self._followers.append(holder)
            holder(self._gateway)

    def use_gateway(self, gateway: ChatBackend) -> None:
        """Talk to Ollama through ``gateway`` from now on (every part takes it), close the
        old one, and ask afresh what was learnt through it (models' details, digests)."""
        with self._lock:
            old, self._gateway = self._gateway, gateway
            self._embedder.llm = self.shown.llm = gateway
            for holder in self._followers:
                holder(gateway)
        self.shown.clear()
        self._embedder.listing.expire()
        if old is not gateway:
            old.close()

    def use_token(self, token: str) -> None:
        """Send ``token`` to the same host from now on (a host behind an auth proxy)."""
        self.use_gateway(self._gateway.with_token(token))

    def probe(self) -> str:
        """Ollama's version, the cheapest proof that the host is up (or ``OllamaError``)."""
        return self._gateway.probe()

    def stop_calls(self) -> None:
        """Stop every call to Ollama in flight now (they fail with ``OllamaStopped``)."""
        self._gateway.abort()

    # -- the models ------------------------------------------------------------------

    def models(self) -> list[ModelInfo]:
        """Installed models with their capabilities."""
        return self._gateway.list_models()

    def missing_models(self) -> list[str]:
        """The configured chat and embedding models the host lacks (or ``OllamaError``)."""
        listed = self._gateway.list_models()
        digests = {info.name: info.digest for info in listed if info.digest}
        self._embedder.listing.saw(digests, self._clock.now())  # spares background a listing
        installed = {full_name(info.name) for info in listed}
        wanted = dict.fromkeys([self._settings().chat_model, self._embedder.model])
        return [name for name in wanted if full_name(name) not in installed]

    def check_models(
        self, *, chat: str | None = None, embedding: str | None = None
    ) -> list[ModelProblem]:
        """What stops ``chat`` and ``embedding`` from taking their slots (see
        ``assistant.model_choice``): not installed, unable, or not checked as Ollama is
        away. Asks Ollama (blocks on the network); empty when both can be used."""
        from assistant.model_choice import check_models  # F2 and `model use`: first use only

        choices: dict[Slot, str] = {}
        if chat:
            choices["chat"] = chat
        if embedding:
            choices["embedding"] = embedding
        return check_models(self._gateway, choices)

    def pull(self, model: str, cancel: threading.Event | None = None) -> Iterator[PullProgress]:
        """Download a model, with progress summed over its layers."""
        yield from self._gateway.pull(model, cancel=cancel)
        self.shown.forget(model)
        self._embedder.listing.expire()  # the pull may have brought new weights

    def delete_model(self, model: str) -> None:
        """Remove ``model`` from Ollama, freeing its disk space (the choice of models is
        the caller's: deleting one in use makes its calls fail until another is chosen).

        Raises:
            NotFound: Ollama has no such model.
            OllamaError: Ollama could not be asked.
        """
        try:
            self._gateway.delete(model)
        except ModelNotFound:
            raise NotFound(
                f"Ollama at {self.ollama_host} has no model {model!r}: nothing was deleted."
            ) from None
        finally:
            self.shown.forget(model)
            self._embedder.listing.expire()

    # -- what Hippo sends a model ----------------------------------------------------

    def context_window(self, model: str) -> int:
        """The tokens Hippo fills for ``model``: ``context_tokens``, or less where it reads less."""
        return self.shown.window(model, self._settings().context_tokens)

    def model_options(self, model: str) -> dict[str, int]:
        """Ollama options for calls to ``model``: its window (see ``context_window``)."""
        return {"num_ctx": self.context_window(model)}

    def model_capabilities(self, model: str) -> frozenset[str]:
        """What ``model`` can do (tools, thinking...), asked once; empty if unknown."""
        return self.shown.capabilities(model)
