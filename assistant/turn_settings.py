"""The settings a chat turn is answered with (light: read at start-up)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assistant.memory.budget import ContextBudget

if TYPE_CHECKING:
    from assistant.memory.core_proposals import CoreEditMode
    from assistant.memory.working import Strategy

__all__ = ["TurnSettings"]


@dataclass(frozen=True, slots=True)
class TurnSettings:
    """What a chat turn is answered with; one immutable value, replaced whole on a change.

    A turn takes the value current when it starts, so a change in the Settings tab
    (on the UI thread) never reaches a turn halfway, and the background summaries read
    the current one each time.

    Attributes:
        chat_model: the model that answers.
        context_tokens: the context window Hippo fills (working memory gets half).
        working_strategy: buffer, window, summary or summary_buffer.
        context_budget: token budgets of the memory sections.
        core_edits: ``review``: the model's core memory edits wait for the user's
            approval; ``apply``: they apply at once, except from a turn that holds
            instruction-like or pasted text.
        save_every_s: how often a streaming reply's partial text is saved, so a killed
            process keeps it.
    """

    chat_model: str
    context_tokens: int = 8192
    working_strategy: Strategy = "summary_buffer"
    context_budget: ContextBudget = field(default_factory=ContextBudget)
    core_edits: CoreEditMode = "review"
    save_every_s: float = 1.0
