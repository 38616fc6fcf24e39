"""How people refer back in conversation, and what retrieval does about it.

A speaker names a thing once ("后天我就回衡阳过年了", "I start at Yunshan Data on
Monday") and, after the other's reply, goes on about it with words that carry no name:
a pronoun ("她跟我一起回去", "she's coming with me"), a deictic word ("there", "回去"),
or the bare kind of thing ("公司在杭州滨江": "the company is in Binjiang"). A question
that asks for the name ("哪座城市？", "which company?") matches the later turn, whose
words it shares, but the name is in the earlier turn, which shares none of them: neither
the keyword nor the vector list finds it.

So a turn that refers back lends its relevance, in full, to the turn it continues (the
same speaker's turn before the other's reply): read together, the two are one statement
split across a reply, and the question matched that statement. Only for questions that
ask for a name: one that asks what happened, or when (both turns carry their session's
date), is answered by the referring turn itself, and pulling in the turn before would
only crowd the answer out.

The reverse holds too: a question that names someone ("林悦现在和思远是什么关系？") is
answered by a turn that says "她" for her ("现在她是我未婚妻了") and matches the question's
other words; the name is in the speaker's last turn that said it, often in the session
before. That turn is found by `pronoun_antecedents`, and retrieval reads the two together.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from assistant.memory.scoring import asks_about_now, terms, terms_of
from assistant.memory.textindex import cjk_characters, has_cjk

__all__ = [
    "Continuing",
    "Spoken",
    "antecedent_relevance",
    "asked_kind",
    "asks_for_name",
    "named_by_pronoun",
    "pronoun_antecedents",
    "refers_back",
]


class Continuing(Protocol):
    """A scored turn, with the id of the turn it continues (see `MemoryItem`)."""

    @property
    def text(self) -> str: ...

    @property
    def relevance(self) -> float: ...

    @property
    def continues(self) -> int | None: ...


# Third-person pronouns and deictic words of place and time: closed word classes that
# stand for a person, place or moment named before. First and second person name the
# speakers themselves; "it", "this" and "that" point within the same turn as often.
# 回去/回来 ("go/come back") presuppose the place named before.
_REFERENCE = re.compile(
    r"\b(?:he|she|him|her|his|hers|they|them|their|there|then)\b"
    r"|(?<!其)[他她它]|那[里儿边时]|当时|回[去来]",
    re.IGNORECASE,
)
# Third-person personal pronouns alone: what stands for a person (or a pet) named before.
_PERSONAL = re.compile(
    r"\b(?:he|she|him|her|his|hers|they|them|their)\b|(?<!其)[他她它]", re.IGNORECASE
)
# A capitalised word that does not open the sentence: a name, where the script marks them.
_CAPITALISED = re.compile(r"(?<=[\w,;:'’\"] )[A-Z][\w-]*")
# Questions that ask for a name: of a person (who, 谁), a place (where, 哪里), a thing
# among its kind (which, 哪家/哪座...).
_ASKS_NAME = re.compile(r"\b(?:who|whom|whose|where|which)\b|谁|哪", re.IGNORECASE)
# "Which day", "哪天" ask when, not for a name (see the module docstring).
_ASKS_WHEN = re.compile(
    r"哪一?(?:天|年|日|周|个?月|个?星期)|\bwhich\s+(?:day|date|year|month|week|time)\b",
    re.IGNORECASE,
)
# The kind of thing a "which" question asks to identify: the word after "which", or
# the first two characters of the noun after 哪 and its measure word (哪家公司 → 公司).
_KIND = re.compile(
    r"哪一?[家座所个位门种款部本条间只][\u4e00-\u9fff]{2}|\bwhich\s+(\w+)", re.IGNORECASE
)


def asks_for_name(query: str) -> bool:
    """Whether ``query`` asks who, where or which (not which day): for a name."""
    return _ASKS_NAME.search(_ASKS_WHEN.sub(" ", query)) is not None


def asked_kind(query: str) -> str | None:
    """The word for the kind of thing ``query`` asks "which" of ("公司", "company"), or None."""
    found = _KIND.search(_ASKS_WHEN.sub(" ", query))
    if found is None:
        return None
    return (found.group(1) or found.group()[-2:]).lower()


def refers_back(text: str, kind: str | None = None) -> bool:
    """Whether ``text`` stands for something named before it.

    By a pronoun or a deictic word, or by the bare word for ``kind``, the kind of thing
    the question asks which of ("公司在杭州滨江" when asked "哪家公司？").
    """
    if _REFERENCE.search(text) is not None:
        return True
    return kind is not None and kind in text.lower()


def antecedent_relevance(query: str, memories: Iterable[Continuing]) -> dict[int, float]:
    """The relevance each continued turn receives from the turns that refer back to it.

    Args:
        query: the question; only one that asks for a name lends anything.
        memories: the scored candidates, each with the id of the turn it continues.

    Returns:
        continued turn id -> the best relevance of a turn that refers back to it.
    """
    if not asks_for_name(query):
        return {}
    kind = asked_kind(query)
    lent: dict[int, float] = {}
    for memory in memories:
        if memory.continues is not None and refers_back(memory.text, kind):
            lent[memory.continues] = max(lent.get(memory.continues, 0.0), memory.relevance)
    return lent


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
