"""Where Hippo keeps things and which models it uses: defaults, config.toml, environment.

Precedence, highest first: command-line flags, environment (HIPPO_DATA_DIR,
HIPPO_CONFIG_DIR, OLLAMA_HOST), ``config.toml`` under the platform's config folder,
the defaults below.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from assistant.errors import ConfigError

__all__ = [
    "DEFAULT_CHAT_MODEL",
    "DEFAULT_EMBEDDING_MODEL",
    "Config",
    "config_dir_from",
    "load_config",
    "save_config",
]

APP_NAME = "hippo"
# The defaults, named once. A small chat model that calls tools and thinks, and an
# embedding model that reads Chinese as well as English.
DEFAULT_CHAT_MODEL = "qwen3:1.7b"
DEFAULT_EMBEDDING_MODEL = "embeddinggemma"
DB_FILENAME = "hippo.db"
_STRATEGIES = ("buffer", "window", "summary", "summary_buffer")
_WEIGHTS = (
    "relevance", "recency", "importance", "keyword", "vector", "decay_per_hour",
    "min_relevance", "tail_relevance", "vector_floor", "duplicate_overlap", "candidates",
    "speaker", "neighbour", "context_coverage", "session", "present",
)  # fmt: skip
_CORE_EDITS = ("review", "apply")
_SECTIONS = ("facts", "episodes", "upcoming", "events", "recalled")
# [ollama]: how long Hippo waits for Ollama (see assistant.llm.gateway), in seconds.
_TIMEOUTS = ("connect_timeout", "load_timeout", "stall_timeout")
_OWN_TABLES = {"models", "ollama", "profile", "memory", "retrieval"}


@dataclass(frozen=True)
class Config:
    """Hippo's settings for one run."""

    data_dir: Path
    config_dir: Path
    chat_model: str = DEFAULT_CHAT_MODEL
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    ollama_host: str | None = None
    profile: str = "default"
    context_tokens: int = 8192
    working_strategy: str = "summary_buffer"
    retrieval: dict[str, float] = field(default_factory=dict)
    memory_budget: dict[str, int] = field(default_factory=dict)
    model_core_edits: str = "review"  # or "apply": the model's core memory edits at once
    ollama_timeouts: dict[str, float] = field(default_factory=dict)
    extra: dict[str, object] = field(default_factory=dict, compare=False)

    @property
    def db_path(self) -> Path:
        """The one SQLite file."""
        return self.data_dir / DB_FILENAME

    @property
    def config_path(self) -> Path:
        """The TOML file settings are saved to."""
        return self.config_dir / "config.toml"

    def with_changes(self, **changes: object) -> Config:
        """A copy with some settings changed."""
        return replace(self, **changes)  # type: ignore[arg-type]


def _platform_dir(kind: str) -> Path:
    import platformdirs

    if kind == "data":
        return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def config_dir_from(environ: Mapping[str, str] | None = None) -> Path:
    """The folder of config.toml: HIPPO_CONFIG_DIR, else the platform's config folder."""
    env = os.environ if environ is None else environ
    return Path(env.get("HIPPO_CONFIG_DIR") or _platform_dir("config")).expanduser()


def _read_toml(path: Path) -> dict[str, object]:
    if not path.exists():  # most runs: nothing saved, so the TOML parser is not imported
        return {}
    import tomllib

    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, OSError) as exc:
        raise ConfigError(
            f"Can't read settings from {path}: {exc}. Fix the file or delete it to start "
            "from the defaults."
        ) from exc


def _text(table: Mapping[str, object], key: str, path: Path) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"In {path}, '{key}' must be a non-empty string (it is {value!r}).")
    return value.strip()


def load_config(
    *,
    data_dir: Path | str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Read the settings for this run.

    Args:
        data_dir: a --data-dir flag, which beats HIPPO_DATA_DIR.
        environ: the environment to read (defaults to ``os.environ``).

    Raises:
        ConfigError: config.toml is unreadable or holds a bad value.
    """
    env = os.environ if environ is None else environ
    chosen_data = data_dir or env.get("HIPPO_DATA_DIR") or _platform_dir("data")
    config_dir = config_dir_from(env)
    path = config_dir / "config.toml"
    raw = _read_toml(path)
    models = raw.get("models", {})
    ollama = raw.get("ollama", {})
    if not isinstance(models, dict) or not isinstance(ollama, dict):
        raise ConfigError(f"In {path}, [models] and [ollama] must be tables.")
    context = models.get("context_tokens", 8192)
    if not isinstance(context, int) or context < 512:
        raise ConfigError(f"In {path}, models.context_tokens must be a whole number >= 512.")
    memory = _table(raw, "memory", path)
    strategy = _text(memory, "strategy", path) or "summary_buffer"
    if strategy not in _STRATEGIES:
        raise ConfigError(f"In {path}, memory.strategy must be one of {', '.join(_STRATEGIES)}.")
    core_edits = _text(memory, "model_core_edits", path) or "review"
    if core_edits not in _CORE_EDITS:
        raise ConfigError(
            f"In {path}, memory.model_core_edits must be one of {', '.join(_CORE_EDITS)} "
            f"(it is {core_edits!r}): 'review' keeps the model's core memory edits for your "
            "approval, 'apply' applies them at once."
        )
    return Config(
        data_dir=Path(chosen_data).expanduser(),
        config_dir=config_dir,
        chat_model=_text(models, "chat", path) or DEFAULT_CHAT_MODEL,
        embedding_model=_text(models, "embedding", path) or DEFAULT_EMBEDDING_MODEL,
        ollama_host=env.get("OLLAMA_HOST") or _text(ollama, "host", path),
        profile=_text(raw.get("profile", {}) or {}, "name", path) or "default",
        context_tokens=context,
        working_strategy=strategy,
        model_core_edits=core_edits,
        retrieval=_numbers(_table(raw, "retrieval", path), _WEIGHTS, path, "retrieval"),
        memory_budget={
            k: int(v)
            for k, v in _numbers(
                _table(memory, "budget", path), _SECTIONS, path, "memory.budget"
            ).items()
        },
        ollama_timeouts=_timeouts(ollama, path),
        extra={k: v for k, v in raw.items() if k not in _OWN_TABLES},
    )


def _timeouts(ollama: Mapping[str, object], path: Path) -> dict[str, float]:
    """The waits set under [ollama], each a number of seconds above zero."""
    settings = {k: v for k, v in ollama.items() if k != "host"}
    out = _numbers(settings, _TIMEOUTS, path, "ollama")
    for key, value in out.items():
        if value <= 0:
            raise ConfigError(f"In {path}, ollama.{key} must be a number of seconds above 0.")
    return out


def _table(raw: Mapping[str, object], key: str, path: Path) -> dict[str, object]:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"In {path}, [{key}] must be a table.")
    return value


def _numbers(
    table: Mapping[str, object], allowed: tuple[str, ...], path: Path, where: str
) -> dict[str, float]:
    out = {}
    for key, value in table.items():
        if key not in allowed:
            raise ConfigError(
                f"In {path}, [{where}] has no setting '{key}'; known: {', '.join(allowed)}."
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"In {path}, {where}.{key} must be a number >= 0.")
        out[key] = float(value)
    return out


def save_config(config: Config) -> Path:
    """Write the user's choices to config.toml (atomically) and return its path."""
    import tomli_w

    raw = dict(config.extra)
    raw["models"] = {
        "chat": config.chat_model,
        "embedding": config.embedding_model,
        "context_tokens": config.context_tokens,
    }
    ollama: dict[str, object] = dict(config.ollama_timeouts)
    if config.ollama_host and config.ollama_host != os.environ.get("OLLAMA_HOST"):
        ollama["host"] = config.ollama_host
    if ollama:
        raw["ollama"] = ollama
    raw["profile"] = {"name": config.profile}
    raw["memory"] = {"strategy": config.working_strategy}
    if config.model_core_edits != "review":
        raw["memory"]["model_core_edits"] = config.model_core_edits
    if config.memory_budget:
        raw["memory"]["budget"] = dict(config.memory_budget)
    if config.retrieval:
        raw["retrieval"] = dict(config.retrieval)
    config.config_dir.mkdir(parents=True, exist_ok=True)
    tmp = config.config_path.with_suffix(".toml.tmp")
    tmp.write_text(tomli_w.dumps(raw), encoding="utf-8")
    os.replace(tmp, config.config_path)
    return config.config_path
