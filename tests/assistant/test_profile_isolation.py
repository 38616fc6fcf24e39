"""No query ever returns another profile's memories: a randomised test over every tier."""

from __future__ import annotations

import random

import pytest

from assistant.engine import Hippo
from assistant.memory.facts import Evidence

WORDS = "lisbon garden budget piano marathon tulips kyoto salary dentist sourdough".split()


@pytest.mark.parametrize("seed", [1, 2])
def test_recall_and_search_stay_inside_their_profile(engine, fake_ollama, config, tmp_path, seed):
    rng = random.Random(seed)
    engines = [engine] + [
        Hippo(
            engine.db,
            engine.llm,
            chat_model=config.chat_model,
            embedding_model=config.embedding_model,
            profile=name,
            clock=engine.clock,
        )
        for name in ("work", "personal", "health")
    ]
    owner: dict[tuple[str, int], int] = {}
    for step in range(40):
        hippo = rng.choice(engines)
        pid = hippo.profile.id
        words = " ".join(rng.sample(WORDS, 3))
        kind = rng.choice(["message", "fact", "event", "chunk", "episode"])
        session = hippo.new_session()
        message = hippo.messages.add_message(session.id, "user", f"about {words}")
        owner[("message", message.id)] = pid
        if kind == "fact":
            fact = hippo.facts.add(
                pid,
                f"The user likes {words}",
                source_kind="user_stated",
                actor="user",
                evidence=[Evidence("message", message.id)],
            )
            owner[("fact", fact.id)] = pid
        elif kind == "event":
            owner[("event", hippo.log_event(f"did {words}").id)] = pid
        elif kind == "chunk":
            note = tmp_path / f"note-{seed}-{step}.md"
            note.write_text(f"# Note\n\n{words} notes\n")
            for result in hippo.ingest(note).results:
                for chunk in hippo.archive.chunks(result.document_id):
                    owner[("chunk", chunk.id)] = pid
        else:
            episode = hippo.episodes.add(
                pid,
                summary=f"talked about {words}",
                started_at=hippo.clock.now(),
                ended_at=hippo.clock.now(),
            )
            owner[("episode", episode.id)] = pid
    engine.embed_pending()
    for hippo in engines:
        for word in WORDS:
            for memory in hippo.recall(word, limit=20):
                assert owner[memory.key] == hippo.profile.id, (word, memory)
            for hit in hippo.search_messages(word, limit=20):
                assert owner[("message", hit.message.id)] == hippo.profile.id
