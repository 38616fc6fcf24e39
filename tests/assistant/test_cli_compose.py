"""The `hippo` command in pipes and scripts: stdin, stdout for results, JSON listings."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from assistant.cli import main
from assistant.config import load_config
from assistant.factory import open_engine
from tests.fake_ollama import Reply


@pytest.fixture
def ollama_up(fake_ollama, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    return fake_ollama


def _stdin(monkeypatch, text: str) -> None:
    """A pipe on stdin (not a terminal) holding ``text``."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode()), "utf-8"))


def _stored() -> list[tuple[str, str, str]]:
    """(role, status, content) of every stored message, oldest first."""
    engine = open_engine(load_config())
    try:
        return [
            (m.role, m.status, m.content)
            for s in reversed(engine.conversations.sessions())
            for m in engine.conversations.history(s.id)
        ]
    finally:
        engine.close()


def test_ask_dash_reads_the_message_from_stdin(ollama_up, monkeypatch, capsys):
    ollama_up.script(Reply(content="Tea it is."))
    _stdin(monkeypatch, "I like tea\r\n\n")
    assert main(["ask", "-"]) == 0
    assert capsys.readouterr().out == "Tea it is.\n"
    assert _stored()[0] == ("user", "complete", "I like tea")  # the pipe's end is not said


def test_ask_reads_a_pipe_of_a_megabyte_that_no_argument_could_carry(ollama_up, monkeypatch):
    big = "".join(f"line {n}: the quarterly numbers look fine\n" for n in range(26_000))
    assert len(big.encode()) > 1_000_000
    _stdin(monkeypatch, big)
    ollama_up.script(Reply(content="Read it all."))
    assert main(["ask"]) == 0
    assert _stored()[0][2] == big.removesuffix("\n")


def test_ask_without_text_on_a_terminal_says_how_to_give_it(monkeypatch, capsys):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    assert main(["ask"]) == 1
    assert "pipe it in" in capsys.readouterr().err


def test_ask_refuses_stdin_that_is_not_utf8(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"caf\xe9"), "utf-8"))
    assert main(["ask", "-"]) == 1
    assert "not UTF-8" in capsys.readouterr().err
    assert not load_config().db_path.exists()


def test_an_empty_ask_fails_and_leaves_no_untitled_session(ollama_up, capsys):
    assert main(["ask", "  "]) == 1
    assert "empty" in capsys.readouterr().err
    assert main(["sessions", "--json"]) == 0
    assert capsys.readouterr().out == "[]\n"


def test_a_failed_ask_keeps_the_question_but_no_empty_reply_and_prints_no_blank_line(capsys):
    assert main(["ask", "hello"]) == 1  # nothing listens on the configured Ollama port
    out, err = capsys.readouterr()
    assert out == "" and "ollama serve" in err
    assert _stored() == [("user", "complete", "hello")]


def test_a_reply_that_fails_half_way_keeps_what_came_on_its_own_line(ollama_up, capsys):
    ollama_up.script(Reply(content="Half of a long reply that is cut", fail="drop"))
    assert main(["ask", "tell me"]) == 1
    out, err = capsys.readouterr()
    assert out.endswith("\n") and "hippo:" in err


def test_hippo_with_a_pipe_and_no_terminal_answers_like_ask(ollama_up, monkeypatch, capsys):
    from ui.app import HippoApp

    def no_app(app):
        raise AssertionError("the full-screen app started without a terminal")

    monkeypatch.setattr(HippoApp, "run", no_app)
    ollama_up.script(Reply(content="Hi there."))
    _stdin(monkeypatch, "hi\n")
    assert main([]) == 0
    assert capsys.readouterr().out == "Hi there.\n"


def test_hippo_into_a_file_from_a_terminal_says_what_to_do(monkeypatch, capsys):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    assert main([]) == 1
    err = capsys.readouterr().err
    assert "needs a terminal" in err and "stdout" in err and "hippo ask" in err


def test_echo_into_hippo_into_a_file_writes_only_the_reply(ollama_up, tmp_path):
    ollama_up.script(Reply(content="Plain text."))
    out = tmp_path / "out"
    with out.open("w") as sink:
        done = subprocess.run(
            [sys.executable, "-m", "assistant.cli"],
            input="hi\n",
            stdout=sink,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env=os.environ.copy(),
        )
    assert done.returncode == 0, done.stderr
    assert out.read_text() == "Plain text.\n"


def test_an_ask_ends_its_session_for_sleep(ollama_up):
    assert main(["ask", "I play the oboe"]) == 0
    engine = open_engine(load_config())
    try:
        (ended,) = engine.memory.db.conn.execute("SELECT ended_at FROM sessions").fetchone()
    finally:
        engine.close()
    assert ended is not None


LISTINGS = (
    ["session", "list"],
    ["message", "search", "Brompton"],
    ["memory", "recall", "Brompton"],
    ["model", "list"],
    ["profile", "list"],
    ["fact", "list"],
    ["review", "list"],
    ["history", "list"],
    ["episode", "list"],
    ["event", "list"],
    ["document", "list"],
    ["core", "list", "-n", "1"],
    ["backup", "list"],
    ["db", "vectors", "list"],
)


def _steady(items: list[dict]) -> list[dict]:
    """The items without what moves with the clock between two runs (recall's recency)."""
    return [{k: v for k, v in item.items() if k not in {"recency", "score"}} for item in items]


def test_every_listing_prints_one_json_array_or_json_lines(ollama_up, capsys):
    assert main(["ask", "my bike is a green Brompton"]) == 0
    assert main(["fact", "add", "My bike is a green Brompton"]) == 0
    assert main(["embed"]) == 0
    capsys.readouterr()
    for command in LISTINGS:
        assert main([*command, "--json"]) == 0, command
        whole = json.loads(capsys.readouterr().out)  # one document, as json.tool reads it
        assert main([*command, "--jsonl"]) == 0, command
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert isinstance(whole, list) and _steady(whole) == _steady(lines), command
    assert main(["core", "list", "-n", "1", "--json"]) == 0
    assert [block["label"] for block in json.loads(capsys.readouterr().out)] == ["human"]


def test_json_and_jsonl_together_are_refused(ollama_up, capsys):
    assert main(["fact", "list", "--json", "--jsonl"]) == 1
    assert "not allowed with" in capsys.readouterr().err


def test_listings_print_json_lines(ollama_up, capsys):
    assert main(["ask", "my bike is a green Brompton"]) == 0
    assert main(["embed"]) == 0
    capsys.readouterr()
    listed = {}
    for command in (
        ["sessions", "--json"],
        ["search", "Brompton", "--json"],
        ["recall", "Brompton", "--json"],
        ["models", "--json"],
        ["profile", "list", "--json"],
    ):
        assert main(command) == 0, command
        out, _ = capsys.readouterr()
        listed[command[0]] = json.loads(out)
        assert listed[command[0]], command
    assert listed["sessions"][0]["messages"] == 2
    assert "Brompton" in listed["search"][0]["content"]
    assert any(m["name"] == "qwen3:1.7b" and "chat" in m["used_for"] for m in listed["models"])
    assert listed["profile"][0]["name"] == "default"


def test_notices_go_to_stderr_and_results_to_stdout(ollama_up, capsys):
    main(["ask", "my bike is a green Brompton"])
    ollama_up.new_weights("embeddinggemma")
    capsys.readouterr()
    assert main(["embed"]) == 0
    out, err = capsys.readouterr()
    assert "new weights" in err and "new weights" not in out
    assert out.startswith("Embedded ")


def test_a_keyword_hit_has_the_words_in_the_message_itself(ollama_up, capsys):
    ollama_up.script(Reply(content="Get well soon."), Reply(content="Yum."))
    assert main(["ask", "I was in hospital last week"]) == 0
    assert main(["--continue", "ask", "My favourite food is ramen"]) == 0
    assert main(["embed"]) == 0
    capsys.readouterr()
    assert main(["search", "hospital", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["content"] == "I was in hospital last week" and hits[0]["keyword"] == 1.0
    for hit in hits[1:]:  # the turns next to it come by meaning at most, never as keywords
        assert hit["keyword"] == 0.0, hit


def test_continue_resumes_the_last_chat_never_a_fact_add(ollama_up, capsys):
    ollama_up.script(Reply(content="Noted."), Reply(content="You said you cycle."))
    assert main(["ask", "I cycle to work"]) == 0
    assert main(["fact", "add", "My passport expires in March"]) == 0
    assert main(["--continue", "ask", "What did I say?"]) == 0
    capsys.readouterr()
    assert main(["session", "list", "--json"]) == 0
    by_messages = sorted(s["messages"] for s in json.loads(capsys.readouterr().out))
    assert by_messages == [1, 4]  # the fact's own session, and the chat that went on
