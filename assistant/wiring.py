"""Building the engine's parts: which part gets what, in one place.

``open_memory`` opens the memory of one profile over a data file (the engine's, or the
copy a sleep dry run works on); ``build_parts`` adds what a running engine has around
it: the live settings, the Ollama host, the conversations and the background work. Each
part receives only what it uses; none of them knows the engine, so data flows one way.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assistant.background import Background
from assistant.clock import Clock
from assistant.conversations import Conversations
from assistant.live_settings import LiveSettings
from assistant.llm.shown import ShownModels
from assistant.memory.embedder import Embedder, Notices, Probe, reading_probe
from assistant.memory.embedding import EmbeddingWorker
from assistant.memory.incognito import RoutedMessages
from assistant.memory.recall import Memory
from assistant.memory.vectors import VectorStore
from assistant.ollama_host import OllamaHost
from assistant.settings import SleepSettings
from assistant.turn_settings import TurnSettings
from data_schema.connect import Database

if TYPE_CHECKING:
    from assistant.llm.backend import ChatBackend
    from assistant.memory.scoring import RetrievalWeights
    from assistant.memory.vector_cells import CellSizes

__all__ = ["Parts", "build_parts", "build_worker", "open_memory"]


@dataclass(frozen=True)
class Parts:
    """What the engine wires together (see ``assistant.engine``)."""

    memory: Memory
    live_settings: LiveSettings
    host: OllamaHost
    conversations: Conversations
    background: Background


def open_memory(
    db: Database,
    gateway: ChatBackend,
    *,
    embedding_model: str,
    profile: str,
    clock: Clock,
    notices: Notices,
    weights: RetrievalWeights | None = None,
    reading: Probe | None = None,
    cells: CellSizes | None = None,
) -> Memory:
    """The memory of ``profile`` (made if new) over ``db``; replies that were streaming
    when the last process died are marked interrupted.

    Args:
        db: the data file.
        gateway: the gateway the embedder embeds through.
        embedding_model: the model that embeds messages and queries.
        profile: the profile's name.
        clock: the time source.
        notices: where background work leaves what the user must be told.
        weights: retrieval weights and thresholds.
        reading: the probe of how well the embedding model reads each script (default:
            asks the model once per script and keeps the answer in the data file).
        cells: how large vector tables are split into cells and searched.
    """
    conn = lambda: db.conn  # noqa: E731 - a getter: one connection per thread
    messages = RoutedMessages(conn, clock)  # incognito chats never reach the file
    vectors = VectorStore(conn, clock, cells)
    embedder = Embedder(
        gateway,
        embedding_model,
        vectors,
        reading or (lambda: reading_probe(embedder.embed, conn, clock, notices)),
        clock_now=clock.now,
        notices=notices,
    )
    memory = Memory(
        db,
        clock,
        messages.profile(profile),
        messages=messages,
        vectors=vectors,
        embedder=embedder,
        weights=weights,
    )
    messages.mark_interrupted()
    return memory


def build_parts(
    db: Database,
    gateway: ChatBackend,
    turn: TurnSettings,
    sleep: SleepSettings,
    *,
    embedding_model: str,
    profile: str,
    clock: Clock,
    weights: RetrievalWeights | None = None,
    reading: Probe | None = None,
    cells: CellSizes | None = None,
) -> Parts:
    """The engine's parts over ``db``, talking to Ollama through ``gateway``.

    Args: as ``open_memory``'s, and ``turn`` and ``sleep``, the settings to start with.
    """
    notices: Notices = deque()
    memory = open_memory(
        db,
        gateway,
        embedding_model=embedding_model,
        profile=profile,
        clock=clock,
        notices=notices,
        weights=weights,
        reading=reading,
        cells=cells,
    )
    live = LiveSettings(turn, sleep, memory, wake=lambda: background.wake())
    host = OllamaHost(gateway, ShownModels(gateway), memory.embedder, clock, lambda: live.turn)
    told = getattr(db.keys, "notices", None)  # the key store's, where it keeps some
    background = Background(lambda: build_worker(memory, host, live), memory.vectors, notices, told)
    conversations = Conversations(memory.messages, lambda: memory.profile)
    return Parts(memory, live, host, conversations, background)


def build_worker(memory: Memory, host: OllamaHost, settings: LiveSettings) -> EmbeddingWorker:
    """The background worker over ``memory``: embedding, summaries, indexing."""
    # Not at start-up: `hippo log` loads none of the summary and working code.
    from assistant.memory.summary import Summaries

    summaries = Summaries(memory.messages, host.gateway, host.shown, lambda: settings.turn)

    def follow(gateway: ChatBackend) -> None:
        summaries.llm = gateway

    host.follow(follow)
    return EmbeddingWorker(
        memory.vectors,
        memory.embedder,
        summaries,
        memory.clock,
        write_failed=memory.db.write_failed,
    )
