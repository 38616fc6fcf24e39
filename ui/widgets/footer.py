"""Textual's key footer, rebuilt only when the keys it shows change, each key styled once.

Textual's footer rebuilds all its keys whenever the screen's bindings are updated: after
every focus change and every mount, mostly to show the very same keys again. Each rebuild
lays out and redraws the screen. This one rebuilds only when what it would show differs.

Textual's `FooterKey` also starts compact and is then bound to the footer's `compact`
(not compact by default), so each new key got the ``-compact`` class added and removed
at once: two style updates a key. Giving each bound key the footer's setting before it
is mounted makes both no-ops. The keys look the same either way.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult, ScreenStackError
from textual.dom import NoScreen
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey

__all__ = ["Footer"]


class Footer(TextualFooter):
    """The key footer; every screen uses this one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple[object, ...] | None = None  # what the keys were built from

    def _keys_to_show(self) -> tuple[object, ...]:
        """Everything `compose` builds the keys from, to compare one update with the last."""
        app = self.app
        shown = tuple(
            (binding, enabled, tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show or binding.key == app.COMMAND_PALETTE_BINDING
        )
        palette = self.show_command_palette and app.ENABLE_COMMAND_PALETTE
        ready = getattr(self, "_bindings_ready", None)  # Textual's; None if it goes
        return (ready, palette, self.compact, self.combine_groups, shown)

    async def recompose(self) -> None:
        """Rebuild the keys, unless they would be the ones on show already."""
        if not self.is_attached or getattr(self, "_pruning", False):
            return  # as Textual's own
        try:
            keys: tuple[object, ...] | None = self._keys_to_show()
        except (NoScreen, ScreenStackError):
            keys = None  # the app is closing: Textual's own recompose knows what to do
        except AttributeError:
            keys = None  # a Textual that reads bindings otherwise: rebuild every time
        if keys is not None and keys == self._shown:
            return
        self._shown = keys
        await super().recompose()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Show the keys that fit whole, in order; hide the rest (never "R Rejec").

        Textual's footer lets the last keys run off its edge, cut mid-word; F1 and the
        palette (always shown, at the right) list every key.
        """
        if not self.is_attached:
            return
        shown = list(self.children)  # keys, or groups of keys
        palette = [key for key in shown if key.has_class("-command-palette")]
        room = self.size.width - sum(key.outer_size.width for key in palette)
        for key in shown:
            if key in palette:
                continue
            width = key.get_content_width(self.size, self.app.size) + key.styles.gutter.width
            key.display = width <= room
            room -= width if key.display else 0

    def compose(self) -> ComposeResult:
        """Textual's keys, each bound one given the footer's compactness at once."""
        for widget in super().compose():
            # Only keys bound to the footer's `compact` (the palette key is not, and
            # stays compact); if Textual stops saying which, nothing is changed.
            bound = getattr(widget, "_reactive_connect", None) or {}
            if isinstance(widget, FooterKey) and "compact" in bound:
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget
