"""Sleep takes a session once it is over; says why it left one; retries a given-up one."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import pytest

from assistant.cli import main
from assistant.config import load_config
from assistant.factory import open_engine
from tests.fake_ollama import Reply
from tests.sleep.helpers import chat, episode, episodes, fact, facts, sleep


@pytest.fixture
def ollama_up(fake_ollama, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    return fake_ollama


def test_sleep_now_right_after_an_ask_takes_its_session(ollama_up, capsys):
    ollama_up.script(Reply(content="Lovely."))
    assert main(["ask", "I play the oboe on Sundays."]) == 0
    ollama_up.script(episodes(episode(1, 2, "Oboe.")), facts(fact("The user plays the oboe", [1])))
    capsys.readouterr()
    assert main(["sleep", "--now"]) == 0
    out = capsys.readouterr().out
    assert "1 episodes from 1 sessions" in out and "Left for later" not in out


def test_a_session_still_open_is_left_and_the_reason_said(ollama_up, capsys):
    engine = open_engine(load_config())
    try:
        chat(engine, datetime.now(UTC), "I am planning a trip to Oslo.", "Nice.")
    finally:
        engine.close()
    assert main(["sleep", "--now"]) == 0
    out = capsys.readouterr().out
    assert "0 episodes from 0 sessions" in out
    assert "session 1 is still open (last message" in out
    assert "once its app closes, or after 30 idle minutes" in out


def test_a_session_left_for_another_in_the_engine_is_over(engine, clock):
    session, _ = chat(engine, clock.now(), "I am learning Portuguese.", "Boa sorte!")
    assert sleep(engine).count("sessions_summarised") == 0  # still open
    engine.conversations.end_session(session.id)
    assert sleep(engine).llm_calls > 0


def test_a_given_up_session_is_named_and_retried_on_request(ollama_up, capsys):
    ollama_up.script(Reply(content="Lovely."))
    assert main(["ask", "I play the oboe on Sundays."]) == 0
    for _ in range(3):
        ollama_up.script(Reply(content="nope"), Reply(content="nope"))  # a try and a retry
        main(["sleep", "--now"])
    out = capsys.readouterr().out
    assert "sleep gave up summarising it after 3 failed runs" in out
    assert "`hippo sleep run --retry` tries again" in out

    ollama_up.script(episodes(episode(1, 2, "Oboe.")), facts(fact("The user plays the oboe", [1])))
    assert main(["sleep", "--retry"]) == 0
    out = capsys.readouterr().out
    assert "1 session given up before is tried again; in all, 1 session is due now." in out
    assert "1 episodes from 1 sessions" in out and "gave up" not in out


def test_retry_says_how_many_sessions_the_run_takes_in_all(ollama_up, capsys):
    engine = open_engine(load_config())
    try:
        for n in range(3):  # three sessions over, none given up
            chat(engine, datetime(2026, 1, 1 + n, tzinfo=UTC), f"I moved to city {n}.", "Ok.")
    finally:
        engine.close()
    ollama_up.script(
        *[episodes(episode(2 * n + 1, 2 * n + 2, f"Moved to city {n}.")) for n in range(3)]
    )
    assert main(["sleep", "--retry"]) == 0
    out = capsys.readouterr().out
    assert "No session was given up; 3 sessions are due now." in out
    assert "3 episodes from 3 sessions" in out


@pytest.mark.heavy  # install-timer runs the timer's command once (~1.5 s of CPU)
@pytest.mark.skipif(sys.platform != "linux", reason="writes the systemd units on Linux")
def test_the_timer_runs_this_hippo_on_this_file_host_and_config(tmp_path, monkeypatch, capsys):
    import keyring
    from keyring.backends import fail

    monkeypatch.setattr(keyring, "get_keyring", fail.Keyring)  # the key goes to the key file
    monkeypatch.delenv("HIPPO_DB_KEY")  # the timer would not have it
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("OLLAMA_HOST", "http://10.0.0.5:11434")
    data = tmp_path / "my data"
    assert main(["--data-dir", str(data), "sleep", "--install-timer"]) == 0
    service = (tmp_path / "xdg" / "systemd" / "user" / "hippo-sleep.service").read_text()
    assert not (tmp_path / ".config").exists()
    assert f"ExecStart={sys.executable} -m assistant.cli --data-dir " in service
    assert f'"{data}" sleep --now' in service
    assert "Environment=OLLAMA_HOST=http://10.0.0.5:11434" in service
    assert "HIPPO_CONFIG_DIR=" in service  # the test's settings folder, carried over
    assert "systemctl --user enable --now hippo-sleep.timer" in capsys.readouterr().out
