"""`hippo doctor` tells what a weak model left undone: given-up sessions, no memory tools."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from assistant.cli import main
from assistant.config import load_config, save_config
from assistant.factory import open_engine
from tests.fake_ollama import Reply
from tests.sleep.helpers import chat


def test_doctor_reports_sessions_sleep_gave_up_on(fake_ollama, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    engine = open_engine(load_config())
    chat(engine, datetime.now(UTC) - timedelta(days=2), "I am allergic to penicillin.", "Noted.")
    engine.close()
    for _ in range(3):
        fake_ollama.script(*[Reply(content="I cannot do that.")] * 4)
        assert main(["sleep", "--now"]) == 1
    capsys.readouterr()

    assert main(["doctor"]) == 1

    out = capsys.readouterr().out
    assert "No problems found" not in out
    assert "1 session never summarised" in out
    assert "1 session never had their facts extracted" in out
    assert "Sleep gave up on conversations" in out and "hippo model use --chat" in out


def test_doctor_says_when_the_chat_model_cannot_use_tools(fake_ollama, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    fake_ollama.add_model("smollm2:135m", capabilities=("completion",), context_length=8192)
    save_config(load_config().with_models(chat="smollm2:135m"))

    main(["doctor"])

    out = capsys.readouterr().out
    assert "memory tools" in out and "smollm2:135m cannot use tools" in out


def test_doctor_says_nothing_of_tools_for_a_model_that_has_them(fake_ollama, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    assert main(["doctor"]) == 0
    assert "memory tools" not in capsys.readouterr().out
