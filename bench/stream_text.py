"""Markdown replies of a given shape and size, for bench/stream.py.

Each reply ends with a short paragraph whose last word is `MARKER`: its last characters
are the reply's last token, and the bench watches the terminal output for the word.
"""

from __future__ import annotations

import random
from collections.abc import Callable

__all__ = ["MARKER", "SHAPES", "reply_text"]

MARKER = "Zyxwvutsr"

_WORDS = (
    "memory recall sleep episode fact garden tomato kettle river window morning meeting "
    "project budget friday sister doctor train ticket weekend recipe bread oven coffee "
    "letter promise evening mountain bicycle library museum holiday summer winter"
).split()


def _sentence(rng: random.Random, words: int = 12) -> str:
    picked = [rng.choice(_WORDS) for _ in range(words)]
    return " ".join(picked).capitalize() + "."


def _prose(rng: random.Random, i: int) -> str:
    body = " ".join(_sentence(rng, rng.randint(8, 16)) for _ in range(3))
    return (
        f"{body} Remember **{rng.choice(_WORDS)}** and *{rng.choice(_WORDS)}*, see "
        f"`{rng.choice(_WORDS)}()` and [the notes](https://example.org/{i}).\n\n"
    )


def _lists(rng: random.Random, i: int) -> str:
    items = "".join(f"- {_sentence(rng, rng.randint(4, 10))}\n" for _ in range(4))
    numbered = "".join(f"{n}. {_sentence(rng, 6)}\n" for n in range(1, 4))
    return f"Things for {rng.choice(_WORDS)}:\n\n{items}\n{numbered}\n"


def _code(rng: random.Random, i: int) -> str:
    lines = "".join(
        f"    {rng.choice(_WORDS)}_{n} = {rng.choice(_WORDS)}({n}, '{rng.choice(_WORDS)}')\n"
        for n in range(6)
    )
    return f"Step {i}:\n\n```python\ndef step_{i}():\n{lines}    return None\n```\n\n"


def _tables(rng: random.Random, i: int) -> str:
    rows = "".join(
        f"| {rng.choice(_WORDS)} | {rng.randint(1, 999)} | {_sentence(rng, 4)} |\n"
        for _ in range(5)
    )
    return f"Table {i}:\n\n| name | count | note |\n|---|---:|---|\n{rows}\n"


def _sections(rng: random.Random, i: int) -> str:
    # The reply: heading, paragraph with emphasis, inline code and a link,
    # a two-item list, a code block.
    return (
        f"## Section {i}\n\n{_prose(rng, i)}"
        f"- {_sentence(rng, 6)}\n- {_sentence(rng, 6)}\n\n"
        f"```python\nprint({i})\n```\n\n"
    )


def _paragraph(rng: random.Random, i: int) -> str:
    return _sentence(rng, 20) + " "  # one paragraph that never ends


SHAPES: dict[str, Callable[[random.Random, int], str]] = {
    "prose": _prose,
    "lists": _lists,
    "code": _code,
    "tables": _tables,
    "sections": _sections,
    "paragraph": _paragraph,
}


def reply_text(shape: str, size: int, seed: int = 7) -> str:
    """A reply of about ``size`` characters made of ``shape`` parts, ending with `MARKER`."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        part = SHAPES[shape](rng, len(parts) + 1)
        parts.append(part)
        total += len(part)
    ending = f"That is all for now, {MARKER}." if shape != "paragraph" else f"All, {MARKER}."
    return "".join(parts) + ending
