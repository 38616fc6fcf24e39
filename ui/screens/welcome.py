"""The greeting a new user sees once: what Hippo does with what they say, and how to start.

Once shown it is marked in the config folder (``welcomed``), and never shown again.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["WELCOME", "mark_welcomed", "welcomed"]

_MARK = "welcomed"

WELCOME = """\
Welcome to Hippo, an assistant that remembers.

What you say here is kept in one encrypted file on this computer. While Hippo sleeps
(each night, or `hippo sleep run --now`), it draws facts from your chats, and brings them
back when they matter. F4 shows everything it keeps, where each fact came from, and
lets you correct or forget it. /incognito starts a chat that keeps nothing.

Keys: Enter sends · shift+enter new line · up/down earlier messages · Esc stops a reply
      F1 or /help commands and keys · F2 models · F3 sessions · F4 memory · ctrl+q quit

Try: Hi Hippo, I'm Sam and I'm planning a trip to Lisbon in May. What should I pack?"""


def welcomed(config_dir: Path) -> bool:
    """Whether the greeting was shown before (to this config folder's user)."""
    return (config_dir / _MARK).exists()


def mark_welcomed(config_dir: Path) -> None:
    """Remember the greeting was shown; a folder that can't be written shows it again."""
    try:
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / _MARK).touch()
    except OSError:
        pass  # a read-only folder: greeting again next time is the lesser harm
