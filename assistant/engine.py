"""The engine: one object the UI, the CLI and the scheduler share. Headless and synchronous.

Slow calls (chat, embed, pull) are meant to run off the UI thread; the engine keeps
one SQLite connection per thread, so any thread may call it.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant.clock import Clock, SystemClock
from assistant.errors import HippoError, InvalidInput, NotFound, OllamaError
from assistant.llm.names import full_name
from assistant.memory.budget import ContextBudget
from assistant.memory.incognito import RoutedMessages
from assistant.memory.models import Message, MessageHit, Profile, Session, scope_name
from assistant.memory.vectors import VectorStore
from assistant.memory.weights import Digests, stamp
from assistant.settings import SleepSettings
from data_schema.connect import Database

# Only what opening the file and `hippo log` need is imported here: scripts call
# `hippo log` in loops, and each import costs every call. Chat, search and summary
# modules load on first use, in the methods that need them.
if TYPE_CHECKING:
    from assistant.admin import MemoryAdmin
    from assistant.llm.events import ModelInfo, PullProgress
    from assistant.llm.gateway import OllamaGateway
    from assistant.memory.archival import ArchiveStore, IngestReport
    from assistant.memory.context import Stores, TurnContext
    from assistant.memory.core import CoreMemory
    from assistant.memory.core_proposals import CoreEditMode, CoreProposals
    from assistant.memory.embedding import EmbeddingWorker
    from assistant.memory.entities import EntityStore
    from assistant.memory.episodes import EpisodeStore
    from assistant.memory.events import Event, EventStore, LogResult
    from assistant.memory.facts import FactStore
    from assistant.memory.reading import Reading, ReadingProbe
    from assistant.memory.retrieval import Memory, Retriever
    from assistant.memory.scoring import RetrievalWeights
    from assistant.memory.usage import MemoryUse, UsageStore
    from assistant.memory.working import Strategy
    from assistant.settings import Settings
    from assistant.sleep import AwayNotice, Sleep, SleepDeps, SleepReport
    from assistant.turns import TurnEvent

__all__ = ["Hippo"]

_SEARCH_CANDIDATES = 50
# Embedding models on Ollama that read many languages, Chinese among them.
_MULTILINGUAL = ("embeddinggemma", "bge-m3")


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
        sleep: the consolidation's settings (config.toml's ``[sleep]``).
    """

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
        sleep: SleepSettings | None = None,
    ) -> None:
        self.db = db if isinstance(db, Database) else Database(db)
        self.llm = llm
        self.chat_model = chat_model
        self.embedding_model = embedding_model
        self.context_tokens = context_tokens
        self.clock = clock or SystemClock()
        # Incognito chats are kept in memory by this store: they never reach the file.
        self.messages = RoutedMessages(lambda: self.db.conn, self.clock)
        self.vectors = VectorStore(lambda: self.db.conn, self.clock)
        self.working_strategy: Strategy = working_strategy
        self.context_budget = context_budget or ContextBudget()
        self._weights = weights
        self.core_edits: CoreEditMode = core_edits
        self.sleep_settings = sleep or SleepSettings()
        self.profile: Profile = self.messages.profile(profile)
        self.messages.mark_interrupted()
        self._shown: dict[str, ModelInfo] = {}
        self.embedded = threading.Event()  # set after each stored batch, for waiters
        self._new_text = threading.Event()
        self._worker: EmbeddingWorker | None = None
        self._summaries_due: set[int] = set()
        self._digests = Digests()
        self._notices: deque[str] = deque()

    # -- tiers, built on first use: start-up needs only messages and vectors ----------

    @functools.cached_property
    def usage(self) -> UsageStore:
        """Which memories went into each reply."""
        from assistant.memory.incognito_usage import RoutedUsage

        return RoutedUsage(lambda: self.db.conn, self.messages.incognito)

    @functools.cached_property
    def episodes(self) -> EpisodeStore:
        """Mid-term memory: what happened in each session."""
        from assistant.memory.episodes import EpisodeStore

        return EpisodeStore(lambda: self.db.conn, self.clock)

    @functools.cached_property
    def archive(self) -> ArchiveStore:
        """Archival memory: documents and notes."""
        from assistant.memory.archival import ArchiveStore

        return ArchiveStore(lambda: self.db.conn, self.clock)

    @functools.cached_property
    def events(self) -> EventStore:
        """Sensory memory: events from outside the chat."""
        from assistant.memory.events import EventStore

        return EventStore(lambda: self.db.conn, self.clock)

    @functools.cached_property
    def facts(self) -> FactStore:
        """The long-term profile: facts with evidence and history."""
        from assistant.memory.facts import FactStore

        return FactStore(lambda: self.db.conn, self.clock)

    @functools.cached_property
    def core(self) -> CoreMemory:
        """Core memory: the human and persona blocks."""
        from assistant.memory.core import CoreMemory

        return CoreMemory(lambda: self.db.conn, self.clock)

    @functools.cached_property
    def core_proposals(self) -> CoreProposals:
        """The model's core memory edits awaiting the user's review."""
        from assistant.memory.core_proposals import CoreProposals

        return CoreProposals(lambda: self.db.conn, self.clock)

    @functools.cached_property
    def entities(self) -> EntityStore:
        """Entities and their links to memory items."""
        from assistant.memory.entities import EntityStore

        return EntityStore(lambda: self.db.conn, self.clock)

    @functools.cached_property
    def retriever(self) -> Retriever:
        """One retrieval over every tier."""
        from assistant.memory.retrieval import Retriever
        from assistant.memory.tier_adapters import ChunkTier, EpisodeTier, EventTier, FactTier
        from assistant.memory.tiers import MessageTier

        return Retriever(
            [
                MessageTier(self.messages),
                FactTier(self.facts),
                EpisodeTier(self.episodes),
                ChunkTier(self.archive),
                EventTier(self.events),
            ],
            self.vectors,
            lambda: self.vectors.model(self.vector_key),
            self._weights,
        )

    @functools.cached_property
    def _reading(self) -> ReadingProbe:
        """How well the embedding model reads each script, asked once per model and script."""
        from assistant.memory.reading import ReadingProbe, ReadingStore

        return ReadingProbe(
            self.llm.embed,
            ReadingStore(lambda: self.db.conn, self.clock),
            on_measured=self._unread_script,
        )

    def _unread_script(self, model: str, script: str, trust: float) -> None:
        """Tell the user, once per model and script, that the model does not read it."""
        from assistant.memory.reading import SCRIPT_NAMES

        if trust > 0:
            return
        language = SCRIPT_NAMES.get(script, script)
        others = ", ".join(m for m in _MULTILINGUAL if full_name(m) != full_name(model))
        self._notices.append(
            f"The embedding model {model} does not read {language}: Hippo finds your "
            f"{language} memories by their words, not their meaning. A model that reads it "
            f"({others}) can be chosen with F2, or `hippo models use --embedding NAME`."
        )

    @functools.cached_property
    def _stores(self) -> Stores:
        from assistant.memory.context import Stores

        return Stores(self.core, self.facts, self.episodes, self.events, self.entities)

    # -- sessions ---------------------------------------------------------------

    def new_session(self, *, incognito: bool = False, scope: str = "") -> Session:
        """Start a new conversation in the current profile.

        Args:
            incognito: nothing of it is kept once it ends.
            scope: what it is about (e.g. work): it recalls general memories and those
                of its scope only, and facts learnt in it take the scope.

        Raises:
            MemoryWriteError: ``scope`` is not a scope name.
        """
        return self.messages.create_session(
            self.profile.id, incognito=incognito, scope=scope_name(scope)
        )

    def end_session(self, session_id: int) -> None:
        """Mark a conversation over: its app closed, its `ask` ended, or another was opened.

        Sleep consolidates a session once it is over (or idle long enough), so
        ``hippo sleep --now`` takes it at once.
        """
        self.messages.end_session(session_id)

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

    # -- the data file ----------------------------------------------------------

    def storage_error(self, exc: BaseException) -> HippoError | None:
        """What ``exc`` means for the data file if it is SQLite's error, else None."""
        return self.db.storage_error(exc)

    # -- chat -------------------------------------------------------------------

    def send(
        self,
        session_id: int,
        text: str,
        *,
        cancel: threading.Event | None = None,
        pasted: bool = False,
    ) -> Iterator[TurnEvent]:
        """Answer ``text`` in a session, streaming typed events.

        The user's message is stored before anything is sent; the reply is stored as
        it streams and closed as done, cancelled (``cancel`` set, or the caller stops
        iterating) or failed. Errors arrive as ``ReplyFailed``, except one: a message
        the data file can't take (a full disk) raises ``StorageError`` as iteration
        starts, with nothing of it saved.

        ``pasted``: the user pasted the text (a bracketed paste). A message that quotes
        an email, a page or a chat log is taken as pasted too. What sleep draws from a
        pasted message waits for review: it is not the user's own word.
        """
        if not text.strip():
            raise InvalidInput("The message is empty: type something to send.")
        session = self.session(session_id)
        from assistant.chat import ChatTurn  # with the tools: needed at the first send only

        cancel = cancel or threading.Event()
        return self._stopping_on(ChatTurn(self, session, text, cancel, pasted=pasted).run(), cancel)

    def _stopping_on(
        self, events: Iterator[TurnEvent], cancel: threading.Event
    ) -> Iterator[TurnEvent]:
        """The turn's events; ``cancel`` stops each of its calls to Ollama, whichever it is
        (the query's embedding and the model check too, not only the reply's stream)."""
        with self.llm.stopping_on(cancel):
            yield from events

    def context_for(self, session: Session, user: Message) -> TurnContext:
        """The prompt for answering ``user``: memory sections and working memory."""
        from assistant.memory.working import select_turns

        summary, upto = self.messages.summary(session.id)
        working = select_turns(
            self.messages.recent_messages(session.id, 400),
            strategy=self.working_strategy,
            budget=self.context_window(self.chat_model) // 2,
            summary=summary,
            summary_upto=upto,
        )
        from assistant.memory.context import build_context

        scopes = (session.scope,) if session.scope else None
        return build_context(
            stores=self._stores,
            profile_id=self.profile.id,
            now=self.clock.now(),
            working=working,
            recall=lambda exclude: self.recall(
                user.content, limit=12, scopes=scopes, exclude=exclude
            ),
            query=user.content,
            scopes=scopes,
            budget=self.context_budget,
        )

    def record_use(self, reply_id: int, used: Sequence[tuple[str, Memory]]) -> None:
        """Remember which memories went into a reply, and count the use of each fact."""
        from assistant.memory.usage import memory_uses

        self.usage.record(memory_uses(reply_id, list(used)))
        self.facts.touch([m.item_id for _, m in used if m.kind == "fact"], self.clock.now())

    def memories_used(self, reply_id: int) -> list[MemoryUse]:
        """What memory went into a reply, with the scores it had then."""
        return self.usage.for_reply(reply_id)

    def after_reply(self, session_id: int) -> None:
        """Queue the session's summary update for the background worker."""
        if self.working_strategy in ("summary", "summary_buffer"):
            self._summaries_due.add(session_id)
        self.wake()

    def update_summaries(self) -> int:
        """Fold turns that left the prompt into their sessions' summaries; return how many.

        Runs after replies, in the background; a failure keeps the old summary.
        """
        from assistant.memory.summary import fold_into_summary
        from assistant.memory.working import select_turns

        done = 0
        for session_id in list(self._summaries_due):
            self._summaries_due.discard(session_id)
            summary, upto = self.messages.summary(session_id)
            working = select_turns(
                self.messages.recent_messages(session_id, 400),
                strategy=self.working_strategy,
                budget=self.context_window(self.chat_model) // 2,
                summary=summary,
                summary_upto=upto,
            )
            if not working.to_summarise:
                continue
            try:
                text = fold_into_summary(
                    self.llm,
                    self.chat_model,
                    summary,
                    working.to_summarise,
                    can_think="thinking" in self.model_capabilities(self.chat_model),
                )
            except OllamaError:
                self._summaries_due.add(session_id)
                break
            self.messages.set_summary(session_id, text, working.to_summarise[-1].id)
            done += 1
        return done

    def chat_options(self) -> dict[str, int]:
        """Ollama options for chat calls: a context window that fits what Hippo sends."""
        return self.model_options(self.chat_model)

    def model_options(self, model: str) -> dict[str, int]:
        """Ollama options for calls to ``model``: its window (see ``context_window``)."""
        return {"num_ctx": self.context_window(model)}

    def context_window(self, model: str) -> int:
        """The tokens Hippo fills for ``model``: ``context_tokens``, or less where the model
        reads less (its context length from ``/api/show``), as asking for more than the
        model has makes Ollama truncate the prompt from the start."""
        shown = self._show(model)
        length = shown.context_length if shown is not None else None
        return min(self.context_tokens, length) if length else self.context_tokens

    def model_capabilities(self, model: str) -> frozenset[str]:
        """What ``model`` can do (tools, thinking...), asked once; empty if unknown."""
        shown = self._show(model)
        return shown.capabilities if shown is not None else frozenset()

    def _show(self, model: str) -> ModelInfo | None:
        """What ``/api/show`` says about ``model``, asked once; None while it can't be asked."""
        if model not in self._shown:
            try:
                self._shown[model] = self.llm.show(model)
            except OllamaError:
                return None
        return self._shown[model]

    # -- recall -----------------------------------------------------------------

    def search_messages(self, query: str, limit: int = 10) -> list[MessageHit]:
        """Messages of the current profile that match ``query`` by keyword or meaning.

        Keyword (FTS5 BM25, on each message's own words) and vector (sqlite-vec cosine)
        candidates are fused as recall fuses them, with the configured retrieval weights
        (see ``assistant.memory.search``); when Ollama can't embed the query, keyword hits
        alone are returned.
        """
        from assistant.memory.search import fuse_hits

        # Keyword hits match in the message itself: a match only in the turn before or
        # after would show an unrelated message as a keyword hit.
        keyword = self.messages.keyword_search(
            self.profile.id, query, _SEARCH_CANDIDATES, own_text=True
        )
        vector, reading = self.nearest("message", query, _SEARCH_CANDIDATES)
        weights = self.retriever.weights  # the configured ones, as recall ranks with them
        ranked = fuse_hits(keyword, vector, weights, reading.trust, reading.gap)[:limit]
        found = self.messages.messages_by_id([message_id for message_id, *_ in ranked])
        return [
            MessageHit(found[mid], score, kw, vec, reading.trust)
            for mid, score, kw, vec in ranked
            if mid in found
        ]

    def nearest(self, kind: str, query: str, limit: int) -> tuple[list[tuple[int, float]], Reading]:
        """The ``kind`` items nearest to ``query`` in meaning, and how the model reads it.

        Returns (id, cosine) pairs, best first, and what the probe knows of the embedding
        model on the query's script (its trust and paraphrase gap, see ``reading``). No
        vector was ever made, an empty query, or an Ollama that can't embed: no pairs.
        """
        from assistant.memory.reading import UNKNOWN

        model = self.vectors.model(self.vector_key)
        if model is None:
            return [], UNKNOWN
        query_vector, reading = self._embedded(query)
        if query_vector is None or reading is None:
            return [], UNKNOWN
        found = self.vectors.nearest(model, kind, self.profile.id, query_vector, limit)
        return found, reading

    def _embedded(self, text: str) -> tuple[Sequence[float] | None, Reading | None]:
        """``text``'s embedding as a query, and what the probe knows of the model on its
        script (see ``reading``).

        An empty text, or an Ollama that can't embed: neither.
        """
        if not text.strip():
            return None, None
        try:
            (vector,) = self.llm.embed(self.embedding_model, [text], purpose="query")
        except OllamaError:
            return None, None
        self.check_embedding_size(len(vector))
        return vector, self._reading.reading(self.embedding_model, text)

    def recall(
        self,
        text: str,
        *,
        limit: int = 10,
        kinds: tuple[str, ...] | None = None,
        as_of: datetime | None = None,
        scopes: tuple[str, ...] | None = None,
        exclude: frozenset[tuple[str, int]] = frozenset(),
        query_vector: Sequence[float] | None = None,
    ) -> list[Memory]:
        """Memories from every tier that bear on ``text``, scored and de-duplicated.

        Args:
            text: what to recall for (usually the user's message).
            limit: how many memories at most.
            kinds: which tiers (default: all).
            as_of: recall as things stood at this past time.
            scopes: the session's scopes (None: all).
            exclude: (kind, id) items already in the prompt.
            query_vector: the text's embedding, if already made; otherwise it is made
                here, and on failure retrieval falls back to keywords.
        """
        if query_vector is None:
            query_vector, reading = self._embedded(text)
        else:
            reading = self._reading.reading(self.embedding_model, text)
        from assistant.memory.retrieval import Query

        query = Query(
            text=text,
            profile_id=self.profile.id,
            now=self.clock.now(),
            limit=limit,
            kinds=kinds or tuple(self.retriever.tiers),
            scopes=scopes,
            as_of=as_of,
            exclude=exclude,
            vector=query_vector,
            vector_trust=reading.trust if reading else 1.0,
            vector_gap=reading.gap if reading else None,
        )
        return self.retriever.retrieve(query)

    # -- archival and events -------------------------------------------------------

    def ingest(self, path: Path | str) -> IngestReport:
        """Add a text/Markdown file, or every such file under a folder, to archival memory.

        An unchanged file is skipped; a changed one replaces its chunks.
        """
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

    # -- embeddings ---------------------------------------------------------------

    def embed_pending(self, batch_size: int = 32, max_batches: int | None = None) -> int:
        """Embed queued messages in batches; return how many were stored.

        A failed batch stays queued with a growing delay and is retried later; the
        messages themselves are never touched.
        """
        from assistant.memory.embedding import embed_queued

        return embed_queued(self, batch_size, max_batches)

    @property
    def vector_key(self) -> str:
        """The embedding model's full name, which keys its vectors (``name:latest``...)."""
        return full_name(self.embedding_model)

    def embedding_digest(self) -> str | None:
        """What new vectors are recorded as made with: weights and prefix (see ``stamp``).

        The weights are named by their digest in Ollama's latest listing, if any.
        """
        return stamp(self._digests.known(self.vector_key), self.vector_key)

    def check_embedding_weights(self) -> None:
        """Re-embed everything if the embedding model's weights changed (a pull, say).

        Background work, before embedding: it lists Ollama's models when its latest
        listing is a few minutes old (see `assistant.memory.weights`).
        """
        from assistant.memory.weights import renew_if_reweighted

        digest = self._digests.current(self.vector_key, self.llm.digests, self.clock.now())
        notice = renew_if_reweighted(self.vectors, self._reading, self.vector_key, digest)
        if notice is not None:
            self._notices.append(notice)

    def check_embedding_size(self, dim: int) -> None:
        """Re-embed everything if the embedding model now makes vectors of ``dim`` numbers
        where the stored ones have another size (see `assistant.memory.weights`)."""
        from assistant.memory.weights import renew_if_resized

        notice = renew_if_resized(self.vectors, self._reading, self.vector_key, dim)
        if notice is not None:
            self._notices.append(notice)

    def take_notices(self) -> list[str]:
        """What background work has to tell the user, in plain words; each is given once."""
        taken = []
        told = getattr(self.db.keys, "notices", None)  # the key's place, a conversion
        while told:
            taken.append(told.pop(0))
        while self._notices:
            taken.append(self._notices.popleft())
        return taken

    def pending_embeddings(self) -> int:
        """How many memories wait for a vector."""
        return self.vectors.queued()

    def maintain(self, stop: threading.Event | None = None) -> None:
        """Background memory work: embed, fold old turns into summaries, index large tables.

        ``stop`` is checked between batches, so a closing app is not held up.
        """
        from assistant.memory.embedding import embed_queued

        embed_queued(self, stop=stop)
        if stop is None or not stop.is_set():
            self.update_summaries()
        model = self.vectors.model(self.vector_key)
        if model is not None and (stop is None or not stop.is_set()):
            self.vectors.build_cells(model, stop)

    def wait_for_text(self, timeout: float) -> bool:
        """Block until a new message is stored (or ``timeout``); for the embedding worker."""
        woke = self._new_text.wait(timeout)
        self._new_text.clear()
        return woke

    def wake(self) -> None:
        """Wake whatever waits in ``wait_for_text`` (new text, or time to stop)."""
        self._new_text.set()

    def start_background(self) -> None:
        """Start embedding new messages in a background thread (idempotent)."""
        from assistant.memory.embedding import EmbeddingWorker

        if self._worker is None:
            self._worker = EmbeddingWorker(self)
            self._worker.start()

    def stop_background(self) -> None:
        """Stop the background embedding thread, if running."""
        if self._worker is not None:
            self._worker.stop()
            self._worker = None

    # -- models -----------------------------------------------------------------

    def models(self) -> list[ModelInfo]:
        """Installed models with their capabilities."""
        return self.llm.list_models()

    def missing_models(self) -> list[str]:
        """The configured chat and embedding models that the host lacks.

        Raises:
            OllamaError: the host can't be asked.
        """
        listed = self.llm.list_models()
        digests = {info.name: info.digest for info in listed if info.digest}
        self._digests.saw(digests, self.clock.now())  # spares background work a listing
        installed = {full_name(info.name) for info in listed}
        wanted = dict.fromkeys([self.chat_model, self.embedding_model])
        return [name for name in wanted if full_name(name) not in installed]

    def use_models(self, *, chat: str | None = None, embedding: str | None = None) -> None:
        """Switch the chat and/or embedding model (the caller saves the choice).

        A new embedding model re-embeds every message in the background.
        """
        if chat:
            self.chat_model = chat
        if embedding and full_name(embedding) != self.vector_key:
            self.embedding_model = embedding
            self.vectors.requeue_missing(self.vector_key)
            self.wake()

    # -- the Ollama host ----------------------------------------------------------------

    @property
    def ollama_host(self) -> str:
        """The URL of the Ollama host the engine talks to."""
        return self.llm.host

    def probe(self) -> str:
        """Ollama's version: the cheapest proof that the host is up.

        Raises:
            OllamaError: the host is unreachable or did not answer as Ollama does.
        """
        return self.llm.probe()

    def stop_calls(self) -> None:
        """Stop every call to Ollama in flight now (they fail with ``OllamaStopped``)."""
        self.llm.abort()

    def use_token(self, token: str) -> None:
        """Send ``token`` to the same host from now on (a host behind an auth proxy)."""
        self.use_gateway(self.llm.with_token(token))

    def use_gateway(self, llm: OllamaGateway) -> None:
        """Talk to Ollama through ``llm`` from now on, and close the gateway used so far.

        What the engine learnt through the old gateway is forgotten, so the new host is
        asked afresh: models' details, the installed digests, and the reading probe
        (which embeds through the gateway it was built with).
        """
        old, self.llm = self.llm, llm
        self._shown.clear()
        self._digests.expire()
        self.__dict__.pop("_reading", None)  # a cached_property: built again on next use
        if old is not llm:
            old.close()

    @property
    def settings(self) -> Settings:
        """The settings in use (``apply_settings`` changes them)."""
        from assistant.settings import MemorySettings, ModelSettings, RetrievalWeights, Settings

        # The retriever is built on first use; until then its weights wait in _weights.
        built = "retriever" in vars(self)
        weights = self.retriever.weights if built else self._weights or RetrievalWeights()
        return Settings(
            ModelSettings(self.chat_model, self.embedding_model, self.context_tokens),
            MemorySettings(self.working_strategy, self.core_edits, self.context_budget),
            weights,
            self.sleep_settings,
        )

    def apply_settings(self, settings: Settings) -> None:
        """Use ``settings`` from now on; the one way to change a running engine's settings.

        A new embedding model re-embeds every message in the background (``use_models``).
        """
        self.use_models(chat=settings.models.chat, embedding=settings.models.embedding)
        self.context_tokens = settings.models.context_tokens
        self.working_strategy = settings.memory.strategy
        self.core_edits = settings.memory.core_edits
        self.context_budget = settings.memory.budget
        self._weights = settings.retrieval
        if "retriever" in vars(self):  # built already: it holds the weights it was given
            self.retriever.weights = settings.retrieval
        self.sleep_settings = settings.sleep

    def pull(self, model: str, cancel: threading.Event | None = None) -> Iterator[PullProgress]:
        """Download a model, with progress summed over its layers."""
        yield from self.llm.pull(model, cancel=cancel)
        self._shown.pop(model, None)
        self._digests.expire()  # the pull may have brought new weights

    # -- memory inspector --------------------------------------------------------------

    @functools.cached_property
    def admin(self) -> MemoryAdmin:
        """See, search, correct, review, undo, forget and export memory (``MemoryAdmin``)."""
        from assistant.admin.wiring import build_admin

        return build_admin(self)

    # -- sleep (consolidation) -------------------------------------------------------

    @property
    def sleep(self) -> Sleep:
        """The consolidation over this engine's stores and models as they are now."""
        from assistant.sleep import ModelView, Sleep, SleepDeps

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
        twin = Hippo(
            path,
            self.llm,
            chat_model=self.chat_model,
            embedding_model=self.embedding_model,
            profile=self.profile.name,
            clock=self.clock,
        )
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
        """Stop background work, close the data file's connections and the gateway.

        Calls to Ollama in flight are stopped first, so that no thread waiting on a hung
        host delays the close.
        """
        if self._worker is not None:
            self._worker.stopping()
        self.llm.abort()
        self.stop_background()
        self.db.close()
        self.llm.close()
