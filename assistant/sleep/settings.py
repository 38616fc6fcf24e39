"""Sleep's settings: the ``[sleep]`` table of config.toml, with defaults that work."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from datetime import time

from assistant.errors import ConfigError

__all__ = ["SleepSettings"]


@dataclass(frozen=True, slots=True)
class SleepSettings:
    """How, when and how much the nightly consolidation does.

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
        reflection_threshold: summed importance since the last reflection that triggers one.
        max_questions: questions asked per reflection.
        max_insights: insights written per reflection.
        max_depth: the deepest reflection allowed (an insight about insights is deeper).
        keep_event_importance: expired, unconsolidated events this important are kept as
            pending facts; less important ones are dropped.
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
    reflection_threshold: float = 150.0
    max_questions: int = 3
    max_insights: int = 5
    max_depth: int = 2
    keep_event_importance: float = 7.0
    often_used: int = 3
    lock_ttl_s: int = 900
    model: str = ""

    @property
    def at_time(self) -> time:
        """``at`` as a time of day."""
        return _parse_at(self.at)

    def with_changes(self, **changes: object) -> SleepSettings:
        """A copy with some settings changed."""
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_mapping(
        cls, table: Mapping[str, object] | None, where: str = "[sleep]"
    ) -> SleepSettings:
        """Settings from a config table (e.g. ``config.extra["sleep"]``).

        Raises:
            ConfigError: an unknown key or a value of the wrong type.
        """
        table = table or {}
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where} must be a table of settings.")
        known = {f.name: f for f in fields(cls)}
        values: dict[str, object] = {}
        for key, value in table.items():
            if key not in known:
                raise ConfigError(
                    f"{where} has no setting '{key}'; known: {', '.join(sorted(known))}."
                )
            values[key] = _checked(key, value, getattr(cls(), key), where)
        settings = cls(**values)  # type: ignore[arg-type]
        settings.at_time  # noqa: B018  (validates "HH:MM")
        return settings


def _checked(key: str, value: object, default: object, where: str) -> object:
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{where} {key} must be true or false, not {value!r}.")
        return value
    if isinstance(default, int | float):
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"{where} {key} must be a number >= 0, not {value!r}.")
        return type(default)(value)
    if not isinstance(value, str):
        raise ConfigError(f"{where} {key} must be a string, not {value!r}.")
    return value


def _parse_at(text: str) -> time:
    try:
        hour, minute = (int(part) for part in text.split(":"))
        return time(hour, minute)
    except ValueError:
        raise ConfigError(f'[sleep] at must be a local time like "03:00", not {text!r}.') from None
