"""The engine: one object the UI, the CLI and the scheduler share. Headless and synchronous.

``Hippo`` wires the parts (see ``assistant.wiring``) and calls through to them; data flows
one way, from the facade down: ``Memory`` (the stores, retrieval, ``recall``), a ``Turn``
per message (given memory, the gateway and the settings), ``Background`` (embedding and
summaries), ``OllamaHost`` (the gateway and the models), ``LiveSettings`` and
``Conversations``. None of them knows the engine. Slow calls (chat, embed, pull) are
meant to run off the UI thread; one SQLite connection per thread, so any thread may call.

Shared between the turn, embedder and UI threads: the settings (immutable values,
replaced whole, see ``LiveSettings``), the profile (immutable, replaced whole), the
gateway (replaced whole, see ``OllamaHost``), and the parts' own guarded state.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.background import Background
from assistant.clock import Clock, SystemClock
from assistant.conversations import Conversations
from assistant.errors import InvalidInput
from assistant.facade import Part, Setting, Via
from assistant.live_settings import LiveSettings
from assistant.memory.budget import ContextBudget
from assistant.memory.recall import Memory
from assistant.ollama_host import OllamaHost
from assistant.settings import Settings, SleepSettings
from assistant.turn_settings import TurnSettings
from assistant.wiring import build_parts
from data_schema.connect import Database

# Only what opening the file and `hippo log` need is imported here: scripts call
# `hippo log` in loops, and each import costs every call. Chat, admin and sleep modules
# load on first use, in the methods that need them.
if TYPE_CHECKING:
    from assistant.admin import MemoryAdmin
    from assistant.llm.gateway import OllamaGateway
    from assistant.llm.shown import ShownModels
    from assistant.memory.archival import ArchiveStore, IngestReport
    from assistant.memory.context import TurnContext
    from assistant.memory.core import CoreMemory
    from assistant.memory.core_proposals import CoreEditMode, CoreProposals
    from assistant.memory.embedder import Embedder, Probe
    from assistant.memory.embedding import EmbeddingWorker
    from assistant.memory.entities import EntityStore
    from assistant.memory.episodes import EpisodeStore
    from assistant.memory.facts import FactStore
    from assistant.memory.messages import MessageStore
    from assistant.memory.records import Message, Profile, Session
    from assistant.memory.retrieval import Retriever
    from assistant.memory.scoring import RetrievalWeights
    from assistant.memory.sensory import Event, EventStore, LogResult
    from assistant.memory.usage import UsageStore
    from assistant.memory.vector_cells import CellSizes
    from assistant.memory.vectors import VectorStore
    from assistant.memory.working import Strategy
    from assistant.sleep import AwayNotice, Sleep, SleepReport
    from assistant.turns import TurnEvent

__all__ = ["Hippo"]


class Hippo:
    """Hippo's memory and chat engine over one data file.

    Args:
        db: the data file (a path, or an open ``Database``).
        llm: the Ollama gateway.
        chat_model: the model that answers.
        embedding_model: the model that embeds messages and queries.
        profile: the profile to work in; nothing crosses profiles.
        context_tokens: the context window Hippo fills (working memory gets half).
        clock: the time source.
        working_strategy: buffer, window, summary or summary_buffer.
        context_budget: token budgets of the memory sections.
        weights: retrieval weights and thresholds.
        core_edits: ``review`` (the default): the model's core memory edits wait for the
            user's approval; ``apply``: they apply at once, except from a turn that holds
            instruction-like or pasted text.
        save_every_s: how often a streaming reply's partial text is saved.
        reading: the probe of how well the embedding model reads each script (default:
            asks the model once per script and keeps the answer in the data file).
        cells: how large vector tables are split into cells and searched.
        sleep: the consolidation's settings (config.toml's ``[sleep]``).
    """

    # The memory's stores (the CLI, tests and benches read them; the UI may not).
    db: Part[Database] = Part("memory")
    clock: Part[Clock] = Part("memory")
    messages: Part[MessageStore] = Part("memory")
    vectors: Part[VectorStore] = Part("memory")
    usage: Part[UsageStore] = Part("memory")
    episodes: Part[EpisodeStore] = Part("memory")
    archive: Part[ArchiveStore] = Part("memory")
    events: Part[EventStore] = Part("memory")
    facts: Part[FactStore] = Part("memory")
    core: Part[CoreMemory] = Part("memory")
    core_proposals: Part[CoreProposals] = Part("memory")
    entities: Part[EntityStore] = Part("memory")
    retriever: Part[Retriever] = Part("memory")
    embedder: Part[Embedder] = Part("memory")
    shown: Part[ShownModels] = Part("host")
    ollama_host: Part[str] = Part("host")
    # The turn settings, each read from the current value and set by replacing it.
    chat_model: Setting[str] = Setting()
    context_tokens: Setting[int] = Setting()
    working_strategy: Setting[Strategy] = Setting()
    context_budget: Setting[ContextBudget] = Setting()
    core_edits: Setting[CoreEditMode] = Setting()
    # What the parts do, called through the engine: the UI's and the CLI's vocabulary.
    new_session = Via("conversations", Conversations.new_session)
    end_session = Via("conversations", Conversations.end_session)
    rename_session = Via("conversations", Conversations.rename_session)
    discard_empty_reply = Via("conversations", Conversations.discard_empty_reply)
    last_session = Via("conversations", Conversations.last_session)
    sessions = Via("conversations", Conversations.sessions)
    session = Via("conversations", Conversations.session)
    history = Via("conversations", Conversations.history)
    recall = Via("memory", Memory.recall)
    search_messages = Via("memory", Memory.search_messages)
    embed_pending = Via("background", Background.embed_pending)
    start_background = Via("background", Background.start_background)
    pending_embeddings = Via("background", Background.pending_embeddings)
    take_notices = Via("background", Background.take_notices)
    wake = Via("background", Background.wake)
    probe = Via("host", OllamaHost.probe)
    stop_calls = Via("host", OllamaHost.stop_calls)
    use_token = Via("host", OllamaHost.use_token)
    missing_models = Via("host", OllamaHost.missing_models)
    change_settings = Via("live_settings", LiveSettings.change)
    use_models = Via("live_settings", LiveSettings.use_models)
    apply_settings = Via("live_settings", LiveSettings.apply)

    def __init__(
        self,
        db: Database | Path | str,
        llm: OllamaGateway,
        *,
        chat_model: str,
        embedding_model: str,
        profile: str = "default",
        context_tokens: int = 8192,
        clock: Clock | None = None,
        working_strategy: Strategy = "summary_buffer",
        context_budget: ContextBudget | None = None,
        weights: RetrievalWeights | None = None,
        core_edits: CoreEditMode = "review",
        save_every_s: float = 1.0,
        reading: Probe | None = None,
        cells: CellSizes | None = None,
        sleep: SleepSettings | None = None,
    ) -> None:
        budget = context_budget or ContextBudget()
        turn = TurnSettings(
            chat_model, context_tokens, working_strategy, budget, core_edits, save_every_s
        )
        parts = build_parts(
            db if isinstance(db, Database) else Database(db),
            llm,
            turn,
            sleep or SleepSettings(),
            embedding_model=embedding_model,
            profile=profile,
            clock=clock or SystemClock(),
            weights=weights,
            reading=reading,
            cells=cells,
        )
        self.memory = parts.memory
        self.live_settings = parts.live_settings
        self.host = parts.host
        self.conversations = parts.conversations
        self.background = parts.background

    # -- what the parts hold now ---------------------------------------------------------

    @property
    def llm(self) -> OllamaGateway:
        """The gateway to Ollama (``host.use_gateway`` replaces it)."""
        return self.host.gateway

    @property
    def profile(self) -> Profile:
        """The profile worked in; nothing crosses profiles."""
        return self.memory.profile

    @profile.setter
    def profile(self, profile: Profile) -> None:
        self.memory.profile = profile

    @property
    def embedding_model(self) -> str:
        """The model that embeds messages and queries."""
        return self.memory.embedder.model

    @property
    def vector_key(self) -> str:
        """The embedding model's full name, which keys its vectors (``name:latest``...)."""
        return self.memory.embedder.vector_key

    @property
    def turn_settings(self) -> TurnSettings:
        """What a chat turn is answered with now (one immutable value)."""
        return self.live_settings.turn

    @property
    def settings(self) -> Settings:
        """The settings in use, as config.toml's sections (``apply_settings`` changes them)."""
        return self.live_settings.current

    @property
    def sleep_settings(self) -> SleepSettings:
        """The consolidation's settings (config.toml's ``[sleep]``)."""
        return self.live_settings.sleep

    @property
    def chores(self) -> EmbeddingWorker:
        """What a turn hands on: embedding its messages, folding the session's summary."""
        return self.background.worker

    # -- chat ------------------------------------------------------------------------------

    def send(
        self,
        session_id: int,
        text: str,
        *,
        cancel: threading.Event | None = None,
        pasted: bool = False,
    ) -> Iterator[TurnEvent]:
        """Answer ``text`` in a session, streaming typed events (see ``assistant.chat.Turn``:
        the reply ends done, cancelled by ``cancel``, or failed). ``pasted``: the user
        pasted the text, so what sleep draws from it waits for review."""
        if not text.strip():
            raise InvalidInput("The message is empty: type something to send.")
        session = self.session(session_id)
        from assistant.chat import Turn  # with the tools: needed at the first send only

        cancel = cancel or threading.Event()
        turn = Turn(self.memory, self.llm, self.turn_settings, shown=self.shown, chores=self.chores)
        return self._stopping_on(turn.run(session, text, cancel, pasted=pasted), cancel)

    def _stopping_on(
        self, events: Iterator[TurnEvent], cancel: threading.Event
    ) -> Iterator[TurnEvent]:
        """The turn's events; ``cancel`` stops each of its calls to Ollama, whichever it is
        (the query's embedding and the model check too, not only the reply's stream)."""
        with self.llm.stopping_on(cancel):
            yield from events

    def context_for(self, session: Session, user: Message) -> TurnContext:
        """The prompt for answering ``user``: memory sections and working memory."""
        from assistant.chat import context_for  # with the chat: first use only

        window = self.host.context_window(self.chat_model)
        return context_for(self.memory, self.turn_settings, window, session, user)

    # -- what comes from outside the chat (then the background embeds it) -----------------

    def ingest(self, path: Path | str) -> IngestReport:
        """Add a text/Markdown file, or every such file under a folder, to archival memory."""
        report = self.archive.ingest_path(self.profile.id, path)
        self.wake()
        return report

    def log_event(self, text: str, **details: object) -> Event:
        """Record a real-time signal from outside the chat (``hippo log``)."""
        event = self.events.log(self.profile.id, text, **details)  # type: ignore[arg-type]
        self.wake()
        return event

    def log_events_json(self, lines: Iterable[str | bytes], *, source: str = "cli") -> LogResult:
        """Record events from JSON lines; bad lines are reported, the rest kept."""
        result = self.events.log_json_lines(self.profile.id, lines, source=source)
        self.wake()
        return result

    # -- memory inspector and sleep ---------------------------------------------------------

    @functools.cached_property
    def admin(self) -> MemoryAdmin:
        """See, search, correct, review, undo, forget and export memory (``MemoryAdmin``)."""
        from assistant.admin.wiring import build_admin  # the inspector's code: first use only

        return build_admin(self.memory, self.conversations, self.wake)

    @property
    def sleep(self) -> Sleep:
        """The consolidation over this engine's stores and models as they are now."""
        from assistant.sleep_wiring import build_sleep  # sleep's code: first use only

        return build_sleep(self.memory, self.host, self.live_settings)

    def consolidate(self, **options: object) -> SleepReport:
        """Run the nightly consolidation now (see ``assistant.sleep.Sleep.run``).

        Unless ``settings`` is given, the engine's own (config.toml's ``[sleep]``) apply.
        """
        return self.sleep.run(**options)

    def away_notice(self) -> AwayNotice | None:
        """ "While you were away: ..." once after a consolidation, else None."""
        return self.sleep.unseen_report()

    def close(self) -> None:
        """Stop background work, close the data file and the gateway; calls to Ollama in
        flight are stopped first, so that no thread waiting on a hung host delays it."""
        self.background.stopping()
        self.host.stop_calls()
        self.background.stop()
        self.db.close()
        self.llm.close()
