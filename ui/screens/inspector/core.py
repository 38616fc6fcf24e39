"""The core memory tab: the human and persona blocks, edited with their size limits in view."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static, TextArea

from assistant.memory.core import LABELS
from assistant.terminal import visible
from ui.screens.inspector.pane import InspectorPane

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.engine import Hippo
    from assistant.memory.core import CoreBlock

__all__ = ["CoreMemoryPane"]

_ABOUT = {
    "human": "What Hippo keeps in mind about you, in every conversation.",
    "persona": "Who Hippo is to you: its standing character and habits.",
}


def _usage(label: str, used: int, limit: int) -> Content:
    left = limit - used
    note = f"{left} left" if left >= 0 else f"{-left} over the limit: shorten it to save"
    return Content.assemble(
        (label, "bold"), f" · {used}/{limit} characters · ", (note, "" if left >= 0 else "red")
    )


class CoreMemoryPane(InspectorPane):
    """Both core blocks in editors; ctrl+s saves the one being edited (as the user).

    Every save is recorded with its before and after, so it can be undone from History.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save block", priority=True),
    ]

    def __init__(self, engine: Hippo, *, id: str | None = None) -> None:
        super().__init__(engine, id=id)
        self._limits: dict[str, int] = {}
        self._stored: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        for label in LABELS:
            yield Static(id=f"core-{label}-usage", classes="core-usage")
            yield Static(Content(_ABOUT[label]), classes="hint")
            yield TextArea(id=f"core-{label}", soft_wrap=True, tab_behavior="focus", compact=True)

    def reload(self) -> None:
        blocks = self.admin.browse.core_blocks()
        for label in LABELS:
            self._show(blocks[label])

    def _show(self, block: CoreBlock) -> None:
        editor = self.query_one(f"#core-{block.label}", TextArea)
        # Edited as it shows: a control character in the block reads as its escape.
        editor.load_text(visible(block.value))
        self._stored[block.label] = block.value
        self._limits[block.label] = block.char_limit
        self._count(block.label)

    def _count(self, label: str) -> None:
        used = len(self.query_one(f"#core-{label}", TextArea).text)
        limit = self._limits.get(label, 0)
        self.query_one(f"#core-{label}-usage", Static).update(_usage(label, used, limit))

    @on(TextArea.Changed)
    def _edited(self, event: TextArea.Changed) -> None:
        if event.text_area.id:
            self._count(event.text_area.id.removeprefix("core-"))

    def action_save(self) -> None:
        """Save the block being edited (or both, when neither has focus)."""
        focused = self.screen.focused
        labels = [
            label for label in LABELS if focused is self.query_one(f"#core-{label}", TextArea)
        ] or list(LABELS)
        for label in labels:
            text = self.query_one(f"#core-{label}", TextArea).text
            stored = self._stored.get(label, "")
            text = stored if text == visible(stored) else text  # untouched: keep it exact
            block = self.attempt(partial(self.admin.browse.edit_core, label, text))
            if block is not None:  # the other block keeps any unsaved edit
                self._show(block)
                self.notify(f"Saved the {label} block.", title="Memory", markup=False)
                self.post_message(self.Changed(self))
