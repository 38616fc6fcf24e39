"""What consolidation adds, measured with LoCoMo's own memory as an oracle sleep.

LoCoMo ships, for each session, an ``observation`` list (statements about each speaker,
each citing the turns it was read from) and a ``session_summary``, both written by a
strong model. Loaded into Hippo as facts citing their evidence turns and as episodes
citing their sessions' turns, they are what sleep would store if it worked well. Each
question is then answered as a turn is: recall over every tier (the turn's limit of 12)
and the context built from it (``build_context``, the turn's budgets), and the gold
evidence the prompt reaches is counted:

- through messages alone: the evidence turns among the prompt's messages, recalled with
  messages as the only tier;
- through the tiers: recalled over messages, facts and episodes together, the evidence
  turns among the prompt's messages, cited by its facts, or in its episodes' sessions.

Both are printed per category beside plain vector and plain BM25's top 12 over the
messages. It measures the tiers independently of the chat model: the target that
``bench/sleep_quality.py`` reports against.
"""

from __future__ import annotations

import statistics
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assistant.memory.context import build_context
from assistant.memory.facts import Evidence
from assistant.memory.working import WorkingMemory
from assistant.settings import ContextBudget
from bench.embedders import embedder

__all__ = ["load_oracle", "reached", "run"]

TURN_LIMIT = 12  # what a chat turn recalls (assistant.chat.context_for)
_NO_WORKING = WorkingMemory("", (), ())


def load_oracle(engine: Any, sample: dict) -> tuple[dict[int, set[str]], dict[int, set[str]]]:
    """Store the sample's observations as facts and summaries as episodes.

    Returns:
        fact id -> the dia_ids it cites; episode id -> the dia_ids of its session.
    """
    memory = engine.memory
    profile = memory.profile.id
    by_source = {m.source_id: m for m in _messages(engine)}
    sessions: dict[str, list[Any]] = defaultdict(list)
    for message in by_source.values():
        sessions[message.source_id.split(":")[0]].append(message)
    facts: dict[int, set[str]] = {}
    for people in sample.get("observation", {}).values():
        for statements in people.values():
            for statement, cited in statements:
                ids = [c for c in _dia_ids(cited) if c in by_source]
                if not ids:
                    continue
                fact = memory.facts.add(
                    profile,
                    statement,
                    evidence=[Evidence("message", by_source[c].id) for c in ids],
                    source_kind="user_stated",
                    actor="sleep",
                    valid_from=by_source[ids[0]].created_at,
                )
                facts[fact.id] = set(ids)
    episodes: dict[int, set[str]] = {}
    for key, summary in sample.get("session_summary", {}).items():
        number = key.split("_")[1]
        turns = sorted(sessions.get(f"D{number}", []), key=lambda m: m.id)
        if not turns or not summary:
            continue
        episode = memory.episodes.add(
            profile,
            summary=summary,
            started_at=turns[0].created_at,
            ended_at=turns[-1].created_at,
            session_id=turns[0].session_id,
            message_ids=[m.id for m in turns],
        )
        episodes[episode.id] = {m.source_id for m in turns}
    engine.background.embed_pending(batch_size=128)
    return facts, episodes


def _dia_ids(cited: Any) -> list[str]:
    from bench.locomo_retrieval import evidence

    return evidence({"evidence": cited if isinstance(cited, list) else [cited]})


def _messages(engine: Any) -> list[Any]:
    memory = engine.memory
    found = []
    for session in memory.messages.sessions(memory.profile.id, limit=10_000):
        found += memory.messages.recent_messages(session.id, limit=10_000)
    return found


def reached(
    used: Sequence[tuple[str, Any]], facts: dict[int, set[str]], episodes: dict[int, set[str]]
) -> set[str]:
    """The dia_ids a prompt's memories reach: its messages, facts' evidence, episodes'."""
    out: set[str] = set()
    for _, memory in used:
        if memory.kind == "message":
            out.add(memory.source_id)
        elif memory.kind == "fact":
            out |= facts.get(memory.item_id, set())
        elif memory.kind == "episode":
            out |= episodes.get(memory.item_id, set())
    return out


def _prompt(engine: Any, text: str, qvec: np.ndarray, kinds: tuple[str, ...]) -> list:
    memory = engine.memory
    recalled = memory.recall(text, limit=TURN_LIMIT, kinds=kinds, query_vector=qvec.tolist())
    context = build_context(
        stores=memory.stores,
        profile_id=memory.profile.id,
        now=memory.clock.now(),
        working=_NO_WORKING,
        recalled=recalled,
        query=text,
        budget=ContextBudget(),
    )
    return context.used


def run(data: Path, embedder_name: str) -> int:
    """Measure every conversation of ``data`` and print recall per category."""
    import json

    from bench.locomo_retrieval import CATEGORIES, evidence, load, open_engine, run_baselines

    samples = {s.get("sample_id"): s for s in json.loads(data.read_text(encoding="utf-8"))}
    llm = embedder(embedder_name)
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    with tempfile.TemporaryDirectory(prefix="hippo-oracle-") as tmp:
        for conv in load(data):
            asked = [q["question"] for q in conv.questions]
            qvecs = np.asarray(llm.embed(llm.model_name, asked, purpose="query", batch_size=128))
            engine = open_engine(conv, llm, Path(tmp))
            facts, episodes = load_oracle(engine, samples[conv.name])
            plain = run_baselines(conv, llm, qvecs)[:2]
            for i, (question, qvec) in enumerate(zip(conv.questions, qvecs, strict=True)):
                wanted = set(evidence(question))
                category = CATEGORIES.get(int(question.get("category", 4)), "other")
                if not wanted or category == "adversarial":
                    continue
                got = {
                    "messages alone": reached(
                        _prompt(engine, question["question"], qvec, ("message",)), {}, {}
                    ),
                    "through tiers": reached(
                        _prompt(engine, question["question"], qvec, ("message", "fact", "episode")),
                        facts,
                        episodes,
                    ),
                } | {r.name: set(r.ranked[i][:TURN_LIMIT]) for r in plain}
                for name, found in got.items():
                    share = 100 * len(wanted & found) / len(wanted)
                    rows[category][name].append(share)
                    rows["overall"][name].append(share)
            engine.close()
    names = ["messages alone", "through tiers", "plain vector", "plain BM25"]
    print(
        f"{data.name}, {llm.model_name}: gold evidence reached by the turn's prompt"
        f" (recall {TURN_LIMIT}, default budgets), % of evidence turns"
    )
    print(f"{'category':12} {'n':>4} " + " ".join(f"{n:>15}" for n in names))
    for category in [*list(CATEGORIES.values())[:4], "overall"]:
        if category in rows:
            cells = " ".join(f"{statistics.fmean(rows[category][n]):15.1f}" for n in names)
            print(f"{category:12} {len(rows[category][names[0]]):4} {cells}")
    return 0
