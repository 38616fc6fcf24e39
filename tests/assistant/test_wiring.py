"""The engine's parts, each built from what it uses, work without an engine behind them."""

from __future__ import annotations

import threading
from collections import deque
from pathlib import Path

import apsw
import pytest

from assistant.admin.wiring import build_admin
from assistant.background import Background
from assistant.chat import Turn
from assistant.errors import HippoError, NotFound
from assistant.live_settings import LiveSettings
from assistant.llm.gateway import OllamaGateway
from assistant.memory.embedding import EmbeddingWorker
from assistant.memory.facts import Evidence
from assistant.memory.scoring import RetrievalWeights
from assistant.regenerate import Redo, edit_last, regenerate
from assistant.settings import MemorySettings, ModelSettings, Settings, SleepSettings
from assistant.sleep_wiring import sleep_deps
from assistant.wiring import Parts, build_worker
from data_schema.connect import Database
from tests.conftest import EMBEDDING_MODEL


def test_conversations_keep_to_the_current_profile(parts: Parts):
    talks, memory = parts.conversations, parts.memory
    session = talks.new_session(scope="work")
    memory.messages.add_message(session.id, "user", "Hello")
    assert talks.session(session.id).scope == "work"
    assert [m.content for m in talks.history(session.id)] == ["Hello"]
    memory.profile = memory.messages.profile("other")
    assert talks.profile.name == "other"
    with pytest.raises(NotFound, match="another profile"):
        talks.session(session.id)
    assert talks.sessions() == [] and talks.last_session() is None


def test_the_last_exchange_is_the_users_last_message_and_the_replies_after_it(parts: Parts):
    talks, messages = parts.conversations, parts.memory.messages
    session = talks.new_session()
    with pytest.raises(HippoError, match="no message of yours"):
        talks.last_exchange(session.id)
    for role, text in [("user", "hi"), ("assistant", "hello"), ("user", "and?"),
                       ("assistant", "first"), ("assistant", "second")]:  # fmt: skip
        messages.add_message(session.id, role, text)
    user, replies = talks.last_exchange(session.id)
    assert (user.content, [r.content for r in replies]) == ("and?", ["first", "second"])


def test_live_settings_apply_whole_and_a_new_embedding_model_requeues_and_wakes(parts: Parts):
    woken = []
    live = LiveSettings(
        parts.live_settings.turn, SleepSettings(), parts.memory, lambda: woken.append(1)
    )
    wanted = Settings(
        ModelSettings("other-chat", "all-minilm", 2048),
        MemorySettings("window", "apply", parts.live_settings.turn.context_budget),
        RetrievalWeights(recency=0.4),
        SleepSettings().with_changes(max_llm_calls=3),
    )
    assert live.apply(wanted) is True  # a new embedding model: every message re-embeds
    assert live.current == wanted and parts.memory.weights == wanted.retrieval
    assert live.turn.chat_model == "other-chat" and woken == [1]
    assert live.embedding_model == "all-minilm"
    # The same model, by another tag of its name: nothing to embed again.
    assert live.use_models(embedding="all-minilm:latest") is False
    assert live.apply(wanted) is False and woken == [1]


def test_the_background_is_built_on_first_use_and_tells_each_notice_once(parts: Parts):
    built: list[EmbeddingWorker] = []
    notices: deque[str] = deque(["first"])
    told = ["from the key store"]

    def build() -> EmbeddingWorker:
        built.append(build_worker(parts.memory, parts.host, parts.live_settings))
        return built[-1]

    background = Background(build, parts.memory.vectors, notices, told)
    background.wake()  # nothing built yet: nothing to wake, nothing built
    assert built == []
    assert background.worker is background.worker and len(built) == 1
    assert background.take_notices() == ["from the key store", "first"]
    assert background.take_notices() == []


class _Closes(OllamaGateway):
    """A gateway that remembers being closed."""

    closed = False

    def close(self) -> None:
        self.closed = True
        super().close()


def test_a_new_gateway_reaches_every_holder_and_the_old_one_is_closed(parts: Parts, fake_ollama):
    host = parts.host
    summaries = parts.background.worker.summaries  # built after the host: it follows it
    old, new = _Closes(fake_ollama.host), OllamaGateway(fake_ollama.host)
    host.use_gateway(old)
    host.use_gateway(new)
    assert host.gateway is new and parts.memory.embedder.llm is new
    assert host.shown.llm is new and summaries.llm is new
    assert old.closed
    assert host.probe() == fake_ollama.version


def test_the_admin_is_built_from_the_memory_alone(parts: Parts):
    admin = build_admin(parts.memory, parts.conversations, parts.background.wake)
    session = parts.conversations.new_session()
    said = parts.memory.messages.add_message(session.id, "user", "I live in Porto")
    parts.memory.facts.add(
        parts.memory.profile.id,
        "The user lives in Porto",
        evidence=[Evidence("message", said.id)],
        source_kind="user_stated",
        actor="user",
    )
    assert [f.statement for f in admin.facts.list()] == ["The user lives in Porto"]


def test_retry_and_edit_work_from_the_parts_alone(parts: Parts):
    admin = build_admin(parts.memory, parts.conversations, parts.background.wake)
    deleted: list[list[int]] = []

    def delete(ids: list[int]) -> None:
        deleted.append(ids)
        admin.forget.delete_replies(ids)

    redo = Redo.over(parts, delete)
    session = parts.conversations.new_session()
    list(redo.turn(Turn).run(session, "Hello", threading.Event()))
    (user, reply) = parts.conversations.history(session.id)
    list(regenerate(redo, session.id))
    assert deleted == [[reply.id]]
    again = parts.conversations.history(session.id)
    assert [m.role for m in again] == ["user", "assistant"] and again[0].id == user.id
    list(edit_last(redo, session.id, "Hello again", edited=user.id))
    said = [(m.role, m.content) for m in parts.conversations.history(session.id)]
    assert said == [("user", "Hello again"), ("assistant", "You said: Hello again")]


def test_a_dry_runs_copy_is_read_with_the_engines_settings_and_closed_after(
    parts: Parts, tmp_path: Path
):
    parts.memory.weights = RetrievalWeights(recency=0.7)
    parts.live_settings.change(context_tokens=1024)
    deps = sleep_deps(parts.memory, parts.host, parts.live_settings)
    copy = tmp_path / "copy.db"
    made = Database(copy)  # an empty, migrated file stands in for the copy
    made.conn  # noqa: B018
    made.close()
    with deps.copy(copy) as twin:
        conn = twin.db.conn
        assert twin.db.path == copy and twin.db is not deps.db
        assert twin.profile.name == deps.profile.name
        assert twin.models.context_tokens == 1024 == deps.models.context_tokens
        assert twin.models.embedding == deps.models.embedding == EMBEDDING_MODEL
        assert twin.gateway is deps.gateway
    with pytest.raises(apsw.ConnectionClosedError):  # the copy was closed on the way out
        conn.execute("SELECT 1")
