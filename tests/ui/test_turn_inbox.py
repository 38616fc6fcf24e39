"""A reply's thread leaves its events in an inbox; the chat takes them in batches, in order."""

from __future__ import annotations

import threading

from tests.fake_ollama import Reply
from tests.ui.helpers import chat_ready, messages_shown, send
from ui import HippoApp
from ui.screens.chat import ChatScreen
from ui.turn_inbox import TurnInbox


def test_only_the_first_event_left_after_a_take_wakes_the_taker():
    inbox: TurnInbox[int] = TurnInbox()
    assert inbox.put(1) is True
    assert inbox.put(2) is False and inbox.put(3) is False
    assert inbox.take() == [1, 2, 3]
    assert inbox.take() == []
    assert inbox.put(4) is True, "after a take, the next event wakes the taker again"


def test_events_left_by_many_threads_are_all_taken_once():
    inbox: TurnInbox[tuple[int, int]] = TurnInbox()
    taken: list[tuple[int, int]] = []

    def leave(n: int) -> None:
        for i in range(500):
            inbox.put((n, i))
            if i % 50 == 0:
                taken.extend(inbox.take())

    threads = [threading.Thread(target=leave, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    taken.extend(inbox.take())
    assert sorted(taken) == [(n, i) for n in range(4) for i in range(500)]
    for n in range(4):  # each thread's events in the order it left them
        assert [i for m, i in taken if m == n] == list(range(500))


async def test_a_fast_stream_wakes_the_screen_far_less_than_once_a_token_and_its_end_at_once(
    engine, config, fake_ollama
):
    text = "".join(f"w{i} " for i in range(400))
    fake_ollama.script(Reply(content=text, chunk_size=3))  # ~550 tokens, no pause
    app = HippoApp(engine, config)
    async with app.run_test(size=(100, 30)) as pilot:
        await chat_ready(pilot)
        wakes = []
        post = app.chat.post_message

        def counted(message):
            if isinstance(message, ChatScreen.TurnsLeft):
                wakes.append(message)
            return post(message)

        app.chat.post_message = counted  # type: ignore[method-assign]
        await send(pilot, "go")
        reply = messages_shown(app)[1]
        assert (reply.status, reply.content) == ("complete", text)
    assert 0 < len(wakes) < len(text) / 3 / 4, len(wakes)
    # Every event but a piece of text wakes the screen at once: the end above all.
    assert wakes[-1].urgent and sum(w.urgent for w in wakes) >= 3  # saved, started, done
