"""Building the engine from settings: the one place that wires config, secrets and gateway."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.clock import Clock
from assistant.config import Config
from assistant.datakey import KeyStore
from assistant.encryption import StepProgress, prepare_data_file
from assistant.engine import Hippo
from assistant.gateways import open_gateway
from data_schema.connect import Database

if TYPE_CHECKING:
    from assistant.llm.backend import ChatBackend

__all__ = ["open_engine", "open_gateway"]


def open_engine(
    config: Config,
    *,
    clock: Clock | None = None,
    progress: StepProgress | None = None,
    gateway: ChatBackend | None = None,
) -> Hippo:
    """Open the data file and connect the engine to Ollama as ``config`` says (through
    ``gateway`` where one is already open: see ``assistant.starting``).

    A plaintext file from an older Hippo is encrypted first (see ``assistant.encryption``);
    ``progress`` hears how far that is. What the user should hear once about it (and about
    where the key is kept) comes out of the engine's ``take_notices``.
    """
    keys = KeyStore.for_config(config)
    prepare_data_file(config.db_path, keys, progress)
    return Hippo(
        Database(config.db_path, keys),
        gateway or open_gateway(config),
        chat_model=config.models.chat,
        embedding_model=config.models.embedding,
        profile=config.profile,
        context_tokens=config.models.context_tokens,
        clock=clock,
        working_strategy=config.memory.strategy,
        core_edits=config.memory.core_edits,
        context_budget=config.memory.budget,
        weights=config.retrieval,
        sleep=config.sleep,
    )
