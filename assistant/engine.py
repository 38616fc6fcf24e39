"""The engine: the one object the UI, the CLI and the scheduler share; headless and synchronous.

``Hippo`` builds its parts (``assistant.wiring``) and holds them: callers use the parts
themselves (``engine.conversations``, ``.host``, ``.background``, ``.live_settings``,
``.memory``, ``.admin``, ``.sleep``), and the engine does only what takes several of
them. None of the parts knows the engine, so data flows one way. Slow calls (chat,
embed, pull) are meant to run off the UI thread; any thread may call (one SQLite
connection per thread). What the threads share, and how, is in ARCHITECTURE.md.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.clock import Clock, SystemClock
from assistant.datakey import KeyStore
from assistant.errors import InvalidInput
from assistant.intake import Intake
from assistant.memory.budget import ContextBudget
from assistant.settings import SleepSettings
from assistant.turn_settings import TurnSettings
from assistant.wiring import build_parts
from data_schema.connect import Database

# Only what opening the file and `hippo log` need is imported here: scripts call
# `hippo log` in loops, and each import costs every call. Chat, admin and sleep modules
# load on first use, in the methods that need them.
if TYPE_CHECKING:
    from assistant.admin import MemoryAdmin
    from assistant.llm.backend import ChatBackend
    from assistant.memory.context import TurnContext
    from assistant.memory.core_proposals import CoreEditMode
    from assistant.memory.embedder import Probe
    from assistant.memory.records import Message, Session
    from assistant.memory.scoring import RetrievalWeights
    from assistant.memory.vector_cells import CellSizes
    from assistant.memory.working import Strategy
    from assistant.sleep import Progress, Sleep, SleepReport
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
        core_edits: ``review`` (default): the model's core memory edits wait for the user;
            ``apply``: they apply at once, unless the turn holds instruction-like or pasted text.
        save_every_s: how often a streaming reply's partial text is saved.
        reading: how well the embedding model reads each script (default: ask it, once).
        cells: how large vector tables are split into cells and searched.
        sleep: the consolidation's settings (config.toml's ``[sleep]``).
        sleep_backups: back the data file up before each sleep run (the default); off
            for a caller that keeps copies of its own (see ``assistant.sleep.Sleep``).

    Attributes:
        clock: the time source.
        memory: the profile, the stores, retrieval and ``recall`` (not the UI's: a test checks).
        conversations: the profile's sessions and their messages.
        host: the gateway to Ollama and the models on it.
        background: embedding and summaries in a thread, and the notices for the user.
        live_settings: the settings in use, and the one place that changes them.
        intake: files and events from outside the chat (``hippo ingest``, ``hippo log``).
    """

    def __init__(
        self,
        db: Database | Path | str,
        llm: ChatBackend,
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
        sleep_backups: bool = True,
    ) -> None:
        budget = context_budget or ContextBudget()
        turn = TurnSettings(
            chat_model, context_tokens, working_strategy, budget, core_edits, save_every_s
        )
        self.clock = clock or SystemClock()
        self._sleep_backups = sleep_backups
        parts = build_parts(
            db if isinstance(db, Database) else Database(db, KeyStore.from_environment()),
            llm,
            turn,
            sleep or SleepSettings(),
            embedding_model=embedding_model,
            profile=profile,
            clock=self.clock,
            weights=weights,
            reading=reading,
            cells=cells,
        )
        self._parts = parts
        self.memory = parts.memory
        self.live_settings = parts.live_settings
        self.host = parts.host
        self.conversations = parts.conversations
        self.background = parts.background
        self.intake = Intake(self.memory, self.background.wake)

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
        session = self.conversations.session(session_id)
        from assistant.chat import Turn  # with the tools: needed at the first send only

        cancel = cancel or threading.Event()
        gateway, worker = self.host.gateway, self.background.worker
        turn = Turn(
            self.memory, gateway, self.live_settings.turn, shown=self.host.shown, chores=worker
        )
        return self._stopping_on(turn.run(session, text, cancel, pasted=pasted), cancel)

    def _stopping_on(
        self, events: Iterator[TurnEvent], cancel: threading.Event
    ) -> Iterator[TurnEvent]:
        """The turn's events; ``cancel`` stops each of its calls to Ollama, whichever it is
        (the query's embedding and the model check too, not only the reply's stream)."""
        with self.host.gateway.stopping_on(cancel):
            yield from events

    def regenerate(
        self, session_id: int, *, cancel: threading.Event | None = None
    ) -> Iterator[TurnEvent]:
        """/retry: answer the session's last message again (``assistant.regenerate``)."""
        from assistant.regenerate import Redo, regenerate  # with the chat: first use only

        return regenerate(Redo.over(self._parts, self._delete_replies), session_id, cancel=cancel)

    def edit_last(
        self,
        session_id: int,
        text: str,
        *,
        edited: int | None = None,
        cancel: threading.Event | None = None,
        pasted: bool = False,
    ) -> Iterator[TurnEvent]:
        """/edit: answer ``text`` in place of the last exchange (``assistant.regenerate``)."""
        from assistant.regenerate import Redo, edit_last  # with the chat: first use only

        redo = Redo.over(self._parts, self._delete_replies)
        return edit_last(redo, session_id, text, edited=edited, cancel=cancel, pasted=pasted)

    def _delete_replies(self, ids: list[int]) -> None:
        """What /retry and /edit replace goes for good (the admin loads on first use)."""
        self.admin.forget.delete_replies(ids)

    def context_for(self, session: Session, user: Message) -> TurnContext:
        """The prompt for answering ``user``: memory sections and working memory."""
        from assistant.chat import context_for  # with the chat: first use only

        settings = self.live_settings.turn
        window = self.host.context_window(settings.chat_model)
        return context_for(self.memory, settings, window, session, user)

    # -- memory inspector and sleep ---------------------------------------------------------

    @functools.cached_property
    def admin(self) -> MemoryAdmin:
        """See, search, correct, review, undo, forget and export memory (``MemoryAdmin``)."""
        from assistant.admin.wiring import build_admin  # the inspector's code: first use only

        return build_admin(self.memory, self.conversations, self.background.wake)

    @property
    def sleep(self) -> Sleep:
        """The consolidation over this engine's stores and models as they are now."""
        from assistant.sleep_wiring import build_sleep  # sleep's code: first use only

        return build_sleep(self.memory, self.host, self.live_settings, backup=self._sleep_backups)

    def consolidate(
        self,
        *,
        now: datetime | None = None,
        dry_run: bool = False,
        trigger: str = "manual",
        progress: Callable[[Progress], None] | None = None,
        max_llm_calls: int | None = None,
        settings: SleepSettings | None = None,
        tz: tzinfo | None = None,
    ) -> SleepReport:
        """Run the nightly consolidation now, with config.toml's ``[sleep]`` unless
        ``settings`` is given (each option: see ``assistant.sleep.RunOptions``)."""
        from assistant.sleep.options import RunOptions  # sleep's code: first use only

        options = RunOptions(now, dry_run, trigger, progress, max_llm_calls, settings, tz)
        return self.sleep.run(options)

    def __enter__(self) -> Hippo:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop background work, close the data file and the gateway; calls to Ollama in
        flight are stopped first, so that no thread waiting on a hung host delays it."""
        self.background.stopping()
        self.host.stop_calls()
        self.background.stop()
        self.memory.db.close()
        self.host.gateway.close()
