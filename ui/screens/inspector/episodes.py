"""The episodes tab: what happened, day by day, and the shape of recent weeks at a glance."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Sparkline, Static

from assistant.terminal import visible
from ui.format import clip, day
from ui.screens.inspector.pane import InspectorPane, Place
from ui.widgets import RecordTable

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.admin.views import DayActivity
    from assistant.engine import Hippo
    from assistant.memory.episodes import Episode

__all__ = ["DAYS", "EpisodesPane"]

DAYS = 28


def _chart(title: str, chart_id: str) -> Vertical:
    return Vertical(
        Static(Content(title), id=f"{chart_id}-title", classes="hint"),
        Sparkline([], id=chart_id, summary_function=max),
        classes="chart",
    )


class EpisodesPane(InspectorPane):
    """Episodes of the last four weeks by day, newest first, under charts of daily activity.

    Enter opens the episode's session in the chat.
    """

    def __init__(self, engine: Hippo, *, id: str | None = None) -> None:
        super().__init__(engine, id=id)
        self._episodes: dict[int, Episode] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="activity-title", classes="section")
        with Horizontal(id="charts"):
            yield _chart("Sessions per day", "sessions-chart")
            yield _chart("Memories learned per day", "memories-chart")
        yield RecordTable(
            [("Day", 10), ("Episode", 26), ("Imp.", 4), ("Topics", 20), ("Summary", 50)],
            flex="Summary",
            id="episodes-table",
        )
        yield Static(id="episode-summary", classes="detail")

    def reload(self) -> None:
        self._show_activity(self.admin.activity.per_day(days=DAYS))
        by_day = self.admin.activity.episodes_by_day(DAYS)
        rows = []
        self._episodes = {}
        for group in by_day:
            for index, episode in enumerate(group.episodes):
                self._episodes[episode.id] = episode
                rows.append((episode.id, (
                    day(episode.ended_at) if index == 0 else "",
                    clip(episode.title or "(untitled)", 26),
                    f"{episode.importance:.0f}",
                    clip(", ".join(episode.topics), 20),
                    clip(episode.summary, 200),
                )))  # fmt: skip
        table = self.query_one("#episodes-table", RecordTable)
        table.show(rows)
        self._describe(table.selected_id)

    def _show_activity(self, days: list[DayActivity]) -> None:
        sessions = [d.sessions for d in days]
        memories = [d.memories for d in days]
        self.query_one("#sessions-chart", Sparkline).data = sessions
        self.query_one("#memories-chart", Sparkline).data = memories
        span = f"{days[0].day:%b %d} – {days[-1].day:%b %d}" if days else ""
        self.query_one("#activity-title", Static).update(
            Content(f"Last {DAYS} days ({span}): {sum(1 for n in sessions if n)} days with "
                    f"chats, {sum(d.messages for d in days)} messages, {sum(memories)} memories "
                    "learned")
        )  # fmt: skip
        self.query_one("#sessions-chart-title", Static).update(
            Content(f"Sessions per day (most {max(sessions, default=0)})")
        )
        self.query_one("#memories-chart-title", Static).update(
            Content(f"Memories learned per day (most {max(memories, default=0)})")
        )

    def _describe(self, episode_id: int | None) -> None:
        episode = self._episodes.get(episode_id) if episode_id is not None else None
        text = _detail(episode) if episode else (
            "No episodes in these weeks yet: sleep (the nightly consolidation) writes them "
            "from finished sessions."
        )  # fmt: skip
        self.query_one("#episode-summary", Static).update(Content(visible(text)))

    @on(RecordTable.RowHighlighted, "#episodes-table")
    def _highlighted(self, event: RecordTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._describe(int(event.row_key.value))

    @on(RecordTable.RowSelected, "#episodes-table")
    def _open(self, event: RecordTable.RowSelected) -> None:
        event.stop()
        episode = self._episodes.get(int(event.row_key.value or 0))
        if episode is not None and episode.session_id is not None:
            first = episode.message_ids[0] if episode.message_ids else None
            self.post_message(self.OpenSession(Place(episode.session_id, first)))
        else:
            self.notify("This episode has no session to open.", markup=False)


def _detail(episode: Episode) -> str:
    start, end = episode.started_at.astimezone(), episode.ended_at.astimezone()
    return (
        f"{episode.title or '(untitled)'} · {start:%Y-%m-%d %H:%M}–{end:%H:%M} · importance "
        f"{episode.importance:.0f} · {len(episode.message_ids)} message(s) · Enter opens "
        f"the session\n{episode.summary}"
    )
