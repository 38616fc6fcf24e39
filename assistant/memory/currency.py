"""What holds now first: recalled memories after a correction, and repeats counted once.

A step after ranking (`Memory.recall`), apart from the fusion that ranks: it moves no
score, only what the ranking can't know:

* **past**: a memory that a newer statement corrects ("I live in Porto", said before
  "I live in Lisbon now") is kept, labelled with the date it was corrected, and placed
  after what holds now; the words a superseded fact was learnt from are past too;
* **repeats**: a memory that says what a better-ranked one says (the same statement
  made five times) is dropped: it counts once;
* **bursts**: copies of one text from one source (`bursts.shape`) count once;
* **now questions** ("where do I live now?", 现在): of memories about the same thing,
  the newest comes first.

Which statements correct or repeat which is `assistant.memory.facts.corrections.judge`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from assistant.memory.bursts import shape
from assistant.memory.facts.claims import claims
from assistant.memory.facts.corrections import judge
from assistant.memory.retrieval import MemoryItem

__all__ = ["Correction", "current_first"]


@dataclass(frozen=True, slots=True)
class Correction:
    """A superseded fact and what replaced it: ``statement`` holds from ``since``.

    ``evidence``: the messages the superseded fact was learnt from (past words).
    """

    statement: str
    since: datetime
    evidence: frozenset[int] = frozenset()


def current_first(
    items: Sequence[MemoryItem],
    corrections: Sequence[Correction],
    *,
    now_question: bool,
    limit: int | None = None,
) -> list[MemoryItem]:
    """``items`` (best first) with repeats dropped, past ones labelled and moved last.

    ``limit``: the best ``limit`` that are not repeats are kept (then reordered), so a
    dropped repeat leaves its place to the next memory, and a past one keeps its place
    among them.
    """
    kept: list[MemoryItem] = []
    past: list[MemoryItem] = []
    shapes: set[tuple[str, object, str]] = set()
    for item in items:
        if limit is not None and len(kept) + len(past) >= limit:
            break
        copy = (item.kind, item.session_id or item.source, shape(item.text))
        if copy in shapes:
            continue  # one of a burst's copies (see `bursts`): the best one stands for all
        shapes.add(copy)
        said = _statement(item)
        if said and any(
            _bears(item, k) and judge(item.text, k.text) == "same" for k in (*kept, *past)
        ):
            continue  # a repeat of a better-ranked memory: once is enough
        until = _corrected(item, said, items, corrections)
        if until is None:
            kept.append(item)
        else:
            past.append(replace(item, source=f"{item.source}; past: corrected {until:%Y-%m-%d}"))
    if now_question:
        kept = _newest_first(kept)
    return kept + past


def _statement(item: MemoryItem) -> bool:
    """Whether the item is the user's word that claims something (not a reply, a question)."""
    return item.role != "assistant" and bool(claims(item.text))


def _bears(other: MemoryItem, item: MemoryItem) -> bool:
    """Whether ``other`` can repeat or correct ``item``: a claim by the same person."""
    return other.speaker == item.speaker and _statement(other)


def _corrected(
    item: MemoryItem, said: bool, items: Sequence[MemoryItem], corrections: Sequence[Correction]
) -> datetime | None:
    """When a newer statement corrected ``item`` (None: it still holds).

    ``said``: the item claims something (else only a superseded fact's evidence can be).
    """
    for c in corrections:
        if item.at < c.since and (
            (item.kind == "message" and item.item_id in c.evidence)
            or (said and judge(c.statement, item.text) == "corrects")
        ):
            return c.since
    if not said:
        return None
    for other in items:
        if (
            other.at > item.at
            and _bears(other, item)
            and judge(other.text, item.text) == "corrects"
        ):
            return other.at
    return None


def _newest_first(items: list[MemoryItem]) -> list[MemoryItem]:
    """Items about the same thing as another, newest first, in the places they held."""
    about = [
        i
        for i, item in enumerate(items)
        if _statement(item)
        and any(
            j != i and _bears(other, item) and judge(item.text, other.text) != "unrelated"
            for j, other in enumerate(items)
        )
    ]
    ordered = sorted((items[i] for i in about), key=lambda m: m.at, reverse=True)
    out = list(items)
    for place, item in zip(about, ordered, strict=True):
        out[place] = item
    return out
