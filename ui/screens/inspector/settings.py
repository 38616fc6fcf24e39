"""The settings tab: models, retrieval weights, memory budgets, sleep, trust and profiles.

Every field is checked before anything is saved; ctrl+s applies them to the running
engine (``engine.live_settings.apply``) and writes config.toml. Nothing the user typed is
read as markup.
A changed model is checked with Ollama first (installed, and able to do its job); if Ollama
can't be asked, the user is asked whether to save it unchecked.
"""

from __future__ import annotations

import math
import re
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import on, work
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Checkbox, Input, ProgressBar, Select, Static

from assistant.config import save_config
from assistant.errors import OllamaError
from assistant.memory.budget import ContextBudget
from assistant.settings import STRATEGIES, ModelSettings, Settings
from ui.screens.inspector.pane import InspectorPane

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.config import Config
    from assistant.engine import Hippo
    from assistant.memory.working import Strategy
    from assistant.model_choice import ModelProblem

__all__ = ["SettingsPane"]

WEIGHTS = ("relevance", "recency", "importance", "keyword", "vector", "min_relevance")
BUDGETS = tuple(f.name for f in fields(ContextBudget))
_TIME = re.compile(r"([01]\d|2[0-3]):[0-5]\d")


# The cells a label and its field take in a row of settings: a number's, a model's.
_NUMBER_CELL = 22
_MODEL_CELL = 44


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


class SettingsPane(InspectorPane):
    """Hippo's settings in one form; ctrl+s checks, applies and saves them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save settings", priority=True),
    ]

    class Listed(Message):
        """The installed models arrived (or could not be listed)."""

        def __init__(self, names: list[str], error: str = "") -> None:
            super().__init__()
            self.names, self.error = names, error

    class ModelsChecked(Message):
        """Ollama's word on the changed models (posted from a worker thread)."""

        def __init__(self, problems: list[ModelProblem], settings: Settings, profile: str) -> None:
            super().__init__()
            self.problems, self.settings, self.profile = problems, settings, profile

    def __init__(self, engine: Hippo, *, id: str | None = None) -> None:
        super().__init__(engine, id=id)
        self._poll: Timer | None = None
        self._reembed_total = 0
        self._kept: tuple[object, ...] | None = None  # the fields as last loaded or saved

    @property
    def config(self) -> Config | None:
        """The app's settings (None outside HippoApp)."""
        return getattr(self.app, "config", None)

    @property
    def home(self) -> Widget | None:
        return None  # every widget here is a field: the tab bar keeps the keyboard

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="settings-form"):
            yield Static(Content("Models"), classes="section")
            with Grid(classes="settings-row settings-pairs -wide"):
                with Horizontal(classes="settings-pair"):
                    yield Static(Content("Chat"), classes="settings-label")
                    yield Input(id="settings-chat", classes="settings-model", compact=True)
                with Horizontal(classes="settings-pair"):
                    yield Static(Content("Embedding"), classes="settings-label")
                    yield Input(id="settings-embedding", classes="settings-model", compact=True)
            yield Static(Content("Listing installed models…"), id="settings-models-note")
            with Horizontal(id="settings-reembed-row", classes="settings-row"):
                yield Static(id="settings-reembed-note", classes="hint")
                yield ProgressBar(id="settings-reembed", show_eta=False)
            yield Static(id="settings-models-error", classes="settings-error")

            yield Static(Content("Retrieval weights"), classes="section")
            with Grid(classes="settings-row settings-pairs"):
                for name in WEIGHTS:
                    with Horizontal(classes="settings-pair"):
                        yield Static(Content(name), classes="settings-label")
                        yield Input(
                            id=f"settings-w-{name}", classes="settings-number", compact=True
                        )
            yield Static(id="settings-weights-error", classes="settings-error")

            yield Static(Content("Memory budgets (tokens) and working memory"), classes="section")
            with Grid(classes="settings-row settings-pairs"):
                for name in BUDGETS:
                    with Horizontal(classes="settings-pair"):
                        yield Static(Content(name), classes="settings-label")
                        yield Input(
                            id=f"settings-b-{name}", classes="settings-number", compact=True
                        )
            with Horizontal(classes="settings-row"):
                yield Static(Content("working memory"), classes="settings-label")
                yield Select(
                    [(name, name) for name in STRATEGIES],
                    id="settings-strategy",
                    allow_blank=False,
                    compact=True,
                )
            yield Static(id="settings-budgets-error", classes="settings-error")

            yield Static(Content("Sleep and trust"), classes="section")
            with Horizontal(classes="settings-row"):
                yield Static(Content("nightly at"), classes="settings-label")
                yield Input(
                    id="settings-sleep-at", classes="settings-number", placeholder="HH:MM",
                    compact=True,
                )  # fmt: skip
            with Horizontal(classes="settings-row"):
                yield Checkbox(
                    "activate stated facts on their own", id="settings-auto", compact=True
                )
                yield Static(Content("at confidence"), classes="settings-label")
                yield Input(id="settings-confidence", classes="settings-number", compact=True)
            yield Static(id="settings-sleep-error", classes="settings-error")

            yield Static(Content("Profile"), classes="section")
            with Horizontal(classes="settings-row"):
                yield Static(Content("default at start"), classes="settings-label")
                names = self._profiles()
                yield Select(
                    [(name, name) for name in names], id="settings-profile", allow_blank=False,
                    value=names[0], compact=True,
                )  # fmt: skip
            yield Static(id="settings-profile-note", classes="hint")
            yield Static(
                Content("ctrl+s checks, applies and saves to config.toml; Esc leaves a field."),
                classes="hint",
            )

    def _profiles(self) -> list[str]:
        """Every profile's name, the default for the next start first."""
        config = self.config
        default = config.profile if config else self.engine.conversations.profile.name
        names = [profile.name for profile in self.engine.admin.browse.profiles()]
        return list(dict.fromkeys([default, self.engine.conversations.profile.name, *names]))

    def on_mount(self) -> None:
        self.query_one("#settings-reembed-row").display = False

    def on_resize(self) -> None:
        """As many fields a row as the width holds (five at 120 columns, three at 80)."""
        for row in self.query(".settings-pairs"):
            cell = _MODEL_CELL if row.has_class("-wide") else _NUMBER_CELL
            row.styles.grid_size_columns = max(1, min(len(row.children), self.size.width // cell))

    def reload(self) -> None:
        settings = self.engine.live_settings.current
        self.query_one("#settings-chat", Input).value = settings.models.chat
        self.query_one("#settings-embedding", Input).value = settings.models.embedding
        for name in WEIGHTS:
            value = getattr(settings.retrieval, name)
            self.query_one(f"#settings-w-{name}", Input).value = f"{value:g}"
        for name in BUDGETS:
            value = getattr(settings.memory.budget, name)
            self.query_one(f"#settings-b-{name}", Input).value = str(value)
        self.query_one("#settings-strategy", Select).value = settings.memory.strategy
        sleep = settings.sleep
        self.query_one("#settings-sleep-at", Input).value = sleep.at
        self.query_one("#settings-auto", Checkbox).value = sleep.auto_activate
        self.query_one("#settings-confidence", Input).value = f"{sleep.auto_activate_confidence:g}"
        default = self._profiles()[0]
        profiles = self.query_one("#settings-profile", Select)
        profiles.set_options([(name, name) for name in self._profiles()])
        profiles.value = default
        self._profile_note(default)
        self._kept = self._fields()
        self._list_models()

    def _fields(self) -> tuple[object, ...]:
        """What every field holds now."""
        form = self.query_one("#settings-form")
        fields: list[Input | Select[str] | Checkbox] = [
            *form.query(Input), *form.query(Select), *form.query(Checkbox)
        ]  # fmt: skip
        return tuple(field.value for field in fields)

    @property
    def unsaved(self) -> bool:
        """Whether a field was changed since the settings were loaded or saved."""
        return self._kept is not None and self._fields() != self._kept

    @work(thread=True, exclusive=True, group="settings-models", exit_on_error=False)
    def _list_models(self) -> None:
        try:
            names = [info.name for info in self.engine.host.models()]
        except OllamaError as exc:
            self.post_message(self.Listed([], str(exc)))
            return
        self.post_message(self.Listed(names))

    def on_settings_pane_listed(self, message: Listed) -> None:
        note = self.query_one("#settings-models-note", Static)
        if message.error:
            note.update(Content(f"Can't list models ({message.error}); type a name."))
            return
        suggester = SuggestFromList(message.names, case_sensitive=False)
        for input_id in ("#settings-chat", "#settings-embedding"):
            self.query_one(input_id, Input).suggester = suggester
        installed = ", ".join(message.names) or "none"
        note.update(Content(f"Installed: {installed} (type any name; → completes)."))

    @on(Select.Changed, "#settings-profile")
    def _profile_chosen(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self._profile_note(event.value)

    def _profile_note(self, name: str) -> None:
        running = self.engine.conversations.profile.name
        if name == running:
            text = f"Running profile {running!r}. Each profile keeps its own memory."
        else:
            text = (
                f"Hippo runs one profile at a time: restart with `hippo --profile {name}` to "
                f"use it now; ctrl+s makes it the default at the next start."
            )
        self.query_one("#settings-profile-note", Static).update(Content(text))

    # -- saving ---------------------------------------------------------------------------

    def _value(self, input_id: str) -> str:
        return self.query_one(f"#{input_id}", Input).value.strip()

    def _show_errors(self, section: str, errors: list[str]) -> None:
        self.query_one(f"#settings-{section}-error", Static).update(Content("\n".join(errors)))

    def _mark(self, input_id: str, bad: bool) -> None:
        self.query_one(f"#{input_id}", Input).set_class(bad, "-invalid")

    def _read(self) -> tuple[Settings, str] | None:
        """Every field, checked, as the engine's settings and the default profile.

        None (with the reasons on screen) when any field is wrong.
        """
        current = self.engine.live_settings.current
        models, failed = self._read_models(current.models)
        weights, bad = self._read_weights()
        failed |= bad
        budgets, bad = self._read_budgets()
        failed |= bad
        sleep, bad = self._read_sleep()
        failed |= bad
        if failed:
            return None
        strategy = self.query_one("#settings-strategy", Select).value
        settings = Settings(
            models=models,
            memory=replace(
                current.memory,
                strategy=cast("Strategy", strategy),
                budget=ContextBudget(**budgets),
            ),
            retrieval=replace(current.retrieval, **weights),
            sleep=replace(current.sleep, **sleep),
        )
        return settings, str(self.query_one("#settings-profile", Select).value)

    def _read_models(self, models: ModelSettings) -> tuple[ModelSettings, bool]:
        errors = []
        names = {}
        for key, input_id in (("chat", "settings-chat"), ("embedding", "settings-embedding")):
            text = self._value(input_id)
            self._mark(input_id, not text)
            if not text:
                errors.append(f"The {key} model needs a name.")
            names[key] = text
        self._show_errors("models", errors)
        return replace(models, chat=names["chat"], embedding=names["embedding"]), bool(errors)

    def _read_weights(self) -> tuple[dict[str, Any], bool]:
        errors = []
        weights: dict[str, Any] = {}  # floats, each a field of RetrievalWeights
        for name in WEIGHTS:
            value = _number(self._value(f"settings-w-{name}"))
            bad = value is None or value < 0
            self._mark(f"settings-w-{name}", bad)
            if bad or value is None:
                errors.append(f"{name} must be a number >= 0.")
            else:
                weights[name] = value
        self._show_errors("weights", errors)
        return weights, bool(errors)

    def _read_budgets(self) -> tuple[dict[str, int], bool]:
        errors = []
        budgets: dict[str, int] = {}
        for name in BUDGETS:
            text = self._value(f"settings-b-{name}")
            bad = not text.isdigit()
            self._mark(f"settings-b-{name}", bad)
            if bad:
                errors.append(f"The {name} budget must be a whole number of tokens >= 0.")
            else:
                budgets[name] = int(text)
        self._show_errors("budgets", errors)
        return budgets, bool(errors)

    def _read_sleep(self) -> tuple[dict[str, Any], bool]:
        errors = []
        at = self._value("settings-sleep-at")
        self._mark("settings-sleep-at", not _TIME.fullmatch(at))
        if not _TIME.fullmatch(at):
            errors.append('The sleep time must be a 24-hour time "HH:MM", like 03:00.')
        confidence = _number(self._value("settings-confidence"))
        bad = confidence is None or not 0 <= confidence <= 1
        self._mark("settings-confidence", bad)
        if bad:
            errors.append("The confidence must be a number from 0 to 1.")
        self._show_errors("sleep", errors)
        values = {
            "at": at,
            "auto_activate": self.query_one("#settings-auto", Checkbox).value,
            "auto_activate_confidence": confidence,
        }
        return values, bool(errors)

    def action_save(self) -> None:
        """Check every field; if all are good, apply them and write config.toml."""
        read = self._read()
        if read is None:
            self.notify(
                "Nothing saved: fix the fields marked in red.",
                title="Settings",
                severity="error",
                markup=False,
            )
            return
        settings, profile = read
        chosen, current = settings.models, self.engine.live_settings.current.models
        changed = {
            slot: name
            for slot, name, now in (("chat", chosen.chat, current.chat),
                                    ("embedding", chosen.embedding, current.embedding))
            if name != now
        }  # fmt: skip
        if not changed:
            self._apply(settings, profile)
            return
        self._show_errors("models", ["Checking the models with Ollama…"])
        self._check_models(changed, settings, profile)

    @work(thread=True, exclusive=True, group="settings-check", exit_on_error=False)
    def _check_models(self, changed: dict[str, str], settings: Settings, profile: str) -> None:
        problems = self.engine.host.check_models(**changed)
        self.post_message(self.ModelsChecked(problems, settings, profile))

    def on_settings_pane_models_checked(self, message: ModelsChecked) -> None:
        from ui.screens.model_picker import app_pull_hint

        problems = message.problems
        self._show_errors("models", [p.text(app_pull_hint) for p in problems])
        for problem in problems:
            self._mark(f"settings-{problem.slot}", True)
        if not problems:
            self._apply(message.settings, message.profile)
        elif all(p.kind == "unchecked" for p in problems):
            self._ask_to_save_unchecked(message)
        else:
            self.notify("Nothing saved: fix the models marked in red.", title="Settings",
                        severity="error", markup=False)  # fmt: skip

    def _ask_to_save_unchecked(self, message: ModelsChecked) -> None:
        from ui.screens.dialogs import ConfirmDialog

        names = " and ".join(repr(p.model) for p in message.problems)
        question = (
            f"Ollama could not be asked whether it has {names}. Save anyway? If it lacks "
            "them, replies or memories by meaning fail until you choose others."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self._show_errors("models", [])
                self._apply(message.settings, message.profile)

        self.app.push_screen(ConfirmDialog(question, yes="Save anyway"), answered)

    def _apply(self, settings: Settings, profile: str) -> None:
        """Apply checked settings to the engine and write them to config.toml."""
        engine = self.engine
        before = engine.live_settings.current.models
        reembeds = engine.live_settings.apply(settings)  # a new tag alone re-embeds nothing
        if settings.models != before:
            self._status_models(settings.models.chat, settings.models.embedding)
        if reembeds:
            self._start_reembed(settings.models.embedding)

        config = self.config
        if config is None:
            self._kept = self._fields()
            self.notify("Applied for this session.", title="Settings", markup=False)
            return
        updated = replace(config.with_settings(settings), profile=profile)
        try:
            path = save_config(updated)
        except OSError as exc:
            self.notify(f"Applied, but not saved: {exc}", title="Settings", severity="error",
                        markup=False)  # fmt: skip
            return
        self.app.config = updated  # type: ignore[attr-defined]
        self._kept = self._fields()
        self.notify(
            f"Saved to {path}. The sleep time applies from the next start.",
            title="Settings",
            markup=False,
        )

    def _status_models(self, chat: str, embedding: str) -> None:
        status = getattr(getattr(self.app, "chat", None), "status", None)
        if status is not None:
            status.chat_model = chat
            status.embedding_model = embedding

    # -- re-embedding progress ------------------------------------------------------------

    def _start_reembed(self, model: str) -> None:
        self._reembed_total = max(self.engine.background.pending_embeddings(), 1)
        self.query_one("#settings-reembed-row").display = True
        self.query_one("#settings-reembed", ProgressBar).update(
            total=self._reembed_total, progress=0
        )
        self.query_one("#settings-reembed-note", Static).update(
            Content(f"Re-embedding memories with {model}…")
        )
        if self._poll is not None:
            self._poll.stop()
        self._poll = self.set_interval(1.0, self._poll_reembed)
        self._poll_reembed()

    def _poll_reembed(self) -> None:
        pending = self.engine.background.pending_embeddings()
        self._reembed_total = max(self._reembed_total, pending)
        bar = self.query_one("#settings-reembed", ProgressBar)
        bar.update(total=self._reembed_total, progress=self._reembed_total - pending)
        if pending == 0:
            if self._poll is not None:
                self._poll.stop()
                self._poll = None
            self.query_one("#settings-reembed-note", Static).update(
                Content(f"Re-embedded with {self.engine.live_settings.embedding_model}: done.")
            )
