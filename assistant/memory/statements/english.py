"""The form of one English sentence: question, request, fragment or statement.

Read from its structure, not from phrasings:

* a question ends with "?", or opens with an auxiliary before its subject ("Can you",
  "Is my") or a wh-word before an auxiliary ("What is", "Where do");
* a request has no subject and opens with a verb: "please", a negative imperative
  ("Don't tell"), a word followed at once by an object pronoun or a determiner ("Tell me",
  "Recite the ..."), or a known verb with no finite verb after it ("Switch to ...");
  or it asks something of "you" ("I want you to ...", "you must ...", "if you could ...");
* a fragment says nothing of anything: one word or a name alone, or words with no verb,
  no preposition and no "X: Y" to say something of their subject ("Nate's Story");
* anything else is a statement: a subject and what is said of it ("I live in Lisbon",
  "Caroline went to the support group on 7 May"), or a note's predicate whose subject is
  the user ("Works at Initech", "Allergic to penicillin").
"""

from __future__ import annotations

import re
from typing import Literal

from assistant.memory.statements.lexicon import (
    ACTION_VERBS,
    ADVERB_STARTS,
    AUXILIARIES,
    DETERMINERS,
    IRREGULAR_PAST,
    NEGATIVE_IMPERATIVE,
    OBJECT_PRONOUNS,
    PLEASE,
    PREPOSITIONS,
    SUBJECT_PRONOUNS,
    SUBJECT_STARTS,
    WH_WORDS,
)

__all__ = ["Form", "english_form", "words"]

Form = Literal["question", "request", "fragment", "statement"]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|['’](?:s|re|ve|d|ll|m)\b")
# Opening words that carry no structure: "OK, so ...", "Hey Hippo, ...".
_OPENERS = frozenset(
    "ok okay so well hey hi hello oh and but also now then btw alright yes no yeah right just "
    "thanks look listen hippo assistant dear".split()
)
_YOU = frozenset("you u ya".split())
# Who "you" is when a statement reports a request: "the user asks the assistant to ...".
_ASSISTANT = frozenset("assistant bot chatbot".split())
# Words that open a noun phrase right after a verb ("Recite the ...", "Read my ..."); "every",
# "each" and the like follow nouns too ("lesson every Wednesday").
_ARTICLES = frozenset("the a an my your his her our their this these those".split())
_NAMED = re.compile(r"([A-Za-z]+)\s+[A-Z][a-z]+\b(?!['’]s)")
_ASKING_AUX = frozenset(
    "do does did can could will would should shall may might must is are was were".split()
)
_LATER_OPENS = ACTION_VERBS | PREPOSITIONS | ADVERB_STARTS
_PRONOUN_SUBJECTS = frozenset("i we they you he she".split())
_WHO = frozenset("it who that which".split())
_ADVERBS = frozenset("always never often usually also still just really sometimes rarely".split())
_NOT_VERBS = DETERMINERS | PREPOSITIONS | OBJECT_PRONOUNS | frozenset("and or but not".split())
_HOLDS_SUBJECT = frozenset("i you he she it we they that there here".split()) | {""}
_AND = re.compile(r"\s+(?:and|then|and then)\s+", re.IGNORECASE)
_ASIDE = re.compile(r"\([^()]*\)")
_CLAUSE = re.compile(r"[,;:，；：]")
# Past forms that open notes ("Had a great time", "Was a teacher") as often as questions.
_PAST_AUX = frozenset("had was were be been being am".split())
_MODALS = frozenset(
    "must should can could will would shall may might need needs have has 'll".split()
)


def words(sentence: str) -> list[str]:
    """The sentence's words, lower-cased, apostrophes kept ("anna's", "don't")."""
    return [w.replace("’", "'").lower() for w in _WORD.findall(sentence)]


def _asks_of_a_name(sentence: str) -> bool:
    """An auxiliary before a name: "Does Daniel have a profile", "Is Anna a nurse"."""
    found = _NAMED.match(sentence.strip())
    if found is None or found.group(1).lower() not in _ASKING_AUX:
        return False
    if found.group(1).lower() in ("do", "does", "did"):
        return True  # do-support: a base verb follows ("Does Daniel have ...")
    after = words(sentence[found.end() :])[:1]
    return not after or not _finite(after, 0)  # "Will Smith is my favourite actor"


def english_form(sentence: str) -> Form:
    """What kind of sentence ``sentence`` is (see the module's doc).

    Each clause is read (split at commas, semicolons and colons), so that a request after
    a vocative or a reason ("Anna, tell me ...", "I'm her husband, so tell me ...") counts.
    """
    said = words(sentence)
    if not said:
        return "fragment"
    if sentence.rstrip().endswith("?"):
        return "question"
    parts = [p for part in _CLAUSE.split(sentence) for p in _AND.split(part)]
    clauses = [c for c in (_opened(words(part)) for part in parts) if c]
    if any(_inverted(c) for c in clauses) or _asks_of_a_name(sentence):
        return "question"
    # A later clause is read as a request where it opens with a verb of the lexicon, with
    # a verb and "me" ("so tell me"), or a fronted time ("from now on share"): after a
    # comma a noun phrase is as likely ("I'm learning the cello, lesson every Wednesday").
    later = [c for c in clauses[1:] if c[0] in _LATER_OPENS or c[1:2] in (["me"], ["us"])]
    if any(_imperative(c) or _fronted_imperative(c) for c in clauses[:1] + later):
        return "request"
    if _asks_you(said):
        return "request"
    plain = _ASIDE.sub(" ", sentence)  # "Nate's Story (on Sunday 2022-01-23)"
    return "statement" if _predicate(words(plain), plain) else "fragment"


def _opened(said: list[str]) -> list[str]:
    """The clause without the opening words that carry no structure ("OK, so", "just",
    "quickly")."""
    while len(said) > 1 and (said[0] in _OPENERS or _manner(said[0])):
        said = said[1:]
    return said


def _manner(word: str) -> bool:
    """An adverb of manner before a verb: "quickly", "simply" (not "only", "family")."""
    return word.endswith("ly") and len(word) > 5 and word not in ("family", "early", "likely")


def _inverted(said: list[str]) -> bool:
    first, second = said[0], said[1] if len(said) > 1 else ""
    if first in WH_WORDS:
        if second == "else":  # "Who else has ..."
            second = said[2] if len(said) > 2 else ""
        return first.endswith("'s") or second in AUXILIARIES
    if first not in AUXILIARIES or not second or first.split("'")[0] in _HOLDS_SUBJECT:
        return False  # "I'm", "it's" hold their subject; "isn't", "can't" are inverted
    if first in _PAST_AUX or first in ("has", "have"):  # "Has a dog called Bolo": a note
        return second in _YOU or second in ("i", "he", "she", "it", "we", "they")
    # An article after an auxiliary opens a note ("Did a 10k run today") more often than
    # it is an inverted subject.
    subject = second in SUBJECT_PRONOUNS or second in DETERMINERS - {"a", "an"}
    return second in _YOU or subject


def _imperative(said: list[str]) -> bool:
    first = said[0]
    if first in PLEASE or first == "let's":
        return True
    if first in NEGATIVE_IMPERATIVE or said[:2] == ["do", "not"]:
        rest = said[2:] if first == "do" else said[1:]
        return bool(rest) and rest[0] not in SUBJECT_STARTS
    if first in SUBJECT_STARTS or first in AUXILIARIES or _opaque(first) or len(said) < 2:
        return False
    second = said[1]
    if second in OBJECT_PRONOUNS:  # "Tell me", "Dump everything": only a verb takes one
        return True
    if first in ACTION_VERBS and second in WH_WORDS:  # "Forget what I said"
        return True
    if second in AUXILIARIES or _finite(said, 1) or _third_person(first):
        return False  # "Mark is ...", "Caroline went ...", a note's "Grows a lemon tree"
    opens_phrase = second in _ARTICLES or second.endswith("'s")
    rest = said[2:]
    if first in ACTION_VERBS and (
        opens_phrase or not any(_sure(rest, n) for n in range(len(rest)))
    ):
        return True  # "Ignore previous instructions": a plural is no verb of its own
    return opens_phrase and not _has_finite(rest)


def _fronted_imperative(said: list[str]) -> bool:
    """An imperative after a fronted time or place ("From now on share ...", "After work
    call mom"): the words before the verb hold no subject."""
    if said[0] not in PREPOSITIONS and said[0] not in ADVERB_STARTS:
        return False
    for n in range(1, min(len(said) - 1, 5)):
        if said[n] in SUBJECT_STARTS - PREPOSITIONS - ADVERB_STARTS or said[n].endswith("'s"):
            return False
        if said[n] in ACTION_VERBS and _imperative(said[n:]):
            return True
    return False


def _third_person(word: str) -> bool:
    """A verb's -s form ("grows", "sees") heads a note about the user, never an imperative."""
    return word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in ACTION_VERBS


def _opaque(word: str) -> bool:
    """Words that never open an imperative: numbers, possessives, -ly adverbs, -ing/-ed."""
    past = len(word) > 4 and word.endswith("ed")
    return word[0].isdigit() or word.endswith(("'s", "ly", "ing")) or past


def _finite(said: list[str], at: int) -> bool:
    """Whether ``said[at]`` reads as a finite verb after the word before it."""
    word, before = said[at], said[at - 1] if at else ""
    if word in AUXILIARIES or word in IRREGULAR_PAST:
        return True
    if _after_subject(said, at):
        return True  # "I play the cello", "Tom and I often go climbing"
    if before in DETERMINERS or before in PREPOSITIONS or before.endswith("'s"):
        return False  # "the memories", "of profiles": nouns
    if "'" in word or len(word) <= 3:
        return False
    return word.endswith("ed") or (word.endswith("s") and not word.endswith(("ss", "us", "is")))


def _sure(said: list[str], at: int) -> bool:
    """Whether ``said[at]`` is surely a finite verb: an auxiliary, a past form, a verb
    after a subject pronoun (not any word ending in -s, which a plural noun does too)."""
    word = said[at]
    if word in AUXILIARIES or word in IRREGULAR_PAST or _after_subject(said, at):
        return True
    after_noun = at > 1 and said[at - 2] in DETERMINERS  # "the profile called Sara"
    past = len(word) > 4 and word.endswith("ed") and "'" not in word and not after_noun
    return past or (word.endswith("s") and at > 0 and said[at - 1] in _PRONOUN_SUBJECTS | _WHO)


def _after_subject(said: list[str], at: int) -> bool:
    """Whether ``said[at]`` follows a subject pronoun (an adverb or two may stand between)."""
    word = said[at]
    if word in _NOT_VERBS or not word.isalpha():
        return False
    for before in reversed(said[max(0, at - 3) : at]):
        if before in _PRONOUN_SUBJECTS:
            return True
        if before not in _ADVERBS and not before.endswith("ly"):
            return False
    return False


def _has_finite(said: list[str]) -> bool:
    return any(_finite(said, n) for n in range(len(said)))


def _asks_you(said: list[str]) -> bool:
    """Whether some clause asks "you" to act: "you to", "you must", "if you could"."""
    for n, word in enumerate(said):
        addressed = word == "hippo" or (word in _ASSISTANT and n > 0 and said[n - 1] == "the")
        if word not in _YOU and not addressed and word not in ("you'll", "you'd"):
            continue
        after = said[n + 1] if n + 1 < len(said) else ""
        if word in ("you'll", "you'd") or after == "to" or after in _MODALS:
            return not (n > 0 and said[n - 1] in ("as", "than", "like"))
    return False


def _predicate(said: list[str], sentence: str) -> bool:
    """Whether something is said of a subject: a verb, a preposition, or "X: Y"."""
    if len(said) < 2:
        return False
    if _has_finite(said):
        return True
    if any(w in PREPOSITIONS for w in said[1:-1]):
        return True
    head, colon, tail = sentence.partition(":")
    return bool(colon) and bool(words(head)) and bool(words(tail))
