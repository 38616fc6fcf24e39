"""The episodes timeline, the activity chart's numbers, and the stats."""

from __future__ import annotations

from datetime import UTC, date, timedelta

from tests.admin.helpers import START, chat, seed


def test_activity_counts_sessions_messages_and_memories_per_day(engine, admin, clock, tmp_path):
    seed(engine, tmp_path)
    clock.advance(days=63)  # 2026-03-05: the seeded chats are on the 2nd and the 4th

    days = admin.activity.per_day(7, tz=UTC)

    assert [d.day for d in days] == [date(2026, 2, 27) + timedelta(days=n) for n in range(7)]
    by_day = {d.day: d for d in days}
    assert (by_day[date(2026, 3, 2)].sessions, by_day[date(2026, 3, 2)].messages) == (1, 4)
    assert by_day[date(2026, 3, 4)].messages == 2
    assert sum(d.memories for d in days) == 0  # the facts were learned on 1 January
    assert admin.activity.per_day(70, tz=UTC)[0].day == date(2025, 12, 26)
    assert sum(d.memories for d in admin.activity.per_day(70, tz=UTC)) == 4  # 3 facts, 1 episode


def test_episodes_are_grouped_by_day_newest_first(engine, admin, clock):
    for n, text in enumerate(("Cello lesson.", "Bought strings.", "Concert.")):
        _, said = chat(engine, START + timedelta(days=n // 2), text, "Nice.")
        engine.memory.episodes.add(
            engine.memory.profile.id,
            summary=text,
            started_at=said[0].created_at,
            ended_at=said[1].created_at,
            importance=3 + n,
        )
    clock.advance(days=70)

    days = admin.activity.episodes_by_day(30, tz=UTC)

    assert [d.day for d in days] == [date(2026, 3, 3), date(2026, 3, 2)]
    assert [e.summary for e in days[1].episodes] == ["Bought strings.", "Cello lesson."]


def test_stats_count_every_tier(engine, admin, tmp_path):
    seed(engine, tmp_path)

    stats = admin.activity.stats()

    assert stats.counts["messages"] == 6 and stats.counts["facts"] == 3
    assert stats.counts["documents"] == 1 and stats.counts["events"] == 1
    assert stats.facts_by_status == {"active": 3} and stats.pending_review == 0
    assert stats.file_bytes > 0 and stats.last_sleep is None
