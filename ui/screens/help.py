"""The chat's help: every slash command and key, on a panel that stays until closed."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ui.slash import COMMANDS, KEYS
from ui.widgets.footer import Footer

if TYPE_CHECKING:
    from textual.app import ComposeResult

__all__ = ["HelpScreen", "help_lines"]


def help_lines() -> tuple[str, str]:
    """The commands and the keys, as two plain-text blocks."""
    width = max(len(command.split(":", 1)[0]) for command in COMMANDS.values())
    commands = "\n".join(
        f"{usage:<{width}}  {what.strip()}"
        for usage, what in (text.split(":", 1) for text in COMMANDS.values())
    )
    commands += "\n" + f"{'//TEXT':<{width}}  send TEXT starting with / as a message"
    key_width = max(map(len, KEYS))
    keys = "\n".join(f"{key:<{key_width}}  {what}" for key, what in KEYS.items())
    return commands, keys


class HelpScreen(ModalScreen[None]):
    """Commands and keys over the chat; Esc, q or F1 closes it (it never times out)."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        background: $background 60%;
    }
    #help {
        width: 100;
        max-width: 96%;
        height: auto;
        max-height: 90%;
        border: round $primary;
        background: $surface;
        padding: 0 1;
    }
    #help .help-title {
        text-style: bold;
        margin-top: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1", "close", "Close help"),
    ]

    def compose(self) -> ComposeResult:
        commands, keys = help_lines()
        with VerticalScroll(id="help"):
            yield Static(Content("Commands (type them in the message box)"), classes="help-title")
            yield Static(Content(commands), id="help-commands")
            yield Static(Content("Keys"), classes="help-title")
            yield Static(Content(keys), id="help-keys")
            yield Static(
                Content(
                    "Hippo keeps what you tell it in one file on this computer, and learns "
                    "facts from your chats while it sleeps (at night, or `hippo sleep run --now`). "
                    "F4 shows every fact, where it came from, and lets you fix or forget it."
                ),
                classes="help-title",
            )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help").focus()

    def action_close(self) -> None:
        """Back to the chat."""
        self.dismiss(None)
