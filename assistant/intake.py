"""What reaches memory from outside the chat: files (archival) and events (`hippo log`).

Each is stored at once and embedded by the background work, which is woken for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.memory.archival import IngestReport
    from assistant.memory.recall import Memory
    from assistant.memory.sensory import Event, LogResult

__all__ = ["Intake"]


class Intake:
    """Adds files and events to a profile's memory, then wakes the background work.

    Args:
        memory: the profile's memory (its archive and event stores).
        wake: tells the background work there is something new to embed.
    """

    def __init__(self, memory: Memory, wake: Callable[[], None]) -> None:
        self._memory = memory
        self._wake = wake

    def ingest(self, path: Path | str) -> IngestReport:
        """Add a text/Markdown file, or every such file under a folder, to archival memory."""
        report = self._memory.archive.ingest_path(self._memory.profile.id, path)
        self._wake()
        return report

    def log_event(self, text: str, **details: object) -> Event:
        """Record a real-time signal from outside the chat (``hippo log``)."""
        event = self._memory.events.log(self._memory.profile.id, text, **details)  # type: ignore[arg-type]
        self._wake()
        return event

    def log_events_json(self, lines: Iterable[str | bytes], *, source: str = "cli") -> LogResult:
        """Record events from JSON lines; bad lines are reported, the rest kept."""
        result = self._memory.events.log_json_lines(self._memory.profile.id, lines, source=source)
        self._wake()
        return result
