"""How people refer to someone they named before, and what retrieval does about it.

A question that names someone ("林悦现在和思远是什么关系？") is answered by a turn that says
"她" for her ("现在她是我未婚妻了") and matches the question's other words; the name is in
the speaker's last turn that said it, often in the session before. That turn is found by
`pronoun_antecedents`, and retrieval reads the two together.

(Issue 13's other rule, a turn that says "there", "回去" or the bare "公司" lending its
relevance to the turn it continues, is retired: on conversations it was not built on it
lost more questions than it gained, and it fired on any "which/哪/谁" question.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from assistant.memory.scoring import asks_about_now, terms, terms_of
from assistant.memory.textindex import cjk_characters, has_cjk

__all__ = ["Spoken", "named_by_pronoun", "pronoun_antecedents"]


# Third-person personal pronouns alone: what stands for a person (or a pet) named before.
_PERSONAL = re.compile(
    r"\b(?:he|she|him|her|his|hers|they|them|their)\b|(?<!其)[他她它]", re.IGNORECASE
)
# A capitalised word that does not open the sentence: a name, where the script marks them.
_CAPITALISED = re.compile(r"(?<=[\w,;:'’\"] )[A-Z][\w-]*")


class Spoken(Protocol):
    """A scored turn, as pronoun resolution reads it (see `MemoryItem`)."""

    @property
    def item_id(self) -> int: ...

    @property
    def text(self) -> str: ...

    @property
    def role(self) -> str: ...

    @property
    def speaker(self) -> str: ...

    @property
    def at(self) -> datetime: ...

    @property
    def session_id(self) -> int | None: ...


def named_by_pronoun(text: str) -> bool:
    """Whether ``text`` refers to a person by a third-person pronoun ("she", "他")."""
    return _PERSONAL.search(text) is not None


def _content(query_terms: frozenset[str]) -> frozenset[str]:
    """The question's terms less its question words ("什么", "哪里": they ask, not say)."""
    return frozenset(t for t in query_terms if not has_cjk(t) or cjk_characters(t))


def _naming(query: str, query_terms: frozenset[str]) -> frozenset[str]:
    """The question's terms that could be what a pronoun stands for: names.

    A script that marks names (Latin: a capital inside the sentence, as "Maya" in "What
    is Maya to Anna now?") gives its names alone: "happened" or "car" would otherwise
    be taken for what "they" stands for. Chinese marks none, so each of its content
    terms may be one, except the words that ask about the present ("现在"): a pronoun
    never stands for a moment, and "现在她是..." says "now" before its pronoun.
    """
    capitalised = terms(" ".join(_CAPITALISED.findall(query)))
    return frozenset(
        t for t in query_terms if not asks_about_now(t) and (not t.isascii() or t in capitalised)
    )


def _resolved_in_turn(text: str, naming: frozenset[str]) -> bool:
    """Whether the turn says something the question names before its first pronoun.

    A pronoun is looked for first in its own turn, leftwards ("土豆先放林悦那，等我安顿好
    她再送过来": 她 is 林悦): only a turn that names nothing before it refers back.
    """
    found = _PERSONAL.search(text)
    return found is not None and not naming.isdisjoint(terms(text[: found.start()]))


def pronoun_antecedents(
    query: str,
    memories: Iterable[Spoken],
    follows: Callable[[Sequence[int]], Mapping[int, int]] = lambda _: {},
) -> dict[int, int]:
    """Which turn names the one a pronoun turn refers to, where the question names them.

    A question names someone ("林悦现在和思远是什么关系？"); the turn that answers it may
    match the question's other words ("现在她是我未婚妻了") and say "她" for the name,
    which the speaker said before, often in the last conversation ("成了！" opens the
    next session as if the last had not ended). The pronoun stands for what the speaker
    last named: of the candidates, the same speaker's latest turn before it that says
    something the question names, in the same session or the one before it. Resolved
    only where that turn says something the question names and the pronoun turn does not.

    Args:
        query: the question.
        memories: the scored candidates.
        follows: the session each of these sessions follows (what the conversation
            resumed from), for the pronoun turns whose naming turn is in another.

    Returns:
        pronoun turn id -> the id of the turn that names what its pronoun stands for.
        Only turns that refer by a pronoun, name nothing of the question's before it,
        and share a word of the question in their own text (not only their speaker's
        name) are resolved: one that shares none matches the question by the name
        alone, which the naming turn carries already.
    """
    memories = list(memories)
    # The speakers' names count as neither: a third-person pronoun never stands for a
    # speaker (they are "I" and "you"), and a turn that names one ("陈思远的卡号")
    # matches a question about them by the name, not by what it says of them.
    speakers = frozenset().union(*(terms(s) for s in {m.speaker for m in memories}))
    content = _content(terms(query)) - speakers
    naming = _naming(query, content)
    if not naming:
        return {}
    found: dict[int, tuple[Spoken, Spoken]] = {}
    for memory in memories:
        # Only turns said in a session (messages); the user's own typed turns have no
        # speaker's name, and are told from the assistant's by their role.
        if memory.session_id is None or not named_by_pronoun(memory.text):
            continue
        words = terms_of((memory.text,))
        if content.isdisjoint(words) or _resolved_in_turn(memory.text, naming):
            continue
        named = _last_named(memory, memories, naming)
        if named is not None and not (naming & terms_of((named.text,))) <= words:
            found[memory.item_id] = (memory, named)
    return _within_reach(found, follows)


def _last_named(
    memory: Spoken, memories: Sequence[Spoken], naming: frozenset[str]
) -> Spoken | None:
    """The same speaker's latest turn before ``memory`` that says a naming term."""
    earlier = sorted(
        (
            m
            for m in memories
            if (m.role, m.speaker) == (memory.role, memory.speaker)
            and m.session_id is not None
            and (m.at, m.item_id) < (memory.at, memory.item_id)
        ),
        key=lambda m: (m.at, m.item_id),
        reverse=True,
    )
    return next((m for m in earlier if not naming.isdisjoint(terms_of((m.text,)))), None)


def _within_reach(
    found: Mapping[int, tuple[Spoken, Spoken]],
    follows: Callable[[Sequence[int]], Mapping[int, int]],
) -> dict[int, int]:
    """The pairs whose naming turn is in the pronoun turn's session or the one it follows."""
    elsewhere = sorted(
        {
            t.session_id
            for t, named in found.values()
            if t.session_id is not None and named.session_id != t.session_id
        }
    )
    before = follows(elsewhere) if elsewhere else {}
    return {
        i: named.item_id
        for i, (t, named) in found.items()
        if named.session_id == t.session_id
        or (
            t.session_id is not None
            and named.session_id is not None
            and before.get(t.session_id) == named.session_id
        )
    }
