"""Working memory's four strategies keep the prompt's turns inside their budget."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from assistant.memory.records import Message
from assistant.memory.working import select_turns

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _turns(n: int, tokens: int = 10) -> list[Message]:
    return [
        Message(
            id=i + 1,
            session_id=1,
            role="user" if i % 2 == 0 else "assistant",
            content=f"turn {i}",
            created_at=T0,
            tokens=tokens,
        )
        for i in range(n)
    ]


def test_buffer_keeps_every_turn_that_fits_newest_first():
    kept = select_turns(_turns(10), strategy="buffer", budget=45)
    assert [m.id for m in kept.turns] == [7, 8, 9, 10]
    assert kept.summary == "" and kept.to_summarise == ()


def test_window_keeps_the_last_k_turns():
    kept = select_turns(_turns(10), strategy="window", budget=10_000, window=3)
    assert [m.id for m in kept.turns] == [8, 9, 10]


def test_summary_keeps_only_the_summary_and_the_new_message():
    kept = select_turns(_turns(6), strategy="summary", budget=10_000, summary="so far")
    assert [m.id for m in kept.turns] == [6]
    assert kept.summary == "so far"
    assert [m.id for m in kept.to_summarise] == [1, 2, 3, 4, 5]


def test_summary_buffer_folds_only_turns_that_left_the_buffer_and_are_not_yet_summarised():
    kept = select_turns(
        _turns(10), strategy="summary_buffer", budget=50, summary="older", summary_upto=2
    )
    assert [m.id for m in kept.turns] == [7, 8, 9, 10]  # 50 minus the summary's cost
    assert [m.id for m in kept.to_summarise] == [3, 4, 5, 6]


def test_the_new_message_is_kept_even_when_it_alone_exceeds_the_budget():
    kept = select_turns(_turns(3, tokens=500), strategy="buffer", budget=100)
    assert [m.id for m in kept.turns] == [3]


def test_failed_and_empty_turns_never_enter_the_prompt():
    turns = _turns(3)
    turns[1] = Message(
        id=2, session_id=1, role="assistant", content="", created_at=T0, status="failed"
    )
    kept = select_turns(turns, strategy="buffer", budget=1000)
    assert [m.id for m in kept.turns] == [1, 3]


def test_an_unknown_strategy_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="summary_buffer"):
        select_turns(_turns(2), strategy="everything", budget=10)  # type: ignore[arg-type]
