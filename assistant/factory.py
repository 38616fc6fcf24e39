"""Building the engine from settings: the one place that wires config, secrets and gateway."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.clock import Clock
from assistant.config import Config
from assistant.datakey import KeyStore
from assistant.encryption import StepProgress, prepare_data_file
from assistant.engine import Hippo
from assistant.llm.hosts import is_loopback
from assistant.memory.budget import ContextBudget
from assistant.memory.scoring import RetrievalWeights
from assistant.secrets import load_token
from data_schema.connect import Database

if TYPE_CHECKING:
    from assistant.llm.gateway import OllamaGateway

__all__ = ["open_engine", "open_gateway"]


def open_gateway(config: Config) -> OllamaGateway:
    """The Ollama gateway for ``config``, with a bearer token where one is set."""
    from assistant.llm.gateway import OllamaGateway

    gateway = OllamaGateway(config.ollama_host, **config.ollama_timeouts)
    # The keyring is asked only for remote hosts: it can be slow, and local Ollama has no auth.
    token = load_token(gateway.host, use_keyring=not is_loopback(gateway.host))
    return gateway.with_token(token) if token else gateway


def open_engine(
    config: Config, *, clock: Clock | None = None, progress: StepProgress | None = None
) -> Hippo:
    """Open the data file and connect the engine to Ollama as ``config`` says.

    A plaintext file from an older Hippo is encrypted first (see ``assistant.encryption``);
    ``progress`` hears how far that is. What the user should hear once about it (and about
    where the key is kept) comes out of the engine's ``take_notices``.
    """
    keys = KeyStore.for_config(config)
    prepare_data_file(config.db_path, keys, progress)
    return Hippo(
        Database(config.db_path, keys),
        open_gateway(config),
        chat_model=config.chat_model,
        embedding_model=config.embedding_model,
        profile=config.profile,
        context_tokens=config.context_tokens,
        clock=clock,
        working_strategy=config.working_strategy,  # type: ignore[arg-type]
        core_edits=config.model_core_edits,  # type: ignore[arg-type]
        context_budget=ContextBudget(**config.memory_budget),
        weights=RetrievalWeights(
            **{k: int(v) if k == "candidates" else v for k, v in config.retrieval.items()}
        ),  # type: ignore[arg-type]
    )
