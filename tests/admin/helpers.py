"""Seeding a profile with a little of every kind of memory, for the admin tests."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from assistant.engine import Hippo
from assistant.memory.facts import Evidence, Fact
from assistant.memory.records import Message, Session
from assistant.memory.usage import MemoryUse
from tests.plaintext import plaintext_bytes

__all__ = ["Seeded", "chat", "file_bytes", "remember", "seed"]

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def chat(
    engine: Hippo, at: datetime, *turns: str, incognito: bool = False, scope: str = ""
) -> tuple[Session, list[Message]]:
    """A conversation at ``at``: turns alternate user, assistant, a minute apart."""
    # An incognito one in the file, as an older Hippo left it (today's live in memory).
    store = engine.memory.messages.file if incognito else engine.memory.messages
    session = store.create_session(
        engine.memory.profile.id, started_at=at, incognito=incognito, scope=scope
    )
    said = [
        engine.memory.messages.add_message(
            session.id,
            "user" if n % 2 == 0 else "assistant",
            text,
            created_at=at + timedelta(minutes=n),
        )
        for n, text in enumerate(turns)
    ]
    return session, said


def remember(
    engine: Hippo, statement: str, *evidence: Evidence, source: str = "user_stated", **options
) -> Fact:
    """A fact of the current profile, written as the user would (or as ``actor``)."""
    options.setdefault("actor", "user" if source == "user_stated" else "sleep")
    return engine.memory.facts.add(
        engine.memory.profile.id,
        statement,
        evidence=list(evidence),
        source_kind=source,  # type: ignore[arg-type]
        **options,
    )


@dataclass
class Seeded:
    """What `seed` wrote."""

    berlin: Session
    cooking: Session
    messages: list[Message]
    moved: Fact
    sister: Fact
    pasta: Fact


def seed(engine: Hippo, tmp_path: Path) -> Seeded:
    """Two conversations, facts with quotes and history, an episode, a note, an event, core."""
    berlin, said = chat(
        engine,
        START,
        "My sister Anna moved to Berlin last spring.",
        "Berlin is lovely in spring. How is Anna finding it?",
        "She loves the Spree and works at Zalando now.",
        "That sounds like a great fit.",
    )
    cooking, cooked = chat(
        engine,
        START + timedelta(days=2),
        "I cooked carbonara tonight, my favourite pasta.",
        "Carbonara is a classic!",
    )
    moved = remember(
        engine,
        "The user's sister Anna lives in Berlin",
        Evidence("message", said[0].id, "moved to Berlin"),
    )
    sister = remember(
        engine,
        "The user has a sister called Anna",
        Evidence("message", said[0].id),
        Evidence("message", said[2].id),
    )
    pasta = remember(
        engine, "The user's favourite pasta is carbonara", Evidence("message", cooked[0].id)
    )
    engine.memory.facts.update(moved.id, actor="user", importance=8)
    engine.memory.episodes.add(
        engine.memory.profile.id,
        summary="The user told Hippo that Anna moved to Berlin and works at Zalando.",
        started_at=said[0].created_at,
        ended_at=said[-1].created_at,
        session_id=berlin.id,
        title="Anna in Berlin",
        topics=["family", "Berlin"],
        message_ids=[m.id for m in said],
    )
    note = tmp_path / "trip.md"
    note.write_text("# Trip\n\nVisit Anna in Berlin in June; book the train early.\n")
    engine.intake.ingest(note)
    engine.intake.log_event(
        "Booked a table at Trattoria Roma", occurred_at=START + timedelta(days=3)
    )
    engine.memory.core.append(
        engine.memory.profile.id, "human", "Sister Anna lives in Berlin.", actor="user"
    )
    engine.memory.core.append(engine.memory.profile.id, "human", "Likes carbonara.", actor="user")
    engine.memory.entities.link(engine.memory.profile.id, "fact", moved.id, ["Anna", "Berlin"])
    engine.memory.usage.record([MemoryUse(said[1].id, "fact", sister.id, "facts", 0, 0.9)])
    return Seeded(berlin, cooking, [*said, *cooked], moved, sister, pasta)


def file_bytes(engine: Hippo) -> bytes:
    """The data file's and its WAL's pages as on disk, decrypted (free pages too), and the raw
    bytes of all three files (so a word left in either form is found)."""
    path = Path(engine.memory.db.path)
    parts = [Path(f"{path}{suffix}") for suffix in ("", "-wal", "-shm")]
    raw = b"".join(p.read_bytes() for p in parts if p.exists())
    return plaintext_bytes(path) + raw
