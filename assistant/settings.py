"""The typed sections of config.toml, each parsed and checked once.

``[models]`` → ``ModelSettings``, ``[ollama]`` → ``OllamaSettings``, ``[memory]`` (and
``[memory.budget]``: ``ContextBudget``) → ``MemorySettings``, ``[retrieval]`` →
``RetrievalWeights``, ``[sleep]`` → ``SleepSettings``; the modules that use them
(``memory.budget``, ``memory.scoring``, ``sleep.settings``) re-export them. ``Settings``
bundles what the running engine uses (everything but where files live and how to reach
Ollama); ``engine.live_settings.apply`` takes one.

Light on purpose: the config is read at every start, before the app's first frame, so
this module imports nothing of Hippo's but its errors (plain frozen dataclasses, too:
``slots=True`` would build each class twice).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from datetime import time
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar, cast

from assistant.errors import ConfigError

if TYPE_CHECKING:
    from assistant.memory.core_proposals import CoreEditMode
    from assistant.memory.working import Strategy

__all__ = [
    "CORE_EDITS",
    "DEFAULT_CHAT_MODEL",
    "DEFAULT_EMBEDDING_MODEL",
    "STRATEGIES",
    "ContextBudget",
    "MemorySettings",
    "ModelSettings",
    "OllamaSettings",
    "RetrievalWeights",
    "Settings",
    "SleepSettings",
    "parse_section",
]

# The defaults, named once. A small chat model that calls tools and thinks, and an
# embedding model that reads Chinese as well as English.
DEFAULT_CHAT_MODEL = "qwen3:1.7b"
DEFAULT_EMBEDDING_MODEL = "embeddinggemma"
STRATEGIES = ("buffer", "window", "summary", "summary_buffer")
CORE_EDITS = ("review", "apply")
_MIN_CONTEXT = 512

T = TypeVar("T")


def parse_section(
    cls: type[T],
    table: object,
    section: str,
    path: object = None,
    renamed: Mapping[str, str] | None = None,
) -> T:
    """A section dataclass from its TOML table; each value checked by its default's type.

    Args:
        cls: the section's frozen dataclass; every field has a default.
        table: the table as TOML gave it (None: all defaults).
        section: the table's name in config.toml, e.g. ``sleep`` or ``memory.budget``.
        path: the file it came from, named in messages (None: not from a file).
        renamed: TOML keys whose field has another name (``model_core_edits`` → ``core_edits``).

    Raises:
        ConfigError: the table is not a table, a key is unknown, or a value has the wrong
            type; the message names the key and what is allowed.
    """
    where = _in(path)
    if table is None:
        table = {}
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}[{section}] must be a table of settings (it is {table!r}).")
    renamed = renamed or {}
    known = {renamed.get(f.name, f.name): f for f in fields(cast(Any, cls))}
    values: dict[str, object] = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(
                f"{where}[{section}] has no setting '{key}'; known: {', '.join(known)}."
            )
        spec = known[key]
        values[spec.name] = _checked(f"{where}{section}.{key}", value, _default(spec))
    return cls(**values)


def _default(spec: Any) -> object:
    if spec.default is not MISSING:
        return spec.default
    return spec.default_factory()


def _checked(name: str, value: object, default: object) -> object:
    """``value`` if it has the type of ``default`` (numbers >= 0), else a ConfigError."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{name} must be true or false, not {value!r}.")
        return value
    if isinstance(default, int):
        if not _number(value) or value < 0 or not float(value).is_integer():
            raise ConfigError(f"{name} must be a whole number >= 0, not {value!r}.")
        return int(value)
    if isinstance(default, float):
        if not _number(value) or value < 0:
            raise ConfigError(f"{name} must be a number >= 0, not {value!r}.")
        return float(value)
    if isinstance(default, str | None):
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{name} must be a non-empty string, not {value!r}.")
        return value.strip()
    return value  # a sub-table: its section checks it


def _number(value: object) -> TypeGuard[int | float]:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


@dataclass(frozen=True)
class ContextBudget:
    """Token budgets per memory section (together the memory part: 2,000 by default)."""

    facts: int = 500
    episodes: int = 300
    upcoming: int = 150
    events: int = 150
    recalled: int = 900

    @property
    def memory(self) -> int:
        """The whole memory part's budget."""
        return self.facts + self.episodes + self.upcoming + self.events + self.recalled


@dataclass(frozen=True)
class RetrievalWeights:
    """Tunable weights and thresholds of retrieval (config: ``[retrieval]``)."""

    relevance: float = 1.0
    recency: float = 0.0
    importance: float = 0.3
    keyword: float = 0.5
    vector: float = 0.5
    decay_per_hour: float = 0.99
    # Nothing is recalled for a query unless its best memory reaches this; the others
    # need this share of the best one's relevance.
    min_relevance: float = 0.15
    tail_relevance: float = 0.0
    # Cosine similarities at or below this are treated as no similarity at all.
    vector_floor: float = 0.2
    duplicate_overlap: float = 0.8
    candidates: int = 50
    # Added to the score of a memory said by someone the query names.
    speaker: float = 0.1
    # Share of the best neighbour's relevance a memory receives (the turns around it).
    neighbour: float = 0.1
    # What a query term found only in a message's neighbours counts for in coverage.
    context_coverage: float = 0.3
    # Share of the best relevance in a memory's session that the memory receives.
    session: float = 0.2
    # For a question about the present: added in proportion to how new a memory is
    # among the candidates (the newest gets all of it).
    present: float = 0.1


@dataclass(frozen=True)
class ModelSettings:
    """``[models]``: which models Hippo uses.

    Attributes:
        chat: the model that answers.
        embedding: the model that embeds messages and queries.
        context_tokens: the context window Hippo fills (working memory gets half).
    """

    chat: str = DEFAULT_CHAT_MODEL
    embedding: str = DEFAULT_EMBEDDING_MODEL
    context_tokens: int = 8192

    @classmethod
    def from_mapping(cls, table: object, path: object = None) -> ModelSettings:
        """The section from its TOML table (see ``parse_section``)."""
        settings = parse_section(cls, table, "models", path)
        if settings.context_tokens < _MIN_CONTEXT:
            raise ConfigError(
                f"{_in(path)}models.context_tokens must be a whole number >= {_MIN_CONTEXT} "
                f"(it is {settings.context_tokens})."
            )
        return settings


@dataclass(frozen=True)
class OllamaSettings:
    """``[ollama]``: where Ollama runs and how long Hippo waits for it, in seconds.

    The waits' defaults are the gateway's (a test keeps them equal); see
    ``assistant.llm.gateway.OllamaGateway`` for what each one bounds.

    Attributes:
        host: the Ollama URL (None: OLLAMA_HOST, else the local default).
        connect_timeout: to open a connection.
        load_timeout: for the first byte of an answer (a model may be loading).
        stall_timeout: between two chunks of an answer.
    """

    host: str | None = None
    connect_timeout: float = 5.0
    load_timeout: float = 120.0
    stall_timeout: float = 30.0

    @classmethod
    def from_mapping(cls, table: object, path: object = None) -> OllamaSettings:
        """The section from its TOML table (see ``parse_section``)."""
        settings = parse_section(cls, table, "ollama", path)
        for name in ("connect_timeout", "load_timeout", "stall_timeout"):
            if getattr(settings, name) <= 0:
                raise ConfigError(f"{_in(path)}ollama.{name} must be a number of seconds above 0.")
        return settings


@dataclass(frozen=True)
class MemorySettings:
    """``[memory]``: working memory, the prompt's budgets and the model's core edits.

    Attributes:
        strategy: working memory: buffer, window, summary or summary_buffer.
        core_edits: ``model_core_edits`` in config.toml: ``review`` keeps the model's core
            memory edits for the user's approval, ``apply`` applies them at once.
        budget: ``[memory.budget]``: token budgets of the prompt's memory sections.
    """

    strategy: Strategy = "summary_buffer"
    core_edits: CoreEditMode = "review"
    budget: ContextBudget = field(default_factory=ContextBudget)

    @classmethod
    def from_mapping(cls, table: object, path: object = None) -> MemorySettings:
        """The section from its TOML table (see ``parse_section``)."""
        renamed = {"core_edits": "model_core_edits"}
        settings = parse_section(cls, table, "memory", path, renamed)
        if settings.strategy not in STRATEGIES:
            raise ConfigError(
                f"{_in(path)}memory.strategy must be one of {', '.join(STRATEGIES)} "
                f"(it is {settings.strategy!r})."
            )
        if settings.core_edits not in CORE_EDITS:
            raise ConfigError(
                f"{_in(path)}memory.model_core_edits must be one of {', '.join(CORE_EDITS)} "
                f"(it is {settings.core_edits!r}): 'review' keeps the model's core memory "
                "edits for your approval, 'apply' applies them at once."
            )
        if isinstance(settings.budget, ContextBudget):  # no [memory.budget]: the defaults
            return settings
        budget = parse_section(ContextBudget, settings.budget, "memory.budget", path)
        return replace(settings, budget=budget)


@dataclass(frozen=True)
class SleepSettings:
    """``[sleep]``: how, when and how much the nightly consolidation does.

    Attributes:
        at: the local time of the nightly run, "HH:MM".
        misfire_grace_s: how late a missed nightly run may still start (the scheduler).
        keep_backups: how many backups of the data file to keep.
        idle_minutes: a session with no message for this long counts as closed.
        max_llm_calls: the cap on model calls per run; the rest waits for the next run.
        max_attempts: how many runs may fail on one session before it is given up.
        update_batch: candidates decided per update call.
        auto_activate: whether user-stated facts with strong evidence become active at once.
        auto_activate_confidence: the model confidence such a fact needs.
        min_confidence: the model confidence below which a candidate fact is not proposed.
        reflection_threshold: summed importance since the last reflection that triggers one.
        max_questions: questions asked per reflection.
        max_insights: insights written per reflection.
        max_depth: the deepest reflection allowed (an insight about insights is deeper).
        keep_event_importance: expired, unconsolidated events this important are kept
            for review, one item per source and day; less important ones are dropped.
        max_review_items: the most items a run proposes for review (new pending facts,
            grouped events, insights); the rest waits for the next runs.
        often_used: uses (in prompts) since the last run that raise an item's importance.
        lock_ttl_s: a lock without a heartbeat for this long is taken over.
        model: the model to consolidate with ('' uses the chat model).
    """

    at: str = "03:00"
    misfire_grace_s: int = 6 * 3600
    keep_backups: int = 7
    idle_minutes: int = 30
    max_llm_calls: int = 200
    max_attempts: int = 3
    update_batch: int = 10
    auto_activate: bool = True
    auto_activate_confidence: float = 0.7
    min_confidence: float = 0.3
    reflection_threshold: float = 150.0
    max_questions: int = 3
    max_insights: int = 5
    max_depth: int = 2
    keep_event_importance: float = 7.0
    max_review_items: int = 50
    often_used: int = 3
    lock_ttl_s: int = 900
    model: str = ""

    @property
    def at_time(self) -> time:
        """``at`` as a time of day."""
        return _parse_at(self.at)

    def with_changes(self, **changes: Any) -> SleepSettings:
        """A copy with some settings changed."""
        return replace(self, **changes)

    @classmethod
    def from_mapping(cls, table: object, path: object = None) -> SleepSettings:
        """Settings from a config table (see ``parse_section``).

        Raises:
            ConfigError: an unknown key or a value of the wrong type.
        """
        if isinstance(table, Mapping) and table.get("model") == "":
            # '' is the default ("use the chat model"), not a missing name
            table = {k: v for k, v in table.items() if k != "model"}
        settings = parse_section(cls, table, "sleep", path)
        try:
            settings.at_time  # noqa: B018  (validates "HH:MM")
        except ConfigError as exc:
            raise ConfigError(f"{_in(path)}{exc}") from None
        return settings


def _in(path: object) -> str:
    return f"In {path}, " if path is not None else ""


def _parse_at(text: str) -> time:
    try:
        hour, minute = (int(part) for part in text.split(":"))
        return time(hour, minute)
    except ValueError:
        raise ConfigError(f'sleep.at must be a local time like "03:00", not {text!r}.') from None


@dataclass(frozen=True)
class Settings:
    """What the running engine uses; ``engine.live_settings.apply`` takes one."""

    models: ModelSettings = field(default_factory=ModelSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    retrieval: RetrievalWeights = field(default_factory=RetrievalWeights)
    sleep: SleepSettings = field(default_factory=SleepSettings)
