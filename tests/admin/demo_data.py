"""Seed a data file with a few hundred realistic memories, to try the inspector and CLI by hand.

    python -m tests.admin.demo_data --data-dir /tmp/hippo-demo
    HIPPO_DATA_DIR=/tmp/hippo-demo hippo memory list

No Ollama is needed (nothing is embedded; `hippo embed` does it later). The memories are
spread over the last eight weeks: chats with facts drawn from them (some pending review,
some superseded, some rejected), episodes, events, a note, core blocks, and a few in
Chinese.
"""

from __future__ import annotations

import argparse
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from assistant.clock import ManualClock
from assistant.engine import Hippo
from assistant.llm.gateway import OllamaGateway
from assistant.memory.facts import Evidence

__all__ = ["seed_demo"]

# (what the user says, the assistant's reply, the fact drawn from it, scope)
TOPICS = [
    (
        "I switched our backend from Flask to FastAPI this sprint.",
        "FastAPI's typing helps.",
        "The user's team backend uses FastAPI",
        "work",
    ),
    (
        "My manager Priya wants the Atlas report by Friday.",
        "I'll remind you Thursday.",
        "The user's manager is Priya",
        "work",
    ),
    (
        "Project Atlas is the migration to Postgres 16.",
        "A big one!",
        "Project Atlas is a migration to Postgres 16",
        "work",
    ),
    (
        "I'm allergic to peanuts, badly.",
        "Noted, I'll keep that in mind.",
        "The user is allergic to peanuts",
        "health",
    ),
    (
        "Started physio for my left knee on Tuesdays.",
        "Hope it helps.",
        "The user has physio for the left knee on Tuesdays",
        "health",
    ),
    (
        "My sister Anna moved to Berlin last spring.",
        "Berlin is lovely in spring.",
        "The user's sister Anna lives in Berlin",
        "",
    ),
    (
        "We adopted a cat called Miso!",
        "Congratulations on Miso!",
        "The user has a cat called Miso",
        "",
    ),
    (
        "I run 5k every Saturday morning in the park.",
        "Great routine.",
        "The user runs 5k on Saturday mornings",
        "health",
    ),
    (
        "I prefer tea over coffee, usually green tea.",
        "Green tea it is.",
        "The user prefers green tea to coffee",
        "",
    ),
    (
        "I'm learning the cello, lesson every Wednesday.",
        "How exciting!",
        "The user takes cello lessons on Wednesdays",
        "",
    ),
    (
        "I use Neovim with the LazyVim setup.",
        "Solid choice.",
        "The user edits code in Neovim (LazyVim)",
        "work",
    ),
    (
        "Our daughter Lea starts school in September.",
        "A big step!",
        "The user's daughter Lea starts school in September",
        "",
    ),
    ("我每天早上喝一杯绿茶。", "绿茶很健康。", "用户每天早上喝绿茶", ""),
    ("我在学习中文书法。", "书法很有意思。", "用户在学习中文书法", ""),
]
GUESSES = [
    "The user may enjoy classical music",
    "The user probably works remotely on Fridays",
    "The user seems to like Italian food",
    "The user might be planning a trip to Japan",
]
EVENTS = [
    "Finished a 5k run in 27:40",
    "Booked the dentist for the 14th",
    "Miso's vet check-up",
    "Merged the Atlas schema PR",
    "Cello lesson cancelled",
]


def seed_demo(engine: Hippo, rng: random.Random, now: datetime, weeks: int = 8) -> None:
    """Fill the engine's current profile with a few hundred memories over ``weeks`` weeks."""
    pid = engine.memory.profile.id
    start = now - timedelta(weeks=weeks)
    facts_by_topic: dict[int, int] = {}
    for n in range(weeks * 7):
        day = start + timedelta(days=n, hours=rng.randint(7, 21))
        picks = rng.sample(range(len(TOPICS)), k=rng.randint(1, 3))
        session = engine.memory.messages.create_session(
            pid, started_at=day, scope=TOPICS[picks[0]][3]
        )
        said = []
        for k, index in enumerate(picks):
            user, reply, _, _ = TOPICS[index]
            at = day + timedelta(minutes=4 * k)
            said.append(engine.memory.messages.add_message(session.id, "user", user, created_at=at))
            engine.memory.messages.add_message(
                session.id, "assistant", reply, created_at=at + timedelta(minutes=1)
            )
        for index, message in zip(picks, said, strict=True):
            _, _, statement, scope = TOPICS[index]
            if index in facts_by_topic:
                engine.memory.facts.reinforce(
                    facts_by_topic[index], [Evidence("message", message.id)], actor="sleep"
                )
                continue
            fact = engine.memory.facts.add(
                pid,
                statement,
                evidence=[Evidence("message", message.id)],
                source_kind="user_stated",
                actor="sleep",
                scope=scope,
                importance=rng.randint(3, 9),
                valid_from=message.created_at,
            )
            facts_by_topic[index] = fact.id
        if n % 3 == 0:
            guess = GUESSES[n % len(GUESSES)] + f" (seen {day:%d %b})"
            engine.memory.facts.add(
                pid,
                guess,
                evidence=[Evidence("message", said[0].id)],
                source_kind="assistant_inferred",
                actor="agent",
            )
        engine.memory.episodes.add(
            pid,
            summary=" ".join(TOPICS[i][2] + "." for i in picks),
            started_at=day,
            ended_at=day + timedelta(minutes=10),
            session_id=session.id,
            title=TOPICS[picks[0]][2][:40],
            importance=rng.randint(2, 8),
            message_ids=[m.id for m in said],
        )
        if n % 4 == 0:
            engine.memory.events.log(pid, rng.choice(EVENTS), occurred_at=day, source="phone")
    engine.memory.core.set(
        pid,
        "human",
        "Name: Sam. Sister Anna in Berlin. Cat: Miso.\nAllergic to peanuts.",
        actor="user",
    )


def main() -> None:
    """Seed the data file under --data-dir (it must not hold a Hippo file yet)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    path = Path(args.data_dir) / "hippo.db"
    if path.exists():
        raise SystemExit(f"{path} exists; choose an empty folder.")
    now = datetime.now(UTC)
    engine = Hippo(
        path,
        OllamaGateway("http://127.0.0.1:9"),
        chat_model="qwen3:1.7b",
        embedding_model="embeddinggemma",
        clock=ManualClock(now - timedelta(weeks=8)),
    )
    try:
        seed_demo(engine, random.Random(args.seed), now)
        stats = engine.admin.activity.stats()
        print(f"Seeded {path}: " + ", ".join(f"{n} {t}" for t, n in stats.counts.items()))
    finally:
        engine.close()


if __name__ == "__main__":
    main()
