"""A full disk: nothing half-saved, advice instead of a traceback, the file intact."""

from __future__ import annotations

import re

import pytest

from assistant.engine import Hippo
from assistant.errors import StorageError
from assistant.turns import ReplyFailed, ReplyStarted, TextDelta
from tests.disk import cap_file, disk_full
from tests.fake_ollama import Reply

LONG = "I keep a diary of the garden: " + "tomatoes, basil and beans. " * 800
FULL = r"is full \(\d+ MB free\), so nothing more can be saved\. Free some space and try again"


def test_a_message_a_full_disk_cannot_take_is_refused_whole_with_advice(engine, fake_ollama):
    session = engine.conversations.new_session()
    list(engine.send(session.id, "hello"))
    asked = len(fake_ollama.requests)
    with disk_full(engine), pytest.raises(StorageError, match=FULL):
        list(engine.send(session.id, LONG))
    # Neither the message nor a reply placeholder was kept, and nothing was sent.
    assert [m.content for m in engine.conversations.history(session.id)] == [
        "hello",
        "You said: hello",
    ]
    assert not [r for r in fake_ollama.requests[asked:] if r.path == "/api/chat"]
    assert engine.memory.db.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    list(engine.send(session.id, LONG))  # space again: it goes through
    assert engine.conversations.history(session.id)[-2].content == LONG


@pytest.fixture
def saving_engine(config, clock):
    """An engine that saves a streaming reply at every chunk."""
    from assistant.llm.gateway import OllamaGateway

    hippo = Hippo(
        config.db_path,
        OllamaGateway(config.ollama.host),
        chat_model=config.models.chat,
        embedding_model=config.models.embedding,
        clock=clock,
        save_every_s=0.0,
    )
    yield hippo
    hippo.close()


def test_a_reply_a_full_disk_cuts_off_fails_with_advice_and_the_message_stays(
    saving_engine, fake_ollama
):
    engine = saving_engine
    fake_ollama.script(Reply(content=LONG, chunk_size=2000))
    session = engine.conversations.new_session()
    events = []
    with disk_full(engine):
        turn = engine.send(session.id, "tell me about my garden")
        for event in turn:
            events.append(event)
            if isinstance(event, ReplyStarted):
                # The message and the reply's placeholder are in; now the disk fills.
                cap_file(engine.memory.db.conn.execute("PRAGMA page_count").fetchone()[0])
    failed = events[-1]
    assert isinstance(failed, ReplyFailed) and re.search(FULL, str(failed.error))
    assert any(isinstance(e, TextDelta) for e in events)
    assert failed.message.content  # what arrived stays on screen
    user, reply = engine.conversations.history(session.id)
    assert (user.content, user.status) == ("tell me about my garden", "complete")
    # The reply's end could not be written; the next start closes it as interrupted.
    assert reply.status == "streaming"
    assert engine.memory.messages.mark_interrupted() == 1
    assert engine.memory.db.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"


def test_background_work_outlives_a_full_disk(engine, fake_ollama):
    session = engine.conversations.new_session()
    for n in range(40):
        engine.memory.messages.add_message(session.id, "user", f"note {n}: {LONG[: 200 + n]}")
    with disk_full(engine):
        engine.background.start_background()
        engine.background.wake()
        assert not engine.background.worker.embedded.wait(1.0)  # nothing can be stored
        assert engine.background.pending_embeddings() == 40
    engine.background.wake()  # space again: the same worker carries on
    assert engine.background.worker.embedded.wait(30)
    engine.background.stop_background()
    assert engine.background.pending_embeddings() == 0
