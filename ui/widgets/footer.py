"""Textual's key footer, without restyling every key twice each time it is rebuilt.

The footer rebuilds its keys whenever the bindings change (each focus change). Textual's
`FooterKey` starts compact and is then bound to the footer's `compact` (not compact by
default), so each new key gets the ``-compact`` class added and removed at once: two
style updates a key, about a quarter of the app's start-up work. Giving each bound key
the footer's setting before it is mounted makes both no-ops; the keys look the same.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey

__all__ = ["Footer"]


class Footer(TextualFooter):
    """The key footer; every screen uses this one."""

    def compose(self) -> ComposeResult:
        """Textual's keys, each bound one given the footer's compactness at once."""
        for widget in super().compose():
            # Only keys bound to the footer's `compact` (the palette key is not, and
            # stays compact); if Textual stops saying which, nothing is changed.
            bound = getattr(widget, "_reactive_connect", None) or {}
            if isinstance(widget, FooterKey) and "compact" in bound:
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget
