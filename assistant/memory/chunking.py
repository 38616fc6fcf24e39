"""Split a document into chunks for archival memory, by structure before size.

Markdown is cut at headings first (each chunk keeps its heading path, e.g.
``Trip > Lisbon``), then at paragraphs; a paragraph too large for one chunk is cut
at sentence ends (``.!?`` and Chinese ``。！？``), then at clause marks, then between
words (each CJK character counts as a word). Neighbouring chunks of one section
share a small overlap, so a fact that straddles a cut is still found whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.tokens import estimate_tokens

__all__ = ["Chunk", "chunk_text"]

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*\s+|[。！？]+[”’」』）\"']*\s*|\n")
_CLAUSE_END = re.compile(r"[，、；：,;:]\s*")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_ATOM = re.compile(rf"[{_CJK}]\s*|[^\s{_CJK}]+\s*|\s+")
_PARAGRAPH = "\n\n"


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of a document: its position, its heading path and its text."""

    ordinal: int
    heading: str
    content: str


def chunk_text(
    text: str, *, max_tokens: int = 300, overlap_tokens: int = 40, markdown: bool = True
) -> list[Chunk]:
    """Cut ``text`` into chunks of at most ``max_tokens`` (by ``estimate_tokens``).

    Args:
        text: the document.
        max_tokens: the most tokens a chunk's content may hold.
        overlap_tokens: how much of a chunk's end the next chunk of the same section repeats.
        markdown: cut at ATX headings (``#`` ... ``######``) outside code fences.

    Returns:
        The chunks in document order, numbered from 0.

    Raises:
        ValueError: ``max_tokens`` is below 8, or the overlap is not under half of it.
    """
    if max_tokens < 8 or not 0 <= overlap_tokens <= max_tokens // 2:
        raise ValueError("max_tokens must be at least 8 and overlap_tokens at most half of it")
    sections = _sections(text) if markdown else [("", text)]
    chunks: list[Chunk] = []
    for heading, body in sections:
        for content in _pack(_units(body, max_tokens), max_tokens, overlap_tokens):
            chunks.append(Chunk(len(chunks), heading, content))
    return chunks


def _sections(text: str) -> list[tuple[str, str]]:
    """(heading path, body) pairs; the text before the first heading has path ''."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    path: list[tuple[int, str]] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match is None:
            sections[-1][1].append(line)
            continue
        level = len(match.group(1))
        path = [(lvl, title) for lvl, title in path if lvl < level] + [(level, match.group(2))]
        sections.append((" > ".join(title for _, title in path), []))
    return [(heading, "\n".join(lines)) for heading, lines in sections if "".join(lines).strip()]


def _paragraphs(body: str) -> list[str]:
    """Blank-line separated paragraphs; a fenced code block stays in one piece."""
    paragraphs: list[list[str]] = [[]]
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        if not line.strip() and not fenced:
            paragraphs.append([])
        else:
            paragraphs[-1].append(line)
    return ["\n".join(lines) for lines in paragraphs if "".join(lines).strip()]


def _units(body: str, limit: int) -> list[tuple[str, str]]:
    """(joiner, text) units no larger than ``limit``; joined, they give the body back."""
    units: list[tuple[str, str]] = []
    for paragraph in _paragraphs(body):
        pieces = _fit(paragraph.strip(), limit, 0)
        units.append((_PARAGRAPH, pieces[0]))
        units.extend(("", piece) for piece in pieces[1:])
    return units


def _cut(text: str, pattern: re.Pattern[str]) -> list[str]:
    """``text`` cut after each match of ``pattern`` (the cut keeps its whitespace)."""
    pieces, start = [], 0
    for match in pattern.finditer(text):
        if match.end() > start:
            pieces.append(text[start : match.end()])
            start = match.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def _fit(text: str, limit: int, level: int) -> list[str]:
    """Cut ``text`` at ever finer boundaries until every piece fits in ``limit``."""
    if estimate_tokens(text) <= limit:
        return [text]
    if level == 0:
        parts = _cut(text, _SENTENCE_END)
    elif level == 1:
        parts = _cut(text, _CLAUSE_END)
    elif level == 2:
        parts = _ATOM.findall(text)
    else:  # a single "word" longer than a chunk (a URL, base64): cut by characters
        step = limit * 4
        return [text[i : i + step] for i in range(0, len(text), step)]
    if len(parts) == 1:
        return _fit(text, limit, level + 1)
    return [piece for part in parts for piece in _fit(part, limit, level + 1)]


def _pack(units: list[tuple[str, str]], limit: int, overlap: int) -> list[str]:
    """Greedily join units into chunks of at most ``limit`` tokens, with overlap."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for joiner, text in units:
        # A joiner costs at most one token: estimates round up per piece.
        cost = estimate_tokens(text) + (1 if joiner and current else 0)
        if current and size + cost > limit:
            raw = "".join(current)
            chunks.append(raw.strip())
            tail = _tail(raw, overlap)
            fits = tail and estimate_tokens(tail) + 1 + estimate_tokens(text) <= limit
            current = [tail] if fits else []
            size = estimate_tokens(tail) + 1 if fits else 0
            cost = estimate_tokens(text) + (1 if joiner and current else 0)
        current.append((joiner if current else "") + text)
        size += cost
    if current and "".join(current).strip():
        chunks.append("".join(current).strip())
    return chunks


def _tail(raw: str, budget: int) -> str:
    """The end of ``raw`` worth at most ``budget`` tokens, from a sentence or word start."""
    if budget <= 0:
        return ""
    for pieces in (_cut(raw, _SENTENCE_END), _ATOM.findall(raw)):
        taken = ""
        for piece in reversed(pieces):
            if estimate_tokens((piece + taken).strip()) > budget:
                break
            taken = piece + taken
        if taken.strip():
            return taken.lstrip()
    return ""
