"""A list of installed models with sizes and capabilities, one of them chosen."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from assistant.llm.names import same_model, short_name
from assistant.terminal import visible
from ui.format import capability_text, human_size

if TYPE_CHECKING:
    from assistant.llm.values import ModelInfo

__all__ = ["ModelList"]


class ModelList(OptionList):
    """Models to choose from; Enter or a click chooses the highlighted one.

    ``chosen`` keeps the spelling it was given while that model stays chosen, so a
    configured "embeddinggemma" is not saved back as a different-looking name.

    Args:
        chosen: the model chosen now (it may not be installed).
        id: the widget's id.
    """

    def __init__(self, chosen: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chosen = chosen
        self._models: list[ModelInfo] = []

    def show_models(self, models: Iterable[ModelInfo]) -> None:
        """List these models, highlighting the chosen one."""
        self._models = sorted(models, key=lambda info: info.name)
        self.set_options(Option(self._prompt(info), id=info.name) for info in self._models)
        for index, info in enumerate(self._models):
            if same_model(info.name, self.chosen):
                self.highlighted = index

    def _prompt(self, info: ModelInfo) -> Content:
        mark = "●" if same_model(info.name, self.chosen) else "○"
        size = human_size(info.size) if info.size else ""
        caps = capability_text(info.capabilities)
        return Content(visible(f"{mark} {info.name:<30} {size:>9}  {caps}"))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list is not self or event.option.id is None:
            return
        if not same_model(event.option.id, self.chosen):
            self.chosen = short_name(event.option.id)
        for info in self._models:
            self.replace_option_prompt(info.name, self._prompt(info))
