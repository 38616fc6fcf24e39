"""LoCoMo conversations as Hippo stores them, with their gold observations and questions.

Shared by `bench/sleep_quality.py`, `bench/locomo_qa.py` and the real-model tests. Both
speakers of a LoCoMo conversation are people, so every turn is stored as a user message
with its speaker's name (the transcript sleep reads says who spoke), dated at its
session's real date and time, a minute apart, with its `dia_id` as source id.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from assistant.engine import Hippo

__all__ = [
    "DEFAULT_DATA",
    "Conversation",
    "Observation",
    "Session",
    "Turn",
    "evidence_ids",
    "load",
    "write_sessions",
]


def _default_data() -> Path:
    """``shared/bench-data/locomo-dev.json`` beside the checkout (or further up)."""
    here = Path(__file__).resolve()
    for folder in here.parents:
        found = folder / "shared" / "bench-data" / "locomo-dev.json"
        if found.is_file():
            return found
    return here.parents[2] / "shared" / "bench-data" / "locomo-dev.json"


DEFAULT_DATA = _default_data()
_TURN_GAP = timedelta(minutes=1)


@dataclass(frozen=True)
class Turn:
    """One turn: who said what, when, under which LoCoMo id (``D1:3``)."""

    dia_id: str
    speaker: str
    text: str
    at: datetime


@dataclass(frozen=True)
class Observation:
    """A gold fact LoCoMo lists for a session, with the turns it rests on."""

    speaker: str
    text: str
    evidence: tuple[str, ...]


@dataclass
class Session:
    """One dated session of a conversation."""

    number: int
    turns: list[Turn]
    observations: list[Observation] = field(default_factory=list)


@dataclass
class Conversation:
    """A LoCoMo sample: its sessions, in order, and its questions."""

    name: str
    speakers: tuple[str, str]
    sessions: list[Session]
    questions: list[dict[str, Any]]

    @property
    def turns(self) -> list[Turn]:
        """Every turn, in order."""
        return [t for s in self.sessions for t in s.turns]


def evidence_ids(raw: Any) -> tuple[str, ...]:
    """LoCoMo evidence (a list, sometimes with several ids in one string) as ``dia_id``s."""
    items = raw if isinstance(raw, list) else [raw]
    return tuple(e for item in items for e in re.split(r"[;,\s]+", str(item)) if e)


def _text(raw: dict[str, Any]) -> str:
    caption = raw.get("blip_caption")
    return f"{raw['text']} [shares a photo of {caption}]" if caption else raw["text"]


def _observations(sample: dict[str, Any], n: int) -> list[Observation]:
    found = (sample.get("observation") or {}).get(f"session_{n}_observation") or {}
    return [
        Observation(speaker, item[0], evidence_ids(item[1]))
        for speaker, items in found.items()
        for item in items
        if isinstance(item, list) and len(item) >= 2
    ]


def load(path: Path = DEFAULT_DATA) -> list[Conversation]:
    """Read a LoCoMo-format file."""
    out = []
    for sample in json.loads(Path(path).read_text(encoding="utf-8")):
        conv = sample["conversation"]
        sessions, n = [], 1
        while f"session_{n}_date_time" in conv:
            start = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
            start = start.replace(tzinfo=UTC)
            turns = [
                Turn(t["dia_id"], t["speaker"], _text(t), start + i * _TURN_GAP)
                for i, t in enumerate(conv.get(f"session_{n}") or [])
            ]
            if turns:
                sessions.append(Session(n, turns, _observations(sample, n)))
            n += 1
        out.append(
            Conversation(
                str(sample.get("sample_id", len(out))),
                (conv["speaker_a"], conv["speaker_b"]),
                sessions,
                list(sample.get("qa") or []),
            )
        )
    return out


def write_sessions(engine: Hippo, sessions: list[Session]) -> dict[str, int]:
    """Store sessions through the engine's write path; return each ``dia_id``'s message id."""
    ids: dict[str, int] = {}
    for session in sessions:
        stored = engine.memory.messages.create_session(
            engine.memory.profile.id, started_at=session.turns[0].at
        )
        for turn in session.turns:
            message = engine.memory.messages.add_message(
                stored.id,
                "user",
                turn.text,
                created_at=turn.at,
                speaker=turn.speaker,
                source_id=turn.dia_id,
            )
            ids[turn.dia_id] = message.id
    return ids
