"""LoCoMo questions answered through Hippo's own turn, scored as the LoCoMo paper and peers do.

    python -m tests.real_ollama --port 11500 &      # or any Ollama, e.g. with llama3.1:8b
    python bench/locomo_qa.py --host http://127.0.0.1:11500 --model smollm2:135m \\
        --embedding multilingual-e5-small --sample 30 [--judge NAME]

Each conversation is stored (both speakers' turns, at their real dates) in a fresh data
file and embedded. Each sampled question is then answered three ways by the chat model:

* hippo: the context Hippo builds for the question (`Hippo.context_for`: core memory,
  facts, episodes, recalled messages...), then the question;
* full: the whole conversation in the prompt (its latest turns, as many as the model's
  window holds), then the question;
* none: the question alone (no memory).

Scores: token F1 against the gold answer (the LoCoMo paper's metric, on normalised
tokens) and, with `--judge NAME`, an LLM judge's accuracy (the "J" peers publish: Zep
75.1, Letta 74.0, Mem0 66.9, full context 72.9, all with gpt-4o-mini). Adversarial
questions (category 5, no gold answer) are left out, as peers leave them out.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import string
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.clock import ManualClock
from assistant.engine import Hippo
from assistant.errors import OllamaError
from assistant.llm.gateway import OllamaGateway
from assistant.memory.records import Message
from assistant.tokens import estimate_tokens
from bench.locomo_data import DEFAULT_DATA, Conversation, load, write_sessions
from tests.real_ollama.models import ModelRefused
from tests.real_ollama.options import add_model_options, serve_real

MODES = ("hippo", "full", "none")
ASK = "{question} Answer in a short phrase."
JUDGE = (
    "Your task is to label an answer to a question as CORRECT or WRONG. You are given a "
    "question, a gold (ground truth) answer, and a generated answer. Be generous: if the "
    "generated answer touches on the same topic as the gold answer, or gives the same date "
    "in another format, it is CORRECT.\n\nQuestion: {question}\nGold answer: {gold}\n"
    "Generated answer: {answer}\n\nAnswer with the label."
)
LABEL = {
    "type": "object",
    "properties": {"label": {"type": "string", "enum": ["CORRECT", "WRONG"]}},
    "required": ["label"],
}
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")


def normalise(text: str) -> list[str]:
    """Lower case, no punctuation or articles: the tokens F1 compares."""
    text = "".join(ch for ch in str(text).lower() if ch not in string.punctuation)
    return _ARTICLES.sub(" ", text).split()


def token_f1(answer: str, gold: str) -> float:
    """Token-level F1 of an answer against the gold answer."""
    said, wanted = normalise(answer), normalise(gold)
    common = sum((Counter(said) & Counter(wanted)).values())
    if not said or not wanted or not common:
        return float(said == wanted)
    precision, recall = common / len(said), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", help="Ollama host, e.g. http://127.0.0.1:11434")
    parser.add_argument("--model", default="smollm2:135m", help="the chat model that answers")
    parser.add_argument("--embedding", default="multilingual-e5-small", help="embedding model")
    parser.add_argument("--judge", default="", help="a model that judges answers (J score)")
    parser.add_argument("--sample", type=int, default=0, help="questions in all (0: every one)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON")
    parser.add_argument("--max-answer", type=int, default=64, help="answer cap, in tokens")
    parser.add_argument("--real", action="store_true", help="start the real small models here")
    add_model_options(parser)  # with --real: --gguf PATH [--name NAME] [--chat-template FILE]
    parser.add_argument(
        "--timeout", type=float, default=900.0,
        help="seconds to wait for an answer (a tiny model on a busy CPU is slow)",
    )  # fmt: skip
    return parser


def _questions(conversations: list[Conversation], sample: int) -> list[list[dict]]:
    kept = [[q for q in c.questions if q.get("category") != 5 and "answer" in q] for c in
            conversations]  # fmt: skip
    if not sample:
        return kept
    share = math.ceil(sample / max(len(conversations), 1))
    rng = random.Random(0)
    return [rng.sample(qs, min(share, len(qs))) for qs in kept]


class Answerer:
    """Answers one conversation's questions in each mode over one data file."""

    def __init__(self, conv: Conversation, args: argparse.Namespace, folder: Path) -> None:
        self.conv = conv
        self.args = args
        self.llm = OllamaGateway(args.host, load_timeout=args.timeout, stall_timeout=args.timeout)
        last = conv.turns[-1].at
        self.engine = Hippo(
            folder / f"{conv.name}.db",
            self.llm,
            chat_model=args.model,
            embedding_model=args.embedding,
            clock=ManualClock(last + timedelta(days=1)),
        )
        write_sessions(self.engine, conv.sessions)
        self.engine.background.embed_pending(batch_size=64)
        self.session = self.engine.conversations.new_session()
        self.window = self.engine.host.context_window(args.model)

    def close(self) -> None:
        """Close the data file."""
        self.engine.close()

    def answer(self, mode: str, question: str) -> str:
        """The chat model's answer to ``question`` with the memory of ``mode``."""
        ask = {"role": "user", "content": ASK.format(question=question)}
        if mode == "hippo":
            now = self.engine.clock.now()
            user = Message(0, self.session.id, "user", question, now)
            messages = [*self.engine.context_for(self.session, user).messages, ask]
        elif mode == "full":
            messages = [{"role": "system", "content": self._transcript()}, ask]
        else:
            messages = [ask]
        result = self.llm.chat_once(
            self.args.model,
            messages,
            options={"num_ctx": self.window, "num_predict": self.args.max_answer},
        )
        return result.content.strip()

    def _transcript(self) -> str:
        """The conversation's latest turns, as many as leave room for the answer."""
        room, lines = self.window - 300 - self.args.max_answer, []
        for turn in reversed(self.conv.turns):
            line = f"[{turn.at:%d %B %Y}] {turn.speaker}: {turn.text}"
            room -= estimate_tokens(line) + 2
            if room < 0:
                break
            lines.append(line)
        return "A conversation between two people:\n" + "\n".join(reversed(lines))


def _judged(llm: OllamaGateway, judge: str, question: str, gold: str, answer: str) -> bool:
    prompt = JUDGE.format(question=question, gold=gold, answer=answer)
    result = llm.chat_once(judge, [{"role": "user", "content": prompt}], format=LABEL)
    try:
        return json.loads(result.content).get("label") == "CORRECT"
    except (json.JSONDecodeError, AttributeError):
        return False


def _run(args: argparse.Namespace) -> dict[str, Any]:
    conversations = load(args.data)
    picked = _questions(conversations, args.sample)
    f1: dict[str, list[float]] = defaultdict(list)
    judged: dict[str, list[bool]] = defaultdict(list)
    seconds: dict[str, float] = defaultdict(float)
    with tempfile.TemporaryDirectory(prefix="hippo-locomo-qa-") as folder:
        for conv, questions in zip(conversations, picked, strict=True):
            if not questions:
                continue
            answerer = Answerer(conv, args, Path(folder))
            try:
                for q in questions:
                    gold = str(q["answer"])
                    for mode in MODES:
                        started = time.perf_counter()
                        said = answerer.answer(mode, q["question"])
                        seconds[mode] += time.perf_counter() - started
                        f1[mode].append(token_f1(said, gold))
                        if args.judge:
                            judged[mode].append(
                                _judged(answerer.llm, args.judge, q["question"], gold, said)
                            )
            finally:
                answerer.close()
            print(f"{conv.name}: {len(questions)} questions", flush=True)
    return {"f1": f1, "judged": judged, "seconds": seconds}


def _print(results: dict[str, Any], args: argparse.Namespace) -> None:
    f1, judged, seconds = results["f1"], results["judged"], results["seconds"]
    n = len(f1["hippo"])
    print(f"LoCoMo QA: {args.model}, {n} questions ({datetime.now(UTC):%Y-%m-%d})")
    print(f"  {'memory':<8} {'F1':>6} {'J':>6} {'s/answer':>9}")
    for mode in MODES:
        j = f"{sum(judged[mode]) / len(judged[mode]):6.1%}" if judged[mode] else "     -"
        mean_f1 = sum(f1[mode]) / max(len(f1[mode]), 1)
        print(f"  {mode:<8} {mean_f1:6.1%} {j} {seconds[mode] / max(n, 1):9.1f}")


def main(argv: list[str] | None = None) -> int:
    """Run the bench; print figures."""
    args = _parser().parse_args(argv)
    server = None
    if args.real:
        try:
            server = serve_real(args, max_tokens=args.max_answer)
        except ModelRefused as exc:
            print(f"locomo_qa: {exc}", file=sys.stderr)
            return 1
    if not args.host:
        print("locomo_qa: give --host URL (an Ollama) or --real", file=sys.stderr)
        return 2
    try:
        OllamaGateway(args.host).probe()
        _print(_run(args), args)
    except OllamaError as exc:
        print(f"locomo_qa: {exc}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
