"""The update step agrees with the turn: what the words settle, sleep does not ask about.

The turn settles a statement against the active facts at once
(`assistant.memory.facts.settle`); sleep must reach the same verdicts on the candidates
it extracts, or it would undo them at night. Before the model is asked, each candidate
is judged against the active facts on its words (`corrections.judge`):

* a newer active fact corrects it: it is ignored (what it says was true, and is
  history already; adding it would revive a retired belief);
* it says what an active fact says: that fact is reinforced;
* it corrects an older active fact: that fact is superseded;
* it may contradict one (a dispute): the model decides, but an "add" becomes a
  conflict for review, never a second active fact beside the first.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from assistant.memory.facts import Fact
from assistant.memory.facts.corrections import judge, signature
from assistant.memory.sleep_candidates import Candidate

__all__ = ["contradicted", "disputed", "judged"]


def _since(fact: Fact) -> datetime:
    return fact.valid_from or fact.learned_at


def judged(active: Sequence[Fact], cand: Candidate) -> tuple[str, int | None, str] | None:
    """(action, fact id, note) the words decide for ``cand``; None: the model decides."""
    for fact in active:
        if _since(fact) > cand.said_at and judge(fact.statement, cand.statement) == "corrects":
            return "ignore", None, f"corrected since by fact {fact.id}"
    for fact in active:
        verdict = judge(cand.statement, fact.statement)
        if verdict == "same":
            return "reinforce", fact.id, "says what the fact says"
        if verdict == "corrects" and _since(fact) <= cand.said_at:
            return "supersede", fact.id, "corrects it"
    return None


def disputed(active: Sequence[Fact], cand: Candidate) -> Fact | None:
    """An active fact the candidate may contradict (the words can't tell), if any."""
    return next((f for f in active if judge(cand.statement, f.statement) == "disputes"), None)


def contradicted(active: Sequence[Fact]) -> list[tuple[Fact, Fact]]:
    """(older, newer) pairs of active facts where the newer corrects the older.

    Files written before corrections were settled at once can hold both ("I live in
    Porto" and "I live in Lisbon now", active together); each older one is found once,
    against the newest fact that corrects it. Facts are compared only with those that
    share a slot or a word (an index by `signature`), not all with all.
    """
    by_token: dict[str, list[Fact]] = {}
    for fact in active:
        for token in signature(fact.statement):
            by_token.setdefault(token, []).append(fact)
    pairs, retired = [], set()
    for newer in sorted(active, key=lambda f: (_since(f), f.id), reverse=True):
        if newer.id in retired:
            continue
        near = {f.id: f for t in signature(newer.statement) for f in by_token.get(t, [])}
        for older in near.values():
            if older.id in retired or _since(older) >= _since(newer):
                continue
            if judge(newer.statement, older.statement) == "corrects":
                pairs.append((older, newer))
                retired.add(older.id)
    return pairs
