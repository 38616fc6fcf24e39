"""Where Hippo keeps things and which models it uses: defaults, config.toml, environment.

Precedence, highest first: command-line flags, environment (HIPPO_DATA_DIR,
HIPPO_CONFIG_DIR, OLLAMA_HOST), ``config.toml`` under the platform's config folder,
the defaults. Each section of config.toml is a typed, frozen dataclass (see
``assistant.settings``), parsed and checked once, in ``load_config``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from assistant.errors import ConfigError
from assistant.settings import (
    DEFAULT_CHAT_MODEL,
    DEFAULT_EMBEDDING_MODEL,
    MemorySettings,
    ModelSettings,
    OllamaSettings,
    RetrievalWeights,
    Settings,
    SleepSettings,
    parse_section,
)

__all__ = [
    "DEFAULT_CHAT_MODEL",
    "DEFAULT_EMBEDDING_MODEL",
    "Config",
    "config_dir_from",
    "load_config",
    "save_config",
]

APP_NAME = "hippo"
DB_FILENAME = "hippo.db"
# The tables config.toml's sections are read from; any other table is kept as it is.
_OWN_TABLES = {"models", "ollama", "profile", "memory", "retrieval", "sleep"}


@dataclass(frozen=True)
class Config:
    """Hippo's settings for one run: where its files live, and each config.toml section.

    Attributes:
        data_dir: the folder of the data file.
        config_dir: the folder of config.toml.
        profile: ``[profile] name``: the profile to work in.
        models: ``[models]``.
        ollama: ``[ollama]`` (its host overridden by OLLAMA_HOST).
        memory: ``[memory]`` and ``[memory.budget]``.
        retrieval: ``[retrieval]``.
        sleep: ``[sleep]``.
        extra: config.toml's other tables, kept as they are when it is saved.
    """

    data_dir: Path
    config_dir: Path
    profile: str = "default"
    models: ModelSettings = field(default_factory=ModelSettings)
    ollama: OllamaSettings = field(default_factory=OllamaSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    retrieval: RetrievalWeights = field(default_factory=RetrievalWeights)
    sleep: SleepSettings = field(default_factory=SleepSettings)
    extra: Mapping[str, object] = field(default_factory=dict, compare=False)

    @property
    def db_path(self) -> Path:
        """The one SQLite file."""
        return self.data_dir / DB_FILENAME

    @property
    def config_path(self) -> Path:
        """The TOML file settings are saved to."""
        return self.config_dir / "config.toml"

    @property
    def settings(self) -> Settings:
        """What the engine uses (``engine.live_settings.apply`` takes it)."""
        return Settings(self.models, self.memory, self.retrieval, self.sleep)

    def with_settings(self, settings: Settings) -> Config:
        """A copy with the engine's sections taken from ``settings``."""
        return replace(
            self,
            models=settings.models,
            memory=settings.memory,
            retrieval=settings.retrieval,
            sleep=settings.sleep,
        )

    def with_models(self, *, chat: str | None = None, embedding: str | None = None) -> Config:
        """A copy with other chat and/or embedding models (None keeps one)."""
        models = replace(
            self.models,
            chat=chat or self.models.chat,
            embedding=embedding or self.models.embedding,
        )
        return replace(self, models=models)


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


def load_config(
    *,
    data_dir: Path | str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Read the settings for this run: each section parsed and checked once, here.

    Args:
        data_dir: a --data-dir flag, which beats HIPPO_DATA_DIR.
        environ: the environment to read (defaults to ``os.environ``).

    Raises:
        ConfigError: config.toml is unreadable or holds a bad value; the message names
            the file, the key and what is allowed.
    """
    env = os.environ if environ is None else environ
    chosen_data = data_dir or env.get("HIPPO_DATA_DIR") or _platform_dir("data")
    config_dir = config_dir_from(env)
    path = config_dir / "config.toml"
    raw = _read_toml(path)
    ollama = OllamaSettings.from_mapping(raw.get("ollama"), path)
    if env.get("OLLAMA_HOST"):
        ollama = replace(ollama, host=env["OLLAMA_HOST"])
    profile = parse_section(_Profile, raw.get("profile"), "profile", path)
    return Config(
        data_dir=Path(chosen_data).expanduser(),
        config_dir=config_dir,
        profile=profile.name,
        models=ModelSettings.from_mapping(raw.get("models"), path),
        ollama=ollama,
        memory=MemorySettings.from_mapping(raw.get("memory"), path),
        retrieval=parse_section(RetrievalWeights, raw.get("retrieval"), "retrieval", path),
        sleep=SleepSettings.from_mapping(raw.get("sleep"), path),
        extra={k: v for k, v in raw.items() if k not in _OWN_TABLES},
    )


@dataclass(frozen=True)
class _Profile:
    """``[profile]``: the profile to work in."""

    name: str = "default"


def save_config(config: Config) -> Path:
    """Write the user's choices to config.toml (atomically) and return its path.

    Models, profile and working-memory strategy are always written; the other settings
    only where they differ from the defaults, so a later Hippo's better defaults reach
    settings the user never changed.
    """
    import tomli_w

    raw = dict(config.extra)
    raw["models"] = asdict(config.models)
    ollama = _changed(replace(config.ollama, host=None))
    host = config.ollama.host
    if host and host != os.environ.get("OLLAMA_HOST"):
        ollama["host"] = host
    if ollama:
        raw["ollama"] = ollama
    raw["profile"] = {"name": config.profile}
    memory: dict[str, object] = {"strategy": config.memory.strategy}
    if config.memory.core_edits != "review":
        memory["model_core_edits"] = config.memory.core_edits
    if budget := _changed(config.memory.budget):
        memory["budget"] = budget
    raw["memory"] = memory
    for table, section in (("retrieval", config.retrieval), ("sleep", config.sleep)):
        if values := _changed(section):
            raw[table] = values
    config.config_dir.mkdir(parents=True, exist_ok=True)
    tmp = config.config_path.with_suffix(".toml.tmp")
    tmp.write_text(tomli_w.dumps(raw), encoding="utf-8")
    os.replace(tmp, config.config_path)
    return config.config_path


def _changed(section: Any) -> dict[str, object]:
    """A section's values that differ from its defaults (None: not set)."""
    default = type(section)()
    return {
        f.name: getattr(section, f.name)
        for f in fields(section)
        if getattr(section, f.name) != getattr(default, f.name)
        and getattr(section, f.name) is not None
    }
