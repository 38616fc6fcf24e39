"""The engine's parts work alone, given what they use, and share state between threads safely."""

from __future__ import annotations

import threading
from collections import deque

from assistant.chat import Turn
from assistant.errors import OllamaError
from assistant.llm.gateway import OllamaGateway
from assistant.llm.shown import ShownModels
from assistant.llm.values import ModelInfo
from assistant.memory.embedder import Embedder
from assistant.memory.messages import MessageStore
from assistant.memory.recall import Memory
from assistant.memory.vectors import VectorStore
from assistant.turn_settings import TurnSettings
from assistant.turns import ReplyDone
from data_schema.connect import Database
from tests.conftest import CHAT_MODEL, EMBEDDING_MODEL
from tests.fake_ollama import Reply


class Chores:
    """Records the background work a turn hands on."""

    def __init__(self) -> None:
        self.woken = 0
        self.summaries: list[int] = []

    def wake(self) -> None:
        self.woken += 1

    def summarise_later(self, session_id: int) -> None:
        self.summaries.append(session_id)


def _memory(path, gateway, clock) -> Memory:
    db = Database(path)
    messages = MessageStore(lambda: db.conn, clock)
    vectors = VectorStore(lambda: db.conn, clock)
    embedder = Embedder(
        gateway, EMBEDDING_MODEL, vectors, lambda: _Reads(), clock_now=clock.now, notices=deque()
    )
    profile = messages.profile("default")
    return Memory(db, clock, profile, messages=messages, vectors=vectors, embedder=embedder)


class _Reads:
    """A reading probe that knows nothing: every script is read in full."""

    def reading(self, model, text):
        from assistant.memory.script_probe import UNKNOWN

        return UNKNOWN

    def forget(self, model):
        pass


def test_memory_recalls_what_was_said_without_an_engine(tmp_path, fake_ollama, clock):
    gateway = OllamaGateway(fake_ollama.host)
    memory = _memory(tmp_path / "hippo.db", gateway, clock)
    try:
        session = memory.messages.create_session(memory.profile.id)
        memory.messages.add_message(session.id, "user", "my bike is a green Gazelle")
        (found,) = memory.recall("which bike do I ride", kinds=("message",))
        assert found.text == "my bike is a green Gazelle"
    finally:
        memory.db.close()
        gateway.close()


def test_a_turn_answers_with_the_settings_it_was_given_and_hands_on_its_chores(
    tmp_path, fake_ollama, clock
):
    fake_ollama.add_model("other:1b", capabilities=("completion",))
    fake_ollama.script(Reply(content="Hello!"))
    gateway = OllamaGateway(fake_ollama.host)
    memory = _memory(tmp_path / "hippo.db", gateway, clock)
    chores = Chores()
    try:
        session = memory.messages.create_session(memory.profile.id)
        settings = TurnSettings("other:1b", context_tokens=1024, working_strategy="summary")
        turn = Turn(memory, gateway, settings, shown=ShownModels(gateway), chores=chores)
        events = list(turn.run(session, "hi", threading.Event()))
        assert isinstance(events[-1], ReplyDone)
        (chat,) = [r.body for r in fake_ollama.requests if r.path == "/api/chat"]
        assert chat["model"] == "other:1b" and chat["options"]["num_ctx"] == 1024
        assert chores.woken >= 1 and chores.summaries == [session.id]
    finally:
        memory.db.close()
        gateway.close()


def test_a_settings_change_reaches_the_next_turn_not_the_one_under_way(engine, fake_ollama):
    fake_ollama.add_model("other:1b", capabilities=("completion",))
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="First answer."), Reply(content="Second answer."))
    first = engine.send(session.id, "one")
    next(first)  # the turn has started, with the settings of now
    engine.live_settings.change(chat_model="other:1b")
    list(first)
    list(engine.send(session.id, "two"))
    asked = [r.body["model"] for r in fake_ollama.requests if r.path == "/api/chat"]
    assert asked == [CHAT_MODEL, "other:1b"]


class _Shows:
    """A gateway that answers /api/show, counting the questions; fails when told."""

    def __init__(self) -> None:
        self.asked = 0
        self.down = False

    def show(self, model: str) -> ModelInfo:
        self.asked += 1
        if self.down:
            raise OllamaError("down")
        return ModelInfo(model, capabilities=frozenset({"tools"}), context_length=2048)


def test_shown_models_ask_once_per_model_and_again_after_a_failure_or_a_pull():
    gateway = _Shows()
    shown = ShownModels(gateway)  # type: ignore[arg-type]
    gateway.down = True
    assert shown.capabilities("m") == frozenset() and shown.window("m", 8192) == 8192
    gateway.down = False
    assert shown.window("m", 8192) == 2048 and shown.capabilities("m") == {"tools"}
    asked = gateway.asked
    shown.window("m", 8192)
    assert gateway.asked == asked  # kept
    shown.forget("m")  # a pull
    shown.window("m", 8192)
    assert gateway.asked == asked + 1


def _embedders() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "hippo-embedder" and t.is_alive()}


def test_the_background_worker_starts_once_whichever_threads_ask(engine):
    before = _embedders()
    start = threading.Barrier(4)

    def ask() -> None:
        start.wait()
        engine.background.start_background()

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first = _embedders() - before
    assert len(first) == 1
    engine.background.stop_background()
    engine.background.start_background()  # a stopped worker may start again: a new thread
    assert len(_embedders() - before - first) == 1


def test_a_summary_that_fails_stays_due_and_folds_at_the_next_try(engine, fake_ollama):
    engine.live_settings.change(context_tokens=600)  # working memory gets 300 tokens
    session = engine.conversations.new_session()
    for i in range(8):
        fake_ollama.script(Reply(content=f"Answer {i}: " + "detail " * 30))
        list(engine.send(session.id, f"Question {i} about the garden " + "words " * 20))
    fake_ollama.script(Reply(fail="500"))
    assert engine.background.worker.summaries.update() == 0
    assert engine.memory.messages.summary(session.id)[0] == ""
    fake_ollama.script(Reply(content="The user is planning a garden."))
    assert engine.background.worker.summaries.update() == 1
    assert engine.memory.messages.summary(session.id)[0] == "The user is planning a garden."
