"""The nightly consolidation on a synthetic week, against the fake Ollama.

Builds a week of 20 sessions of 20 turns (10 user, 10 assistant) in a fresh data file,
runs ``hippo sleep`` once, and prints the run's non-model time (in total and per session),
model calls and tokens per session, and what it proposed. The fake model answers each
structured request from the request itself (episodes split at the middle, one fact per
personal statement, "add" or "reinforce" for the update), so every step does real work.

Targets (issue 4): at most 2 model calls per session for episodes and extraction, and
under 100 ms of non-model time per session (20 sessions under 2 s).

Usage: python bench/sleep.py [--sessions 20] [--turns 20] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.clock import ManualClock  # noqa: E402
from assistant.engine import Hippo  # noqa: E402
from assistant.llm.gateway import OllamaGateway  # noqa: E402
from assistant.sleep import SleepReport, SleepSettings  # noqa: E402
from tests.fake_ollama.server import FakeOllama  # noqa: E402
from tests.fake_ollama.wire import Reply  # noqa: E402

START = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)  # a Monday
# (user says, the fact it states, its predicate)
STATEMENTS = [
    ("I use Python at work every day.", "The user uses Python at work", "uses language"),
    ("My sister Anna lives in Lisbon.", "The user's sister Anna lives in Lisbon", "sister"),
    ("I have a dentist appointment next Friday.", "", ""),
    ("I am training for a half marathon.", "The user trains for a half marathon", "training"),
    ("I prefer green tea over coffee.", "The user prefers green tea over coffee", "drinks"),
    ("My manager Tom wants the report by tomorrow.", "", ""),
    ("I am learning Portuguese on Duolingo.", "The user is learning Portuguese", "learning"),
    ("I switched to Go for the new service.", "The user switched to Go", "uses language"),
    ("I am allergic to shellfish.", "The user is allergic to shellfish", "allergy"),
    ("We adopted a cat called Miso.", "The user has a cat called Miso", "pet"),
]
FILLER = ["What do you think?", "Can you help me plan it?", "Thanks, that helps.", "Ok."]
LINE = re.compile(r"^\[id (\d+)\] (\S+) \S+ \S+ (user|assistant): (.*)$", re.M)


def build_week(engine: Hippo, sessions: int, turns: int) -> None:
    """Write ``sessions`` conversations of ``turns`` messages over seven days."""
    for s in range(sessions):
        at = START + timedelta(days=s * 7 // sessions, hours=s % 3 * 4)
        session = engine.memory.messages.create_session(engine.memory.profile.id, started_at=at)
        for t in range(turns):
            role = "user" if t % 2 == 0 else "assistant"
            pick = (s * 3 + t // 2) % len(STATEMENTS)
            text = STATEMENTS[pick][0] if t % 4 == 0 else FILLER[(s + t) % len(FILLER)]
            if role == "assistant":
                text = "That sounds good; tell me more about it."
            engine.memory.messages.add_message(
                session.id,
                role,
                text,
                created_at=at + timedelta(minutes=t),
                importance=6.0 if t % 4 == 0 else 3.0,
            )


class WeekModel(FakeOllama):
    """The fake Ollama, answering each structured request from its own transcript."""

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        wanted = set((body.get("format") or {}).get("properties", {}))
        text = (body.get("messages") or [{}])[-1].get("content", "")
        answer = {
            "episodes": _episodes,
            "facts": _facts,
            "decisions": _decisions,
            "questions": lambda _: {"questions": ["What matters most to the user?"]},
            "insights": _insights,
        }
        for key, make in answer.items():
            if key in wanted:
                return Reply(content=json.dumps(make(text)))
        return super()._next_reply(body)


def _episodes(text: str) -> dict[str, Any]:
    lines = LINE.findall(text)
    halves = [lines[: len(lines) // 2], lines[len(lines) // 2 :]] if len(lines) > 12 else [lines]
    out = []
    for half in halves:
        dated = [
            {"text": said, "when": when, "message_id": int(mid)}
            for mid, _, role, said in half
            for when in ("next Friday", "tomorrow")
            if role == "user" and when in said
        ]
        out.append(
            {
                "first_message_id": int(half[0][0]),
                "last_message_id": int(half[-1][0]),
                "title": "A conversation",
                "summary": "The user talked about their week.",
                "topics": ["week"],
                "importance": 5,
                "dated_items": dated[:3],
            }
        )
    return {"episodes": out}


def _facts(text: str) -> dict[str, Any]:
    known = {said: (statement, predicate) for said, statement, predicate in STATEMENTS}
    found, seen = [], set()
    for mid, _, role, said in LINE.findall(text):
        statement, predicate = known.get(said, ("", ""))
        if role == "user" and statement and statement not in seen:
            seen.add(statement)
            found.append(
                {
                    "statement": statement,
                    "subject": "user",
                    "predicate": predicate,
                    "source": "user_stated",
                    "message_ids": [int(mid)],
                    "confidence": 0.9,
                    "importance": 6,
                }
            )
    return {"facts": found}


def _decisions(text: str) -> dict[str, Any]:
    decisions = []
    for block in re.split(r"(?m)^Candidate ", text)[1:]:
        number = int(block.split(":", 1)[0])
        statement = re.search(r"'(.*?)'", block).group(1)  # type: ignore[union-attr]
        facts = re.findall(r"fact (\d+): '(.*?)'", block)
        same = [int(i) for i, s in facts if s == statement]
        replaced = [int(i) for i, _ in facts] if "switched" in statement else []
        action, fact_id = ("reinforce", same[0]) if same else ("add", 0)
        if replaced:
            action, fact_id = "supersede", replaced[0]
        decisions.append({"candidate": number, "action": action, "fact_id": fact_id})
    return {"decisions": decisions}


def _insights(text: str) -> dict[str, Any]:
    labels = re.findall(r"^\[(fact:\d+|episode:\d+)\]", text, re.M)[:2]
    return {
        "insights": [
            {
                "statement": "The user balances work, health and family.",
                "evidence": labels,
                "importance": 6,
            }
        ]
    }


def run_once(sessions: int, turns: int) -> SleepReport:
    """One fresh week, one run."""
    with tempfile.TemporaryDirectory() as folder, WeekModel() as model:
        clock = ManualClock(START)
        engine = Hippo(
            Path(folder) / "hippo.db",
            OllamaGateway(model.host),
            chat_model="qwen3:1.7b",
            embedding_model="embeddinggemma",
            clock=clock,
        )
        try:
            build_week(engine, sessions, turns)
            clock.advance(days=8)
            return engine.consolidate(tz=UTC, settings=SleepSettings(max_llm_calls=1000))
        finally:
            engine.close()


def main() -> None:
    """Run the bench and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    reports = [run_once(args.sessions, args.turns) for _ in range(args.runs)]
    r = min(reports, key=lambda rep: rep.non_llm_seconds)
    n = r.counts["sessions_summarised"] or 1
    first = r.counts["llm_calls_episodes"] + r.counts["llm_calls_extract"]
    medians = statistics.median(rep.non_llm_seconds for rep in reports)
    print(
        f"synthetic week: {args.sessions} sessions x {args.turns} turns, status {r.status}, "
        f"{len(r.errors)} errors; best of {args.runs} runs"
    )
    print(
        f"non-model time: {r.non_llm_seconds * 1000:.0f} ms per run (median "
        f"{medians * 1000:.0f} ms), {r.non_llm_seconds * 1000 / n:.1f} ms per session "
        f"(target < 100 ms); model time {r.llm_seconds * 1000:.0f} ms"
    )
    print(
        f"model calls: {first / n:.2f} per session for episodes + extraction (target <= 2), "
        f"{r.counts['llm_calls_update']} for the update, {r.counts['llm_calls_reflect']} for "
        f"reflection, {r.llm_calls} in all"
    )
    print(
        f"tokens per session: {r.prompt_tokens / n:.0f} prompt, "
        f"{r.completion_tokens / n:.0f} completion"
    )
    print(
        f"produced: {r.counts['episodes']} episodes, {r.counts['candidates']} candidates, "
        f"{r.counts['dated_items']} dated items"
    )
    print(
        f"proposals: {r.count('fact')} new facts ({len(r.to_review)} to review), "
        f"{r.counts['candidates_reinforced']} reinforced, {r.count('superseded')} superseded, "
        f"{r.count('reflection')} reflections, {r.count('merged')} merged"
    )


if __name__ == "__main__":
    main()
