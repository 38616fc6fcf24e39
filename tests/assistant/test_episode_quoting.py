"""An episode reaches the prompt as Hippo's summary, with its dates, never as the user's words.

A small model's summary slipped into the speaker's voice ("I am Alessandro and I love
you!"); quoted under Memories as a bare "conversation", the chat model answered with it as
if the user had said it.
"""

from __future__ import annotations

from datetime import UTC, datetime

SUMMARY = "I am Alessandro and I love you! We both go to the beach every year."


def _episode(engine, start: datetime, end: datetime):
    session = engine.memory.messages.create_session(engine.memory.profile.id, started_at=start)
    return engine.memory.episodes.add(
        engine.memory.profile.id,
        summary=SUMMARY,
        title="The Great Difference",
        started_at=start,
        ended_at=end,
        session_id=session.id,
    )


def test_a_recent_episode_is_quoted_as_hippos_summary_with_its_dates(engine, fake_ollama):
    _episode(engine, datetime(2026, 11, 21, 9, tzinfo=UTC), datetime(2026, 11, 22, 18, tzinfo=UTC))
    session = engine.conversations.new_session()
    list(engine.send(session.id, "Where do I live now?"))
    system = [r for r in fake_ollama.requests if r.path == "/api/chat"][-1].body["messages"][0]
    lines = system["content"].splitlines()
    quoted = next(line for line in lines if "Alessandro" in line)
    assert quoted.startswith(
        "- [2026-11-22, Hippo's summary of a conversation from 2026-11-21, not the user's words]"
    )
    heading = max(n for n, line in enumerate(lines[: lines.index(quoted)]) if line[:4] == "### ")
    assert lines[heading] == "### Hippo's summaries of recent conversations"


def test_a_recalled_episode_says_whose_words_it_is(engine):
    day = datetime(2026, 11, 21, 9, tzinfo=UTC)
    stored = _episode(engine, day, day.replace(hour=10))
    (recalled,) = engine.memory.recall("Alessandro beach", kinds=("episode",))
    assert recalled.key == ("episode", stored.id)
    assert recalled.source == "Hippo's summary of a conversation, not the user's words"
    assert recalled.at == day.replace(hour=10)
