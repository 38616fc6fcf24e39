"""Chatting while sleep runs: nothing is lost and the database is never "locked"."""

from __future__ import annotations

import threading
from datetime import timedelta

from assistant.engine import Hippo
from assistant.llm.gateway import OllamaGateway
from tests.fake_ollama.server import FakeOllama
from tests.sleep.helpers import chat, day, episode, episodes, fact, facts, sleep

HOBBIES = "chess cello tango pottery climbing sushi origami kayaking poetry astronomy".split()


def test_chatting_while_sleep_runs_loses_nothing(engine, fake_ollama, clock, config):
    sessions = [
        chat(engine, day("2026-11-20") + timedelta(hours=n), f"I love {hobby}.", "Nice.")[1]
        for n, hobby in enumerate(HOBBIES)
    ]
    fake_ollama.script(*(episodes(episode(s[0], s[1])) for s in sessions))
    for hobby, said in zip(HOBBIES, sessions, strict=True):
        fake_ollama.script(facts(fact(f"The user loves {hobby}", [said[0].id])))
    clock.advance(days=5)
    outcome: list[object] = []
    asleep, chatted = threading.Event(), threading.Event()

    def paced(_: object) -> None:
        # Sleep's first unit waits until the chat has written while it runs: the two
        # meet for sure, however the machine schedules them.
        asleep.set()
        assert chatted.wait(timeout=120), "the chat sent nothing while sleep ran"

    def night():
        try:
            outcome.append(sleep(engine, progress=paced))
        except BaseException as exc:
            outcome.append(exc)

    with FakeOllama() as chat_host:  # the UI, as another process: its own connection and Ollama
        app = Hippo(
            config.db_path,
            OllamaGateway(chat_host.host),
            chat_model=config.models.chat,
            embedding_model=config.models.embedding,
            clock=clock,
        )
        session = app.conversations.new_session()
        worker = threading.Thread(target=night)
        worker.start()
        sent = during = 0
        while worker.is_alive() or sent < 10:
            events = list(app.send(session.id, f"message {sent}"))
            assert type(events[-1]).__name__ == "ReplyDone", events[-1]
            sent += 1
            during += asleep.is_set() and not chatted.is_set()
            if during >= 3:
                chatted.set()
        chatted.set()
        worker.join()
        app.close()

    (report,) = outcome
    assert report.status == "done" and report.errors == [], report  # type: ignore[union-attr]
    assert during >= 3  # the chat really wrote while sleep ran
    assert len(engine.conversations.history(session.id, 1000)) == 2 * sent
    assert engine.memory.facts.count(engine.memory.profile.id) == len(HOBBIES)
