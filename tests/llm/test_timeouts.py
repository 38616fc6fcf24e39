"""No call to Ollama waits without limit: a hung host ends with a message that names it.

The limits are the gateway's constructor parameters, set short here; the fake Ollama plays
the hung server (`fall_silent`) and the model stuck mid-reply (`Reply(stall=...)`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from assistant.errors import OllamaStopped, OllamaTimeout
from assistant.llm import Done, OllamaGateway, TextDelta
from tests.fake_ollama import FakeOllama, Reply

CHAT = "qwen3:1.7b"
HELLO = [{"role": "user", "content": "hello there"}]


def _in_thread(work: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """Run `work` in a thread; the list gets its result or the exception it raised."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(work())
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def test_a_server_that_never_answers_a_chat_fails_naming_the_host_and_the_model(fake_ollama):
    fake_ollama.fall_silent()
    with (
        OllamaGateway(fake_ollama.host, load_timeout=0.3) as gateway,
        pytest.raises(OllamaTimeout) as caught,
    ):
        list(gateway.chat(CHAT, HELLO))
    message = str(caught.value)
    assert f"Ollama at {fake_ollama.host} did not answer within 0.3 s" in message
    assert "loading qwen3:1.7b" in message and "load_timeout" in message
    assert caught.value.host == fake_ollama.host and not caught.value.midway
    assert fake_ollama.wait_until(lambda: fake_ollama.disconnects == 1)  # it hung up


def test_a_reply_that_stalls_mid_stream_fails_after_the_stall_timeout(fake_ollama):
    fake_ollama.script(Reply(content="abcdefgh", chunk_size=2, stall_after=2, stall=600))
    events = []
    with (
        OllamaGateway(fake_ollama.host, stall_timeout=0.3) as gateway,
        pytest.raises(OllamaTimeout, match=r"stopped sending the reply: nothing came for 0.3 s"),
    ):
        events.extend(gateway.chat(CHAT, HELLO))
    assert events == [TextDelta("ab"), TextDelta("cd")]
    assert fake_ollama.wait_until(lambda: fake_ollama.disconnects == 1)


def test_a_model_slow_to_start_gets_the_load_timeout_not_the_stall_timeout(fake_ollama):
    # Silent for twice the stall timeout before the first words: a model being loaded,
    # while the host answers the version checks made meanwhile.
    fake_ollama.script(Reply(content="late but fine", stall_after=0, stall=2.5))
    with OllamaGateway(
        fake_ollama.host, connect_timeout=1.0, load_timeout=30, stall_timeout=0.3
    ) as gateway:
        events = list(gateway.chat(CHAT, HELLO))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "late but fine"
    assert isinstance(events[-1], Done)
    checks = [r for r in fake_ollama.requests if r.path == "/api/version"]
    assert checks  # the host was asked whether it is stuck, and said it is not


def test_a_host_that_cannot_even_say_its_version_is_given_up_on_long_before_the_load_timeout(
    fake_ollama,
):
    fake_ollama.fall_silent()
    thread, outcome = _in_thread(
        lambda: list(OllamaGateway(fake_ollama.host, connect_timeout=0.2).chat(CHAT, HELLO))
    )
    thread.join(60)  # the load timeout is 120 s: ending at all shows the check worked
    assert isinstance(outcome[0], OllamaTimeout), outcome
    assert "did not answer a check of its version either: it seems stuck" in str(outcome[0])
    assert fake_ollama.host in str(outcome[0])


def test_a_steady_stream_longer_than_the_stall_timeout_is_not_a_stall(fake_ollama):
    fake_ollama.script(Reply(content="word " * 60, chunk_size=5, delay=0.02))
    with OllamaGateway(fake_ollama.host, stall_timeout=1.0) as gateway:
        events = list(gateway.chat(CHAT, HELLO))
    assert isinstance(events[-1], Done)


def test_a_whole_answer_that_never_comes_fails_in_time(fake_ollama):
    fake_ollama.fall_silent()
    for ask in (lambda g: g.embed("all-minilm", ["x"]), lambda g: g.chat_once(CHAT, HELLO)):
        with (
            OllamaGateway(fake_ollama.host, load_timeout=0.3, stall_timeout=0.3) as gateway,
            pytest.raises(OllamaTimeout, match=r"did not answer within 0.3 s"),
        ):
            ask(gateway)


def test_after_one_unanswered_request_only_a_version_check_waits_then_nothing(fake_ollama):
    # A command makes several requests; against a hung server their waits must not add up.
    fake_ollama.fall_silent()
    with OllamaGateway(fake_ollama.host, connect_timeout=0.4, load_timeout=0.6) as gateway:
        with pytest.raises(OllamaTimeout, match=r"within 0.6 s"):
            gateway.embed("all-minilm", ["x"])
        assert gateway.silent
        with pytest.raises(OllamaTimeout, match=r"within 0.4 s"):
            list(gateway.chat(CHAT, HELLO))  # preceded by the version, which goes unanswered
        sent = len(fake_ollama.requests)
        for ask in (
            lambda: list(gateway.chat(CHAT, HELLO)),
            lambda: gateway.embed("all-minilm", ["x"]),
            lambda: gateway.show(CHAT),
            lambda: gateway.chat_once(CHAT, HELLO),
        ):
            with pytest.raises(
                OllamaTimeout, match=r"within 0.6 s, nor a check that it is alive within 0.4 s"
            ):
                ask()
        assert len(fake_ollama.requests) == sent  # nothing more was sent
        fake_ollama.answer_again()
        assert gateway.probe() and not gateway.silent
        assert gateway.embed("all-minilm", ["x"])  # the full wait again, and an answer


def test_a_host_that_answers_its_version_gets_the_next_request_in_full(fake_ollama):
    # One slow request (a model loading past load_timeout) is not a dead host.
    with OllamaGateway(fake_ollama.host, connect_timeout=0.4, load_timeout=0.6) as gateway:
        fake_ollama.fall_silent()
        with pytest.raises(OllamaTimeout):
            gateway.embed("all-minilm", ["x"])
        fake_ollama.answer_again()
        assert gateway.embed("all-minilm", ["x"])  # the version answered first, then this
        assert not gateway.silent


def test_the_version_probe_of_a_hung_server_fails_within_the_connect_timeout(fake_ollama):
    fake_ollama.fall_silent()
    with (
        OllamaGateway(fake_ollama.host, connect_timeout=0.3) as gateway,
        pytest.raises(OllamaTimeout, match=r"took the request but did not answer within 0.3 s"),
    ):
        gateway.probe()


def test_a_turns_cancel_stops_every_call_of_its_thread(fake_ollama):
    """Not only the reply's stream: also the embedding and the model check before it."""
    fake_ollama.fall_silent()
    cancel = threading.Event()
    with OllamaGateway(fake_ollama.host) as gateway:

        def embed_in_a_turn() -> object:
            with gateway.stopping_on(cancel):
                return gateway.embed("all-minilm", ["x"])

        thread, outcome = _in_thread(embed_in_a_turn)
        assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 1)
        cancel.set()
        thread.join(10)
        assert isinstance(outcome[0], OllamaStopped) and "cancelled" in str(outcome[0])
        with gateway.stopping_on(cancel), pytest.raises(OllamaStopped):
            gateway.show(CHAT)  # a cancelled turn sends nothing more
    assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 0)


def test_abort_frees_every_thread_waiting_on_the_host(fake_ollama):
    fake_ollama.fall_silent()
    with OllamaGateway(fake_ollama.host) as gateway:
        waiting = [
            _in_thread(lambda: gateway.show(CHAT)),
            _in_thread(lambda: list(gateway.chat(CHAT, HELLO))),
            _in_thread(gateway.probe),
        ]
        assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 3)
        gateway.abort()
        for thread, outcome in waiting:
            thread.join(10)
            assert isinstance(outcome[0], OllamaStopped), outcome
            assert "closing" in str(outcome[0])
        fake_ollama.answer_again()
        assert gateway.probe()  # later calls go ahead


def test_closing_the_gateway_frees_a_thread_waiting_on_the_host(fake_ollama: FakeOllama):
    fake_ollama.fall_silent()
    gateway = OllamaGateway(fake_ollama.host)
    thread, outcome = _in_thread(lambda: gateway.embed("all-minilm", ["x"]))
    assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 1)
    gateway.close()
    thread.join(10)
    assert isinstance(outcome[0], OllamaStopped)
