"""What a fact's statement must be: a declarative sentence about the user or their world.

Every path that writes a fact reads its statement here first (`read_statement`):

* transcript scaffolding (ids, time stamps, role labels) is taken out;
* a question, a request or command (to the assistant: in a chat every imperative is
  addressed to it), or a fragment with nothing said of anything (a name or word alone) is
  ``refused``: it is never a fact, from any source;
* a declarative claim about the assistant itself (permissions, other profiles, other
  people's memories, an earlier agreement) is ``held``: it waits in the review queue,
  with that reason shown, whatever its source.

The form is read from sentence structure, in English (`english`) and Chinese (`chinese`);
the claims from who a clause is about and whose memory it names (`claims`).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from assistant.memory.statements.chinese import chinese_form, has_han
from assistant.memory.statements.claims import ADDRESSED, claim_reason
from assistant.memory.statements.english import Form, english_form
from assistant.memory.statements.scaffold import strip_scaffolding

__all__ = [
    "Reading",
    "claim_reason",
    "declarative_part",
    "evidence_claim",
    "read_statement",
    "sentence_forms",
    "strip_scaffolding",
]

_REFUSED = {
    "question": "is a question, not a statement of fact",
    "request": "is a request or command to the assistant, not a statement of fact",
    "fragment": "says nothing of anyone: a name or a few words, not a sentence",
}
# Sentence ends: the mark stays with its sentence (a "?" makes a question).
_LATIN = re.compile(r"[A-Za-z]{2,}")
_SENTENCES = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")


@dataclass(frozen=True, slots=True)
class Reading:
    """A statement as a fact would hold it, and the verdict on it.

    Attributes:
        statement: the text without transcript scaffolding.
        refused: why it can never be a fact ("" if it can).
        held: why it must wait for the user's review ("" if it need not).
    """

    statement: str
    refused: str = ""
    held: str = ""


def sentence_forms(text: str) -> list[tuple[str, Form]]:
    """Each sentence of ``text`` with its form (question, request, fragment, statement)."""
    found = [s.strip() for s in _SENTENCES.findall(text) if s.strip(" .!?。！？")]
    return [(s, _form(s)) for s in found]


def _form(sentence: str) -> Form:
    """The sentence's form in its language; a sentence of both languages ("I like 北京")
    is read both ways: a question or request in either, else a statement in either."""
    if not has_han(sentence):
        return english_form(sentence)
    if not _LATIN.search(sentence):
        return chinese_form(sentence)
    forms = {english_form(sentence), chinese_form(sentence)}
    return next(f for f in ("question", "request", "statement", "fragment") if f in forms)


def read_statement(text: str, *, to_do: bool = False) -> Reading:
    """The verdict on ``text`` as a fact's statement (see the module's doc).

    Args:
        text: the statement.
        to_do: read it as a dated item's text ("Call mom on Sunday", "Dentist next
            Friday"): an imperative to oneself or a phrase of several words is fine, a
            question, a request with "you" or "me" in it, or one word is not.
    """
    statement = strip_scaffolding(text)
    forms = sentence_forms(statement)
    if not forms:
        return Reading(statement, "is only transcript scaffolding, with nothing said")
    kinds = {form for _, form in forms}
    if to_do:
        return Reading(statement, _to_do_refusal(statement, kinds), claim_reason(statement))
    for kind in ("question", "request"):
        if kind in kinds:
            return Reading(statement, _REFUSED[kind])
    if kinds == {"fragment"}:
        return Reading(statement, _REFUSED["fragment"])
    return Reading(statement, held=claim_reason(statement))


def _to_do_refusal(statement: str, kinds: Collection[str]) -> str:
    if "question" in kinds:
        return _REFUSED["question"]
    if "request" in kinds and re.search(r"\b(?:you|your|me|us)\b|[你您我]", statement, re.I):
        return _REFUSED["request"]
    if len(statement.split()) < 2 and len(re.findall(r"[\u4e00-\u9fff]", statement)) <= 2:
        return _REFUSED["fragment"]
    return ""


def declarative_part(text: str) -> str:
    """The sentences of ``text`` that state something (its questions and requests left out):
    what "the user said it" may rest on."""
    return " ".join(s for s, form in sentence_forms(text) if form in ("statement", "fragment"))


def evidence_claim(text: str) -> str:
    """Why a message a fact rests on claims something of the assistant ("" if it does not):
    its permissions, other profiles, an earlier agreement. Speaking to the assistant
    ("thanks, you're great") is no such claim: messages to it do that all the time."""
    reason = claim_reason(text)
    return "" if reason == ADDRESSED else reason
