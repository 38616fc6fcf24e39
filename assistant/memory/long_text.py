"""Messages too long to read whole on every recall: kept whole, searched in chunks.

A pasted report or log can be megabytes. Its message row keeps every word (the user's
words, shown in history, exported, read by sleep), but recall must not read it whole
for every question: scoring split each line of a 50 MB message on every `ask` (59 s,
1.7 GB), and the embedder was handed it as one input. So a message over `LONG_TOKENS`
is indexed, embedded and quoted as a message by its head alone (`HEAD_CHARS`), and its
whole text is kept in archival memory as chunks of a document `message:<id>`: the
keyword index and the embedder read it a chunk at a time, and recall finds the chunks
that match, wherever in the message they lie. The chunks are cut a segment at a time
(`segments`), so that cutting a 50 MB message never holds more than a segment's pieces.
"""

from __future__ import annotations

from collections.abc import Iterator

from assistant.tokens import estimate_tokens

__all__ = [
    "HEAD_CHARS",
    "LONG_TOKENS",
    "MESSAGE_PREFIX",
    "SEGMENT_CHARS",
    "clip",
    "head",
    "is_long",
    "message_id",
    "message_path",
    "segments",
]

LONG_TOKENS = 4096
"""A message over this many tokens (about 16 KB of English) is searched in chunks."""
HEAD_CHARS = 4000
"""How much of a long message's start is read where a message is read as one text."""
SEGMENT_CHARS = 256_000
"""How much of a long message is cut into chunks at a time (and written in one transaction)."""
MESSAGE_PREFIX = "message:"
_BREAKS = ("\n\n", "\n", " ")


def is_long(tokens: int) -> bool:
    """Whether a message of ``tokens`` tokens is searched through its chunks."""
    return tokens > LONG_TOKENS


def message_path(message_id: int) -> str:
    """The archival document path that holds a long message's chunks."""
    return f"{MESSAGE_PREFIX}{message_id}"


def message_id(path: str) -> int | None:
    """The message a document path holds the chunks of (None: not a message's)."""
    if not path.startswith(MESSAGE_PREFIX):
        return None
    number = path[len(MESSAGE_PREFIX) :]
    return int(number) if number.isdigit() else None


def segments(text: str, size: int = SEGMENT_CHARS) -> Iterator[str]:
    """``text`` in consecutive pieces of at most ``size`` characters, joined they give it back.

    Each piece ends at the last paragraph break in its reach, else the last line break,
    else the last space, so that chunks cut from a piece are cut as the whole text's are.
    """
    start = 0
    while len(text) - start > size:
        end = start + size
        for mark in _BREAKS:
            found = text.rfind(mark, start + size // 2, end)
            if found >= 0:
                end = found + len(mark)
                break
        yield text[start:end]
        start = end
    if start < len(text):
        yield text[start:]


def head(text: str, chars: int = HEAD_CHARS) -> str:
    """The start of ``text``, at most ``chars`` characters, ending at a word's end."""
    if len(text) <= chars:
        return text
    cut = text.rfind(" ", chars // 2, chars)
    return text[: cut if cut > 0 else chars]


def clip(text: str, budget: int, tokens: int | None = None) -> str:
    """``text`` cut to about ``budget`` tokens: its head, its tail, and what was left out.

    The head says what was pasted, the tail often what is asked about it. ``tokens``:
    the text's estimated tokens, if known (estimating a long text reads all of it).
    """
    tokens = estimate_tokens(text) if tokens is None else tokens
    if tokens <= budget:
        return text
    # Characters per token as this text spends them (CJK text about 1, English about 4).
    ratio = len(text) / max(tokens, 1)
    keep = max(int((budget - 60) * ratio), 400)
    first, last = head(text, keep * 3 // 4), text[len(text) - keep // 4 :]
    left_out = len(text) - len(first) - len(last)
    marker = (
        f"\n\n[… {left_out:,} characters of this message are left out here, to fit the"
        " model's window; Hippo keeps the message whole and finds its parts by search …]\n\n"
    )
    return first + marker + last
