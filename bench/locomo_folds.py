"""Leave-one-conversation-out over every dev conversation, for both embedders.

A retrieval rule or constant is kept only if it raises the mean over held-out
conversations under both embedders and costs no conversation more than 2 points; where
the folds tie, the simpler code wins. This runs that protocol:

- every conversation of every ``--data`` file is stored once per embedder (MiniLM and
  e5), and asked its questions under each variant (``--variant NAME:key=value,...``,
  ``[retrieval]`` settings over the configured ones; the configured ones always run,
  first, as "configured");
- each conversation's recall@10 (questions of categories 1-4) is printed per variant and
  embedder, beside plain vector and plain BM25 over the same turns and vectors, with the
  update questions' count (newest evidence in the top 10) where the data marks them;
- each conversation is then held out in turn: the variant with the best mean recall@10
  on the other conversations (both embedders) is chosen, and its figure on the held-out
  conversation is that fold's. The mean over held-out folds is printed per data set and
  embedder: with one variant it is the mean of the conversations' figures.

A variant that only changes code is measured by running this once on each side of the
change; ``--json`` keeps the figures for that.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from assistant.settings import RetrievalWeights
from bench.embedders import embedder

__all__ = ["Score", "choose", "measure", "parse_variant", "run"]

FOLD_EMBEDDERS = ("minilm", "e5")
# The rule: a kept change costs no conversation more than this.
MAX_LOSS = 2.0


@dataclass(frozen=True, slots=True)
class Score:
    """One conversation's figures under one retriever: recall@10 and update questions."""

    recall: float
    updates: tuple[int, int] | None = None


def parse_variant(spec: str) -> tuple[str, RetrievalWeights]:
    """``NAME:key=value,...`` -> (NAME, the configured weights with those values)."""
    name, _, body = spec.partition(":")
    types = {f.name: type(getattr(RetrievalWeights(), f.name)) for f in fields(RetrievalWeights)}
    changes: dict[str, Any] = {}
    for pair in filter(None, body.split(",")):
        key, _, value = pair.partition("=")
        if key.strip() not in types:
            raise SystemExit(f"--variant {spec!r}: no retrieval setting {key!r}.")
        changes[key.strip()] = types[key.strip()](value)
    return name or spec, replace(RetrievalWeights(), **changes)


def _score(questions: Sequence[dict], ranking: Any) -> Score:
    from bench.locomo_retrieval import figures, update_check

    overall = figures(questions, ranking)["categories"].get("overall", {})
    check = update_check(questions, ranking)
    updates = None if check is None else (check["in_top10"], check["n"])
    return Score(overall.get("recall@10", 0.0), updates)


def measure(
    data: Path,
    name: str,
    variants: dict[str, RetrievalWeights],
    folder: Path,
    arrange: Callable[[str], AbstractContextManager[object]] = lambda _: nullcontext(),
) -> dict[str, dict[str, Score]]:
    """retriever -> conversation -> Score, for one data file and one embedder.

    ``arrange(variant)`` is entered while that variant's questions are asked (a variant
    of the code, rather than of the settings, patches what it changes there).
    """
    from bench.locomo_retrieval import Ranking, load, open_engine, run_baselines

    llm = embedder(name)
    out: dict[str, dict[str, Score]] = {}
    for conv in load(data):
        asked = [q["question"] for q in conv.questions]
        qvecs = np.asarray(llm.embed(llm.model_name, asked, purpose="query", batch_size=128))
        engine = open_engine(conv, llm, folder)
        for variant, weights in variants.items():
            engine.memory.weights = weights
            ranking = Ranking(variant)
            with arrange(variant):
                for question, qvec in zip(conv.questions, qvecs, strict=True):
                    found = engine.memory.recall(
                        question["question"],
                        kinds=("message",),
                        limit=10,
                        query_vector=qvec.tolist(),
                    )
                    ranking.ranked.append([m.source_id for m in found])
                    ranking.texts.append([m.text for m in found])
            out.setdefault(variant, {})[conv.name] = _score(conv.questions, ranking)
        engine.close()
        for plain in run_baselines(conv, llm, qvecs)[:2]:
            out.setdefault(plain.name, {})[conv.name] = _score(conv.questions, plain)
    return out


# (data set, embedder) -> retriever -> conversation -> Score
Table = dict[tuple[str, str], dict[str, dict[str, Score]]]


def choose(table: Table, variants: Sequence[str], held_out: str) -> str:
    """The variant with the best mean recall@10 over every unit but ``held_out``'s."""

    def mean_without(variant: str) -> float:
        return statistics.fmean(
            score.recall
            for rows in table.values()
            for conv, score in rows[variant].items()
            if conv != held_out
        )

    return max(variants, key=lambda v: (mean_without(v), -variants.index(v)))


def _row(label: str, scores: dict[str, Score], convs: Sequence[str]) -> str:
    cells = []
    for conv in convs:
        s = scores[conv]
        cells.append(f"{s.recall:6.1f}" + (f" {s.updates[0]}/{s.updates[1]}" if s.updates else ""))
    mean = statistics.fmean(scores[c].recall for c in convs)
    return f"  {label:16} " + " ".join(f"{c:>10}" for c in cells) + f" {mean:8.1f}"


def report(table: Table, variants: Sequence[str]) -> list[str]:
    """Per conversation figures, the keep rule against "configured", and the folds."""
    lines: list[str] = []
    for (data, name), rows in table.items():
        convs = list(rows[variants[0]])
        lines.append(f"{data} / {name}: recall@10 (updates)")
        lines.append(f"  {'':16} " + " ".join(f"{c:>10}" for c in convs) + f" {'mean':>8}")
        for label in [*variants, "plain vector", "plain BM25"]:
            lines.append(_row(label, rows[label], convs))
        under = [
            c
            for c in convs
            if any(
                rows[variants[0]][c].recall < rows[p][c].recall
                for p in ("plain vector", "plain BM25")
            )
        ]
        lines.append(f"  configured below a plain ranking on: {', '.join(under) or 'none'}")
    lines.append("")
    base = variants[0]
    for variant in variants[1:]:
        gains, worst = [], 0.0
        for rows in table.values():
            deltas = [rows[variant][c].recall - rows[base][c].recall for c in rows[base]]
            gains.append(statistics.fmean(deltas))
            worst = min(worst, *deltas)
        by_embedder = {
            name: statistics.fmean(g for (_, n), g in zip(table, gains, strict=True) if n == name)
            for name in dict.fromkeys(n for _, n in table)
        }
        keep = all(g > 0 for g in by_embedder.values()) and worst >= -MAX_LOSS
        said = ", ".join(f"{n} {g:+.2f}" for n, g in by_embedder.items())
        lines.append(
            f"{variant} vs {base}: mean {said}; worst conversation {worst:+.1f}"
            f" -> {'keep' if keep else 'do not keep'}"
        )
    all_convs = list(dict.fromkeys(c for rows in table.values() for c in rows[base]))
    picks = {c: choose(table, variants, c) for c in all_convs}
    lines.append("held out: " + ", ".join(f"{c} picks {v}" for c, v in picks.items()))
    for (data, name), rows in table.items():
        held = [rows[picks[c]][c].recall for c in rows[base]]
        lines.append(f"left-out mean {data} / {name}: {statistics.fmean(held):.1f}")
    return lines


def run(data: Sequence[Path], variant_specs: Sequence[str], json_out: Path | None) -> int:
    """Measure, print the folds, and keep the figures in ``json_out`` if given."""
    variants = dict([("configured", RetrievalWeights()), *map(parse_variant, variant_specs)])
    table: Table = {}
    with tempfile.TemporaryDirectory(prefix="hippo-folds-") as tmp:
        for name in FOLD_EMBEDDERS:
            for path in data:
                folder = Path(tmp) / f"{path.stem}-{name}"
                folder.mkdir()
                table[(path.stem, name)] = measure(path, name, variants, folder)
    print("\n".join(report(table, list(variants))))
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        flat = {
            f"{data}/{name}": {
                v: {c: [s.recall, s.updates] for c, s in convs.items()} for v, convs in rows.items()
            }
            for (data, name), rows in table.items()
        }
        json_out.write_text(json.dumps(flat, indent=1))
    return 0
