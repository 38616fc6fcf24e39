"""Hippo's own widgets. The chat's load at start-up; the others when a screen first needs them."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ui.widgets.conversation import Conversation
from ui.widgets.message import MessageView
from ui.widgets.prompt import PromptInput
from ui.widgets.status import StatusLine

if TYPE_CHECKING:
    from ui.widgets.model_list import ModelList
    from ui.widgets.pull_row import PullRow
    from ui.widgets.record_table import RecordTable

__all__ = [
    "Conversation",
    "MessageView",
    "ModelList",
    "PromptInput",
    "PullRow",
    "RecordTable",
    "StatusLine",
]

_LAZY = {
    "ModelList": "ui.widgets.model_list",
    "PullRow": "ui.widgets.pull_row",
    "RecordTable": "ui.widgets.record_table",
}


def __getattr__(name: str) -> Any:
    """Import a widget on first use (PEP 562), keeping start-up light."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ui.widgets' has no attribute {name!r}")
