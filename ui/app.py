"""Hippo's terminal app: the chat first, then the data file, then Ollama checks.

Nothing slow happens before the first frame: as the chat screen mounts, the status line
asks Ollama whether it is up in a thread (through ``probe``, which needs no data file and
loads nothing heavy), and once the chat is on screen a thread opens the engine (imports,
data file, the session to resume); once the engine is open, the model check runs in
another thread, and the status line keeps following whether Ollama is up.

Nothing holds the app open either: thread workers run in daemon threads (`ui.threads`),
and quitting first stops every call to Ollama in flight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.constants import DEFAULT_THEME
from textual.css.query import NoMatches
from textual.message import Message

from assistant.config import save_config
from assistant.errors import DamagedFile, HippoError, OllamaError
from assistant.terminal import visible
from ui import paste
from ui.memory_commands import MemoryCommands, MemoryProvider
from ui.screens import ChatScreen
from ui.screens.chat import read_last_session
from ui.theme_choice import saved_theme, with_theme
from ui.threads import use_daemon_threads
from ui.widgets import MessageView, StatusLine

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from assistant.config import Config
    from assistant.engine import Hippo
    from assistant.sleep import Progress, SleepReport
    from scheduler.runner import SleepScheduler
    from ui.checks import OllamaCheck
    from ui.screens.chat import SessionShown
    from ui.screens.inspector.pane import InspectorPane
    from ui.screens.model_picker import ModelChoice
    from ui.screens.sessions import SessionChoice

__all__ = ["HippoApp"]


# After this long without the data file, the chat says it is still opening.
_SLOW_OPEN_S = 1.0
# How often the app looks for what background work has to tell the user (in memory: cheap).
_NOTICES_EVERY_S = 2.0
# A notice longer than this goes in the chat, not in a toast (which fits ~3 lines of it).
_TOAST_CHARS = 120
_SLOW_OPEN = (
    "Opening the data file: a large one, or one being upgraded to this version of Hippo, "
    "takes a moment. You can type meanwhile."
)

_DAMAGED = "Data file damaged"


class HippoApp(App[None]):
    """Chat with Hippo, pick models and sessions, see its memory, and get Ollama going.

    Args:
        engine: the engine to drive, or a function that opens it; it is called in a
            thread after the first frame, so opening never delays it. The caller closes
            the engine after the app exits (`opened` holds one the app opened).
        config: the settings in use; model choices are saved from it.
        resume: open the most recent session with its last messages.
        schedule_sleep: consolidate memory nightly while the app is open.
        scope: what a new chat is about (e.g. work): it leaves other scopes' memories out.
        probe: asks Ollama for its version before the engine is open (see
            ``assistant.starting.Starter``), so that the status line says at once whether
            Ollama is up; by default, an engine given open is asked, and an engine still
            to open is asked once it is.
    """

    # Absolute, so subclasses defined elsewhere (tests, embedders) still find it.
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "Hippo"
    COMMANDS = App.COMMANDS | {MemoryProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f2", "models", "Models"),
        Binding("f3", "sessions", "Sessions"),
        Binding("f4", "memory", "Memory"),
    ]

    class Opened(Message):
        """The engine is open and the session to resume read (posted from the opening thread)."""

        def __init__(self, engine: Hippo, resumed: SessionShown | None) -> None:
            super().__init__()
            self.engine, self.resumed = engine, resumed

    class Upgrading(Message):
        """The data file is being encrypted; this far (posted from the opening thread)."""

        def __init__(self, what: str, share: float) -> None:
            super().__init__()
            self.what, self.share = what, share

    class OpenFailed(Message):
        """The engine could not be opened (posted from the opening thread)."""

        def __init__(self, error: HippoError) -> None:
            super().__init__()
            self.error = error

    class Probed(Message):
        """The startup check of Ollama finished."""

        def __init__(self, check: OllamaCheck | None, error: OllamaError | None = None) -> None:
            super().__init__()
            self.check, self.error = check, error

    class Slept(Message):
        """A consolidation run finished (posted from the scheduler's thread)."""

        def __init__(self, report: SleepReport) -> None:
            super().__init__()
            self.report = report

    class SleepProgress(Message):
        """A consolidation run moved on (posted from the scheduler's thread)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Trouble(Message):
        """Background work found a problem to show (a damaged file, a refused sleep)."""

        def __init__(self, text: str, title: str) -> None:
            super().__init__()
            self.text = text
            self.title = title

    def __init__(
        self,
        engine: Hippo | Callable[[], Hippo],
        config: Config,
        *,
        resume: bool = False,
        schedule_sleep: bool = False,
        scope: str = "",
        probe: Callable[[], object] | None = None,
    ) -> None:
        super().__init__()
        paste.install()  # a paste holding colour codes arrives whole, in order
        self.config = config
        self._open = engine if callable(engine) else lambda: engine
        self._opens_file = callable(engine)
        self._file_notes: list[str] = []  # what opening the data file had to say
        self._early_probe = probe if probe is not None or callable(engine) else engine.host.probe
        self._upgrade_shown: tuple[str, int] | None = None
        self._resume = resume
        self.chat = ChatScreen(config, scope=scope, probe=self._early_probe)
        """The chat screen, which is always at the bottom of the stack."""
        self.memory = MemoryCommands(self, self.chat)
        """The chat's memory commands: the inspector, /remember, /scope... (and the palette's)."""
        self._schedule_sleep = schedule_sleep
        self._scheduler: SleepScheduler | None = None
        self.opened: Hippo | None = None
        """The engine once opened (set by the opening thread), for the caller to close."""
        self.open_error: HippoError | None = None
        """Why the engine could not be opened; the app exits when it can't."""
        self.checked = False
        """Whether the model check that follows the engine's opening has ended."""

    @property
    def engine(self) -> Hippo:
        """The engine, once the chat has it (the data file opens just after the first frame).

        Raises:
            RuntimeError: it is not open yet.
        """
        return self.chat.engine

    def action_memory(self, tab: str = "facts", forget: str = "") -> None:
        """Open the memory inspector on ``tab``."""
        self.memory.open(tab, forget)

    def on_inspector_pane_changed(self, _: InspectorPane.Changed) -> None:
        try:
            status = self.chat.status
        except NoMatches:  # the app is closing, and the chat's widgets are gone
            return
        status.refresh_pending()

    def on_message_view_show_memories(self, event: MessageView.ShowMemories) -> None:
        self.memory.show_memories(event.reply_id)

    async def on_chat_screen_command(self, event: ChatScreen.Command) -> None:
        await self.memory.run_slash(event.command)

    def get_default_screen(self) -> Screen[Any]:
        return self.chat

    def on_load(self) -> None:
        use_daemon_threads()  # before any worker starts
        if (theme := saved_theme(self.config)) in self.available_themes:
            self.theme = theme

    def watch_theme(self, theme: str) -> None:
        """Keep the theme chosen (ctrl+p, "Change theme") for the next start."""
        if theme == (saved_theme(self.config) or DEFAULT_THEME):
            return  # as it was (Textual tells its first theme too)
        self.config = with_theme(self.config, theme)
        try:
            save_config(self.config)
        except OSError as exc:
            self.notify(f"The theme is used but not saved: {exc}", severity="warning",
                        markup=False)  # fmt: skip

    async def action_quit(self) -> None:
        """Quit now, whatever the network does: calls to Ollama in flight are stopped."""
        self.chat.action_cancel_reply()
        if self.opened is not None:
            self.opened.host.stop_calls()
        self.exit()

    def on_chat_screen_painted(self, _: ChatScreen.Painted) -> None:
        # Ollama's state is already being asked (from the chat's mount, see ChatScreen).
        self._open_engine()
        self.set_timer(_SLOW_OPEN_S, self._say_still_opening)

    def _say_still_opening(self) -> None:
        """Say why the history is not there yet (a large file, or one being upgraded)."""
        if not self.chat.ready and self.open_error is None:
            self.notify(_SLOW_OPEN, title="Hippo", markup=False)

    @work(thread=True, exclusive=True, group="open")
    def _open_engine(self) -> None:
        """Open the engine and read the session to resume, off the UI thread."""
        try:
            if self._opens_file:
                self._prepare_file()
            self.opened = engine = self._open()
            resumed = read_last_session(engine) if self._resume else None
        except HippoError as exc:
            self.post_message(self.OpenFailed(exc))
            return
        self.post_message(self.Opened(engine, resumed))

    def _prepare_file(self) -> None:
        """Encrypt a plaintext data file first, its progress in the status line (in a thread)."""
        from assistant.datakey import KeyStore
        from assistant.encryption import prepare_data_file

        keys = KeyStore.for_config(self.config)
        prepare_data_file(self.config.db_path, keys, self._upgrade_progress)
        self._file_notes = list(keys.notices)

    def _upgrade_progress(self, what: str, share: float) -> None:
        shown = (what, int(share * 100))
        if shown != self._upgrade_shown:  # one message per percent, not per tick
            self._upgrade_shown = shown
            self.post_message(self.Upgrading(what, share))

    def on_hippo_app_upgrading(self, message: Upgrading) -> None:
        busy = f"{message.what}: {message.share:.0%}" if message.share < 1 else ""
        self.chat.status.busy = busy

    async def on_hippo_app_opened(self, message: Opened) -> None:
        await self.chat.attach(message.engine, message.resumed)
        await self._tell(self._file_notes, "Hippo")
        # Ollama is asked only now, so its answer finds the engine there.
        self._probe()
        self._check_file()
        self.memory.purge_incognito()
        self.set_interval(_NOTICES_EVERY_S, self._show_notices)

    @work(thread=True, exclusive=True, group="integrity", exit_on_error=False)
    def _check_file(self) -> None:
        """SQLite's quick check of the data file, after the first frame, off the UI thread."""
        if damage := self.engine.admin.file_damage():
            self.post_message(self.Trouble(damage, _DAMAGED))

    def _sleep_refused(self, exc: HippoError) -> None:
        """A background sleep refused or failed (called from the scheduler's thread)."""
        title = _DAMAGED if isinstance(exc, DamagedFile) else "Sleep failed"
        self.post_message(self.Trouble(str(exc), title))

    def on_hippo_app_trouble(self, message: Trouble) -> None:
        self.notify(message.text, title=message.title, severity="error", timeout=60, markup=False)

    async def _show_notices(self) -> None:
        """Say what background work found (new weights for the embedding model), once each."""
        await self._tell(self.engine.background.take_notices(), "Memory")

    async def _tell(self, notices: list[str], title: str) -> None:
        """Show short notices as toasts and long ones in the chat, where they cover nothing
        and stay to be read (a toast of ten lines covered the first-run screens' steps and
        buttons), saying so in a short toast."""
        notes = [text for text in notices if len(text) > _TOAST_CHARS]
        for text in notices:
            if len(text) <= _TOAST_CHARS:
                self.notify(text, title=title, timeout=10, markup=False)
        if notes:
            await self.chat.show_notes(notes)
            self.notify("Hippo left you a note in the chat.", timeout=5, markup=False)

    def on_hippo_app_open_failed(self, message: OpenFailed) -> None:
        self.open_error = message.error
        self.exit(return_code=1)

    @work(thread=True, exclusive=True, group="probe", exit_on_error=False)
    def _probe(self) -> None:
        from ui.checks import check_ollama

        try:
            self.post_message(self.Probed(check_ollama(self.engine)))
        except OllamaError as exc:
            self.post_message(self.Probed(None, exc))

    def on_hippo_app_probed(self, message: Probed) -> None:
        self.checked = True
        if (status := self._status()) is not None:
            # Asked through the engine each time: onboarding may give it a new gateway.
            status.start_watching(lambda: self.engine.host.probe())
        if message.check is not None:
            self._ollama_ready(message.check)
            return
        assert message.error is not None
        if status is None:
            return
        status.reachable = False
        from ui.screens.onboarding import OnboardingScreen

        self.push_screen(OnboardingScreen(self.engine, message.error), self._ollama_ready)

    def on_status_line_changed(self, message: StatusLine.Changed) -> None:
        """Ollama came back while the setup screen explains it is away: check it there."""
        if not message.up or not self.screen_stack or self.screen is self.chat:
            # At start-up the first "up" lands here: importing the setup screen then would
            # hold the status line back (~0.1 s, more while the engine's thread imports).
            # A check that ends as the app quits finds no screen left to tell.
            return
        from ui.screens.onboarding import OnboardingScreen

        if isinstance(self.screen, OnboardingScreen):
            self.screen.check_again()

    def _ollama_ready(self, check: OllamaCheck | None) -> None:
        """Ollama answered: start embedding, and offer to pull what is missing."""
        if (status := self._status()) is None:
            return
        status.reachable = True
        self.engine.background.start_background()
        if self._schedule_sleep and self._scheduler is None:
            self._start_sleep_scheduler()
        if check is not None and check.missing:
            from ui.screens.pull import PullScreen

            self.push_screen(PullScreen(self.engine, check.missing), self._pulled)

    @work(thread=True, exclusive=True, group="sleep-start", exit_on_error=False)
    def _start_sleep_scheduler(self) -> None:
        """Consolidate nightly while open, catching up a missed night now (in the background)."""
        from scheduler.runner import SleepScheduler

        notice = self.engine.sleep.unseen_report()
        if notice is not None and (notice.to_review or notice.superseded):  # only news
            self.call_from_thread(
                self.notify, notice.text, title="Memory", timeout=12, markup=False
            )

        def slept(report: SleepReport) -> None:
            self.post_message(self.Slept(report))

        def progressed(p: Progress) -> None:
            self.post_message(self.SleepProgress(f"sleep: {p.step} {p.done}/{p.total}"))

        self._scheduler = SleepScheduler(
            self.engine, self.config.sleep,
            on_report=slept, on_error=self._sleep_refused, on_progress=progressed,
        )  # fmt: skip
        self._scheduler.start(catch_up=True)

    def _status(self) -> StatusLine | None:
        """The chat's status line; None once the app is closing and its widgets are gone.

        Background work (sleep, the Ollama check) reports by message, and a report may
        arrive while the app closes: it is then dropped, not raised.
        """
        return next(iter(self.chat.query(StatusLine)), None)

    def on_hippo_app_sleep_progress(self, message: SleepProgress) -> None:
        if (status := self._status()) is not None:
            status.sleep = message.text

    def on_hippo_app_slept(self, message: Slept) -> None:
        if (status := self._status()) is None:
            return
        status.sleep = ""
        status.refresh_pending()
        report = message.report
        caught_up = report.trigger == "catch_up"
        if report.proposals or report.errors:  # a run that changed nothing is no news
            review = len(report.to_review)
            errors = f", {len(report.errors)} problem(s)" if report.errors else ""
            what = (
                "Caught up the missed night's consolidation"
                if caught_up
                else ("Memory consolidated")
            )
            self.notify(
                f"{what}: {review} new fact(s) to review{errors}.",
                title="Sleep",
                timeout=10,
                markup=False,
            )

    def on_unmount(self) -> None:
        if self._scheduler is not None:
            self._scheduler.shutdown()

    def action_sleep_now(self) -> None:
        """Consolidate memory now, in the background."""
        self.notify("Consolidating memory in the background…", title="Sleep")
        self._sleep_now()

    @work(thread=True, exclusive=True, group="sleep-now", exit_on_error=False)
    def _sleep_now(self) -> None:
        from assistant.errors import HippoError

        def progressed(p: Progress) -> None:
            self.post_message(self.SleepProgress(f"sleep: {p.step} {p.done}/{p.total}"))

        try:
            report = self.engine.consolidate(trigger="manual", progress=progressed)
        except HippoError as exc:
            self.call_from_thread(
                self.notify, str(exc), title="Sleep failed", severity="error", markup=False
            )
            self.post_message(self.SleepProgress(""))
            return
        self.post_message(self.Slept(report))

    def _pulled(self, models: list[str] | None) -> None:
        if models:
            self.engine.background.wake()  # a new embedding model can drain the queue now

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Models, sessions and memory open from the chat only (hidden elsewhere)."""
        if action in {"models", "sessions", "memory"}:
            return self.screen is self.chat
        return True

    def action_models(self) -> None:
        """Open the model picker."""
        if self.screen is self.chat and self.chat.require_engine():
            from ui.screens.model_picker import ModelPickerScreen

            self.push_screen(ModelPickerScreen(self.engine), self._models_chosen)

    def _models_chosen(self, choice: ModelChoice | None) -> None:
        if choice is None:
            return
        self.engine.live_settings.use_models(chat=choice.chat, embedding=choice.embedding)
        self.config = self.config.with_models(chat=choice.chat, embedding=choice.embedding)
        path = save_config(self.config)
        self.chat.status.chat_model = choice.chat
        self.chat.status.embedding_model = choice.embedding
        self.notify(f"Using {choice.chat} and {choice.embedding} (saved to {path}).", markup=False)

    def action_sessions(self) -> None:
        """Open the session list."""
        if self.screen is self.chat and self.chat.require_engine():
            from ui.screens.sessions import SessionListScreen

            self.push_screen(SessionListScreen(self.engine), self._session_chosen)

    async def _session_chosen(self, choice: SessionChoice | None) -> None:
        if choice is not None:
            await self.chat.open_session(choice.session_id)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if not self.chat.ready:
            return  # everything below needs the data file
        yield SystemCommand("Models", "Choose the chat and embedding models", self.action_models)
        yield SystemCommand("Sessions", "Open a past session", self.action_sessions)
        yield SystemCommand("New session", "Start an empty chat", self.chat.action_new_session)
        yield SystemCommand(
            "Sleep now", "Consolidate memory now (episodes, facts to review)", self.action_sleep_now
        )

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show a notification; stored text in it shows its control characters escaped.

        Every screen's ``notify`` lands here, so no notice can hand the terminal an escape
        sequence from a memory, a reply or an error.
        """
        super().notify(
            visible(message),
            title=visible(title),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )
