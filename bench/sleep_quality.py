"""What sleep extracts from LoCoMo conversations, scored against LoCoMo's own observations.

    python -m tests.real_ollama --port 11500 &      # or any Ollama
    python bench/sleep_quality.py --host http://127.0.0.1:11500 --model smollm2:135m \\
        --embedding multilingual-e5-small --sessions 3

Each conversation's sessions are stored at their real dates in a fresh data file and
consolidated by one sleep run. LoCoMo lists gold observations per session, each with the
turns (`dia_id`) it rests on. LoCoMo's ids ("D2:18") repeat in every conversation, so
evidence is keyed by (conversation, dia_id) and each conversation is scored on its own;
the figures are printed per conversation, then their mean (and the pooled count):

* evidence recall: share of gold observations whose evidence turn some extracted fact
  of the same conversation cites;
* evidence precision: share of extracted facts citing a turn some gold observation of
  the same conversation cites;
* facts per session, turns each cites (a fact citing a whole session would cover every
  observation in it, so recall is read beside it), malformed (and repaired) answers,
  model calls and tokens per session, wall time; and what each step did (counts).

Facts are every fact the run proposed (pending or active). `--real` starts the real small
models in-process instead of using `--host`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.clock import ManualClock
from assistant.engine import Hippo
from assistant.errors import OllamaError
from assistant.llm.gateway import OllamaGateway
from assistant.memory.sleep_candidates import CandidateStore
from assistant.sleep import SleepReport, SleepSettings
from bench.locomo_data import DEFAULT_DATA, Conversation, load, write_sessions
from tests.real_ollama.models import ModelRefused
from tests.real_ollama.options import add_model_options, serve_real

STAGES = (
    "sessions_summarised", "episodes", "summarise_failed", "sessions_extracted", "candidates",
    "candidates_rejected", "extract_failed", "candidates_added", "candidates_reinforced",
    "candidates_ignored", "update_failed", "reflections", "reflect_failed", "sessions_given_up",
    "clean_answers", "repaired_answers", "malformed_answers", "dropped_items",
    "episodes_unsupported", "sessions_partly_summarised", "review_items_deferred",
)  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", help="Ollama host, e.g. http://127.0.0.1:11434")
    parser.add_argument("--model", default="smollm2:135m", help="the model sleep asks")
    parser.add_argument("--embedding", default="multilingual-e5-small", help="embedding model")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON")
    parser.add_argument("--conversations", type=int, default=0, help="first N (0: all)")
    parser.add_argument("--sessions", type=int, default=0, help="first N of each (0: all)")
    parser.add_argument("--real", action="store_true", help="start the real small models here")
    add_model_options(parser)  # with --real: --gguf PATH [--name NAME] [--chat-template FILE]
    parser.add_argument(
        "--quote", action="store_true", help="quote every fact and episode kept, per conversation"
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0,
        help="seconds to wait for an answer (a tiny model on a busy CPU is slow)",
    )  # fmt: skip
    return parser


def _consolidate(conv: Conversation, args: argparse.Namespace, folder: Path) -> dict:
    sessions = conv.sessions[: args.sessions or None]
    clock = ManualClock(sessions[-1].turns[-1].at + timedelta(days=1))
    engine = Hippo(
        folder / f"{conv.name}.db",
        OllamaGateway(args.host, load_timeout=args.timeout, stall_timeout=args.timeout),
        chat_model=args.model,
        embedding_model=args.embedding,
        clock=clock,
    )
    try:
        ids = write_sessions(engine, sessions)
        started = time.perf_counter()
        report = engine.consolidate(tz=UTC, settings=SleepSettings(max_llm_calls=100_000))
        seconds = time.perf_counter() - started
        dia = {message_id: dia_id for dia_id, message_id in ids.items()}
        pid = engine.memory.profile.id
        facts = [
            f for f in engine.memory.facts.list(pid, limit=10_000) if f.source_kind != "reflection"
        ]
        cited = [
            {
                (conv.name, dia[e.ref_id])
                for e in f.evidence
                if e.kind == "message" and e.ref_id in dia
            }
            for f in facts
        ]
        kept = {
            "facts": [f"{f.status:<8} {f.statement!r}" for f in facts],
            "episodes": [
                f"{e.title!r}: {e.summary!r}"
                for e in engine.memory.episodes.recent(pid, limit=1000)
            ],
            "rejected": Counter(
                reason.split(":")[0]
                for reason, _ in CandidateStore(lambda: engine.memory.db.conn, clock).rejections(
                    pid
                )
            ),
        }
    finally:
        engine.close()
    gold = [{(conv.name, e) for e in o.evidence} for s in sessions for o in s.observations]
    return {
        "name": conv.name,
        "sessions": len(sessions),
        "gold": gold,
        "cited": cited,
        "kept": kept,
        "report": report,
        "seconds": seconds,
    }


Evidence = set[tuple[str, str]]  # (conversation, dia_id)


def _score(gold: list[Evidence], cited: list[Evidence]) -> dict[str, float]:
    """One conversation's figures (its facts against its own gold observations)."""
    all_cited = set().union(*cited) if cited else set()
    all_gold = set().union(*gold) if gold else set()
    found = sum(1 for g in gold if g & all_cited)
    right = sum(1 for c in cited if c & all_gold)
    return {
        "recall": found / max(len(gold), 1),
        "precision": right / max(len(cited), 1),
        "found": found,
        "right": right,
        "facts": len(cited),
        "gold": len(gold),
        "cites": sum(len(c) for c in cited) / max(len(cited), 1),
        "widest": max((len(c) for c in cited), default=0),
    }


def _scores(runs: list[dict]) -> dict[str, Any]:
    """Per-conversation figures, their mean, and the counts pooled over conversations.

    Each run is scored alone: a turn id of one conversation never matches another's gold.
    """
    per = {run["name"]: _score(run["gold"], run["cited"]) for run in runs}
    cited = [c for run in runs for c in run["cited"]]
    n = max(len(per), 1)
    return {
        "per": per,
        "recall": sum(s["recall"] for s in per.values()) / n,
        "precision": sum(s["precision"] for s in per.values()) / n,
        "found": sum(s["found"] for s in per.values()),
        "right": sum(s["right"] for s in per.values()),
        "facts": len(cited),
        "gold": sum(s["gold"] for s in per.values()),
        "cites": sum(len(c) for c in cited) / max(len(cited), 1),
        "widest": max((len(c) for c in cited), default=0),
    }


def _print(runs: list[dict], args: argparse.Namespace) -> None:
    sessions = sum(run["sessions"] for run in runs)
    reports: list[SleepReport] = [run["report"] for run in runs]
    counts: Counter[str] = Counter()
    for report in reports:
        counts.update(report.counts)
    calls = sum(r.llm_calls for r in reports)
    tokens = sum(r.prompt_tokens + r.completion_tokens for r in reports)
    s = _scores(runs)
    print(f"Sleep quality: {args.model} on {len(runs)} LoCoMo conversations, {sessions} sessions")
    for name, one in s["per"].items():
        print(
            f"  {name:<12} recall {one['recall']:6.1%} ({one['found']:.0f} of {one['gold']:.0f})"
            f"  precision {one['precision']:6.1%} ({one['right']:.0f} of {one['facts']:.0f})"
        )
    print(
        f"  evidence recall     {s['recall']:6.1%}  mean of conversations"
        f" ({s['found']} of {s['gold']} gold observations)"
    )
    print(
        f"  evidence precision  {s['precision']:6.1%}  mean of conversations"
        f" ({s['right']} of {s['facts']} facts)"
    )
    print(f"  facts per session   {s['facts'] / max(sessions, 1):6.2f}")
    # A fact citing a whole session would score every observation in it: say how wide.
    print(f"  turns cited a fact  {s['cites']:6.1f}  (at most {s['widest']:.0f})")
    print(f"  model calls/session {calls / max(sessions, 1):6.2f}")
    print(f"  tokens per session  {tokens / max(sessions, 1):8.0f}")
    print(f"  malformed answers   {counts['malformed_answers']:6d} of {calls} calls")
    print(f"  wall time           {sum(run['seconds'] for run in runs):8.1f} s")
    print("  run status          " + ", ".join(r.status for r in reports))
    print("What each step did:")
    for key in STAGES:
        print(f"  {key:<26} {counts.get(key, 0)}")
    for run in runs:
        rejected = ", ".join(f"{n} {why}" for why, n in run["kept"]["rejected"].most_common())
        print(f"{run['name']}: facts rejected by reason: {rejected or 'none'}")
        if args.quote:
            for kind in ("facts", "episodes"):
                print(f"  {kind} kept ({len(run['kept'][kind])}):")
                print("\n".join(f"    {line}" for line in run["kept"][kind]) or "    none")


def main(argv: list[str] | None = None) -> int:
    """Run the bench; print figures."""
    args = _parser().parse_args(argv)
    server = None
    if args.real:
        try:
            server = serve_real(args, max_tokens=256)
        except ModelRefused as exc:
            print(f"sleep_quality: {exc}", file=sys.stderr)
            return 1
    if not args.host:
        print("sleep_quality: give --host URL (an Ollama) or --real", file=sys.stderr)
        return 2
    try:
        OllamaGateway(args.host).probe()
        conversations = load(args.data)[: args.conversations or None]
        with tempfile.TemporaryDirectory(prefix="hippo-sleep-quality-") as folder:
            runs = []
            for conv in conversations:
                runs.append(_consolidate(conv, args, Path(folder)))
                print(f"{conv.name}: {runs[-1]['report'].summary()}", flush=True)
                one = _score(runs[-1]["gold"], runs[-1]["cited"])
                print(
                    f"{conv.name}: recall {one['recall']:.1%} ({one['found']} of {one['gold']}),"
                    f" precision {one['precision']:.1%} ({one['right']} of {one['facts']})",
                    flush=True,
                )
        _print(runs, args)
    except OllamaError as exc:
        print(f"sleep_quality: {exc}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
