"""Where the styles of every screen but the chat live: read when the first of them opens."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SCREENS_CSS"]

# Absolute, so subclasses defined elsewhere (tests, embedders) still find it.
SCREENS_CSS = Path(__file__).with_name("screens.tcss")
