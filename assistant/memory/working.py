"""Working memory: which of the live session's turns go into the prompt, under a budget.

Four strategies, as in LangChain's memories: the whole buffer, a window of the last K
turns, a running summary alone, and a running summary plus the recent buffer (the
default). Turns that fall out of the prompt are never lost: they stay in recall, and
the summary strategies fold them into the session's running summary after the reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from assistant.memory.long_text import clip
from assistant.memory.records import Message
from assistant.tokens import estimate_tokens

if TYPE_CHECKING:
    from assistant.memory.messages import MessageStore

__all__ = ["STRATEGIES", "Strategy", "WorkingMemory", "select_turns", "working_memory"]

Strategy = Literal["buffer", "window", "summary", "summary_buffer"]
STRATEGIES: tuple[Strategy, ...] = ("buffer", "window", "summary", "summary_buffer")


@dataclass(frozen=True, slots=True)
class WorkingMemory:
    """What the prompt carries of the session.

    Attributes:
        summary: the running summary of older turns ("" when none applies).
        turns: the turns sent verbatim, oldest first (the new user message last).
        to_summarise: turns that left the prompt and are not yet in the summary.
    """

    summary: str
    turns: tuple[Message, ...]
    to_summarise: tuple[Message, ...]


def _usable(message: Message) -> bool:
    return message.status != "failed" and bool(message.content.strip())


def select_turns(
    history: Sequence[Message],
    *,
    strategy: Strategy,
    budget: int,
    window: int = 12,
    summary: str = "",
    summary_upto: int = 0,
) -> WorkingMemory:
    """Choose the session's turns for the prompt.

    Args:
        history: the session's recent messages, oldest first, ending with the new one.
        strategy: one of ``STRATEGIES``.
        budget: tokens the turns (and summary) may take.
        window: how many turns the window strategy keeps.
        summary: the session's running summary so far.
        summary_upto: id of the last message folded into ``summary``.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown working-memory strategy {strategy!r}; use one of {STRATEGIES}")
    turns = [m for m in history if _usable(m)]
    if not turns:
        return WorkingMemory("", (), ())
    uses_summary = strategy in ("summary", "summary_buffer")
    if strategy == "summary":
        kept = turns[-1:]
    else:
        if strategy == "window":
            turns = turns[-window:]
        room = budget - (_cost(summary) if uses_summary else 0)
        kept = _newest_within(turns, room)
    first_kept = kept[0].id
    dropped = tuple(m for m in turns if m.id < first_kept and m.id > summary_upto)
    return WorkingMemory(
        summary=summary if uses_summary else "",
        turns=tuple(kept),
        to_summarise=dropped if uses_summary else (),
    )


def _cost(text: str) -> int:
    return estimate_tokens(text)


def _newest_within(turns: list[Message], room: int) -> list[Message]:
    """The newest turns whose tokens fit ``room`` (always at least the last one).

    The last one, too long to fit whole (a pasted log), goes as its head and tail.
    """
    kept: list[Message] = []
    for message in reversed(turns):
        cost = message.tokens or _cost(message.content)
        if kept and cost > room:
            break
        if not kept and cost > room:
            message = replace(message, content=clip(message.content, room, cost))
            cost = _cost(message.content)
        kept.append(message)
        room -= cost
    return kept[::-1]


def working_memory(
    messages: MessageStore,
    session_id: int,
    strategy: Strategy,
    window: int,
    *,
    read_long: bool = False,
) -> WorkingMemory:
    """The session's turns for the prompt, as ``strategy`` chooses them in half the
    model's ``window``.

    An earlier turn too long for that half is never sent, so its text is not read
    (a 50 MB paste was read on every turn after it) unless ``read_long``: the running
    summary is written from it.
    """
    summary, upto = messages.summary(session_id)
    budget = window // 2
    return select_turns(
        messages.recent_messages(session_id, 400, longest=None if read_long else budget),
        strategy=strategy,
        budget=budget,
        summary=summary,
        summary_upto=upto,
    )
