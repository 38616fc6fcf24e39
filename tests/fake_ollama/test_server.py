"""The fake Ollama speaks Ollama's protocol as the official `ollama` client uses it."""

from __future__ import annotations

import http.client
import json
import math
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import httpx
import ollama
import pytest

from tests.fake_ollama import FakeOllama, Reply, ports, schema_instance

CHAT = "qwen3:1.7b"
HELLO = [{"role": "user", "content": "hello there"}]


@pytest.fixture
def client(fake_ollama: FakeOllama) -> Iterator[ollama.Client]:
    with ollama.Client(fake_ollama.host) as client:
        yield client


def _raw(srv: FakeOllama, path: str, body: object) -> tuple[http.client.HTTPMessage, bytes]:
    """POST over the plain standard library, to see exactly what goes over the wire."""
    port = urllib.parse.urlsplit(srv.host).port
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("POST", path, body=json.dumps(body))
        response = connection.getresponse()
        return response.headers, response.read()
    finally:
        connection.close()


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


# -- basics ------------------------------------------------------------------------------


def test_it_listens_on_loopback_only_and_answers_its_version(fake_ollama):
    assert fake_ollama.host.startswith("http://127.0.0.1:")
    assert httpx.get(f"{fake_ollama.host}/api/version").json() == {"version": "0.12.6"}
    assert httpx.get(fake_ollama.host).text == "Ollama is running"


def test_a_client_gone_between_requests_prints_nothing(fake_ollama, capsys):
    import socket
    import struct
    import time

    host, port = urllib.parse.urlsplit(fake_ollama.host).netloc.split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(b"GET /api/version HTTP/1.1\r\nHost: x\r\n\r\n")
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    # A reset, not a close: the server's wait for the next request fails.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()
    time.sleep(0.3)
    assert "Traceback" not in capsys.readouterr().err


def test_unknown_paths_get_gos_plain_text_404(fake_ollama):
    response = httpx.get(f"{fake_ollama.host}/api/nothing")
    assert (response.status_code, response.text) == (404, "404 page not found")


def test_the_default_models_are_listed_with_normalised_names(client):
    listed = {m.model: m for m in client.list().models}
    assert set(listed) == {"qwen3:1.7b", "embeddinggemma:latest", "all-minilm:latest"}
    qwen = listed["qwen3:1.7b"]
    assert qwen.details.family == "qwen3" and qwen.details.parameter_size == "1.7B"
    assert qwen.size > 0 and qwen.digest and qwen.modified_at is not None


def test_show_reports_capabilities_and_sizes_under_the_family_key(client):
    qwen = client.show(CHAT)
    assert qwen.capabilities == ["completion", "tools", "thinking"]
    assert qwen.modelinfo["general.architecture"] == "qwen3"
    assert qwen.modelinfo["qwen3.context_length"] == 40960
    gemma = client.show("embeddinggemma")  # the tag may be left out, as with Ollama
    assert gemma.capabilities == ["embedding"]
    assert gemma.modelinfo["gemma3.embedding_length"] == 768


def test_added_and_removed_models_show_in_the_list(fake_ollama, client):
    fake_ollama.add_model("llama3.2:1b", capabilities=("completion", "tools"), family="llama")
    assert "llama3.2:1b" in [m.model for m in client.list().models]
    assert client.show("llama3.2:1b").modelinfo["llama.context_length"] == 4096
    fake_ollama.remove_model("llama3.2:1b")
    assert "llama3.2:1b" not in fake_ollama.models


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.show("ghost"),
        lambda c: c.chat("ghost", HELLO),
        lambda c: c.embed("ghost", ["x"]),
    ],
    ids=["show", "chat", "embed"],
)
def test_an_unknown_model_is_not_found(client, call):
    with pytest.raises(ollama.ResponseError) as caught:
        call(client)
    assert (caught.value.status_code, caught.value.error) == (404, "model 'ghost' not found")


# -- chat --------------------------------------------------------------------------------


def test_a_streamed_chat_is_chunked_ndjson_ending_in_a_done_line(fake_ollama):
    fake_ollama.script(Reply(content="Hello, world", chunk_size=5))
    headers, body = _raw(fake_ollama, "/api/chat", {"model": CHAT, "messages": HELLO})
    assert headers["Transfer-Encoding"] == "chunked"
    assert headers["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in body.splitlines()]
    assert [line["message"]["content"] for line in lines] == ["Hello", ", wor", "ld", ""]
    assert [line["done"] for line in lines] == [False, False, False, True]
    assert lines[-1]["done_reason"] == "stop" and lines[-1]["eval_count"] == 3


def test_the_default_reply_echoes_the_last_user_message(client):
    reply = client.chat(
        CHAT, [*HELLO, {"role": "assistant", "content": "hi"}, {"role": "user", "content": "again"}]
    )
    assert reply.message.content == "You said: again"
    assert reply.done and reply.prompt_eval_count and reply.total_duration


def test_scripted_replies_come_in_order_then_the_echo_resumes(fake_ollama, client):
    fake_ollama.script(Reply(content="one"), Reply(content="two"))
    said = [client.chat(CHAT, HELLO).message.content for _ in range(3)]
    assert said == ["one", "two", "You said: hello there"]


def test_thinking_is_sent_only_when_asked_for(fake_ollama, client):
    fake_ollama.script(
        Reply(content="42", thinking="six sevens"), Reply(content="42", thinking="hmm")
    )
    parts = list(client.chat(CHAT, HELLO, think=True, stream=True))
    assert "".join(p.message.thinking or "" for p in parts) == "six sevens"
    assert "".join(p.message.content or "" for p in parts) == "42"
    assert client.chat(CHAT, HELLO).message.thinking is None


def test_a_model_that_cannot_think_refuses_think(fake_ollama, client):
    fake_ollama.add_model("plain", capabilities=("completion",))
    with pytest.raises(ollama.ResponseError, match="does not support thinking"):
        client.chat("plain", HELLO, think=True)


def test_tool_calls_are_sent_to_requests_with_tools(fake_ollama, client):
    tool = {"type": "function", "function": {"name": "remember", "parameters": {"type": "object"}}}
    call = {"name": "remember", "arguments": {"fact": "likes tea"}}
    fake_ollama.script(Reply(tool_calls=[call]), Reply(content="ok", tool_calls=[call]))
    streamed = [
        p for p in client.chat(CHAT, HELLO, tools=[tool], stream=True) if p.message.tool_calls
    ]
    function = streamed[0].message.tool_calls[0].function
    assert (function.name, function.arguments) == ("remember", {"fact": "likes tea"})
    assert client.chat(CHAT, HELLO).message.tool_calls is None  # no tools in the request


def test_a_model_without_tools_refuses_a_request_with_tools(fake_ollama, client):
    fake_ollama.add_model("gemma3:1b", capabilities=("completion",), family="gemma3")
    tool = {"type": "function", "function": {"name": "f"}}
    with pytest.raises(ollama.ResponseError) as caught:
        client.chat("gemma3:1b", HELLO, tools=[tool])
    assert caught.value.status_code == 400
    assert caught.value.error == "registry.ollama.ai/library/gemma3:1b does not support tools"


def test_an_embedding_model_refuses_to_chat(client):
    with pytest.raises(ollama.ResponseError, match="does not support chat"):
        client.chat("all-minilm", HELLO)


def test_a_format_schema_gets_a_valid_minimal_instance(client):
    schema = {
        "type": "object",
        "properties": {
            "facts": {"type": "array", "items": {"$ref": "#/$defs/Fact"}, "minItems": 1},
            "mood": {"enum": ["calm", "glad"]},
        },
        "required": ["facts", "mood"],
        "$defs": {
            "Fact": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "weight": {"type": "number", "minimum": 0.5},
                },
            }
        },
    }
    content = client.chat(CHAT, HELLO, format=schema).message.content
    assert json.loads(content) == {"facts": [{"text": "", "weight": 0.5}], "mood": "calm"}
    assert json.loads(client.chat(CHAT, HELLO, format="json").message.content) == {}


def test_scripted_content_is_sent_as_is_even_with_a_format(fake_ollama, client):
    fake_ollama.script(Reply(content='{"broken": '))
    assert client.chat(CHAT, HELLO, format="json").message.content == '{"broken": '


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "integer", "exclusiveMinimum": 3}, 4),
        ({"type": ["null", "string"], "minLength": 2}, "xx"),
        ({"anyOf": [{"type": "boolean"}, {"type": "string"}]}, False),
        ({"type": "string", "format": "date"}, "1970-01-01"),
        ({"const": "fixed"}, "fixed"),
        ({"type": "object", "required": ["a"]}, {"a": ""}),
        (
            {"allOf": [{"type": "object", "properties": {"n": {"type": "integer", "default": 7}}}]},
            {"n": 7},
        ),
    ],
)
def test_schema_instances_respect_the_usual_keywords(schema, expected):
    assert schema_instance(schema) == expected


# -- embeddings --------------------------------------------------------------------------


def test_embeddings_are_unit_vectors_of_the_models_size_and_deterministic(fake_ollama, client):
    first = client.embed("embeddinggemma", ["The cat sat", "on the mat"]).embeddings
    again = client.embed("embeddinggemma:latest", ["The cat sat"]).embeddings
    assert [len(v) for v in first] == [fake_ollama.embed_dim("embeddinggemma")] * 2 == [768, 768]
    assert math.isclose(_cosine(first[0], first[0]), 1.0)
    assert list(again[0]) == list(first[0])
    assert len(client.embed("all-minilm", "one text").embeddings[0]) == 384


def test_texts_sharing_words_embed_closer_than_unrelated_ones(client):
    tea, tea_again, cars = client.embed(
        "all-minilm", ["I like green tea", "green tea in the morning", "engines and gearboxes"]
    ).embeddings
    assert _cosine(tea, tea_again) > _cosine(tea, cars) + 0.2


def test_chinese_texts_sharing_characters_embed_closer(client):
    tea, tea_again, cars = client.embed(
        "all-minilm", ["我喜欢喝绿茶", "绿茶很好喝", "汽车发动机"]
    ).embeddings
    assert _cosine(tea, tea_again) > _cosine(tea, cars) + 0.2


def test_an_empty_text_in_a_list_gets_a_valid_vector_and_a_lone_one_gets_none(client):
    (vector,) = client.embed("all-minilm", [""]).embeddings
    assert len(vector) == 384 and math.isclose(_cosine(vector, vector), 1.0)
    assert client.embed("all-minilm", "").embeddings == []


def test_dimensions_truncate_and_renormalise(client):
    (vector,) = client.embed("embeddinggemma", ["short"], dimensions=128).embeddings
    assert len(vector) == 128 and math.isclose(_cosine(vector, vector), 1.0)


def test_a_text_longer_than_the_window_is_cut_to_it_unless_asked_not_to(client):
    window = " ".join(f"word{n}" for n in range(512))  # all-minilm reads 512 tokens
    longer = client.embed("all-minilm", [window + " and many more words after it"])
    assert longer.embeddings == client.embed("all-minilm", [window]).embeddings
    assert longer.prompt_eval_count == 512
    with pytest.raises(ollama.ResponseError) as caught:
        client.embed("all-minilm", [window + " more"], truncate=False)
    assert caught.value.status_code == 400 and "context length" in caught.value.error
    assert client.embed("all-minilm", [window], truncate=False).embeddings


def test_a_model_embeds_as_told_padded_to_its_size_and_unprefixed(fake_ollama, client):
    from assistant.llm.prefixes import prefixed

    told = []
    fake_ollama.embed_as("embeddinggemma", lambda text: told.append(text) or [3.0, 4.0])
    (query,) = prefixed("embeddinggemma", ["tea"], "query")
    (vector,) = client.embed("embeddinggemma:latest", [query]).embeddings
    assert told == ["tea"] and len(vector) == 768
    assert list(vector[:3]) == pytest.approx([0.6, 0.8, 0.0])
    (other,) = client.embed("all-minilm", ["tea"]).embeddings  # other models: as before
    assert len(other) == 384 and list(other[:2]) != pytest.approx([0.6, 0.8])
    fake_ollama.embed_as("embeddinggemma", None)
    (again,) = client.embed("embeddinggemma", ["tea"]).embeddings
    assert list(again[:2]) != pytest.approx([0.6, 0.8])


def test_a_chat_model_refuses_to_embed(client):
    with pytest.raises(ollama.ResponseError) as caught:
        client.embed(CHAT, ["x"])
    assert caught.value.status_code == 400 and "does not support embeddings" in caught.value.error


def _digest(client: ollama.Client, name: str) -> str:
    (digest,) = [m.digest for m in client.list().models if m.model == name]
    return digest


def test_new_weights_change_a_models_digest_and_every_embedding(fake_ollama, client):
    digest, other = _digest(client, "embeddinggemma:latest"), _digest(client, "all-minilm:latest")
    (old,) = client.embed("embeddinggemma", ["The cat sat"]).embeddings
    assert fake_ollama.new_weights("embeddinggemma") == _digest(client, "embeddinggemma:latest")
    assert _digest(client, "embeddinggemma:latest") != digest
    assert _digest(client, "all-minilm:latest") == other
    new, new_again = client.embed("embeddinggemma", ["The cat sat", "the cat sat"]).embeddings
    assert abs(_cosine(old, new)) < 0.3 and math.isclose(_cosine(new, new_again), 1.0)


def test_pulling_a_download_over_an_installed_model_brings_new_weights(fake_ollama, client):
    digest = _digest(client, "all-minilm:latest")
    client.pull("all-minilm")  # nothing planned: a re-check of what is there
    assert _digest(client, "all-minilm:latest") == digest
    fake_ollama.pull_plan("all-minilm", capabilities=("embedding",), embedding_length=384)
    client.pull("all-minilm")
    assert _digest(client, "all-minilm:latest") != digest


def test_embed_dim_rejects_models_that_do_not_embed(fake_ollama):
    with pytest.raises(ValueError):
        fake_ollama.embed_dim(CHAT)
    with pytest.raises(KeyError):
        fake_ollama.embed_dim("ghost")


# -- delete ------------------------------------------------------------------------------


def test_delete_uninstalls_a_model_by_either_spelling(fake_ollama, client):
    assert client.delete("all-minilm").status == "success"
    assert "all-minilm:latest" not in fake_ollama.models
    assert [m.model for m in client.list().models] == ["qwen3:1.7b", "embeddinggemma:latest"]
    request = fake_ollama.requests[0]
    assert (request.method, request.path, request.body) == (
        "DELETE",
        "/api/delete",
        {"model": "all-minilm"},
    )


def test_deleting_a_model_that_is_not_there_is_a_404_as_in_ollama(fake_ollama, client):
    with pytest.raises(ollama.ResponseError) as raised:
        client.delete("ghost")
    assert raised.value.status_code == 404
    assert raised.value.error == "model 'ghost' not found"


def test_delete_takes_the_older_name_field_and_refuses_no_name(fake_ollama):
    with httpx.Client(base_url=fake_ollama.host) as http:
        old = http.request("DELETE", "/api/delete", json={"name": "qwen3:1.7b"})
        empty = http.request("DELETE", "/api/delete", json={})
    assert (old.status_code, old.content) == (200, b"")
    assert "qwen3:1.7b" not in fake_ollama.models
    assert empty.status_code == 400
    assert empty.json() == {"error": 'name "" is invalid'}


# -- pull --------------------------------------------------------------------------------


def test_a_pull_streams_progress_per_layer_then_installs_the_model(fake_ollama, client):
    fake_ollama.pull_plan("smollm2:135m", layers=[400, b"12345678"])
    parts = list(client.pull("smollm2:135m", stream=True))
    statuses = [p.status for p in parts]
    assert statuses[0] == "pulling manifest"
    assert statuses[-3:] == ["verifying sha256 digest", "writing manifest", "success"]
    by_digest: dict[str, int] = {}
    for part in parts:
        if part.digest:
            assert part.status == f"pulling {part.digest[7:19]}"
            by_digest[part.digest] = max(by_digest.get(part.digest, 0), part.completed or 0)
    assert sorted(by_digest.values()) == [8, 400]
    assert "smollm2:135m" in [m.model for m in client.list().models]


def test_a_pull_without_streaming_answers_success_once(fake_ollama, client):
    fake_ollama.pull_plan("tiny", layers=[10])
    assert client.pull("tiny").status == "success"
    assert "tiny:latest" in fake_ollama.models


def test_pulling_an_unknown_name_reports_a_missing_manifest(client):
    with pytest.raises(ollama.ResponseError, match="file does not exist"):
        list(client.pull("no-such-model", stream=True))
    with pytest.raises(ollama.ResponseError, match="file does not exist"):
        client.pull("no-such-model")


def test_a_dropped_pull_does_not_install_the_model(fake_ollama, client):
    fake_ollama.pull_plan("tiny", layers=[10, 20])
    fake_ollama.fail_next("/api/pull", "drop")
    with pytest.raises(httpx.RemoteProtocolError):
        list(client.pull("tiny", stream=True))
    assert "tiny:latest" not in fake_ollama.models


# -- recording, tokens and failures ----------------------------------------------------------


def test_requests_are_recorded_with_their_body_and_headers(fake_ollama, client):
    client.chat(CHAT, HELLO, options={"temperature": 0})
    (request,) = fake_ollama.requests
    assert (request.method, request.path) == ("POST", "/api/chat")
    assert request.body["options"] == {"temperature": 0} and request.body["stream"] is False
    assert request.headers["user-agent"].startswith("ollama-python/")


def test_a_required_token_rejects_requests_without_it(fake_ollama, client):
    fake_ollama.require_token("s3cret")
    with pytest.raises(ollama.ResponseError) as caught:
        client.list()
    assert caught.value.status_code == 401
    bearer = {"Authorization": "Bearer s3cret"}
    with ollama.Client(fake_ollama.host, headers=bearer) as authorised:
        assert authorised.list().models
    fake_ollama.require_token(None)
    assert client.list().models


@pytest.mark.parametrize(
    ("kind", "status"), [("500", 500), ("not_found", 404), ("unauthorized", 401)]
)
def test_scripted_failures_answer_with_their_status_for_count_requests(
    fake_ollama, client, kind, status
):
    fake_ollama.fail_next("/api/tags", kind, count=2)
    for _ in range(2):
        with pytest.raises(ollama.ResponseError) as caught:
            client.list()
        assert caught.value.status_code == status
    assert client.list().models


def test_a_drop_cuts_a_stream_before_its_done_line(fake_ollama, client):
    fake_ollama.fail_next("/api/chat", "drop")
    seen = []
    with pytest.raises(httpx.RemoteProtocolError):
        seen.extend(
            client.chat(CHAT, [{"role": "user", "content": "a long enough message"}], stream=True)
        )
    assert seen and not any(part.done for part in seen)


def test_a_drop_cuts_a_whole_reply_short(fake_ollama, client):
    fake_ollama.fail_next("/api/embed", "drop")
    with pytest.raises(httpx.RemoteProtocolError):
        client.embed("all-minilm", ["x"])


def test_a_reply_can_fail_by_itself(fake_ollama, client):
    fake_ollama.script(Reply(content="unlucky", fail="500"))
    with pytest.raises(ollama.ResponseError):
        client.chat(CHAT, HELLO)


def test_junk_is_a_200_that_is_not_json_whole_or_streamed(fake_ollama):
    fake_ollama.fail_next("/api/tags", "junk")
    response = httpx.get(f"{fake_ollama.host}/api/tags")
    assert response.status_code == 200
    with pytest.raises(ValueError):
        response.json()
    fake_ollama.script(Reply(content="one two three", chunk_size=4, fail="junk"))
    body = {"model": CHAT, "messages": HELLO, "stream": True}
    lines = httpx.post(f"{fake_ollama.host}/api/chat", json=body).text.splitlines()
    assert json.loads(lines[0])["message"]["content"] == "one "
    with pytest.raises(ValueError):
        json.loads(lines[1])


def test_a_hang_holds_the_answer_until_released(fake_ollama, client):
    fake_ollama.fail_next("/api/version", "hang")
    answers = []
    waiter = threading.Thread(
        target=lambda: answers.append(httpx.get(f"{fake_ollama.host}/api/version"))
    )
    waiter.start()
    assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 1)
    assert not answers
    fake_ollama.release()
    waiter.join(30)
    assert answers[0].json()["version"] and fake_ollama.hanging == 0


def test_a_stream_held_after_some_lines_goes_on_when_released(fake_ollama, client):
    fake_ollama.script(Reply(content="one two three four", chunk_size=4, hold_after=2))
    pieces: list[str] = []
    done = threading.Event()

    def read() -> None:
        pieces.extend(part.message.content for part in client.chat(CHAT, HELLO, stream=True))
        done.set()

    threading.Thread(target=read, daemon=True).start()
    assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 1)
    assert not done.is_set()
    fake_ollama.release()
    assert done.wait(30)
    assert "".join(pieces) == "one two three four"


def test_a_hang_ends_when_the_client_hangs_up(fake_ollama):
    fake_ollama.fail_next("/api/tags", "hang")
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(f"{fake_ollama.host}/api/tags", timeout=httpx.Timeout(5, read=0.2))
    assert fake_ollama.wait_until(lambda: fake_ollama.disconnects == 1 and fake_ollama.hanging == 0)


def test_a_silent_server_holds_every_request_until_it_answers_again(fake_ollama):
    fake_ollama.fall_silent()
    answers: list[httpx.Response] = []
    waiters = [
        threading.Thread(target=lambda p=path: answers.append(httpx.get(fake_ollama.host + p)))
        for path in ("/api/version", "/api/tags")
    ]
    for waiter in waiters:
        waiter.start()
    assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 2)
    assert not answers
    fake_ollama.answer_again()
    for waiter in waiters:
        waiter.join(5)
    assert [a.status_code for a in answers] == [200, 200] and fake_ollama.hanging == 0


def test_a_stall_sends_the_first_chunks_then_nothing_until_the_client_leaves(fake_ollama):
    fake_ollama.script(Reply(content="abcdefgh", chunk_size=2, stall_after=2, stall=60))
    got = []
    body = {"model": CHAT, "messages": HELLO}
    timeout = httpx.Timeout(5, read=0.3)
    with (
        httpx.stream("POST", f"{fake_ollama.host}/api/chat", json=body, timeout=timeout) as r,
        pytest.raises(httpx.ReadTimeout),
    ):
        got.extend(json.loads(line)["message"]["content"] for line in r.iter_lines())
    assert got == ["ab", "cd"]
    assert fake_ollama.wait_until(lambda: fake_ollama.disconnects == 1)


def test_stop_ends_hangs_and_closes_kept_alive_connections(fake_ollama):
    with httpx.Client(base_url=fake_ollama.host) as kept_alive:
        assert kept_alive.get("/api/version").is_success
        fake_ollama.fail_next("/api/tags", "hang")
        errors = []

        def wait_for_tags() -> None:
            try:
                httpx.get(f"{fake_ollama.host}/api/tags")
            except httpx.HTTPError as exc:
                errors.append(exc)

        waiter = threading.Thread(target=wait_for_tags)
        waiter.start()
        assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 1)
        fake_ollama.stop()
        waiter.join(30)
        assert errors and not waiter.is_alive()
        with pytest.raises(httpx.ConnectError):
            kept_alive.get("/api/version")


def test_a_restarted_server_keeps_its_port(fake_ollama):
    host = fake_ollama.host
    fake_ollama.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{host}/api/version")
    assert fake_ollama.start() == host
    assert httpx.get(f"{host}/api/version").is_success


def test_a_client_that_leaves_a_slow_stream_is_noticed(fake_ollama):
    fake_ollama.script(Reply(content="word " * 50, delay=0.05))
    with httpx.stream(
        "POST", f"{fake_ollama.host}/api/chat", json={"model": CHAT, "messages": HELLO}
    ) as r:
        next(r.iter_lines())
    assert fake_ollama.wait_until(lambda: fake_ollama.disconnects == 1)


def test_unknown_failure_kinds_are_refused():
    with pytest.raises(ValueError, match="unknown failure kind"):
        Reply(fail="explode")
    with pytest.raises(ValueError, match="unknown failure kind"):
        FakeOllama(default_models=False).fail_next("/api/chat", "explode")


def test_running_it_as_a_module_serves_until_interrupted():
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fake_ollama",
            "--port",
            "0",
            "--models",
            "tiny:1b",
            "all-minilm",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    try:
        host = re.search(r"http://\S+", process.stdout.readline())[0]
        models = [m["name"] for m in httpx.get(f"{host}/api/tags").json()["models"]]
        assert models == ["tiny:1b", "all-minilm:latest"]
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 0
        process.stdout.close()


def test_its_own_port_is_one_the_kernel_gives_no_outgoing_connection(fake_ollama):
    # Or a connection could take it while the server is down, and a restart fail.
    port = int(fake_ollama.host.rsplit(":", 1)[1])
    assert 10_000 <= port < ports.ephemeral_start()


def test_a_port_found_taken_is_passed_over(monkeypatch):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        picks = iter([busy, 0])  # the one taken, then any free one
        monkeypatch.setattr(ports.random, "randrange", lambda low, high: next(picks))
        monkeypatch.setattr(ports, "ephemeral_start", lambda: 65_000)
        with FakeOllama() as server:
            assert not server.host.endswith(f":{busy}")
            assert httpx.get(f"{server.host}/api/version").is_success
