"""The activity chart's numbers, the episodes timeline, and how much is remembered."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import date, datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from assistant.admin.views import AdminStats, DayActivity, DayEpisodes
from assistant.clock import Clock
from assistant.memory.episodes import Episode
from assistant.memory.profile_data.census import profile_counts
from assistant.memory.records import Profile

if TYPE_CHECKING:
    from assistant.memory.episodes import EpisodeStore
    from assistant.memory.facts import FactStore
    from assistant.memory.messages import MessageStore
    from assistant.memory.sleep_runs import RunStore
    from assistant.memory.vectors import VectorStore

__all__ = ["ActivityAdmin"]


class ActivityAdmin:
    """Per-day activity, the episodes timeline, and the profile's stats.

    Args:
        messages: the messages store.
        facts: the facts store.
        episodes: the episodes store.
        vectors: the vectors store (what waits for a vector).
        runs: sleep's run reports (when it last ran).
        conn: returns the calling thread's connection (for the profile's counts).
        data_file: the data file (its size).
        profile: returns the profile every call works in.
        clock: the time source ("today").
    """

    def __init__(
        self,
        *,
        messages: MessageStore,
        facts: FactStore,
        episodes: EpisodeStore,
        vectors: VectorStore,
        runs: RunStore,
        conn: Callable[[], apsw.Connection],
        data_file: Path,
        profile: Callable[[], Profile],
        clock: Clock,
    ) -> None:
        self._messages = messages
        self._facts = facts
        self._episodes = episodes
        self._vectors = vectors
        self._runs = runs
        self._conn = conn
        self._data_file = Path(data_file)
        self._profile = profile
        self._clock = clock

    @property
    def _pid(self) -> int:
        return self._profile().id

    def _days(self, days: int, tz: tzinfo | None) -> tuple[list[date], datetime]:
        today = self._clock.now().astimezone(tz).date()
        first = today - timedelta(days=max(days, 1) - 1)
        start = datetime.combine(first, datetime.min.time(), tzinfo=tz).astimezone()
        return [first + timedelta(days=n) for n in range(max(days, 1))], start

    def per_day(self, days: int = 30, *, tz: tzinfo | None = None) -> list[DayActivity]:
        """Sessions, messages and new memories (facts and episodes) per day, oldest first.

        Every day of the window is listed, idle ones with zeros (ready for a sparkline).

        Args:
            days: how many days, ending today.
            tz: the time zone whose days count (None: this machine's).
        """
        window, start = self._days(days, tz)
        messages: Counter[date] = Counter()
        sessions: defaultdict[date, set[int]] = defaultdict(set)
        for sid, at in self._messages.message_times(self._pid, start):
            day = at.astimezone(tz).date()
            messages[day] += 1
            sessions[day].add(sid)
        learned = self._facts.listing.learned_since(self._pid, start)
        written = self._episodes.written_since(self._pid, start)
        memories = Counter(at.astimezone(tz).date() for at in [*learned, *written])
        return [DayActivity(d, len(sessions[d]), messages[d], memories[d]) for d in window]

    def episodes_by_day(self, days: int = 30, *, tz: tzinfo | None = None) -> list[DayEpisodes]:
        """Episodes of the last ``days`` days grouped by the day they ended, newest day first."""
        _, start = self._days(days, tz)
        ids = self._episodes.ended_since(self._pid, start)
        found = self._episodes.get_many(ids, self._pid)
        by_day: dict[date, list[Episode]] = {}
        for eid in ids:
            episode = found[eid]
            by_day.setdefault(episode.ended_at.astimezone(tz).date(), []).append(episode)
        return [
            DayEpisodes(day, tuple(sorted(eps, key=lambda e: (-e.importance, e.started_at))))
            for day, eps in by_day.items()
        ]

    def stats(self) -> AdminStats:
        """How much the profile remembers, what awaits review, and the file's size."""
        path = self._data_file
        size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
        by_status = self._facts.listing.by_status(self._pid)
        return AdminStats(
            profile=self._profile(),
            counts=profile_counts(self._conn(), self._pid),
            facts_by_status=by_status,
            pending_review=by_status.get("pending", 0),
            queued_embeddings=self._vectors.queued(self._pid),
            file_bytes=size,
            last_sleep=self._runs.last_finished(),
        )
