"""The engine: one object the UI, the CLI and the scheduler share. Headless and synchronous.

``Hippo`` wires the parts and delegates to them; data flows one way, from the facade
down: ``Memory`` (the stores, retrieval, ``recall``), a ``Turn`` per message (given
memory, the gateway and the settings), the ``EmbeddingWorker`` (background embedding
and summaries), ``ShownModels`` (what Ollama says of each model). None of them knows
the engine. Slow calls (chat, embed, pull) are meant to run off the UI thread; the
engine keeps one SQLite connection per thread, so any thread may call it.

Shared between the turn, embedder and UI threads: ``TurnSettings`` (immutable,
replaced whole under ``_lock``), the profile (immutable, replaced whole), the
gateway (replaced whole), the notices (a deque, safe to share), and the parts' own
guarded state (see each).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant.clock import Clock, SystemClock
from assistant.errors import InvalidInput, ModelNotFound, NotFound
from assistant.facade import Part, Setting
from assistant.llm.shown import ShownModels, full_name
from assistant.memory.budget import ContextBudget
from assistant.memory.embedder import Embedder, Probe, reading_probe
from assistant.memory.embedding import EmbeddingWorker
from assistant.memory.incognito import RoutedMessages
from assistant.memory.messages import MessageStore
from assistant.memory.recall import Memory
from assistant.memory.records import Message, Profile, Session, scope_name
from assistant.memory.vectors import VectorStore
from assistant.settings import MemorySettings, ModelSettings, Settings, SleepSettings
from assistant.turn_settings import TurnSettings
from data_schema.connect import Database

# Only what opening the file and `hippo log` need is imported here: scripts call
# `hippo log` in loops, and each import costs every call. Chat, search, admin and sleep
# modules load on first use, in the methods that need them.
if TYPE_CHECKING:
    from assistant.admin import MemoryAdmin
    from assistant.llm.gateway import OllamaGateway
    from assistant.llm.values import ModelInfo, PullProgress
    from assistant.memory.archival import ArchiveStore, IngestReport
    from assistant.memory.context import TurnContext
    from assistant.memory.core import CoreMemory
    from assistant.memory.core_proposals import CoreEditMode, CoreProposals
    from assistant.memory.entities import EntityStore
    from assistant.memory.episodes import EpisodeStore
    from assistant.memory.facts import FactStore
    from assistant.memory.records import MessageHit
    from assistant.memory.retrieval import MemoryItem, Retriever
    from assistant.memory.scoring import RetrievalWeights
    from assistant.memory.script_probe import Reading
    from assistant.memory.sensory import Event, EventStore, LogResult
    from assistant.memory.summary import Summaries
    from assistant.memory.usage import MemoryUse, UsageStore
    from assistant.memory.vector_cells import CellSizes
    from assistant.memory.working import Strategy
    from assistant.model_choice import ModelProblem, Slot
    from assistant.sleep import AwayNotice, Sleep, SleepDeps, SleepReport
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
    embedded: Part[threading.Event] = Part("_worker")
    chat_model: Setting[str] = Setting()
    context_tokens: Setting[int] = Setting()
    working_strategy: Setting[Strategy] = Setting()
    context_budget: Setting[ContextBudget] = Setting()
    core_edits: Setting[CoreEditMode] = Setting()

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
        database = db if isinstance(db, Database) else Database(db)
        clock = clock or SystemClock()
        self._llm = llm
        self._lock = threading.Lock()  # guards the settings' replacement, the worker's build
        self.turn_settings = TurnSettings(
            chat_model,
            context_tokens,
            working_strategy,
            context_budget or ContextBudget(),
            core_edits,
            save_every_s,
        )
        self.sleep_settings = sleep or SleepSettings()
        self._notices: deque[str] = deque()
        conn = lambda: database.conn  # noqa: E731 - a getter: one connection per thread
        messages = RoutedMessages(conn, clock)  # incognito chats never reach the file
        vectors = VectorStore(conn, clock, cells)
        self.embedder = Embedder(
            llm,
            embedding_model,
            vectors,
            reading or (lambda: reading_probe(self.embedder.embed, conn, clock, self._notices)),
            clock_now=clock.now,
            notices=self._notices,
        )
        self.memory = Memory(
            database,
            clock,
            messages.profile(profile),
            messages=messages,
            vectors=vectors,
            embedder=self.embedder,
            weights=weights,
        )
        messages.mark_interrupted()
        self.shown = ShownModels(llm)
        self._built_worker: EmbeddingWorker | None = None

    @property
    def summaries(self) -> Summaries:
        """The sessions' running summaries, folded in the background."""
        return self._worker.summaries

    @property
    def chores(self) -> EmbeddingWorker:
        """What a turn hands on: embedding its messages, folding the session's summary."""
        return self._worker

    @property
    def _worker(self) -> EmbeddingWorker:
        """The background work: embedding, summaries, indexing (built once, on first use)."""
        with self._lock:
            if self._built_worker is None:
                # Not at start-up: `hippo log` loads none of the summary and working code.
                from assistant.memory.summary import Summaries

                summaries = Summaries(
                    self.messages, self._llm, self.shown, lambda: self.turn_settings
                )
                self._built_worker = EmbeddingWorker(
                    self.vectors,
                    self.embedder,
                    summaries,
                    self.clock,
                    write_failed=self.db.write_failed,
                )
            return self._built_worker

    # -- settings and wiring -----------------------------------------------------------

    def change_settings(self, **changes: Any) -> TurnSettings:
        """Change turn settings (``chat_model``, ``context_budget``...); a turn already
        under way keeps those it started with."""
        with self._lock:
            self.turn_settings = dataclasses.replace(self.turn_settings, **changes)
            return self.turn_settings

    @property
    def llm(self) -> OllamaGateway:
        """The gateway to Ollama."""
        return self._llm

    @llm.setter
    def llm(self, gateway: OllamaGateway) -> None:
        self.use_gateway(gateway)

    @property
    def ollama_host(self) -> str:
        """The URL of the Ollama host the engine talks to."""
        return self._llm.host

    def probe(self) -> str:
        """Ollama's version, the cheapest proof that the host is up (or ``OllamaError``)."""
        return self._llm.probe()

    def stop_calls(self) -> None:
        """Stop every call to Ollama in flight now (they fail with ``OllamaStopped``)."""
        self._llm.abort()

    def use_token(self, token: str) -> None:
        """Send ``token`` to the same host from now on (a host behind an auth proxy)."""
        self.use_gateway(self._llm.with_token(token))

    def use_gateway(self, llm: OllamaGateway) -> None:
        """Talk to Ollama through ``llm`` from now on (every part takes it), close the old
        gateway, and ask afresh what was learnt through it (models' details, digests)."""
        old = self._llm
        self._llm = self.embedder.llm = self.shown.llm = llm
        if self._built_worker is not None:
            self._built_worker.summaries.llm = llm
        self.shown.clear()
        self.embedder.listing.expire()
        if old is not llm:
            old.close()

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
        return self.embedder.model

    @property
    def vector_key(self) -> str:
        """The embedding model's full name, which keys its vectors (``name:latest``...)."""
        return self.embedder.vector_key

    # -- sessions ------------------------------------------------------------------------

    def new_session(self, *, incognito: bool = False, scope: str = "") -> Session:
        """Start a conversation: ``incognito``, nothing of it is kept once it ends;
        ``scope`` (e.g. work), it recalls general memories and those of its scope only,
        and facts learnt in it take the scope (``MemoryWriteError`` if not a scope name)."""
        scope = scope_name(scope)
        return self.messages.create_session(self.profile.id, incognito=incognito, scope=scope)

    def end_session(self, session_id: int) -> None:
        """Mark a conversation over; sleep consolidates it at its next run."""
        self.messages.end_session(session_id)

    def rename_session(self, session_id: int, title: str) -> Session:
        """Give a session of this profile a title (the user's words).

        Raises:
            NotFound: there is no such session in this profile.
        """
        self.session(session_id)
        return self.messages.rename_session(session_id, title)

    def discard_empty_reply(self, reply_id: int) -> bool:
        """Delete a reply that failed before any text came (the user's message stays)."""
        return self.messages.discard_empty_reply(reply_id)

    def last_session(self) -> Session | None:
        """The most recently active conversation with messages, if any."""
        return self.messages.last_session(self.profile.id)

    def sessions(self, limit: int = 50) -> list[Session]:
        """Recent conversations, newest first."""
        return self.messages.sessions(self.profile.id, limit)

    def session(self, session_id: int) -> Session:
        """One conversation of the current profile."""
        session = self.messages.session(session_id)
        if session.profile_id != self.profile.id:
            raise NotFound(f"Session {session_id} belongs to another profile.")
        return session

    def history(self, session_id: int, limit: int = 200) -> list[Message]:
        """The conversation's last ``limit`` messages, oldest first."""
        return self.messages.recent_messages(self.session(session_id).id, limit)

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
        turn = Turn(
            self.memory, self._llm, self.turn_settings, shown=self.shown, chores=self._worker
        )
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

        window = self.context_window(self.chat_model)
        return context_for(self.memory, self.turn_settings, window, session, user)

    def model_options(self, model: str) -> dict[str, int]:
        """Ollama options for calls to ``model``: its window (see ``context_window``)."""
        return {"num_ctx": self.context_window(model)}

    def context_window(self, model: str) -> int:
        """The tokens Hippo fills for ``model``: ``context_tokens``, or less where it reads less."""
        return self.shown.window(model, self.context_tokens)

    def model_capabilities(self, model: str) -> frozenset[str]:
        """What ``model`` can do (tools, thinking...), asked once; empty if unknown."""
        return self.shown.capabilities(model)

    # -- recall, archival and events (see ``Memory``) ---------------------------------------

    def recall(self, text: str, **options: Any) -> list[MemoryItem]:
        """Memories from every tier that bear on ``text`` (options: see ``Memory.recall``)."""
        return self.memory.recall(text, **options)

    def nearest(self, kind: str, query: str, limit: int) -> tuple[list[tuple[int, float]], Reading]:
        """The ``kind`` items nearest to ``query`` in meaning, and how the model reads it."""
        return self.memory.nearest(kind, query, limit)

    def search_messages(self, query: str, limit: int = 10) -> list[MessageHit]:
        """Messages that match ``query`` by keyword or meaning (see ``Memory``)."""
        return self.memory.search_messages(query, limit)

    def record_use(self, reply_id: int, used: Iterable[tuple[str, MemoryItem]]) -> None:
        """Remember which memories went into a reply, and count the use of each fact."""
        self.memory.record_use(reply_id, list(used))

    def memories_used(self, reply_id: int) -> list[MemoryUse]:
        """What memory went into a reply, with the scores it had then."""
        return self.memory.memories_used(reply_id)

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

    # -- embeddings and background work (see ``EmbeddingWorker``) ----------------------------

    def embed_pending(self, batch_size: int = 32, max_batches: int | None = None) -> int:
        """Embed queued memories now, in batches; return how many were stored."""
        return self._worker.embed_pending(batch_size, max_batches)

    def maintain(self, stop: threading.Event | None = None) -> None:
        """Background memory work: embed, fold summaries, index large tables."""
        self._worker.maintain(stop)

    def wake(self) -> None:
        """New text to embed: wake the background worker."""
        if self._built_worker is not None:  # none yet: no thread waits, and one starts awake
            self._built_worker.wake()

    def start_background(self) -> None:
        """Start embedding new memories in a background thread (idempotent)."""
        self._worker.start()

    def stop_background(self) -> None:
        """Stop the background thread, if running."""
        self._worker.stop()

    def pending_embeddings(self) -> int:
        """How many memories wait for a vector."""
        return self.vectors.queued()

    def take_notices(self) -> list[str]:
        """What background work has to tell the user, in plain words; each is given once."""
        taken = []
        told = getattr(self.db.keys, "notices", None)  # the key's place, a conversion
        while told:
            taken.append(told.pop(0))
        while self._notices:
            taken.append(self._notices.popleft())
        return taken

    # -- models ----------------------------------------------------------------------------

    def models(self) -> list[ModelInfo]:
        """Installed models with their capabilities."""
        return self.llm.list_models()

    def missing_models(self) -> list[str]:
        """The configured chat and embedding models the host lacks (or ``OllamaError``)."""
        listed = self.llm.list_models()
        digests = {info.name: info.digest for info in listed if info.digest}
        self.embedder.listing.saw(digests, self.clock.now())  # spares background a listing
        installed = {full_name(info.name) for info in listed}
        wanted = dict.fromkeys([self.chat_model, self.embedding_model])
        return [name for name in wanted if full_name(name) not in installed]

    def use_models(self, *, chat: str | None = None, embedding: str | None = None) -> None:
        """Switch models (the caller saves the choice); a new embedding model re-embeds."""
        if chat:
            self.change_settings(chat_model=chat)
        if embedding and self.embedder.use(embedding):
            self.vectors.requeue_missing(self.vector_key)
            self.wake()

    @property
    def settings(self) -> Settings:
        """The settings in use, as config.toml's sections (``apply_settings`` changes them)."""
        turn = self.turn_settings
        return Settings(
            ModelSettings(turn.chat_model, self.embedding_model, turn.context_tokens),
            MemorySettings(turn.working_strategy, turn.core_edits, turn.context_budget),
            self.memory.weights,
            self.sleep_settings,
        )

    def apply_settings(self, settings: Settings) -> None:
        """Use ``settings`` from now on; the one way to change a running engine's settings.

        A turn under way keeps those it started with; a new embedding model re-embeds
        every message in the background (``use_models``).
        """
        self.use_models(chat=settings.models.chat, embedding=settings.models.embedding)
        self.change_settings(
            context_tokens=settings.models.context_tokens,
            working_strategy=settings.memory.strategy,
            core_edits=settings.memory.core_edits,
            context_budget=settings.memory.budget,
        )
        self.memory.weights = settings.retrieval
        self.sleep_settings = settings.sleep

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
        return check_models(self._llm, choices)

    def pull(self, model: str, cancel: threading.Event | None = None) -> Iterator[PullProgress]:
        """Download a model, with progress summed over its layers."""
        yield from self.llm.pull(model, cancel=cancel)
        self.shown.forget(model)
        self.embedder.listing.expire()  # the pull may have brought new weights

    def delete_model(self, model: str) -> None:
        """Remove ``model`` from Ollama, freeing its disk space (the choice of models is
        the caller's: deleting one in use makes its calls fail until another is chosen).

        Raises:
            NotFound: Ollama has no such model.
            OllamaError: Ollama could not be asked.
        """
        try:
            self.llm.delete(model)
        except ModelNotFound:
            raise NotFound(
                f"Ollama at {self.ollama_host} has no model {model!r}: nothing was deleted."
            ) from None
        finally:
            self.shown.forget(model)
            self.embedder.listing.expire()

    # -- memory inspector and sleep ---------------------------------------------------------

    @functools.cached_property
    def admin(self) -> MemoryAdmin:
        """See, search, correct, review, undo, forget and export memory (``MemoryAdmin``)."""
        from assistant.admin.wiring import build_admin  # the inspector's code: first use only

        return build_admin(self)

    @property
    def sleep(self) -> Sleep:
        """The consolidation over this engine's stores and models as they are now."""
        from assistant.sleep import ModelView, Sleep, SleepDeps  # sleep's code: first use only

        models = ModelView(
            self.chat_model,
            self.embedding_model,
            self.context_tokens,
            self.context_window,
            self.model_capabilities,
            self.model_options,
        )
        return Sleep(
            SleepDeps(
                self.db,
                self.llm,
                self.clock,
                self.profile,
                self.messages,
                self.facts,
                self.episodes,
                self.events,
                self.entities,
                self.vectors,
                self.usage,
                self.retriever.retrieve,
                models,
                self._sleep_copy,
            ),
            settings=self.sleep_settings,  # config.toml's [sleep], unless a call names others
        )

    @contextlib.contextmanager
    def _sleep_copy(self, path: Path) -> Iterator[SleepDeps]:
        """Sleep's dependencies over a copy of the data file, with this engine's settings."""
        twin = Hippo(path, self.llm, chat_model=self.chat_model,
                     embedding_model=self.embedding_model, profile=self.profile.name,
                     clock=self.clock)  # fmt: skip
        twin.apply_settings(self.settings)  # a preview asks the model as the real run would
        try:
            yield twin.sleep.deps
        finally:
            twin.db.close()

    def consolidate(self, **options: Any) -> SleepReport:
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
        worker = self._built_worker
        if worker is not None:
            worker.stopping()
        self._llm.abort()
        if worker is not None:
            worker.stop()
        self.db.close()
        self.llm.close()
