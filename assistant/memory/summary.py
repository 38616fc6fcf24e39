"""The running summary of a session's older turns (working memory's summary strategies).

Updated after the reply, off the critical path; if the model can't be reached the
old summary stays and the turns wait for the next try (they are in recall anyway).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from assistant.memory.models import Message

if TYPE_CHECKING:
    from assistant.llm.gateway import OllamaGateway

__all__ = ["SUMMARY_PROMPT", "fold_into_summary"]

SUMMARY_PROMPT = (
    "You keep a running summary of a conversation between a user and their assistant. "
    "Rewrite the summary so that it also covers the new turns: keep names, dates, decisions, "
    "plans and preferences; drop small talk; at most 200 words; plain text; write dates as "
    "absolute dates. Reply with the summary only."
)


def fold_into_summary(
    llm: OllamaGateway, model: str, summary: str, turns: Sequence[Message], *, can_think: bool
) -> str:
    """The summary rewritten to cover ``turns`` too (one LLM call, thinking off)."""
    lines = "\n".join(
        f"[{m.created_at.astimezone():%Y-%m-%d %H:%M}] {m.role}: {m.content}" for m in turns
    )
    result = llm.chat_once(
        model,
        [
            {"role": "system", "content": SUMMARY_PROMPT},
            {
                "role": "user",
                "content": f"Summary so far:\n{summary or '(none)'}\n\nNew turns:\n{lines}",
            },
        ],
        think=False if can_think else None,
    )
    return result.content.strip() or summary
