"""Evidence recall of Hippo's message retrieval on LoCoMo-format conversations, no LLM.

Each conversation goes in through the engine's own write path (sessions at their real
dates, speakers kept, each turn's ``dia_id`` as its source id; a person's turns as the
user's, the assistant's own, as in zh-dev, as replies) and is embedded with
the chosen embedder (``--embedder``: all-MiniLM-L6-v2, or multilingual-e5-small, which
embeds questions as queries and stored text as passages); each question is asked
through ``Hippo.recall``, whose reading probe measures that embedder. Printed per
category: evidence recall@5/10/20, median memory tokens of the top 10, and p50/p95
retrieval latency (query embedding excluded). Three plain baselines run on the same
turns, each a transcript line alone ("Speaker: text", no neighbours): FTS5 BM25 over the
line with its session's date (as the issue measured it), cosine over the embedder's
vectors of the line, and their 1:1 reciprocal-rank fusion. Recall@10 is also printed
per conversation.

Ends with issue 13's targets, each ok or MISSED (lead over the best baseline, categories,
the floor for the set and embedder, update questions).

Usage: python bench/locomo_retrieval.py --data FILE [--embedder minilm|e5] [--json OUT]
[--dump OUT] (needs the bench extra; outputs belong under bench/out/, which git
ignores, as does the cache of vectors there that makes a repeated run fast).

``--folds --data FILE [--data FILE...] [--variant NAME:key=value,...]`` runs
leave-one-conversation-out over every conversation with both embedders
(bench/locomo_folds.py); ``--oracle-memory`` loads LoCoMo's observations and session
summaries as facts and episodes and counts what the turn's prompt reaches through them
(bench/locomo_oracle.py).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import apsw
import numpy as np

from assistant.clock import ManualClock
from assistant.engine import Hippo
from assistant.tokens import estimate_tokens
from bench.embedders import EMBEDDERS, embedder

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (5, 10, 20)
_TURN_GAP = timedelta(seconds=30)
_PLAIN_WORD = re.compile(r"\w+")
_PLAIN_STOP = frozenset("a an and the of to in on is was did do does what when how who".split())
# Speakers who are the assistant itself (zh-dev's second speaker is 助手). LoCoMo's
# conversations are between two people: both are stored as users, since recall ranks the
# assistant's own replies after every user statement (they are not evidence about the
# user), and each person's words are evidence there.
ASSISTANT_SPEAKERS = frozenset({"assistant", "助手", "hippo"})


@dataclass(frozen=True, slots=True)
class Turn:
    """One line of a conversation."""

    dia_id: str
    speaker: str
    text: str
    at: datetime


@dataclass(slots=True)
class Conversation:
    """A conversation's sessions (lists of turns) and its questions."""

    name: str
    speaker_a: str
    sessions: list[list[Turn]]
    questions: list[dict]

    @property
    def turns(self) -> list[Turn]:
        return [turn for session in self.sessions for turn in session]


@dataclass(slots=True)
class Ranking:
    """What one retriever returned for every question: dia_ids best first, timings."""

    name: str
    ranked: list[list[str]] = field(default_factory=list)
    texts: list[list[str]] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)


def _turn_text(raw: dict) -> str:
    # A shared photo is part of what was said; its caption is all a text reader gets.
    caption = raw.get("blip_caption")
    return f"{raw['text']} [shares a photo of {caption}]" if caption else raw["text"]


def load(path: Path) -> list[Conversation]:
    """Read a LoCoMo-format file into conversations, dating each turn within its session."""
    out = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        sessions = []
        n = 1
        while f"session_{n}_date_time" in conv:
            start = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
            start = start.replace(tzinfo=UTC)
            raw_turns = conv.get(f"session_{n}") or []
            sessions.append(
                [
                    Turn(t["dia_id"], t["speaker"], _turn_text(t), start + i * _TURN_GAP)
                    for i, t in enumerate(raw_turns)
                ]
            )
            n += 1
        out.append(
            Conversation(
                sample.get("sample_id", str(len(out))),
                conv["speaker_a"],
                [s for s in sessions if s],
                sample["qa"],
            )
        )
    return out


def evidence(question: dict) -> list[str]:
    """The question's evidence dia_ids (some sources join several with ';')."""
    return [e for item in question["evidence"] for e in re.split(r"[;,\s]+", item) if e]


def role_of(speaker: str) -> str:
    """A turn's role in Hippo: "assistant" for the assistant's own words, else "user"."""
    return "assistant" if speaker.casefold() in ASSISTANT_SPEAKERS else "user"


def ingest(engine: Hippo, conv: Conversation) -> None:
    """Write the conversation through the engine's write path, then embed it."""
    profile = engine.memory.profile.id
    for session in conv.sessions:
        sid = engine.memory.messages.create_session(profile, started_at=session[0].at).id
        for turn in session:
            engine.memory.messages.add_message(
                sid,
                role_of(turn.speaker),
                turn.text,
                created_at=turn.at,
                speaker=turn.speaker,
                source_id=turn.dia_id,
            )
    engine.background.embed_pending(batch_size=128)


def open_engine(conv: Conversation, llm: Any, folder: Path) -> Hippo:
    """A fresh file holding ``conv``, embedded by ``llm``."""
    clock = ManualClock(conv.turns[-1].at + timedelta(minutes=5))
    engine = Hippo(
        folder / f"{conv.name}.db",
        llm,
        chat_model="none",  # type: ignore[arg-type]
        embedding_model=llm.model_name,
        clock=clock,
    )
    ingest(engine, conv)
    return engine


def run_engine(conv: Conversation, llm: Any, qvecs: np.ndarray, folder: Path) -> Ranking:
    """Ask every question through ``Hippo.recall`` over a fresh file."""
    engine = open_engine(conv, llm, folder)
    ranking = Ranking("hippo")
    for question, qvec in zip(conv.questions, qvecs, strict=True):
        started = time.perf_counter()
        found = engine.memory.recall(
            question["question"], kinds=("message",), limit=max(KS), query_vector=qvec.tolist()
        )
        ranking.latency_ms.append((time.perf_counter() - started) * 1000)
        ranking.ranked.append([m.source_id for m in found])
        ranking.texts.append([m.text for m in found])
    engine.close()
    return ranking


def _line(turn: Turn) -> str:
    return f"{turn.speaker}: {turn.text}"


def _plain_bm25(turns: Sequence[Turn]) -> Callable[[str, int], list[int]]:
    db = apsw.Connection(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61')")
    db.executemany(
        "INSERT INTO t(rowid, body) VALUES (?, ?)",
        [(i, f"{turn.at:%-d %B %Y} {_line(turn)}") for i, turn in enumerate(turns)],
    )

    def search(question: str, k: int) -> list[int]:
        words = [
            w for w in dict.fromkeys(_PLAIN_WORD.findall(question.lower())) if w not in _PLAIN_STOP
        ]
        if not words:
            return []
        expression = " OR ".join(f'"{w}"' for w in words)
        rows = db.execute(
            "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (expression, k)
        )
        return [row[0] for row in rows]

    return search


def run_baselines(conv: Conversation, llm: Any, qvecs: np.ndarray) -> list[Ranking]:
    """Plain BM25, plain vectors (each line alone) and their 1:1 reciprocal-rank fusion."""
    turns = conv.turns
    lines = [_line(t) for t in turns]
    tvecs = np.asarray(llm.embed(llm.model_name, lines, purpose="document", batch_size=128))
    bm25 = _plain_bm25(turns)
    rankings = [Ranking("plain BM25"), Ranking("plain vector"), Ranking("plain RRF")]
    depth = 100
    for question, qvec in zip(conv.questions, qvecs, strict=True):
        lists = []
        started = time.perf_counter()
        lists.append(bm25(question["question"], depth))
        lists.append(list(np.argsort(-(tvecs @ qvec))[:depth]))
        fused: dict[int, float] = defaultdict(float)
        for ranked in lists:
            for rank, i in enumerate(ranked):
                fused[int(i)] += 1.0 / (60 + rank + 1)
        lists.append(sorted(fused, key=lambda i: -fused[i]))
        elapsed = (time.perf_counter() - started) * 1000
        for ranking, ranked in zip(rankings, lists, strict=True):
            top = [turns[int(i)] for i in ranked[: max(KS)]]
            ranking.ranked.append([t.dia_id for t in top])
            ranking.texts.append([t.text for t in top])
            ranking.latency_ms.append(elapsed)
    return rankings


def _percentile(values: Sequence[float], p: float) -> float:
    return float(np.percentile(values, p)) if values else 0.0


def figures(questions: Sequence[dict], ranking: Ranking) -> dict:
    """Recall@k per category and overall (1-4), memory tokens and latency."""
    per: dict[str, list[dict[int, float]]] = defaultdict(list)
    tokens = []
    for question, ranked, texts in zip(questions, ranking.ranked, ranking.texts, strict=True):
        wanted = set(evidence(question))
        if not wanted:
            continue
        hits = {k: len(wanted & set(ranked[:k])) / len(wanted) for k in KS}
        category = int(question.get("category", 4))
        per[CATEGORIES.get(category, str(category))].append(hits)
        if category != 5:
            per["overall"].append(hits)
        tokens.append(sum(estimate_tokens(t) for t in texts[:10]))
    out: dict = {"name": ranking.name, "categories": {}}
    for name, rows in per.items():
        out["categories"][name] = {"n": len(rows)} | {
            f"recall@{k}": round(100 * statistics.fmean(r[k] for r in rows), 1) for k in KS
        }
    out["memory_tokens_median"] = statistics.median(tokens) if tokens else 0
    out["latency_ms_p50"] = round(_percentile(ranking.latency_ms, 50), 2)
    out["latency_ms_p95"] = round(_percentile(ranking.latency_ms, 95), 2)
    return out


def update_check(questions: Sequence[dict], ranking: Ranking) -> dict | None:
    """For knowledge-update questions: is the newest evidence turn in the top 10?"""
    rows = []
    for question, ranked in zip(questions, ranking.ranked, strict=True):
        if question.get("update"):
            newest = max(evidence(question), key=lambda e: tuple(map(int, e[1:].split(":"))))
            rows.append(
                {
                    "question": question["question"],
                    "newest": newest,
                    "in_top10": newest in ranked[:10],
                }
            )
    if not rows:
        return None
    return {
        "n": len(rows),
        "in_top10": sum(r["in_top10"] for r in rows),
        "all_in_top10": all(r["in_top10"] for r in rows),
        "rows": rows,
    }


def _table(results: Sequence[dict]) -> str:
    order = [*CATEGORIES.values()]
    names = [
        n for n in [*order[:4], "overall", order[4]] if any(n in r["categories"] for r in results)
    ]
    lines = []
    header = f"{'retriever':14} {'category':12} {'n':>4} " + " ".join(
        f"{'R@' + str(k):>6}" for k in KS
    )
    lines.append(header + f" {'tok@10':>7} {'p50 ms':>7} {'p95 ms':>7}")
    for r in results:
        for n in names:
            c = r["categories"].get(n)
            if c is None:
                continue
            recall = " ".join(f"{c[f'recall@{k}']:6.1f}" for k in KS)
            extra = (
                (
                    f" {r['memory_tokens_median']:7.0f} {r['latency_ms_p50']:7.2f}"
                    f" {r['latency_ms_p95']:7.2f}"
                )
                if n == "overall"
                else ""
            )
            lines.append(f"{r['name']:14} {n:12} {c['n']:4} {recall}{extra}")
        lines.append("")
    return "\n".join(lines)


def probe(llm: Any) -> dict[str, dict[str, float]]:
    """What the reading probe measures of ``llm``'s model, per script: margin and trust."""
    from assistant.memory.script_probe import PARAPHRASES, paraphrase_margin, trust_from_margin

    out = {}
    for script, pairs in PARAPHRASES.items():
        asked = llm.embed(llm.model_name, [a for a, _ in pairs], purpose="query")
        stored = llm.embed(llm.model_name, [b for _, b in pairs], purpose="document")
        margin = paraphrase_margin(asked, stored)
        out[script] = {"margin": round(margin, 3), "trust": round(trust_from_margin(margin), 3)}
    return out


def per_conversation(
    conversations: Sequence[Conversation], merged: dict[str, Ranking]
) -> dict[str, dict[str, float]]:
    """Overall recall@10 of each retriever on each conversation alone."""
    out: dict[str, dict[str, float]] = {}
    start = 0
    for conv in conversations:
        end = start + len(conv.questions)
        for name, ranking in merged.items():
            part = Ranking(name, ranking.ranked[start:end], ranking.texts[start:end])
            overall = figures(conv.questions, part)["categories"].get("overall", {})
            out.setdefault(name, {})[conv.name] = overall.get("recall@10", 0.0)
        start = end
    return out


def _conversation_table(table: dict[str, dict[str, float]]) -> str:
    convs = list(next(iter(table.values())))
    lines = [f"{'R@10 by conversation':20} " + " ".join(f"{c:>8}" for c in convs)]
    for name, row in table.items():
        lines.append(f"{name:20} " + " ".join(f"{row[c]:8.1f}" for c in convs))
    return "\n".join(lines)


# Issue 13's targets: Hippo's recall@10 at least this far above the best plain baseline,
# no category more than this far under that baseline's, and these floors per (set, embedder).
LEAD_OVER_BASELINE = 5.0
CATEGORY_SLACK = 2.0
FLOORS = {
    ("zh-dev", "minilm"): 84.0,
    ("zh-dev", "e5"): 92.0,
    ("locomo-dev", "minilm"): 84.0,
    ("locomo-dev", "e5"): 82.0,
}
# Where every update question's newest evidence must be in the top 10.
ALL_UPDATES = frozenset({("zh-dev", "e5")})


def verdicts(data: str, embedder_name: str, results: Sequence[dict]) -> list[str]:
    """Each target, met ("ok") or not ("MISSED"), for Hippo against the plain baselines."""
    hippo = next(r for r in results if r["name"] == "hippo")
    plain = [r for r in results if r["name"] != "hippo"]
    best = max(plain, key=lambda r: r["categories"]["overall"]["recall@10"])
    own = hippo["categories"]["overall"]["recall@10"]
    lead = own - best["categories"]["overall"]["recall@10"]
    lines = [f"{_mark(lead >= LEAD_OVER_BASELINE)} {lead:+.1f} over {best['name']} (>= +5)"]
    under = [
        f"{name} {hippo['categories'].get(name, {}).get('recall@10', 0.0):.1f}"
        f" vs {c['recall@10']:.1f}"
        for name, c in best["categories"].items()
        if name != "overall"
        and hippo["categories"].get(name, {}).get("recall@10", 0.0)
        < c["recall@10"] - CATEGORY_SLACK
    ]
    lines.append(
        f"{_mark(not under)} no category 2 under it{': ' if under else ''}{', '.join(under)}"
    )
    if (floor := FLOORS.get((data, embedder_name))) is not None:
        lines.append(f"{_mark(own >= floor)} recall@10 {own:.1f} (>= {floor:.0f})")
    if "updates" in hippo and (data, embedder_name) in ALL_UPDATES:
        u = hippo["updates"]
        lines.append(f"{_mark(u['all_in_top10'])} updates {u['in_top10']}/{u['n']} (all)")
    return lines


def _mark(met: bool) -> str:
    return "ok    " if met else "MISSED"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, action="append", required=True, help="a LoCoMo-format JSON file"
    )
    parser.add_argument("--embedder", choices=sorted(EMBEDDERS), default="minilm")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--dump", type=Path, help="write per-question rankings here")
    parser.add_argument("--no-baselines", action="store_true", help="measure the engine only")
    parser.add_argument("--no-cache", action="store_true", help="embed afresh, keep nothing")
    parser.add_argument(
        "--folds",
        action="store_true",
        help="leave-one-conversation-out over every --data file, with MiniLM and e5",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="with --folds: NAME:key=value,... [retrieval] settings to measure too",
    )
    parser.add_argument(
        "--oracle-memory",
        action="store_true",
        help="also load LoCoMo's observations and summaries as facts and episodes",
    )
    args = parser.parse_args(argv)
    if args.oracle_memory:
        from bench.locomo_oracle import run as run_oracle

        return run_oracle(args.data[0], args.embedder)
    if args.folds:
        from bench.locomo_folds import run

        return run(args.data, args.variant, args.json)
    if len(args.data) != 1:
        parser.error("one --data file (several only with --folds)")
    args.data = args.data[0]
    conversations = load(args.data)
    llm = embedder(args.embedder, cache=not args.no_cache)
    questions: list[dict] = []
    merged: dict[str, Ranking] = {}
    with tempfile.TemporaryDirectory(prefix="hippo-locomo-") as tmp:
        for conv in conversations:
            asked = [q["question"] for q in conv.questions]
            qvecs = np.asarray(llm.embed(llm.model_name, asked, purpose="query", batch_size=128))
            rankings = [run_engine(conv, llm, qvecs, Path(tmp))]
            if not args.no_baselines:
                rankings += run_baselines(conv, llm, qvecs)
            questions += conv.questions
            for r in rankings:
                into = merged.setdefault(r.name, Ranking(r.name))
                into.ranked += r.ranked
                into.texts += r.texts
                into.latency_ms += r.latency_ms
    results = [figures(questions, r) for r in merged.values()]
    by_conversation = per_conversation(conversations, merged)
    reading = probe(llm)
    for r in results:
        r["embedder"] = llm.model_name
        r["conversations"] = by_conversation[r["name"]]
        if (check := update_check(questions, merged[r["name"]])) is not None:
            r["updates"] = check
    said = ", ".join(
        f"{k} trust {v['trust']:.2f} (margin {v['margin']:.2f})" for k, v in reading.items()
    )
    print(
        f"{args.data.name}: {len(conversations)} conversations, {len(questions)} questions,"
        f" {llm.model_name} vectors (reading probe: {said});"
        " recall in %, tokens of the top 10, latency excludes embedding"
    )
    print(_table(results))
    print(_conversation_table(by_conversation))
    for r in results:
        if "updates" in r:
            u = r["updates"]
            print(
                f"{r['name']}: newest evidence of update questions in top 10:"
                f" {u['in_top10']}/{u['n']}"
            )
    if not args.no_baselines:
        print("\n".join(verdicts(args.data.stem, args.embedder, results)))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    if args.dump:
        args.dump.parent.mkdir(parents=True, exist_ok=True)
        rows = [
            {
                "q": q["question"],
                "cat": q.get("category"),
                "ev": evidence(q),
                **{name: r.ranked[i] for name, r in merged.items()},
            }
            for i, q in enumerate(questions)
        ]
        args.dump.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
