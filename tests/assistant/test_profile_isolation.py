"""No query ever returns another profile's memories: a property over random profile layouts.

Hypothesis draws how many profiles there are and which memories each one holds
(messages, facts, episodes, document chunks, events), all worded from one shared
vocabulary, so that every search word hits several profiles' rows. For every profile
and word, each path retrieval takes must give exactly that profile's own items:

* keyword: each tier's BM25 candidates are exactly its own rows that contain the word;
* vector: sqlite-vec's nearest neighbours, exact or through the cells of a large table
  (here every table is given cells, few enough that all of them are probed), are
  exactly its own embedded rows;
* loading: of every id in the file, a tier loads exactly its own;
* entities: a name's linked facts are exactly its own facts that name it;
* and what a whole recall, a message search or a chat turn's context puts in front
  of the model is all its own.

Each of these fails when any one profile clause in the stores or the vector search is
dropped, although the layers above would hide most single leaks from recall alone.
"""

from __future__ import annotations

import itertools
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from assistant.clock import ManualClock
from assistant.engine import Hippo
from assistant.llm.gateway import OllamaGateway
from assistant.memory.entities import extract_entities
from assistant.memory.facts import Evidence
from assistant.memory.retrieval import Query
from assistant.memory.vector_cells import CellSizes
from tests.conftest import CHAT_MODEL, EMBEDDING_MODEL

KINDS = ("message", "fact", "episode", "chunk", "event")
WORDS = ("lisbon", "garden", "piano", "sourdough", "北京", "花园", "Atlas", "Priya")
NAMES = ("Atlas", "Priya")  # capitalised mid-sentence: linked as entities


@dataclass
class Layout:
    """Which profile owns which item, and which items contain which word."""

    engines: list[Hippo]
    owner: dict[tuple[str, int], int] = field(default_factory=dict)
    containing: dict[tuple[str, str], set[int]] = field(default_factory=lambda: defaultdict(set))

    def own(self, kind: str, item_id: int, pid: int, words: tuple[str, ...]) -> None:
        self.owner[(kind, item_id)] = pid
        for word in words:
            self.containing[(kind, word)].add(item_id)

    def mine(self, kind: str, pid: int, ids: set[int] | None = None) -> set[int]:
        """The ids of ``kind`` that ``pid`` owns (among ``ids``, when given)."""
        every = {i for (k, i), p in self.owner.items() if k == kind and p == pid}
        return every if ids is None else every & ids


def _store(layout: Layout, hippo: Hippo, n: int, kind: str, words: tuple[str, ...]) -> None:
    pid = hippo.memory.profile.id
    text = f"I wrote note {n} about {' and '.join(words)}"
    if kind in ("message", "fact"):
        message = hippo.memory.messages.add_message(
            hippo.conversations.new_session().id, "user", text
        )
        layout.own("message", message.id, pid, words)
        if kind == "fact":
            fact = hippo.memory.facts.add(
                pid,
                text,
                evidence=[Evidence("message", message.id)],
                source_kind="user_stated",
                actor="user",
            )
            hippo.memory.entities.link(pid, "fact", fact.id, extract_entities(text))
            layout.own("fact", fact.id, pid, words)
    elif kind == "episode":
        now = hippo.clock.now()
        episode = hippo.memory.episodes.add(pid, summary=text, started_at=now, ended_at=now)
        layout.own("episode", episode.id, pid, words)
    elif kind == "chunk":
        (chunk_id,) = hippo.memory.archive.insert_note(pid, text)
        layout.own("chunk", chunk_id, pid, words)
    else:
        layout.own("event", hippo.intake.log_event(text).id, pid, words)


items = st.tuples(
    st.integers(0, 3),
    st.sampled_from(KINDS),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True).map(tuple),
)


# Each example builds a data file, so shrinking a failure would take minutes: a failing
# layout is reported as drawn, and the assertion names the tier and the path that leaked.
# Fifteen files take ~60 s of wall time on a loaded 2-core machine (58 s before encryption,
# which adds ~20% CPU here): the limit is for hangs, not speed (bench/ measures that).
@pytest.mark.heavy
@pytest.mark.timeout(180)
@settings(
    max_examples=15,
    deadline=None,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(profiles=st.integers(2, 4), layout=st.lists(items, min_size=2, max_size=20))
def test_every_retrieval_path_stays_inside_its_profile(fake_ollama, profiles, layout):
    with tempfile.TemporaryDirectory() as folder:
        # In process: the property is about profiles, not the network (tests/llm is).
        llm = OllamaGateway(fake_ollama.host, transport=fake_ollama.transport())
        clock = ManualClock()
        first = Hippo(
            Path(folder) / "hippo.db",
            llm,
            chat_model=CHAT_MODEL,
            embedding_model=EMBEDDING_MODEL,
            clock=clock,
        )
        engines = [first] + [
            Hippo(
                first.memory.db,
                llm,
                chat_model=CHAT_MODEL,
                embedding_model=EMBEDDING_MODEL,
                profile=f"p{i}",
                clock=clock,
            )
            for i in range(1, profiles)
        ]
        world = Layout(engines)
        for n, (who, kind, words) in enumerate(layout):
            _store(world, engines[who % profiles], n, kind, words)
        first.background.embed_pending()
        # Cells for every table (large ones get them in the background), so that the
        # approximate path is searched too; two cells, so that it finds every vector.
        first.memory.vectors.cells = CellSizes(cells=2, min_rows=1)
        first.memory.vectors.build_cells(
            first.memory.vectors.model(first.memory.embedder.vector_key)
        )
        try:
            for hippo in engines:
                _check_profile(world, hippo)
        finally:
            first.close()


def _check_profile(world: Layout, hippo: Hippo) -> None:
    pid = hippo.memory.profile.id
    model = hippo.memory.vectors.model(hippo.memory.embedder.vector_key)
    tiers = hippo.memory.retriever.tiers
    vectors = hippo.host.gateway.embed(hippo.live_settings.embedding_model, list(WORDS))
    for word, vector in zip(WORDS, vectors, strict=True):
        query = Query(word, pid, hippo.clock.now())
        for kind in KINDS:
            found = {i for i, _ in tiers[kind].keyword(query, 1000)}
            assert found == world.mine(kind, pid, world.containing[(kind, word)]), (kind, word)
            for exact in (True, False):  # False: through the cells
                near = hippo.memory.vectors.nearest(model, kind, pid, vector, 1000, exact=exact)
                assert {i for i, _ in near} == world.mine(kind, pid), (kind, "vector", exact)
            every = [i for (k, i) in world.owner if k == kind]
            assert set(tiers[kind].load(every, query)) == world.mine(kind, pid), (kind, "load")
        for memory in hippo.memory.recall(word, limit=50, query_vector=vector):
            assert world.owner[memory.key] == pid, (word, memory)
    for hit in hippo.memory.search_messages(" ".join(WORDS), limit=50):
        assert world.owner[("message", hit.message.id)] == pid, hit
    _check_entities(world, hippo)
    _check_context(world, hippo)


def _check_entities(world: Layout, hippo: Hippo) -> None:
    """Names resolve to the profile's own entities, and links lead to its own facts only."""
    pid = hippo.memory.profile.id
    facts = [i for (k, i) in world.owner if k == "fact"]
    every_entity = {e.id for i in facts for e in hippo.memory.entities.entities_of("fact", i)}
    linked = hippo.memory.entities.linked_items(pid, sorted(every_entity), limit=1000)
    assert {i for _, i in linked} == {i for i in world.mine("fact", pid) if _names(world, i)}
    for name in NAMES:
        named = world.mine("fact", pid, world.containing[("fact", name)])
        found = hippo.memory.entities.entities_in(pid, f"what about {name}?")
        assert [e.profile_id for e in found] == ([pid] if named else []), name
        linked = {i for _, i in hippo.memory.entities.items_for_query(pid, f"what about {name}?")}
        assert linked == named, name


def _names(world: Layout, fact_id: int) -> bool:
    """Whether a fact names any entity."""
    return any(fact_id in world.containing[("fact", name)] for name in NAMES)


def _check_context(world: Layout, hippo: Hippo) -> None:
    """Everything a chat turn's prompt is built from belongs to the profile."""
    pid = hippo.memory.profile.id
    session = hippo.conversations.new_session()
    question = " ".join(WORDS)
    user = hippo.memory.messages.add_message(session.id, "user", question)
    world.own("message", user.id, pid, ())
    context = hippo.context_for(session, user)
    for section, memory in context.used:
        assert world.owner[memory.key] == pid, (section, memory)
    now = hippo.clock.now()
    listed = itertools.chain(
        hippo.memory.facts.active_facts(pid, limit=1000),
        hippo.memory.episodes.recent(pid, limit=1000),
        hippo.memory.events.recent(pid, now, limit=1000),
    )
    assert {row.profile_id for row in listed} <= {pid}
