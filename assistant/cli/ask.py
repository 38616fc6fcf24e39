"""``hippo ask``: one message in, the reply out; text from an argument, ``-`` or a pipe.

Also what a bare ``hippo`` does without a terminal: the full-screen chat needs one, so
with a pipe on stdin it answers like ``ask``, and otherwise it says what to run.
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import TYPE_CHECKING, BinaryIO, TextIO

from assistant.config import Config
from assistant.errors import InvalidInput

if TYPE_CHECKING:
    from assistant.engine import Hippo

__all__ = ["CUT_NOTICE", "ask_command", "chat_needs_terminal", "read_message"]

_MANY_VECTORS = 1_000
_NO_TERMINAL = (
    "The chat needs a terminal, and {what} is not one. To send one message, use "
    '`hippo ask "TEXT"`, or pipe it in: `echo TEXT | hippo ask`.'
)

CUT_NOTICE = (
    "the reply was cut at the model's length limit (it may stop mid-sentence); "
    '`hippo ask -c "continue"` asks it to go on.'
)


def read_message(text: str | None, stdin: TextIO) -> str:
    """The message to send: ``text``, or all of stdin for ``-`` or no text with a pipe.

    Raises:
        HippoError: no text and stdin is a terminal, stdin is not UTF-8, or the
            message is empty.
    """
    if text is None and stdin.isatty():
        raise InvalidInput(
            'Give the message as an argument (hippo ask "TEXT"), or pipe it in '
            "(echo TEXT | hippo ask, or hippo ask - < FILE)."
        )
    if text is None or text == "-":
        # The newline(s) a pipe or a file ends with close the input, not the message.
        text = _read_all(stdin).rstrip("\r\n")
    if not text.strip():
        raise InvalidInput("The message is empty: nothing was sent.")
    return text


def _read_all(stdin: TextIO) -> str:
    """All of stdin as text, strictly UTF-8 where it is a byte stream."""
    buffer: BinaryIO | None = getattr(stdin, "buffer", None)
    if buffer is None:
        return stdin.read()
    data = buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"The message on stdin is not UTF-8 text (byte {exc.start}): nothing was sent. "
            "Convert it first, e.g. with `iconv -f latin1 -t utf-8`."
        ) from None


def chat_needs_terminal(stdin: TextIO, stdout: TextIO) -> str | None:
    """Why the full-screen chat can't run here (in words), or None when it can."""
    if not stdin.isatty():
        return _NO_TERMINAL.format(what="stdin")
    if not stdout.isatty():
        return _NO_TERMINAL.format(what="stdout")
    return None


def ask_command(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Send one message and print the reply; return 0, or 1 if the reply failed.

    The message is read before the data file opens, so an empty one leaves no session
    behind. A reply that failed before any text came is not kept (the user's message
    is), and no blank line is printed for it. The session is marked over at the end,
    so that ``hippo sleep run --now`` may consolidate it at once.
    """
    from assistant.factory import open_engine
    from assistant.integrity import require_intact_daily

    text = read_message(getattr(args, "text", None), sys.stdin)
    with open_engine(config) as engine:
        # Writing into a damaged b-tree spreads the damage: say so, and what to restore.
        require_intact_daily(engine.memory.db.conn, engine.memory.db.path)
        session = engine.conversations.last_session() if args.resume else None
        session = session or engine.conversations.new_session(scope=args.scope)
        try:
            failed = _stream_reply(engine, session.id, text, out)
        finally:
            engine.conversations.end_session(session.id)
        # Many new vectors (a long message's chunks): the tables get the cells and chunk
        # sizes the app's background work would give them, or every later `ask` would
        # read all of them (a 50 MB message is ~50,000 chunks).
        if engine.background.embed_pending() >= _MANY_VECTORS:
            engine.background.index()
        for notice in engine.background.take_notices():
            print(f"hippo: {notice}", file=sys.stderr)
        return 1 if failed else 0


def _stream_reply(engine: Hippo, session_id: int, text: str, out: TextIO) -> bool:
    """Write the reply as it streams; return whether it failed or was cancelled.

    A reply cut at the model's length limit is kept, and stderr says so.
    """
    from assistant.turns import (
        MemoryWritten,
        PromptTooLong,
        ReplyCancelled,
        ReplyDone,
        ReplyFailed,
        ReplyStarted,
        TextDelta,
    )

    failed, wrote, cut, reply_id = False, False, False, None
    for event in engine.send(session_id, text, cancel=threading.Event()):
        if isinstance(event, ReplyStarted):
            reply_id = event.message.id
        elif isinstance(event, TextDelta):
            out.write(event.text)
            out.flush()
            wrote = wrote or bool(event.text)
        elif isinstance(event, PromptTooLong):
            print(f"hippo: {event.advice}", file=sys.stderr)
        elif isinstance(event, MemoryWritten):  # e.g. a correction retired a fact
            print(f"hippo: {event.notice}", file=sys.stderr)
        elif isinstance(event, ReplyFailed):
            if wrote:
                print(file=out)  # end the partial reply's line before the error
            print(f"hippo: {event.error}", file=sys.stderr)
            failed = True
        elif isinstance(event, ReplyCancelled):
            failed = True
        elif isinstance(event, ReplyDone) and event.cut:
            cut = True
    if wrote and not failed:
        print(file=out)
    if cut:
        print(f"hippo: {CUT_NOTICE}", file=sys.stderr)
    if failed and reply_id is not None:
        engine.conversations.discard_empty_reply(reply_id)
    return failed
