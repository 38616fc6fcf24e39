"""The gateway drives the real `ollama` client over HTTP, against the fake Ollama on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from assistant.errors import (
    ConfigError,
    ModelNotFound,
    OllamaAuthError,
    OllamaResponseError,
    OllamaUnreachable,
)
from assistant.llm import (
    ChatResult,
    Done,
    OllamaGateway,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    resolve_host,
)
from tests.fake_ollama import FakeOllama, Reply

CHAT = "qwen3:1.7b"
HELLO = [{"role": "user", "content": "hello there"}]
REMEMBER = {
    "type": "function",
    "function": {
        "name": "remember",
        "description": "Keep a fact about the user.",
        "parameters": {"type": "object", "properties": {"fact": {"type": "string"}}},
    },
}


@pytest.fixture
def gateway(fake_ollama: FakeOllama) -> Iterator[OllamaGateway]:
    with OllamaGateway(fake_ollama.host) as gateway:
        yield gateway


def _texts(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _in_thread(work) -> tuple[threading.Thread, list]:
    """Run `work` in a thread; the list gets its result or the exception it raised."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append(work())
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


# -- host ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "url"),
    [
        ("", "http://127.0.0.1:11434"),
        ("1.2.3.4", "http://1.2.3.4:11434"),
        (":56789", "http://127.0.0.1:56789"),
        ("56789", "http://127.0.0.1:56789"),
        ("1.2.3.4:56789", "http://1.2.3.4:56789"),
        ("http://1.2.3.4", "http://1.2.3.4:80"),
        ("https://example.com", "https://example.com:443"),
        ("example.com", "http://example.com:11434"),
        ("example.com:56789/path/", "http://example.com:56789/path"),
        ("  https://example.com:56789/path  ", "https://example.com:56789/path"),
        ("[0001:002:003:0004::1]:56789", "http://[1:2:3:4::1]:56789"),
        ("0.0.0.0:11434", "http://127.0.0.1:11434"),
        ("[::]", "http://[::1]:11434"),
    ],
)
def test_hosts_are_read_the_way_the_ollama_client_reads_them(value, url, monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST")
    assert resolve_host(value) == url
    assert OllamaGateway(value or None).host == url


def test_no_host_means_ollama_host_from_the_environment(fake_ollama, monkeypatch):
    port = fake_ollama.host.rsplit(":", 1)[1]
    monkeypatch.setenv("OLLAMA_HOST", f"0.0.0.0:{port}")
    with OllamaGateway() as gateway:
        assert gateway.host == fake_ollama.host
        assert gateway.probe() == "0.12.6"


@pytest.mark.parametrize("value", ["example.com:port", "ftp://example.com"])
def test_a_malformed_host_is_a_config_error_that_says_how_to_set_it(value):
    with pytest.raises(ConfigError, match="OLLAMA_HOST"):
        OllamaGateway(value)


def test_importing_the_gateway_does_not_import_the_ollama_client():
    code = "import sys, assistant.llm; print('ollama' in sys.modules or 'httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- probe and models ------------------------------------------------------------------------


def test_probe_answers_the_servers_version(gateway):
    assert gateway.probe() == "0.12.6"


def test_models_are_listed_with_their_capabilities_and_sizes(gateway, fake_ollama):
    models = {m.name: m for m in gateway.list_models()}
    assert set(models) == {"qwen3:1.7b", "embeddinggemma:latest", "all-minilm:latest"}
    qwen = models[CHAT]
    assert qwen.can_use_tools and qwen.can_think and not qwen.is_embedding
    assert (qwen.context_length, qwen.embedding_length) == (40960, None)
    assert (qwen.family, qwen.parameter_size, qwen.size) == ("qwen3", "1.7B", 1_359_293_444)
    gemma = models["embeddinggemma:latest"]
    assert gemma.is_embedding and gemma.embedding_length == 768
    assert gemma.embedding_length == fake_ollama.embed_dim("embeddinggemma")
    shows = [r for r in fake_ollama.requests if r.path == "/api/show"]
    assert len(shows) == 3


def test_each_models_digest_is_listed_and_changes_with_its_weights(gateway, fake_ollama):
    digests = gateway.digests()
    assert set(digests) == {"qwen3:1.7b", "embeddinggemma:latest", "all-minilm:latest"}
    assert [r.path for r in fake_ollama.requests] == ["/api/tags"]  # no show per model
    assert {m.name: m.digest for m in gateway.list_models()} == digests
    new = fake_ollama.new_weights("embeddinggemma")
    assert gateway.digests() == {**digests, "embeddinggemma:latest": new}


def test_a_model_removed_while_listing_is_left_out(gateway, fake_ollama):
    fake_ollama.fail_next("/api/show", "not_found")  # one model is gone by the time it is shown
    assert len(gateway.list_models()) == len(fake_ollama.models) - 1


def test_an_empty_host_lists_no_models(fake_ollama, gateway):
    for name in fake_ollama.models:
        fake_ollama.remove_model(name)
    assert gateway.list_models() == []


def test_show_describes_one_model(gateway):
    info = gateway.show("all-minilm")
    assert info.is_embedding and (info.embedding_length, info.context_length) == (384, 512)


def test_showing_an_unknown_model_says_how_to_pull_it(gateway):
    with pytest.raises(ModelNotFound, match="hippo model pull ghost") as caught:
        gateway.show("ghost")
    assert caught.value.model == "ghost"


# -- chat --------------------------------------------------------------------------------


def test_a_reply_streams_as_text_deltas_then_done(gateway, fake_ollama):
    fake_ollama.script(Reply(content="Lisbon in May.", chunk_size=4))
    events = list(gateway.chat(CHAT, HELLO))
    assert [e.text for e in events[:-1]] == ["Lisb", "on i", "n Ma", "y."]
    done = events[-1]
    assert isinstance(done, Done) and done.done_reason == "stop"
    assert done.completion_tokens == 4 and done.prompt_tokens > 0 and done.duration_s > 0


def test_thinking_streams_separately_before_the_answer(gateway, fake_ollama):
    fake_ollama.script(Reply(content="42.", thinking="Six sevens."))
    events = list(gateway.chat(CHAT, HELLO, think=True))
    kinds = [type(e) for e in events]
    assert kinds.index(ThinkingDelta) < kinds.index(TextDelta)
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == "Six sevens."
    assert fake_ollama.requests[-1].body["think"] is True


def test_no_think_argument_sends_no_think_field(gateway, fake_ollama):
    list(gateway.chat(CHAT, HELLO))
    assert "think" not in fake_ollama.requests[-1].body


def test_tool_calls_arrive_as_tool_call_events(gateway, fake_ollama):
    fake_ollama.script(Reply(tool_calls=[{"name": "remember", "arguments": {"fact": "tea"}}]))
    events = list(gateway.chat(CHAT, HELLO, tools=[REMEMBER]))
    assert ToolCall("remember", {"fact": "tea"}) in events
    assert fake_ollama.requests[-1].body["tools"][0]["function"]["name"] == "remember"


def test_tools_for_a_model_without_them_fail_with_advice(gateway, fake_ollama):
    fake_ollama.add_model("gemma3:1b", capabilities=("completion",), family="gemma3")
    with pytest.raises(OllamaResponseError, match="does not support tools") as caught:
        list(gateway.chat("gemma3:1b", HELLO, tools=[REMEMBER]))
    assert caught.value.status == 400 and "Choose a model that can use tools" in str(caught.value)


def test_a_json_schema_format_yields_json_that_fits_it(gateway, fake_ollama):
    schema = {
        "type": "object",
        "properties": {"facts": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
        "required": ["facts"],
    }
    assert json.loads(_texts(list(gateway.chat(CHAT, HELLO, format=schema)))) == {"facts": [""]}
    assert fake_ollama.requests[-1].body["format"] == schema


def test_chat_once_returns_the_whole_reply(gateway, fake_ollama):
    fake_ollama.script(
        Reply(content="Noted.", thinking="ok", tool_calls=[{"name": "remember", "arguments": {}}])
    )
    result = gateway.chat_once(CHAT, HELLO, tools=[REMEMBER], think=True, options={"seed": 1})
    assert result == ChatResult(
        content="Noted.",
        thinking="ok",
        tool_calls=(ToolCall("remember", {}),),
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
    )
    assert result.prompt_tokens > 0
    request = fake_ollama.requests[-1].body
    # Streamed underneath, so that a slow answer and a hung server are told apart.
    assert request["stream"] is True and request["options"] == {"seed": 1}


def test_chat_once_with_a_format_returns_parsable_json(gateway):
    schema = {"type": "object", "properties": {"kind": {"enum": ["fact", "event"]}}}
    assert json.loads(gateway.chat_once(CHAT, HELLO, format=schema).content) == {"kind": "fact"}


# -- embeddings --------------------------------------------------------------------------


def test_embeddings_are_asked_for_in_batches_and_kept_in_order(gateway, fake_ollama):
    texts = [f"note number {i}" for i in range(70)]
    vectors = gateway.embed("all-minilm", texts, batch_size=32)
    batches = [len(r.body["input"]) for r in fake_ollama.requests if r.path == "/api/embed"]
    assert batches == [32, 32, 6]
    assert len(vectors) == 70 and all(len(v) == 384 for v in vectors)
    assert vectors[69] == gateway.embed("all-minilm", ["note number 69"])[0]


def test_texts_that_share_words_have_closer_vectors(gateway):
    tea, tea_again, cars = gateway.embed(
        "embeddinggemma", ["I drink green tea", "green tea every morning", "gearbox repair costs"]
    )
    assert _cosine(tea, tea_again) > _cosine(tea, cars)


def test_embedding_nothing_sends_no_request(gateway, fake_ollama):
    assert gateway.embed("all-minilm", []) == []
    assert not fake_ollama.requests


def test_embedding_needs_a_list_of_texts_and_a_positive_batch(gateway):
    with pytest.raises(ValueError, match="sequence of texts"):
        gateway.embed("all-minilm", "one string")
    with pytest.raises(ValueError, match="batch_size"):
        gateway.embed("all-minilm", ["x"], batch_size=0)


def test_embedding_with_a_chat_model_says_to_choose_an_embedding_model(gateway):
    with pytest.raises(OllamaResponseError, match="embedding model"):
        gateway.embed(CHAT, ["x"])


# -- pull --------------------------------------------------------------------------------


def test_pull_progress_is_summed_over_layers_and_ends_done(gateway, fake_ollama):
    fake_ollama.pull_plan("smollm2:135m", layers=[1000, 3000, 500])
    progress = list(gateway.pull("smollm2:135m"))
    assert progress[0].status == "pulling manifest" and progress[0].fraction is None
    completed = [p.completed for p in progress]
    assert completed == sorted(completed)
    last = progress[-1]
    assert last.done and last.status == "success"
    assert (last.completed, last.total, last.fraction) == (4500, 4500, 1.0)
    assert any(p.total == 4500 and 0 < p.completed < 4500 for p in progress)
    assert all(p.bytes_per_s >= 0 for p in progress) and progress[-2].bytes_per_s > 0
    assert any(m.name == "smollm2:135m" for m in gateway.list_models())


def test_a_cancelled_pull_stops_promptly_and_hangs_up(gateway, fake_ollama):
    # The next line comes 30 s on: seeing only one proves the pull stopped before it,
    # however slow the machine (a pull that went on would reach pytest's timeout).
    fake_ollama.pull_plan("big", layers=[10**9, 10**9], delay=30.0)
    cancel = threading.Event()
    seen = []
    for progress in gateway.pull("big", cancel=cancel):
        seen.append(progress)
        cancel.set()
    assert len(seen) == 1 and not seen[0].done
    assert fake_ollama.wait_until(lambda: fake_ollama.disconnects == 1)
    assert "big:latest" not in fake_ollama.models


def test_pulling_an_unknown_name_says_to_check_it(gateway):
    with pytest.raises(OllamaResponseError, match=r"could not pull 'nonsense'.*ollama.com/search"):
        list(gateway.pull("nonsense"))


def test_a_pull_cut_short_says_to_pull_again(gateway, fake_ollama):
    fake_ollama.pull_plan("tiny", layers=[100, 100])
    fake_ollama.fail_next("/api/pull", "drop")
    with pytest.raises(OllamaResponseError, match=r"download stopped mid-way.*Pull again"):
        list(gateway.pull("tiny"))


# -- failures ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda g: g.probe(),
        lambda g: g.list_models(),
        lambda g: list(g.chat(CHAT, HELLO)),
        lambda g: g.chat_once(CHAT, HELLO),
        lambda g: g.embed("all-minilm", ["x"]),
        lambda g: list(g.pull(CHAT)),
    ],
    ids=["probe", "list_models", "chat", "chat_once", "embed", "pull"],
)
def test_a_stopped_server_is_unreachable_and_the_error_says_how_to_start_it(
    gateway, fake_ollama, call
):
    gateway.probe()  # leave a kept-alive connection behind, which must not mislead
    fake_ollama.stop()
    with pytest.raises(OllamaUnreachable, match=r"connection refused.*ollama serve") as caught:
        call(gateway)
    assert caught.value.host == fake_ollama.host


@pytest.fixture
def silent_host() -> Iterator[str]:
    """A port on 127.0.0.1 whose accept queue is full, so that connecting never completes."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=0)
    port = listener.getsockname()[1]
    queued = [socket.socket() for _ in range(3)]
    for sock in queued:
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", port))
    yield f"http://127.0.0.1:{port}"
    for sock in [*queued, listener]:
        sock.close()


@pytest.mark.skipif(sys.platform != "linux", reason="relies on Linux dropping SYNs to a full queue")
def test_a_host_that_never_accepts_fails_fast_as_unreachable(silent_host):
    started = time.monotonic()
    with (
        OllamaGateway(silent_host, connect_timeout=0.2) as gateway,
        pytest.raises(OllamaUnreachable, match=r"no answer within 0.2 s"),
    ):
        list(gateway.chat(CHAT, HELLO))
    assert time.monotonic() - started < 2


def test_a_server_error_carries_its_text_and_status(gateway, fake_ollama):
    fake_ollama.fail_next("/api/chat", "500")
    with pytest.raises(OllamaResponseError, match="internal error") as caught:
        list(gateway.chat(CHAT, HELLO))
    assert caught.value.status == 500 and "try again" in str(caught.value)


def test_a_reply_dropped_mid_stream_says_it_stopped_mid_way(gateway, fake_ollama):
    fake_ollama.script(Reply(content="a reply long enough to be cut", fail="drop"))
    events = []
    with pytest.raises(OllamaResponseError, match="reply stopped mid-way"):
        events.extend(gateway.chat(CHAT, HELLO))
    assert events and not any(isinstance(e, Done) for e in events)


def test_a_whole_reply_cut_short_is_a_response_error(gateway, fake_ollama):
    fake_ollama.fail_next("/api/embed", "drop")
    with pytest.raises(OllamaResponseError, match="stopped mid-way"):
        gateway.embed("all-minilm", ["x"])


def test_a_hung_chat_is_cancelled_promptly_and_hangs_up(gateway, fake_ollama):
    fake_ollama.fail_next("/api/chat", "hang")
    cancel = threading.Event()
    thread, outcome = _in_thread(lambda: list(gateway.chat(CHAT, HELLO, cancel=cancel)))
    assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 1)
    cancel.set()
    thread.join(30)  # returns as soon as the cancelled call ends
    assert outcome == [[]]  # ended quietly, with no events and no error
    assert fake_ollama.wait_until(lambda: fake_ollama.disconnects == 1)


def test_a_chat_cancelled_mid_stream_stops_before_the_next_chunk(gateway, fake_ollama):
    # Held after its first chunk, the next one comes only if the stream is released.
    fake_ollama.script(Reply(content="word " * 40, chunk_size=5, hold_after=1))
    cancel = threading.Event()
    events = []
    for event in gateway.chat(CHAT, HELLO, cancel=cancel):
        events.append(event)
        cancel.set()
    assert events == [TextDelta("word ")]
    assert fake_ollama.wait_until(lambda: fake_ollama.disconnects == 1)


def test_a_chat_cancelled_before_it_starts_sends_nothing(gateway, fake_ollama):
    cancel = threading.Event()
    cancel.set()
    assert list(gateway.chat(CHAT, HELLO, cancel=cancel)) == []
    assert not fake_ollama.requests


def test_a_reader_that_stops_early_closes_the_connection(gateway, fake_ollama):
    fake_ollama.script(Reply(content="word " * 40, chunk_size=5, delay=0.05))
    stream = gateway.chat(CHAT, HELLO)
    assert next(stream) == TextDelta("word ")
    stream.close()
    assert fake_ollama.wait_until(lambda: fake_ollama.disconnects == 1)


def test_a_hung_server_times_out_with_advice(fake_ollama):
    fake_ollama.fail_next("/api/chat", "hang")
    with (
        OllamaGateway(fake_ollama.host, load_timeout=0.2) as gateway,
        pytest.raises(OllamaResponseError, match=r"did not answer within 0.2 s"),
    ):
        gateway.chat_once(CHAT, HELLO)


def test_a_missing_model_is_model_not_found(gateway, fake_ollama):
    with pytest.raises(ModelNotFound) as caught:
        list(gateway.chat("ghost", HELLO))
    assert (caught.value.model, caught.value.host) == ("ghost", fake_ollama.host)
    fake_ollama.fail_next("/api/embed", "not_found")
    with pytest.raises(ModelNotFound):
        gateway.embed("all-minilm", ["x"])


def test_an_unauthorised_answer_is_an_auth_error(gateway, fake_ollama):
    fake_ollama.fail_next("/api/tags", "unauthorized")
    with pytest.raises(OllamaAuthError, match="bearer token") as caught:
        gateway.list_models()
    assert caught.value.status == 401


def test_a_token_is_sent_as_a_bearer_header_everywhere(fake_ollama):
    fake_ollama.require_token("s3cret")
    with OllamaGateway(fake_ollama.host) as anonymous, pytest.raises(OllamaAuthError):
        anonymous.probe()
    with OllamaGateway(fake_ollama.host, token="wrong") as wrong, pytest.raises(OllamaAuthError):
        list(wrong.chat(CHAT, HELLO))
    with OllamaGateway(fake_ollama.host, token="s3cret") as gateway:
        assert gateway.probe()
        assert gateway.list_models()
        assert _texts(list(gateway.chat(CHAT, HELLO))) == "You said: hello there"
        assert gateway.embed("all-minilm", ["x"])
    assert fake_ollama.requests[-1].headers["authorization"] == "Bearer s3cret"
    assert "s3cret" not in repr(gateway)


def test_a_host_that_is_not_ollama_is_named_as_such(fake_ollama):
    with (
        OllamaGateway(f"{fake_ollama.host}/not-ollama") as gateway,
        pytest.raises(OllamaResponseError, match=r"does not offer this request.*OLLAMA_HOST"),
    ):
        gateway.list_models()


class _Garbage(BaseHTTPRequestHandler):
    """A web server that is not Ollama: it answers HTML to everything."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._html()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._html()

    def _html(self) -> None:
        body = b"<html>hello</html>\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def not_ollama() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Garbage)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.mark.parametrize(
    "call",
    [
        lambda g: g.probe(),
        lambda g: g.list_models(),
        lambda g: g.chat_once(CHAT, HELLO),
        lambda g: list(g.chat(CHAT, HELLO)),
    ],
    ids=["probe", "list_models", "chat_once", "chat"],
)
def test_an_unreadable_answer_is_a_response_error(not_ollama, call):
    with (
        OllamaGateway(not_ollama) as gateway,
        pytest.raises(OllamaResponseError, match="cannot read"),
    ):
        call(gateway)


def test_clients_share_one_tls_context_that_verifies_as_httpx_does(monkeypatch):
    import ssl

    import certifi

    from assistant.llm.gateway import _tls_context

    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    shared = _tls_context(trust_env=True)
    assert _tls_context(trust_env=True) is shared  # the CA bundle is read once a process
    assert shared.verify_mode == ssl.CERT_REQUIRED and shared.check_hostname
    local = _tls_context(trust_env=False)
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    assert _tls_context(trust_env=True) is not shared  # the bundle the environment names
    assert _tls_context(trust_env=False) is local  # a local host ignores the environment
