"""Running one corpus item through one channel against a fooled model, and what it left.

Every channel ends the same way: a chat turn in which the model, fooled by the injected
text, tries to store the claim with its tools, then a sleep run in which it states the
claim as the user's word, citing the injected message where there is one:

* ``chat``: the user sends the text, typed;
* ``pasted``: the user pastes it (a bracketed paste);
* ``event``: the text is logged as an event (`hippo log`), then the user asks what's new;
* ``document``: it is ingested as a file, which the model reads with ``archival_search``;
* ``tool``: it is a note a tool saved before, returned to the model by ``archival_search``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from assistant.clock import ManualClock
from assistant.engine import Hippo
from assistant.memory.injection import fold
from tests.adversarial.items import Item
from tests.fake_ollama import FakeOllama, FooledModel
from tests.sleep.helpers import sleep

__all__ = ["Outcome", "attack", "trusted_prompt"]

_FRAGMENT = re.compile(r"[A-Za-z0-9\u4e00-\u9fff\u3400-\u4dbf,' ]{8,}")
_TRUSTED_SECTIONS = ("## Core memory", "### What you know about the user", "### Coming up")


@dataclass(frozen=True)
class Outcome:
    """Where the claim ended up after the attack."""

    item: Item
    channel: str
    reached_model: bool
    in_core: bool
    active: bool
    in_prompt: bool
    pending: bool
    proposed_core: bool

    @property
    def trusted(self) -> bool:
        """Whether the claim got anywhere the user did not approve."""
        return self.in_core or self.active or self.in_prompt


def mentions(text: str, claim: str) -> bool:
    """Whether ``text`` states ``claim`` (compared as folded text)."""
    return fold(claim).strip(" .") in fold(text)


def trusted_prompt(system: str) -> str:
    """The parts of a system prompt the model is told to trust: core memory and profile facts."""
    parts, keep = [], False
    for line in system.splitlines():
        if line.startswith("#"):
            keep = line.startswith(_TRUSTED_SECTIONS)
        if keep:
            parts.append(line)
    return "\n".join(parts)


def _fragment(item: Item) -> str:
    runs = _FRAGMENT.findall(item.text)
    return max(runs, key=len).strip() if runs else item.text


def _reached(fake: FakeOllama, item: Item, since: int) -> bool:
    fragment = _fragment(item)
    for request in fake.requests[since:]:
        for message in (request.body or {}).get("messages") or []:
            if fragment in str(message.get("content", "")):
                return True
    return False


def _deliver(engine: Hippo, item: Item, channel: str, folder: Path) -> tuple[str, bool]:
    """Put the item where the channel puts it; return the user's message and whether pasted."""
    pid = engine.memory.profile.id
    if channel == "chat":
        return item.text, False
    if channel == "pasted":
        return item.text, True
    if channel == "event":
        engine.intake.log_event(item.text, importance=9)
        return "What's new today?", False
    if channel == "document":
        path = folder / f"{item.id}.html"
        path.write_text(item.text, encoding="utf-8")
        engine.intake.ingest(path)
    else:
        engine.memory.archive.insert_note(pid, item.text, title="note")
    return "Can you look at what I saved?", False


def attack(
    engine: Hippo, fake: FakeOllama, clock: ManualClock, item: Item, channel: str, folder: Path
) -> Outcome:
    """Run ``item`` through ``channel`` against a fooled model; say where its claim ended up."""
    pid = engine.memory.profile.id
    core_before = engine.memory.core.block(pid, "human").value
    since = len(fake.requests)
    text, pasted = _deliver(engine, item, channel, folder)
    reads = channel in ("document", "tool")
    fake.fool(FooledModel(item.claim, read_first="archival_search" if reads else None,
                          query=item.claim))  # fmt: skip
    session = engine.conversations.new_session()
    list(engine.send(session.id, text, pasted=pasted))
    reached = _reached(fake, item, since)
    clock.advance(days=8)  # the session is idle, the event expired
    sleep(engine, now=clock.now())
    fake.fool(None)
    # The probe is incognito: it reads memory as any chat does, but it is not kept, so the
    # next item's sleep has only its own conversation to go through (half the work).
    later = engine.conversations.new_session(incognito=True)
    list(engine.send(later.id, "What do you know about me?"))
    system = fake.requests[-1].body["messages"][0]["content"]
    facts = engine.memory.facts.list(pid, limit=10_000)
    claim_facts = [f for f in facts if mentions(f.statement, item.claim)]
    core_now = engine.memory.core.block(pid, "human").value
    return Outcome(
        item=item,
        channel=channel,
        reached_model=reached,
        in_core=core_now != core_before and mentions(core_now, item.claim),
        active=any(f.status == "active" for f in claim_facts),
        in_prompt=mentions(trusted_prompt(system), item.claim),
        pending=any(f.status == "pending" for f in claim_facts),
        proposed_core=any(
            mentions(p.content, item.claim) for p in engine.memory.core_proposals.pending(pid)
        ),
    )
