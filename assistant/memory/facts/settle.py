"""A statement of the user's, settled against the facts Hippo holds, at once.

What the user states (``/remember``, ``hippo fact add``, or a chat message that
corrects a fact) is judged against every active fact (`corrections.judge`):

* it repeats one: no new fact; the statement's evidence joins the fact's, and its
  confidence does not move (saying a thing five times does not make it five facts,
  nor truer);
* it corrects some: a new active fact, and each corrected one superseded by it (closed
  where the new one begins, kept as history);
* Hippo can't tell: the new fact waits for review, recorded as disputing each fact it
  may contradict; the prompt marks both sides "disputed" until the user decides.

No model is asked: the judgement is on the words (see `assistant.memory.facts.claims`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from assistant.memory.facts.claims import claims, sentences
from assistant.memory.facts.corrections import Verdict, judge
from assistant.memory.facts.fact import Actor, Evidence, Fact, SourceKind

if TYPE_CHECKING:
    from assistant.memory.facts.store import FactStore

__all__ = ["ACTIVE_LIMIT", "Settled", "bearing", "correct_from_message", "settle"]

# How many active facts a statement is compared with (the most important first).
ACTIVE_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class Settled:
    """What became of a statement: the fact that holds it, and what it did to others."""

    fact: Fact
    repeat: bool = False
    superseded: tuple[Fact, ...] = ()
    disputed: tuple[Fact, ...] = ()


def bearing(
    store: FactStore,
    profile_id: int,
    statement: str,
    *,
    skip: int | None = None,
    scope: str = "",
) -> dict[Verdict, list[Fact]]:
    """The active facts ``statement`` repeats, corrects or disputes (none: nothing).

    Said in a scope, it bears on the general facts and that scope's, as a session there
    sees them; said with none, on every fact.
    """
    out: dict[Verdict, list[Fact]] = {}
    if not claims(statement):
        return out
    scopes = (scope,) if scope else None
    for fact in store.active_facts(profile_id, scopes=scopes, limit=ACTIVE_LIMIT):
        if fact.id == skip:
            continue
        verdict = judge(statement, fact.statement)
        if verdict != "unrelated":
            out.setdefault(verdict, []).append(fact)
    return out


def settle(
    store: FactStore,
    profile_id: int,
    statement: str,
    *,
    evidence: Sequence[Evidence],
    actor: Actor = "user",
    source_kind: SourceKind = "user_stated",
    scope: str = "",
    valid_from: datetime | None = None,
    found: dict[Verdict, list[Fact]] | None = None,
) -> Settled:
    """Store ``statement`` as the user's (see the module doc); say what it did.

    Args:
        store: the facts store.
        profile_id: whose facts.
        statement: the words, as the user said them.
        evidence: what the statement cites (the user's message).
        actor: who states it.
        source_kind: its source.
        scope: its scope.
        valid_from: when it became true (default: now).
        found: what `bearing` found, if already asked.
    """
    found = bearing(store, profile_id, statement, scope=scope) if found is None else found
    corrected, disputed = found.get("corrects", []), found.get("disputes", [])
    same = found.get("same", [])
    if same and not corrected and not disputed:
        fact = store.reinforce(same[0].id, evidence, actor=actor, boost=0.0)
        return Settled(fact, repeat=True)
    if any(not old.scope for old in [*corrected, *disputed]):
        scope = ""  # replacing a general fact, it is general too (seen in every session)
    fact = store.add(
        profile_id,
        statement,
        evidence=evidence,
        source_kind=source_kind,
        actor=actor,
        scope=scope,
        status="pending" if disputed else None,
        valid_from=valid_from,
    )
    if fact.status != "active":  # waits for review: every fact it would replace is disputed
        for old in [*corrected, *disputed]:
            store.dispute(fact.id, old.id, actor=actor)
        return Settled(fact, disputed=tuple([*corrected, *disputed]))
    superseded = tuple(store.supersede(old.id, fact.id, actor=actor) for old in corrected)
    return Settled(store.get(fact.id), superseded=superseded)


def correct_from_message(
    store: FactStore, profile_id: int, text: str, message_id: int, *, scope: str = ""
) -> Settled | None:
    """A chat message that corrects an active fact, settled as the user's statement.

    Only a correction (or a likely one, then disputed) is stored in the turn: the
    sentences of ``text`` that bear on a fact become a user-stated fact citing the
    message; anything else waits for sleep to read the conversation. None: nothing to do.
    """
    found = bearing(store, profile_id, text, scope=scope)
    touched = [*found.get("corrects", []), *found.get("disputes", [])]
    if not touched:
        return None
    said = [
        sentence
        for sentence in sentences(text)
        if any(judge(sentence, old.statement) in ("corrects", "disputes") for old in touched)
    ]
    statement = " ".join(said) or text
    return settle(
        store,
        profile_id,
        statement,
        evidence=[Evidence("message", message_id)],
        scope=scope,
        found=bearing(store, profile_id, statement, scope=scope),
    )
