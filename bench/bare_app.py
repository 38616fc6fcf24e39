"""A bare Textual app shaped like Hippo's chat (header, an input, footer): start-up's floor.

bench/startup.py times it beside `hippo`, because the machine's speed drifts between runs.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Input


class BareApp(App[None]):
    """Header, an input with Hippo's placeholder, footer; nothing else."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Message Hippo")
        yield Footer()


if __name__ == "__main__":
    BareApp().run()
