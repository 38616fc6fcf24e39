"""Hippo's own widgets."""

from ui.widgets.conversation import Conversation
from ui.widgets.message import MessageView
from ui.widgets.model_list import ModelList
from ui.widgets.prompt import PromptInput
from ui.widgets.pull_row import PullRow
from ui.widgets.record_table import RecordTable
from ui.widgets.status import StatusLine

__all__ = [
    "Conversation",
    "MessageView",
    "ModelList",
    "PromptInput",
    "PullRow",
    "RecordTable",
    "StatusLine",
]
