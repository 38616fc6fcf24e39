"""Text a reader is not meant to see: hidden HTML, markdown comments, concealed terminal text.

A web page or a document can carry words that its reader never sees but a model reads in
full (``display:none``, zero font size, white text, an off-screen box, an HTML comment, a
``hidden`` attribute, a screen-reader-only class). Hidden text that says something is
how instructions are smuggled into ingested pages, so it counts as a sign of one.
"""

from __future__ import annotations

import html
import re

__all__ = ["hidden_texts"]

_STYLE_HIDES = (
    r"display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0+)?(?:px|pt|em|rem|%)?\b"
    r"|opacity\s*:\s*0(?:\.0+)?\s*(?:;|\"|'|$)|(?:left|top|right|text-indent|margin-left)\s*:\s*"
    r"-\d{3,}|(?:max-)?(?:height|width)\s*:\s*0(?:px)?\s*(?:;|\"|'|$)|clip\s*:\s*rect\(\s*0"
    r"|color\s*:\s*(?:white|#fff(?:fff)?\b|transparent|rgba\([^)]*,\s*0(?:\.0+)?\s*\))"
)
_CLASS_HIDES = r"sr-only|visually-hidden|screen-reader-text|hidden|invisible|d-none|hide"
_OPEN_HIDDEN = re.compile(
    r"<(?P<tag>[a-z][a-z0-9]*)\b(?P<attrs>[^>]*?(?:style\s*=\s*[\"'][^\"']*(?:"
    + _STYLE_HIDES
    + r")|\bhidden\b|aria-hidden\s*=\s*[\"']?true|class\s*=\s*[\"'][^\"']*\b(?:"
    + _CLASS_HIDES
    + r")\b|color\s*=\s*[\"']?(?:white|#fff(?:fff)?\b))[^>]*)>",
    re.IGNORECASE,
)
_WHOLE_HIDDEN = re.compile(
    r"<!--(?P<comment>.*?)(?:-->|$)|<(?:noscript|template)\b[^>]*>(?P<inner>.*?)"
    r"(?:</(?:noscript|template)>|$)|^\[//\]:\s*#\s*\((?P<md>.*)\)\s*$",
    re.IGNORECASE | re.DOTALL | re.MULTILINE,
)
_CONCEALED = re.compile(r"\x1b\[(?:[\d;]*;)?8m(?P<text>[^\x1b]*)")
_TAG = re.compile(r"<[^>]*>")
_WORD = re.compile(r"[^\W\d_]{2,}|[\u3400-\u9fff]")


def _says_something(text: str) -> bool:
    """Whether hidden text holds words (three or more), not just spacing or an icon."""
    return len(_WORD.findall(_TAG.sub(" ", html.unescape(text)))) >= 3


def _element_text(text: str, start: int, tag: str) -> str:
    """The text inside an element opened just before ``start``, to its closing tag."""
    close = re.compile(rf"</{re.escape(tag)}\s*>", re.IGNORECASE)
    found = close.search(text, start)
    return text[start : found.start() if found else len(text)]


def hidden_texts(text: str) -> list[str]:
    """The pieces of ``text`` hidden from its reader that hold words."""
    pieces = [
        _element_text(text, m.end(), m.group("tag").lower()) for m in _OPEN_HIDDEN.finditer(text)
    ]
    for m in _WHOLE_HIDDEN.finditer(text):
        pieces.append(m.group("comment") or m.group("inner") or m.group("md") or "")
    pieces += [m.group("text") for m in _CONCEALED.finditer(text)]
    return [piece for piece in pieces if _says_something(piece)]
