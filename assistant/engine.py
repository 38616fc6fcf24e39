"""The engine: one object the UI, the CLI and the scheduler share. Headless and synchronous.

Slow calls (chat, embed, pull) are meant to run off the UI thread; the engine keeps
one SQLite connection per thread, so any thread may call it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.clock import Clock, SystemClock
from assistant.errors import HippoError, OllamaError
from assistant.llm.events import Done, ModelInfo, PullProgress, TextDelta, ThinkingDelta
from assistant.llm.prompts import system_prompt
from assistant.memory.archival import ArchiveStore, IngestReport
from assistant.memory.episodes import EpisodeStore
from assistant.memory.events import Event, EventStore, LogResult
from assistant.memory.importance import rate_importance
from assistant.memory.models import Message, MessageHit, Profile, Session
from assistant.memory.retrieval import Memory, Query, Retriever
from assistant.memory.search import fuse_hits
from assistant.memory.store import MessageStore
from assistant.memory.tier_adapters import ChunkTier, EpisodeTier, EventTier
from assistant.memory.tiers import MessageTier
from assistant.memory.vectors import VectorStore
from assistant.tokens import estimate_tokens
from assistant.turns import (
    ReplyCancelled,
    ReplyDone,
    ReplyFailed,
    ReplyStarted,
    TurnEvent,
    UserSaved,
)
from data_schema.connect import Database

if TYPE_CHECKING:
    from assistant.llm.gateway import OllamaGateway
    from assistant.memory.embedding import EmbeddingWorker

__all__ = ["Hippo"]

# How often a streaming reply's partial text is saved, so a killed process keeps it.
_SAVE_EVERY_S = 1.0
_SEARCH_CANDIDATES = 50


class Hippo:
    """Hippo's memory and chat engine over one data file.

    Args:
        db: the data file (a path, or an open ``Database``).
        llm: the Ollama gateway.
        chat_model: the model that answers.
        embedding_model: the model that embeds messages and queries.
        profile: the profile to work in; nothing crosses profiles.
        context_tokens: the chat model's context window, which bounds working memory.
        clock: the time source.
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
    ) -> None:
        self.db = db if isinstance(db, Database) else Database(db)
        self.llm = llm
        self.chat_model = chat_model
        self.embedding_model = embedding_model
        self.context_tokens = context_tokens
        self.clock = clock or SystemClock()
        self.messages = MessageStore(lambda: self.db.conn, self.clock)
        self.vectors = VectorStore(lambda: self.db.conn, self.clock)
        self.episodes = EpisodeStore(lambda: self.db.conn, self.clock)
        self.archive = ArchiveStore(lambda: self.db.conn, self.clock)
        self.events = EventStore(lambda: self.db.conn, self.clock)
        self.retriever = Retriever(
            [
                MessageTier(self.messages),
                EpisodeTier(self.episodes),
                ChunkTier(self.archive),
                EventTier(self.events),
            ],
            self.vectors,
            lambda: self.vectors.model(self.embedding_model),
        )
        self.profile: Profile = self.messages.profile(profile)
        self.messages.mark_interrupted()
        self._capabilities: dict[str, frozenset[str]] = {}
        self.embedded = threading.Event()  # set after each stored batch, for waiters
        self._new_text = threading.Event()
        self._worker: EmbeddingWorker | None = None

    # -- sessions ---------------------------------------------------------------

    def new_session(self, *, incognito: bool = False) -> Session:
        """Start a new conversation in the current profile."""
        return self.messages.create_session(self.profile.id, incognito=incognito)

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
            raise HippoError(f"Session {session_id} belongs to another profile.")
        return session

    def history(self, session_id: int, limit: int = 200) -> list[Message]:
        """The conversation's last ``limit`` messages, oldest first."""
        return self.messages.recent_messages(self.session(session_id).id, limit)

    # -- chat -------------------------------------------------------------------

    def send(
        self, session_id: int, text: str, *, cancel: threading.Event | None = None
    ) -> Iterator[TurnEvent]:
        """Answer ``text`` in a session, streaming typed events.

        The user's message is stored before anything is sent; the reply is stored as
        it streams and closed as done, cancelled (``cancel`` set, or the caller stops
        iterating) or failed. Errors arrive as ``ReplyFailed``, never as exceptions.
        """
        if not text.strip():
            raise HippoError("The message is empty: type something to send.")
        session = self.session(session_id)
        user = self.messages.add_message(
            session.id, "user", text, importance=rate_importance(text, "user")
        )
        self.wake()
        yield UserSaved(user)
        prompt = self._prompt(session.id)
        reply = self.messages.add_message(
            session.id, "assistant", "", status="streaming", model=self.chat_model
        )
        yield ReplyStarted(reply)
        yield from self._stream_reply(reply, prompt, cancel or threading.Event())

    def _stream_reply(
        self, reply: Message, prompt: list[dict[str, str]], cancel: threading.Event
    ) -> Iterator[TurnEvent]:
        content: list[str] = []
        thinking: list[str] = []
        saved_at = time.monotonic()
        outcome: TurnEvent | None = None

        def save(status: str, error: str = "") -> Message:
            return self.messages.update_message(
                reply.id,
                content="".join(content),
                thinking="".join(thinking),
                status=status,
                error=error,  # type: ignore[arg-type]
            )

        try:
            think = True if "thinking" in self._model_capabilities(self.chat_model) else None
            for event in self.llm.chat(self.chat_model, prompt, think=think, cancel=cancel):
                if isinstance(event, TextDelta):
                    content.append(event.text)
                elif isinstance(event, ThinkingDelta):
                    thinking.append(event.text)
                elif isinstance(event, Done):
                    break
                yield event
                if time.monotonic() - saved_at > _SAVE_EVERY_S:
                    save("streaming")
                    saved_at = time.monotonic()
            if cancel.is_set():
                outcome = ReplyCancelled(save("cancelled"))
            else:
                outcome = ReplyDone(save("complete"))
                self.wake()
        except HippoError as exc:
            outcome = ReplyFailed(save("failed", str(exc)), exc)
        finally:
            if outcome is None:  # the caller stopped iterating: a cancel by another name
                save("cancelled")
        yield outcome

    def _prompt(self, session_id: int) -> list[dict[str, str]]:
        """System prompt plus as much recent conversation as half the context allows."""
        system = system_prompt(self.clock.now())
        budget = self.context_tokens // 2 - estimate_tokens(system)
        turns: list[dict[str, str]] = []
        for message in reversed(self.messages.recent_messages(session_id, 400)):
            if message.status == "failed" or not message.content.strip():
                continue
            budget -= message.tokens
            if budget < 0 and turns:
                break
            turns.append({"role": message.role, "content": message.content})
        return [{"role": "system", "content": system}, *reversed(turns)]

    def _model_capabilities(self, model: str) -> frozenset[str]:
        if model not in self._capabilities:
            try:
                self._capabilities[model] = self.llm.show(model).capabilities
            except OllamaError:
                return frozenset()
        return self._capabilities[model]

    # -- recall -----------------------------------------------------------------

    def search_messages(self, query: str, limit: int = 10) -> list[MessageHit]:
        """Messages of the current profile that match ``query`` by keyword or meaning.

        Keyword (FTS5 BM25) and vector (sqlite-vec cosine) candidates are fused; when
        Ollama can't embed the query, keyword hits alone are returned.
        """
        keyword = self.messages.keyword_search(self.profile.id, query, _SEARCH_CANDIDATES)
        vector: list[tuple[int, float]] = []
        model = self.vectors.model(self.embedding_model)
        if model is not None and query.strip():
            try:
                (query_vector,) = self.llm.embed(self.embedding_model, [query])
                vector = self.vectors.nearest(
                    model, "message", self.profile.id, query_vector, _SEARCH_CANDIDATES
                )
            except OllamaError:
                vector = []
        ranked = fuse_hits(keyword, vector)[:limit]
        found = self.messages.messages_by_id([message_id for message_id, *_ in ranked])
        return [
            MessageHit(found[mid], score, kw, vec) for mid, score, kw, vec in ranked if mid in found
        ]

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
        if query_vector is None and text.strip():
            try:
                (query_vector,) = self.llm.embed(self.embedding_model, [text])
            except OllamaError:
                query_vector = None
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

    def log_events_json(self, lines: Iterable[str], *, source: str = "cli") -> LogResult:
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
        installed = {_full_name(info.name) for info in self.llm.list_models()}
        wanted = dict.fromkeys([self.chat_model, self.embedding_model])
        return [name for name in wanted if _full_name(name) not in installed]

    def use_models(self, *, chat: str | None = None, embedding: str | None = None) -> None:
        """Switch the chat and/or embedding model (the caller saves the choice).

        A new embedding model re-embeds every message in the background.
        """
        if chat:
            self.chat_model = chat
        if embedding and embedding != self.embedding_model:
            self.embedding_model = embedding
            self.vectors.requeue_missing(embedding)
            self.wake()

    def pull(self, model: str, cancel: threading.Event | None = None) -> Iterator[PullProgress]:
        """Download a model, with progress summed over its layers."""
        yield from self.llm.pull(model, cancel=cancel)
        self._capabilities.pop(model, None)

    def close(self) -> None:
        """Stop background work and close the data file's connections."""
        self.stop_background()
        self.db.close()


def _full_name(model: str) -> str:
    """Ollama's name for a model: ``name:latest`` where no tag is given."""
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"
