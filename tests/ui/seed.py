"""A few hundred realistic memories, written straight through the stores, to try the inspector.

    python -m tests.ui.seed DATA_DIR          # then: HIPPO_DATA_DIR=DATA_DIR hippo

Tests call `seed_memories(engine, clock)` with a ManualClock set five weeks back; every
date and id then comes out the same on every run (the snapshots rely on it).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from assistant.clock import ManualClock
from assistant.engine import Hippo
from assistant.memory.facts import Evidence
from assistant.memory.records import Message
from assistant.memory.sleep_runs import RunStore
from assistant.memory.usage import MemoryUse
from assistant.sleep.report import Proposal, SleepReport
from tests.ui.seed_data import (
    ACTIVITIES,
    NOTE,
    PLACES,
    REPLIES,
    SAID,
    SCOPES,
    SMALL_TALK,
    TOPICS,
    WHERE_SAID,
)

__all__ = ["SEED_START", "Seeded", "seed_memories"]

SEED_START = datetime(2025, 11, 26, 9, 0, tzinfo=UTC)
"""Where the tests' clock starts; seeding moves it about five weeks on."""


@dataclass
class Seeded:
    """What was written, for tests to find things by (ids and counts)."""

    sessions: list[int] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    facts: dict[str, int] = field(default_factory=dict)  # statement -> id
    replies: list[int] = field(default_factory=list)
    said: dict[str, Message] = field(default_factory=dict)  # SAID key -> its message
    counts: Counter[str] = field(default_factory=Counter)


def seed_memories(engine: Hippo, clock: ManualClock, *, extra_facts: int = 60) -> Seeded:
    """Write sessions, facts (every status, scope and source), episodes, events, a note.

    Args:
        engine: the engine to write through (its current profile).
        clock: the engine's clock, set where the memories should start; it is moved on
            about five weeks.
        extra_facts: how many more small facts to learn from lines said in passing (for
            a table that pages).

    Returns:
        What was written.
    """
    seeded = Seeded()
    _core(engine)
    per_session = -(-extra_facts // len(TOPICS))  # rounded up
    asides = iter(_asides(extra_facts))
    for index, topic in enumerate(TOPICS):
        session_id = _session(engine, clock, seeded, index, topic)
        for _ in range(per_session):
            if (aside := next(asides, None)) is not None:
                _learn_in_passing(engine, clock, seeded, session_id, len(seeded.facts), aside)
        clock.advance(days=2, hours=3)
    _statuses(engine, clock, seeded)
    _events_and_note(engine, clock, seeded)
    _replies_used(engine, clock, seeded)
    _sleep_run(engine, clock, seeded)
    return seeded


def _core(engine: Hippo) -> None:
    pid = engine.memory.profile.id
    human = "Name: Maya. Lives in Lisbon (Alfama). Data engineer. Allergic to [peanuts]."
    engine.memory.core.set(pid, "human", human, actor="user")
    engine.memory.core.append(pid, "human", "Has a dog, Bolo.", actor="agent")


def _say(engine: Hippo, clock: ManualClock, seeded: Seeded, session_id: int, role, text):
    message = engine.memory.messages.add_message(session_id, role, text, model="qwen3:1.7b")
    seeded.messages.append(message)
    if role == "assistant":
        seeded.replies.append(message.id)
    seeded.counts.update(messages=1)
    clock.advance(minutes=3)
    return message


def _session(engine: Hippo, clock: ManualClock, seeded: Seeded, index: int, topic) -> int:
    title, topics, said, answer, learned = topic
    session_id = engine.conversations.new_session().id
    seeded.sessions.append(session_id)
    first = _say(engine, clock, seeded, session_id, "user", said)
    _say(engine, clock, seeded, session_id, "assistant", answer)
    for role, line in zip(("user", "assistant"), SMALL_TALK[index % len(SMALL_TALK)], strict=True):
        _say(engine, clock, seeded, session_id, role, line)
    for key, where in WHERE_SAID.items():
        if where == index:
            seeded.said[key] = _say(engine, clock, seeded, session_id, "user", SAID[key])
    for statement, scope in learned:
        fact = engine.memory.facts.add(
            engine.memory.profile.id, statement, evidence=[Evidence("message", first.id, said)],
            source_kind="user_stated", actor="sleep", scope=scope, importance=4 + index % 6,
        )  # fmt: skip
        seeded.facts[statement] = fact.id
    engine.memory.episodes.add(
        engine.memory.profile.id, summary=f"Maya talked about {title.lower()}: {said}", title=title,
        started_at=first.created_at, ended_at=clock.now(), session_id=session_id,
        topics=topics, importance=3 + index % 7, message_ids=[first.id],
    )  # fmt: skip
    seeded.counts.update(sessions=1, episodes=1, facts=len(learned))
    return session_id


def _asides(count: int) -> list[tuple[str, str]]:
    """``count`` (fact, what was said) pairs, all different."""
    pairs = [(a, p) for p in PLACES for a in ACTIVITIES]
    chosen = [pairs[(n * 37) % len(pairs)] for n in range(min(count, len(pairs)))]
    return [
        (f"Enjoyed {a} in {p}", f"Last weekend we had {a} in {p}, loved it.") for a, p in chosen
    ]


def _learn_in_passing(engine, clock, seeded, session_id: int, n: int, aside) -> None:
    """A line said in passing, and the small fact sleep drew from it (some still pending)."""
    statement, line = aside
    said = _say(engine, clock, seeded, session_id, "user", line)
    _say(engine, clock, seeded, session_id, "assistant", REPLIES[n % len(REPLIES)])
    fact = engine.memory.facts.add(
        engine.memory.profile.id, statement, evidence=[Evidence("message", said.id)],
        source_kind="assistant_inferred", actor="sleep", scope=SCOPES[n % 4],
        importance=1 + n % 5, confidence=0.4 + (n % 5) / 10,
    )  # fmt: skip
    if n % 3:
        engine.memory.facts.approve(fact.id)
    seeded.facts[statement] = fact.id
    seeded.counts.update(facts=1)


def _statuses(engine: Hippo, clock: ManualClock, seeded: Seeded) -> None:
    """A superseded fact, a rejected one, an expired one, a reflection, model proposals."""
    pid, said = engine.memory.profile.id, seeded.said

    def add(statement: str, cite: Evidence, **options: object) -> int:
        fact = engine.memory.facts.add(pid, statement, evidence=[cite], **options)  # type: ignore[arg-type]
        seeded.facts[statement] = fact.id
        seeded.counts.update(facts=1)
        return fact.id

    new = add("Drinks black coffee since December", Evidence("message", said["coffee"].id),
              source_kind="user_stated", actor="user")  # fmt: skip
    engine.memory.facts.supersede(
        seeded.facts["Drinks oat milk flat whites, no sugar"], new, actor="user"
    )
    bolo = next(m for m in seeded.messages if m.content.startswith("Bolo, my dog"))
    wrong = add("Has two dogs", Evidence("message", bolo.id), source_kind="assistant_inferred",
                actor="agent")  # fmt: skip
    engine.memory.facts.reject(wrong)
    ended = clock.now() - timedelta(days=3)
    add("Is on holiday until December 1", Evidence("message", said["holiday"].id),
        source_kind="user_stated", actor="user", valid_to=ended)  # fmt: skip
    engine.memory.facts.expire_due(pid, clock.now())
    cited = [Evidence("fact", seeded.facts[s]) for s in ("Runs along the Tejo most mornings",
                                                         "Is allergic to [peanuts]")]  # fmt: skip
    fact = engine.memory.facts.add(pid, "Cares about health and routine", evidence=cited,
                            source_kind="reflection", actor="sleep", depth=1)  # fmt: skip
    seeded.facts[fact.statement] = fact.id
    add("Prefers meetings in the morning", Evidence("message", said["mornings"].id),
        actor="agent", source_kind="assistant_inferred", scope="work")  # fmt: skip
    add("Manager is Tomás, 1:1s on Mondays", Evidence("message", said["manager"].id),
        actor="sleep", source_kind="assistant_inferred", scope="work", confidence=0.7)  # fmt: skip
    engine.memory.facts.update(seeded.facts["Is allergic to [peanuts]"], actor="user", pinned=True)
    seeded.counts.update(facts=1)


def _events_and_note(engine: Hippo, clock: ManualClock, seeded: Seeded) -> None:
    pid, now = engine.memory.profile.id, clock.now()
    for days, text, source in [
        (12, "Flight TP1234 to Porto booked for Feb 6", "email"),
        (6, "Dentist appointment 9 Jan 15:00", "calendar"),
        (2, "Ran 10.4 km, 51:40", "watch"),
        (1, "Package from Ana delivered", "email"),
        (0.2, "Standup moved to 09:30", "calendar"),
    ]:
        event = engine.memory.events.log(
            pid, text, source=source, occurred_at=now - timedelta(days=days)
        )
        seeded.counts.update(events=1)
        if source == "email" and days > 10:
            fact = engine.memory.facts.add(pid, "Booked a flight to Porto for February 6",
                                    evidence=[Evidence("event", event.id)], source_kind="event",
                                    actor="sleep")  # fmt: skip
            seeded.facts[fact.statement] = fact.id
    chunk_ids = engine.memory.archive.insert_note(pid, NOTE, title="Flat notes")
    fact = engine.memory.facts.add(pid, "Landlord is Sr. Costa; rent due on the 1st",
                            evidence=[Evidence("chunk", chunk_ids[0])], source_kind="document",
                            actor="sleep")  # fmt: skip
    seeded.facts[fact.statement] = fact.id
    seeded.counts.update(documents=1, chunks=len(chunk_ids), facts=2)


def _replies_used(engine: Hippo, clock: ManualClock, seeded: Seeded) -> None:
    """The last reply used three memories (a fact, an episode, a message), with scores."""
    allergy = seeded.facts["Is allergic to [peanuts]"]
    uses = [
        ("facts", "fact", allergy, 0.91, 0.88, 0.5, 8),
        ("episodes", "episode", 1, 0.55, 0.4, 0.2, 6),
        ("recall", "message", seeded.messages[1].id, 0.42, 0.35, 0.1, 5),
    ]
    reply = seeded.replies[-1]
    engine.memory.usage.record(
        [MemoryUse(reply, kind, item, section, rank, *scores)
         for rank, (section, kind, item, *scores) in enumerate(uses)]
    )  # fmt: skip
    engine.memory.facts.touch([allergy], clock.now())


def _sleep_run(engine: Hippo, clock: ManualClock, seeded: Seeded) -> None:
    """A finished run's record: the report the Sleep tab shows, with one conflict."""
    pid = engine.memory.profile.id
    runs = RunStore(lambda: engine.memory.db.conn)
    report = SleepReport(None, "done", "scheduled", False, clock.now() - timedelta(hours=8))
    report.run_id = runs.start(report, "seed")
    report.finished_at, report.seconds, report.llm_calls = clock.now(), 42.5, 17
    report.counts.update(episodes=3, sessions_summarised=3, candidates=9)
    old = seeded.facts["Manager is Priya, 1:1s on Thursdays"]
    new = seeded.facts["Manager is Tomás, 1:1s on Mondays"]
    insight = seeded.facts["Cares about health and routine"]
    report.proposals = [
        Proposal("conflict", pid, new, "pending", "Manager is Tomás, 1:1s on Mondays", old),
        Proposal("reflection", pid, insight, "pending", "Cares about health and routine"),
    ]
    runs.save(report)


def main(argv: list[str] | None = None) -> int:
    """Seed a data folder for trying the inspector by hand."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.ui.seed", description=__doc__.split("\n")[0]
    )
    parser.add_argument("data_dir", type=Path, help="the data folder (created; HIPPO_DATA_DIR)")
    parser.add_argument("--profile", default="default", help="the profile to fill")
    parser.add_argument(
        "--facts", type=int, default=150, help="small facts learned in passing (for paging)"
    )
    args = parser.parse_args(argv)
    from assistant.config import Config
    from assistant.llm.gateway import OllamaGateway

    args.data_dir.mkdir(parents=True, exist_ok=True)
    clock = ManualClock(datetime.now(UTC) - timedelta(days=36))
    db = Config(data_dir=args.data_dir, config_dir=args.data_dir / "config").db_path
    engine = Hippo(
        db,
        OllamaGateway("http://127.0.0.1:9"),
        chat_model="qwen3:1.7b",
        embedding_model="embeddinggemma",
        profile=args.profile,
        clock=clock,
    )
    try:
        seeded = seed_memories(engine, clock, extra_facts=args.facts)
    finally:
        engine.close()
    print(f"Seeded {db}: " + ", ".join(f"{n} {k}" for k, n in sorted(seeded.counts.items())))
    print(f"Try it: HIPPO_DATA_DIR={args.data_dir} hippo   (then F4 for the memory inspector)")
    print(
        "No Ollama? Run `python -m tests.fake_ollama --port 11435` beside it and add "
        "OLLAMA_HOST=127.0.0.1:11435."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
