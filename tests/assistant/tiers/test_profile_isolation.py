"""No list or search call of any tier ever returns another profile's rows.

Several profiles get random documents, notes, events and episodes drawn from one
shared vocabulary (fixed seed), so every search word hits rows of every profile.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import timedelta

import pytest

from assistant.clock import ManualClock
from assistant.memory.archival import ArchiveStore
from assistant.memory.episodes import EpisodeStore
from assistant.memory.messages import MessageStore
from assistant.memory.sensory import EventStore
from data_schema.connect import Database

WORDS = ["apple", "river", "budget", "garden", "piano", "北京", "花园", "预算", "钢琴", "河流"]
SEED = 20260301


class World:
    """Random rows for several profiles, and which ids each search word should find."""

    def __init__(self, db: Database, tmp_path, rng: random.Random) -> None:
        self.clock = ManualClock()
        conn = lambda: db.conn  # noqa: E731
        self.messages = MessageStore(conn, self.clock)
        self.archive = ArchiveStore(conn, self.clock)
        self.events = EventStore(conn, self.clock)
        self.episodes = EpisodeStore(conn, self.clock)
        self.profiles = [self.messages.profile(f"p{i}").id for i in range(4)]
        self.want: dict[tuple[str, int, str], set[int]] = defaultdict(set)
        self.sessions: dict[int, list[int]] = defaultdict(list)
        for n in range(120):
            pid = rng.choice(self.profiles)
            words = rng.sample(WORDS, 3)
            text = " ".join(words) + f" item{n}"
            getattr(self, "_" + rng.choice(["note", "file", "event", "episode"]))(
                pid, text, words, n, tmp_path, rng
            )
        self.now = self.clock.advance(hours=24)

    def _note(self, pid, text, words, n, tmp_path, rng) -> None:
        (chunk_id,) = self.archive.insert_note(pid, text)
        self._expect("chunk", pid, words, chunk_id)

    def _file(self, pid, text, words, n, tmp_path, rng) -> None:
        path = tmp_path / f"doc{n}.txt"
        path.write_text(text, encoding="utf-8")
        result = self.archive.ingest_file(pid, path)
        self._expect("chunk", pid, words, self.archive.chunks(result.document_id)[0].id)

    def _event(self, pid, text, words, n, tmp_path, rng) -> None:
        event = self.events.log(pid, text, ttl=timedelta(hours=rng.choice([1, 48])))
        if event.expires_at > self.clock.now() + timedelta(hours=24):
            self._expect("event", pid, words, event.id)

    def _episode(self, pid, text, words, n, tmp_path, rng) -> None:
        session = self.messages.create_session(pid)
        said = self.messages.add_message(session.id, "user", text).id
        start = self.clock.now()
        episode = self.episodes.add(
            pid,
            summary=text,
            started_at=start,
            ended_at=start,
            session_id=session.id,
            message_ids=[said],
            scope=rng.choice(["", "work", "health"]),
        )
        self.sessions[pid].append(session.id)
        self._expect("episode", pid, words, episode.id)

    def _expect(self, kind: str, pid: int, words: list[str], item_id: int) -> None:
        for word in words:
            self.want[(kind, pid, word)].add(item_id)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("isolation")
    db = Database(tmp_path / "hippo.db")
    yield World(db, tmp_path, random.Random(SEED))
    db.close()


@pytest.mark.parametrize("word", WORDS)
def test_keyword_search_finds_exactly_the_profiles_own_rows(world, word):
    for pid in world.profiles:
        chunks = world.archive.keyword_search(pid, word, 100)
        events = world.events.keyword_search(pid, word, 100, now=world.now)
        episodes = world.episodes.keyword_search(pid, word, 100)
        assert {i for i, _ in chunks} == world.want[("chunk", pid, word)]
        assert {i for i, _ in events} == world.want[("event", pid, word)]
        assert {i for i, _ in episodes} == world.want[("episode", pid, word)]


def test_every_list_call_returns_only_the_profiles_rows(world):
    start, end = world.now - timedelta(days=2), world.now
    for pid in world.profiles:
        documents = world.archive.documents(pid)
        assert {d.profile_id for d in documents} <= {pid}
        assert all(c.profile_id == pid for d in documents for c in world.archive.chunks(d.id))
        for listed in (
            world.events.recent(pid, world.now, limit=100),
            world.events.expired(pid, world.now),
            world.episodes.recent(pid, limit=100),
            world.episodes.recent(pid, limit=100, scopes=["work"]),
            world.episodes.between(pid, start, end),
            *(world.episodes.for_session(sid) for sid in world.sessions[pid]),
        ):
            assert {row.profile_id for row in listed} <= {pid}


def test_fetching_by_id_with_a_profile_leaves_out_other_profiles_rows(world):
    all_ids = list(range(1, 200))
    for pid in world.profiles:
        for fetched in (
            world.archive.get_chunks(all_ids, pid),
            world.events.get_many(all_ids, pid),
            world.episodes.get_many(all_ids, pid),
        ):
            assert {row.profile_id for row in fetched.values()} <= {pid}
    assert sum(len(world.events.get_many(all_ids, pid)) for pid in world.profiles) == len(
        world.events.get_many(all_ids)
    )


def test_the_random_world_covers_every_tier_for_every_profile(world):
    for kind in ("chunk", "event", "episode"):
        for pid in world.profiles:
            assert any(world.want[(kind, pid, word)] for word in WORDS), (kind, pid)
