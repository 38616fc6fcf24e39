"""Slash commands typed in the chat box (``/remember X``), mirroring the command palette."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["COMMANDS", "SlashCommand", "help_text", "parse_slash"]

COMMANDS = {
    "remember": "/remember TEXT: save TEXT as something you told Hippo (a fact you stated)",
    "forget": "/forget TEXT: preview everything Hippo keeps about TEXT, then delete it",
    "memory": "/memory: open the memory inspector (F4)",
    "review": "/review: the facts waiting for your review",
    "incognito": "/incognito: a new chat that keeps nothing after it ends",
    "scope": "/scope [NAME]: a new chat about NAME (e.g. work) that leaves other scopes out",
    "profile": "/profile [NAME]: list profiles, or how to switch to NAME",
    "help": "/help: these commands",
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


def help_text() -> str:
    """Every command, one a line."""
    return "\n".join(COMMANDS.values()) + "\nStart with // to send a message that begins with /."
