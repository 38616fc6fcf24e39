"""With an embedding model that reads meaning, Hippo ranks no worse than the model alone.

The fake model here maps paraphrases together: each text becomes its concepts (words
of one meaning, in English and Chinese, share one), on top of a large component every
text shares, so that, as with e5, every similarity sits high (unrelated texts 0.86,
paraphrases 1.0). The memories that answer each question share no word with it; the
distractors share its name and other words, about something else. Keyword evidence must
not dilute what the model gets right.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from assistant.clock import ManualClock
from assistant.engine import Hippo
from assistant.errors import OllamaError
from assistant.memory.script_probe import PARAPHRASES

CONCEPTS: dict[str, tuple[str, ...]] = {
    "job": ("position", "employed", "work", "clinic", "上班", "公司", "工作", "入职"),
    "pet": ("kitten", "animals", "pet", "猫", "宠物"),
    "craft": ("pottery", "craft", "花艺", "插花", "手工"),
    "hike": ("hiked", "mountain", "peak", "climb", "爬山", "登山", "山顶"),
    "bike": ("bicycle", "cycling", "骑车", "自行车"),
    "food": ("dinner", "noodles", "cooked", "晚饭", "面条", "做饭"),
}
_SHARED = 2.5  # every text's common component: puts unrelated texts at 0.86
_PROBE = {s: i for pairs in PARAPHRASES.values() for i, pair in enumerate(pairs) for s in pair}
_AXES = [*CONCEPTS, *(f"probe{i}" for i in range(len(next(iter(PARAPHRASES.values())))))]

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
# (what is said, by whom), (question, index of the turn that answers it)
CORPORA = {
    "english": (
        [
            ("Anna", "Anna started a new position at the Berlin clinic"),
            ("Anna", "Anna made a vase in her pottery class, Anna is proud"),
            ("Anna", "Anna adopted a kitten called Miso"),
            ("Tom", "We hiked up the mountain on Sunday"),
            ("Tom", "Tom bought a bicycle for the commute"),
            ("Anna", "Anna cooked noodles for dinner with Tom"),
            ("Tom", "Where Anna goes these days, dinner follows"),
            ("Tom", "Anna does have opinions about dinner"),
            ("Anna", "Anna says she would enjoy dinner out"),
            ("Tom", "Anyone recently up for dinner?"),
            ("Anna", "Tom is into noodles lately"),
        ],
        [
            ("Where is Anna employed these days?", 0),
            ("Does Anna have any animals?", 2),
            ("What craft does Anna enjoy?", 1),
            ("Did anyone climb a peak recently?", 3),
            ("Is Tom into cycling?", 4),
        ],
    ),
    "chinese": (
        [
            ("林悦", "林悦在深圳一家游戏公司做设计"),
            ("林悦", "林悦养了一只叫土豆的猫"),
            ("林悦", "林悦周末去学插花，林悦很开心"),
            ("思远", "周末我们去爬山了"),
            ("思远", "思远买了辆自行车通勤"),
            ("林悦", "林悦晚饭煮了面条给思远"),
            ("思远", "林悦现在在哪里吃晚饭？"),
            ("思远", "林悦有没有空一起做饭"),
            ("林悦", "林悦喜欢什么面条都行"),
            ("思远", "最近有没有好吃的面条"),
            ("思远", "思远平时晚饭吃面条吗"),
        ],
        [
            ("林悦现在在哪里上班？", 0),
            ("林悦有没有宠物？", 1),
            ("林悦喜欢什么手工？", 2),
            ("最近有没有去登山？", 3),
            ("思远平时骑车吗？", 4),
        ],
    ),
}


def _vector(text: str) -> list[float]:
    present = {_AXES.index(f"probe{_PROBE[text]}")} if text in _PROBE else set()
    lowered = text.lower()
    for i, words in enumerate(CONCEPTS.values()):
        if any(word in lowered for word in words):
            present.add(i)
    raw = [_SHARED] + [1.0 if i in present else 0.0 for i in range(len(_AXES))]
    norm = sum(x * x for x in raw) ** 0.5
    return [x / norm for x in raw]


class Paraphrast:
    """An ``llm`` that only embeds, mapping paraphrases together (see the module doc)."""

    def embed(
        self, model: str, texts: Sequence[str], *, purpose: str = "document", batch_size: int = 32
    ) -> list[list[float]]:
        """Vectors of ``texts`` (queries and documents alike)."""
        return [_vector(text) for text in texts]

    def show(self, model: str) -> Any:
        raise OllamaError("only embeds")

    def digests(self) -> dict[str, str]:
        raise OllamaError("only embeds")

    def abort(self) -> None:
        """Nothing is ever in flight."""

    def close(self) -> None:
        """Nothing to close."""


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture
def engine(tmp_path):
    hippo = Hippo(
        tmp_path / "hippo.db",
        Paraphrast(),  # type: ignore[arg-type]
        chat_model="none",
        embedding_model="paraphrast",
        clock=ManualClock(START + timedelta(days=30)),
    )
    yield hippo
    hippo.close()


@pytest.mark.parametrize("language", sorted(CORPORA))
def test_hippo_ranks_each_answer_no_lower_than_the_model_alone(engine, language):
    said, questions = CORPORA[language]
    ids = []
    for day, (speaker, text) in enumerate(said):
        session = engine.memory.messages.create_session(engine.memory.profile.id, started_at=START)
        at = START + timedelta(days=day)
        ids.append(
            engine.memory.messages.add_message(
                session.id, "user", text, speaker=speaker, created_at=at
            ).id
        )
    engine.background.embed_pending()
    for question, answer in questions:
        plain = sorted(
            range(len(said)), key=lambda i: -_cosine(_vector(question), _vector(said[i][1]))
        )
        found = [m.item_id for m in engine.memory.recall(question, kinds=("message",))]
        assert ids[answer] in found, question
        assert found.index(ids[answer]) <= plain.index(answer), question
