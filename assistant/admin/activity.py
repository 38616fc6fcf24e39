"""The episodes timeline, the activity chart's numbers, listings, and how much is remembered."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date, datetime, timedelta, tzinfo
from pathlib import Path

from assistant.admin.activity_queries import ActivityQueries
from assistant.admin.export import ExportAdmin
from assistant.admin.models import AdminStats, DayActivity, DayEpisodes
from assistant.memory.archival import Document
from assistant.memory.episodes import Episode
from assistant.memory.events import Event
from assistant.memory.models import Session

__all__ = ["ActivityAdmin"]


class ActivityAdmin(ExportAdmin):
    """Per-day activity, the episodes timeline, listings of every tier, and stats."""

    @property
    def _activity(self) -> ActivityQueries:
        return ActivityQueries(self._conn)

    def _days(self, days: int, tz: tzinfo | None) -> tuple[list[date], datetime]:
        today = self._engine.clock.now().astimezone(tz).date()
        first = today - timedelta(days=max(days, 1) - 1)
        start = datetime.combine(first, datetime.min.time(), tzinfo=tz).astimezone()
        return [first + timedelta(days=n) for n in range(max(days, 1))], start

    def activity(self, days: int = 30, *, tz: tzinfo | None = None) -> list[DayActivity]:
        """Sessions, messages and new memories (facts and episodes) per day, oldest first.

        Every day of the window is listed, idle ones with zeros (ready for a sparkline).

        Args:
            days: how many days, ending today.
            tz: the time zone whose days count (None: this machine's).
        """
        window, start = self._days(days, tz)
        messages: Counter[date] = Counter()
        sessions: defaultdict[date, set[int]] = defaultdict(set)
        for sid, at in self._activity.message_times(self._pid, start):
            day = at.astimezone(tz).date()
            messages[day] += 1
            sessions[day].add(sid)
        memories = Counter(
            at.astimezone(tz).date() for at in self._activity.memory_times(self._pid, start)
        )
        return [DayActivity(d, len(sessions[d]), messages[d], memories[d]) for d in window]

    def episodes_by_day(self, days: int = 30, *, tz: tzinfo | None = None) -> list[DayEpisodes]:
        """Episodes of the last ``days`` days grouped by the day they ended, newest day first."""
        _, start = self._days(days, tz)
        ids = self._activity.episode_ids_since(self._pid, start)
        found = self._engine.episodes.get_many(ids, self._pid)
        by_day: dict[date, list[Episode]] = {}
        for eid in ids:
            episode = found[eid]
            by_day.setdefault(episode.ended_at.astimezone(tz).date(), []).append(episode)
        return [
            DayEpisodes(day, tuple(sorted(eps, key=lambda e: (-e.importance, e.started_at))))
            for day, eps in by_day.items()
        ]

    def sessions(self, limit: int = 50) -> list[Session]:
        """Recent sessions, newest first (incognito ones included, marked)."""
        return self._engine.sessions(limit)

    def episodes(self, limit: int = 50) -> list[Episode]:
        """Recent episodes, newest first."""
        return self._engine.episodes.recent(self._pid, limit=limit)

    def events(self, limit: int = 50) -> list[Event]:
        """Recent events (current and expired), newest first."""
        ids = self._activity.event_ids(self._pid, limit)
        found = self._engine.events.get_many(ids, self._pid)
        return [found[i] for i in ids if i in found]

    def documents(self) -> list[Document]:
        """Ingested documents with their chunk counts."""
        return self._engine.archive.documents(self._pid)

    def stats(self) -> AdminStats:
        """How much the profile remembers, what awaits review, and the file's size."""
        path = Path(self._engine.db.path)
        size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
        by_status = self._activity.facts_by_status(self._pid)
        return AdminStats(
            profile=self.profile,
            counts=self._activity.counts(self._pid),
            facts_by_status=by_status,
            pending_review=by_status.get("pending", 0),
            queued_embeddings=self._activity.queued(self._pid),
            file_bytes=size,
            last_sleep=self._activity.last_sleep(),
        )
