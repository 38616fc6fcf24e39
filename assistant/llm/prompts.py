"""Prompt text, in one place."""

from __future__ import annotations

from datetime import datetime

__all__ = ["system_prompt"]

_SYSTEM = """\
You are Hippo, a personal assistant running locally on the user's computer. You remember \
past conversations with this user, and you are honest about what you do not know.
The current date and time is {now} (the user's local time). Treat any date in earlier \
messages as relative to when it was said, not to now."""


def system_prompt(now: datetime) -> str:
    """The base system prompt for a chat turn at local time ``now``."""
    return _SYSTEM.format(now=now.astimezone().strftime("%A %Y-%m-%d %H:%M %Z"))
