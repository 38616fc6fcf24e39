"""Slash commands typed in the chat box (``/remember X``), mirroring the command palette."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

__all__ = ["COMMANDS", "KEYS", "SlashCommand", "closest_command", "help_text", "parse_slash"]

COMMANDS = {
    "help": "/help: this list of commands and keys (Esc closes it)",
    "new": "/new: start a new chat (the one you leave is kept)",
    "clear": "/clear: clear the screen (memory and the session are kept)",
    "retry": "/retry: answer your last message again, replacing the last reply",
    "edit": "/edit: put your last message back in the box to change and resend it",
    "continue": "/continue: ask the model to go on where its last reply was cut short",
    "model": "/model [NAME]: answer with model NAME in this chat (no name: list models)",
    "copy": "/copy [N]: copy code block N of the last reply (no N: the last block)",
    "rename": "/rename TITLE: give this chat a title",
    "export": "/export [FILE]: save this chat as a Markdown file",
    "remember": "/remember TEXT: save TEXT as something you told Hippo (a fact you stated)",
    "forget": "/forget TEXT: preview everything Hippo keeps about TEXT, then delete it",
    "memory": "/memory: open the memory inspector (F4)",
    "review": "/review: the facts waiting for your review",
    "incognito": "/incognito: a new chat that keeps nothing after it ends",
    "scope": "/scope [NAME]: a new chat about NAME (e.g. work) that leaves other scopes out",
    "profile": "/profile [NAME]: list profiles, or how to switch to NAME",
    "quit": "/quit: leave Hippo (ctrl+q does the same)",
}

KEYS = {
    "Enter": "send the message",
    "shift+enter, ctrl+j": "add a line",
    "up, down": "earlier messages you sent (in an empty box, or at its first/last line)",
    "Esc": "stop the reply that is streaming; on a message, back to the box",
    "Tab, shift+tab": "from the box to the messages and back",
    "c, m (on a message)": "copy it; the memories a reply used, with their scores",
    "up, down, PgUp, PgDn": "on a message: scroll the conversation (or the mouse wheel)",
    "ctrl+y": "copy the last reply",
    "ctrl+n": "new chat",
    "F1": "this help",
    "F2": "models",
    "F3": "sessions (rename, export, search them there)",
    "F4": "memory: what Hippo keeps about you, and why",
    "ctrl+p": "command palette",
    "ctrl+q": "quit",
}
_COMMAND = re.compile(r"^/([a-z]+)(?:\s+(.*))?$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """A command typed in the chat box: its name and the text after it."""

    name: str
    argument: str = ""


def parse_slash(text: str) -> SlashCommand | None:
    """The command in ``text``, or None when it is a message to send.

    ``//text`` sends ``/text`` as a message, so a message may start with a slash.

    Args:
        text: what was typed.

    Returns:
        The command (its name may be unknown: the caller says so), or None.
    """
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    match = _COMMAND.match(stripped)
    if match is None:
        return None  # "/usr/bin is..." is a message
    return SlashCommand(match.group(1), (match.group(2) or "").strip())


def closest_command(name: str) -> str | None:
    """The known command closest to a mistyped ``name`` (``/retyr`` -> ``retry``), if any."""
    found = difflib.get_close_matches(name, COMMANDS, n=1, cutoff=0.6)
    return found[0] if found else None


def help_text() -> str:
    """Every command, one a line."""
    return "\n".join(COMMANDS.values()) + "\nStart with // to send a message that begins with /."
