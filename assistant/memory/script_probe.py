"""How well the embedding model reads a query's script: a paraphrase probe, asked once.

A model trained on one script maps text in another to one corner of its space:
all-MiniLM-L6-v2 gives any two Chinese sentences a cosine of about 0.5, related or
not, and ranks Chinese text by its surface. Fused with keyword evidence, such a list
displaces good keyword hits (measured on a Chinese conversation: recall@10 76.8% with
MiniLM vectors fused in, 83.9% from keywords alone; on English the same vectors add
about 6 points). Nothing in one query's similarities tells the two cases apart: the
top similarities stand out from the background as far in Chinese as in English, and
their agreement with the keyword list fails on every query where the keywords are the
ones misled (by a name, a date). So Hippo asks the model itself: it embeds a few pairs
of paraphrases that share no word (no character, in Chinese) in each script it has pairs
for, and trusts the model's similarities on a query in that script as far as its
paraphrases stand out from the other sentences. A query in any other script keeps the
model's full weight.

The probe also keeps how far, in cosine, the model puts a paraphrase above unrelated
sentences (its ``gap``), the yardstick for how far a memory stands above a query's
other candidates: models differ in scale as much as in reading. all-MiniLM-L6-v2 spreads
English over the whole range (paraphrases 0.63, unrelated sentences 0.10: a gap of
0.53); multilingual-e5-small packs everything into the top of it (Chinese paraphrases
0.88, unrelated 0.84: a gap of 0.04), so a lead of 0.03 over the crowd is as telling
from it as a lead of 0.4 from MiniLM.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from assistant.clock import to_iso
from assistant.errors import OllamaError
from assistant.llm.names import full_name, short_name
from assistant.memory.base import Store

if TYPE_CHECKING:
    from assistant.llm.prefixes import Purpose

__all__ = [
    "PARAPHRASES",
    "SCRIPT_NAMES",
    "UNKNOWN",
    "Reading",
    "ReadingProbe",
    "ReadingStore",
    "measure",
    "measure_trust",
    "paraphrase_gap",
    "paraphrase_margin",
    "script",
    "trust_from_margin",
]


class Embed(Protocol):
    """Embeds texts with a model for a purpose, as ``ChatBackend.embed`` does."""

    def __call__(
        self, model: str, texts: Sequence[str], *, purpose: Purpose
    ) -> Sequence[Sequence[float]]: ...


# Pairs of sentences that mean much the same with no word in common.
PARAPHRASES: dict[str, tuple[tuple[str, str], ...]] = {
    "latin": (
        ("I adopted a puppy last week", "We got a new dog a few days ago"),
        ("My sister works as a nurse", "She cares for patients at the hospital"),
        ("The train into town was delayed", "My rail commute ran late"),
        ("He gave up coffee", "He no longer drinks espresso"),
        ("We are getting married in spring", "Our wedding is planned for April"),
        ("I moved to a new apartment", "We relocated to another flat"),
    ),
    "han": (
        ("我上周领养了一只小狗", "前几天家中新添宠物犬"),
        ("我姐姐是护士", "她在医院照顾病人"),
        ("去市区的火车晚点了", "我乘坐高铁延误"),
        ("他把咖啡戒了", "拿铁已经不喝"),
        ("我们春天结婚", "喜宴定在四月份"),
        ("我搬进了新公寓", "换到另一套住房"),
    ),
}
# What each probed script is called, for people.
SCRIPT_NAMES = {"latin": "English (Latin script)", "han": "Chinese"}
_SCRIPTS = {
    "latin": re.compile(r"[A-Za-z\u00c0-\u024f]"),
    "han": re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"),
}
# Paraphrases standing out by less than NONE of the room above the other sentences'
# similarity: no trust; by FULL or more: full trust; in between, in proportion.
NONE, FULL = 0.1, 0.3


def script(text: str) -> str | None:
    """The probed script most of ``text``'s letters are in (None: no probed script)."""
    counts = {name: len(pattern.findall(text)) for name, pattern in _SCRIPTS.items()}
    best = max(counts, key=lambda name: counts[name])
    return best if counts[best] else None


def _squares(vector: Sequence[float]) -> float:
    total: float = sum(map(operator.mul, vector, vector))
    return total


def _cosine(a: Sequence[float], b: Sequence[float], a2: float, b2: float) -> float:
    """The cosine of ``a`` and ``b``, given their squared lengths (each is used n times)."""
    if len(a) != len(b):
        raise ValueError(f"vectors of {len(a)} and {len(b)} numbers can't be compared")
    norms = (a2 * b2) ** 0.5
    dot: float = sum(map(operator.mul, a, b))
    return dot / norms if norms else 0.0


@dataclass(frozen=True, slots=True)
class Reading:
    """What the probe learnt of a model on a script.

    ``trust`` is the share of the vector weight its similarities earn; ``gap`` how far,
    in cosine, its paraphrases score above unrelated sentences (None: not measured).
    """

    trust: float
    gap: float | None = None


# A query in a script the probe has no paraphrases for, or a model that can't be asked.
UNKNOWN = Reading(1.0)


def _paraphrase_stats(
    first: Sequence[Sequence[float]], second: Sequence[Sequence[float]]
) -> tuple[float, float]:
    """The mean lead of each sentence's paraphrase over the others', and the others' mean."""
    n = len(first)
    first2, second2 = [_squares(v) for v in first], [_squares(v) for v in second]
    gaps, others = [], []
    for i in range(n):
        a, a2 = first[i], first2[i]
        other = [_cosine(a, second[j], a2, second2[j]) for j in range(n) if j != i]
        mean_other = sum(other) / len(other)
        gaps.append(_cosine(a, second[i], a2, second2[i]) - mean_other)
        others.append(mean_other)
    return sum(gaps) / n, sum(others) / n


def paraphrase_gap(first: Sequence[Sequence[float]], second: Sequence[Sequence[float]]) -> float:
    """How far, in cosine, each sentence is closer to its paraphrase than to the others."""
    return _paraphrase_stats(first, second)[0]


def paraphrase_margin(first: Sequence[Sequence[float]], second: Sequence[Sequence[float]]) -> float:
    """How far each sentence is closer to its paraphrase than to the others' (0: not at all).

    The mean gap between a paraphrase's similarity and the other sentences', as a
    share of the room above the latter (1 - their mean similarity).
    """
    return _margin(*_paraphrase_stats(first, second))


def _margin(gap: float, other: float) -> float:
    room = 1.0 - other
    return gap / room if room > 0 else 0.0


def trust_from_margin(margin: float) -> float:
    """The weight, in [0, 1], that a model's similarities earn with this paraphrase margin."""
    return min(max((margin - NONE) / (FULL - NONE), 0.0), 1.0)


def measure(embed: Embed, model: str, script: str) -> Reading:
    """Embed ``script``'s paraphrases with ``model`` and say how far it reads them.

    Raises:
        OllamaError: the model can't be asked.
    """
    pairs = PARAPHRASES[script]
    # As retrieval compares them: the first of each pair asks, the second is stored.
    asked = embed(model, [first for first, _ in pairs], purpose="query")
    stored = embed(model, [second for _, second in pairs], purpose="document")
    gap, other = _paraphrase_stats(asked, stored)
    return Reading(trust_from_margin(_margin(gap, other)), gap)


def measure_trust(embed: Embed, model: str, script: str) -> float:
    """How far ``model``'s similarities can be trusted on ``script`` (see `measure`)."""
    return measure(embed, model, script).trust


class Remembered(Protocol):
    """Where the probe's answers are kept between runs."""

    def reading(self, model: str, script: str) -> Reading | None: ...

    def keep(self, model: str, script: str, reading: Reading) -> None: ...

    def forget(self, model: str) -> None: ...


class ReadingStore(Store):
    """The probe's answers in the data file (``model_reading``), so it runs once per model.

    Built with ``(conn, clock)``: see `Store`.
    """

    def reading(self, model: str, script: str) -> Reading | None:
        """What was measured of ``model`` on ``script``, if it ever was.

        A reading from before gaps were kept has none (``gap`` is None).
        """
        row = (
            self._conn()
            .execute(
                "SELECT trust, gap FROM model_reading WHERE model = ? AND script = ?",
                (model, script),
            )
            .fetchone()
        )
        return Reading(*row) if row else None

    def keep(self, model: str, script: str, reading: Reading) -> None:
        """Record what the probe measured (where the file takes writes: it is a cache, and
        a file open for reading only, damaged or on a full disk, is still searched)."""
        conn = self._conn()
        if getattr(conn, "refusal", None):
            return
        conn.execute(
            "INSERT OR REPLACE INTO model_reading(model, script, trust, gap, measured_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (model, script, reading.trust, reading.gap, to_iso(self._clock.now())),
        )

    def forget(self, model: str) -> None:
        """Drop what was measured of ``model``, under either spelling.

        The probe keeps a model under the name it was asked with, "name" or "name:latest".
        """
        self._conn().execute(
            "DELETE FROM model_reading WHERE model IN (?, ?)", (full_name(model), short_name(model))
        )


class ReadingProbe:
    """Asks an embedding model, once per script, how well it reads that script.

    Args:
        embed: embeds texts with a model, as ``ChatBackend.embed`` does.
        remembered: where answers are kept between runs (None: for this run only).
        on_measured: told (model, script, trust) each time the probe runs, e.g. to
            tell the user once that their model does not read their language.
    """

    def __init__(
        self,
        embed: Embed,
        remembered: Remembered | None = None,
        on_measured: Callable[[str, str, float], None] | None = None,
    ) -> None:
        self._embed = embed
        self._remembered = remembered
        self._on_measured = on_measured
        self._known: dict[tuple[str, str], Reading] = {}

    def forget(self, model: str) -> None:
        """Ask again about ``model`` (its full name): its weights changed, so may its reading."""
        if self._remembered is not None:
            self._remembered.forget(model)
        self._known.clear()  # answers of other models come back from the store as needed

    def trust(self, model: str, text: str) -> float:
        """How far ``model``'s similarities can be trusted on ``text`` (1.0 when unknown)."""
        return self.reading(model, text).trust

    def reading(self, model: str, text: str) -> Reading:
        """What the probe knows of ``model`` on ``text``'s script (`UNKNOWN` when nothing).

        The probe runs on the first query in each script (again for a reading kept
        from before gaps were measured); if the model can't be asked, the answer is
        `UNKNOWN` and the probe runs again next time.
        """
        name = script(text)
        if name is None:
            return UNKNOWN
        key = (model, name)
        # Read once: `forget` may empty the memo from the background thread meanwhile.
        kept = self._known.get(key)
        if kept is None:
            stored = self._remembered.reading(model, name) if self._remembered else None
            if stored is not None and stored.gap is not None:
                kept = stored
            else:
                try:
                    kept = measure(self._embed, model, name)
                except OllamaError:
                    return UNKNOWN
                if self._remembered is not None:
                    self._remembered.keep(model, name, kept)
                if self._on_measured is not None and stored is None:
                    self._on_measured(model, name, kept.trust)
            self._known[key] = kept
        return kept
