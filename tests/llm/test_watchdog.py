"""A call costs no thread of its own: the gateway's watchdog serves a run of calls, wakes
only when it must, and starts a liveness check's thread only when the check falls due.

The figures come from `tally()`, the process's count of what the watchdogs did.
"""

from __future__ import annotations

import threading
import time

import pytest

from assistant.errors import OllamaTimeout
from assistant.llm import Done, OllamaGateway, TextDelta
from assistant.llm.cancel import Calls
from assistant.llm.watchdog import tally
from tests.fake_ollama import FakeOllama, Reply

CHAT = "qwen3:1.7b"
HELLO = [{"role": "user", "content": "hello there"}]
CALLS = 20
GAP_S = 0.01  # between two calls: an app does other work meanwhile (not a wait for a state)


def _watchdogs() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "ollama-watchdog"}


def test_calls_one_after_another_share_one_watchdog_thread(fake_ollama: FakeOllama):
    with OllamaGateway(fake_ollama.host) as gateway:
        before = tally().threads
        for _ in range(CALLS // 2):
            gateway.embed("all-minilm", ["x"])
            time.sleep(GAP_S)
            gateway.show(CHAT)
            time.sleep(GAP_S)
        # One watchdog; a second only if the machine froze for the linger between two calls.
        assert tally().threads - before <= 2


def test_a_call_answered_before_its_liveness_check_is_due_starts_no_thread_for_it(
    fake_ollama: FakeOllama,
):
    # Each embedding and chat waits up to the load timeout, so each gets a liveness check
    # (due after the connect timeout); the fake answers them all at once.
    with OllamaGateway(fake_ollama.host) as gateway:
        gateway.probe()  # the watchdog runs
        before = tally().threads
        for _ in range(CALLS // 2):
            gateway.embed("all-minilm", ["x"])
            assert isinstance(list(gateway.chat(CHAT, HELLO))[-1], Done)
        assert tally().threads - before <= 1  # as above: the watchdog again, at most


def test_a_long_stream_wakes_the_watchdog_far_less_often_than_it_sends_parts(
    fake_ollama: FakeOllama,
):
    parts = 200
    # Paced, as a model's tokens are, so that each part is read on its own.
    fake_ollama.script(Reply(content="x" * parts, chunk_size=1, delay=0.002))
    with OllamaGateway(fake_ollama.host) as gateway:
        gateway.probe()  # the watchdog runs
        before = tally().rounds
        events = list(gateway.chat(CHAT, HELLO))
        woken = tally().rounds - before
    assert len([e for e in events if isinstance(e, TextDelta)]) == parts
    # Each part moves the stall deadline later, which the watchdog finds when it wakes.
    assert woken < parts / 10


def test_an_idle_watchdog_ends_after_its_linger():
    calls = Calls(linger=0.05)
    seen = _watchdogs()
    with calls.call():
        (watchdog,) = _watchdogs() - seen
    watchdog.join(30)
    assert not watchdog.is_alive()


def test_closing_ends_an_idle_watchdog_at_once():
    calls = Calls(linger=3600)
    seen = _watchdogs()
    with calls.call():
        (watchdog,) = _watchdogs() - seen
    calls.close()
    watchdog.join(30)
    assert not watchdog.is_alive()


def test_a_closed_gateway_used_again_still_stops_a_late_call(fake_ollama: FakeOllama):
    with OllamaGateway(fake_ollama.host, load_timeout=0.3) as gateway:
        gateway.probe()
        gateway.close()
        fake_ollama.fall_silent()
        with pytest.raises(OllamaTimeout, match=r"did not answer within 0.3 s"):
            gateway.embed("all-minilm", ["x"])
