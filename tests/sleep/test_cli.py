"""``hippo sleep``: --now, --dry-run, --install-timer, a progress bar on a terminal."""

from __future__ import annotations

import io
import sys
from datetime import UTC, datetime, timedelta

import pytest

from assistant.cli import build_parser, main
from assistant.cli.sleep import ProgressBar
from assistant.config import load_config
from assistant.factory import open_engine
from assistant.sleep.report import Progress
from tests.sleep.helpers import chat, episode, episodes, fact, facts


@pytest.fixture
def week_ago(fake_ollama, monkeypatch):
    """A conversation two days ago (real time: the CLI runs on the system clock)."""
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    engine = open_engine(load_config())
    _, said = chat(engine, datetime.now(UTC) - timedelta(days=2), "I play the oboe.", "Lovely.")
    engine.close()
    fake_ollama.script(
        episodes(episode(said[0].id, said[1].id, "Oboe.")),
        facts(fact("The user plays the oboe", [said[0].id])),
    )
    return said


def test_help_lists_the_sleep_command():
    assert "    sleep " in build_parser().format_help()


def test_sleep_now_consolidates_and_says_what_it_did(week_ago, capsys):
    assert main(["sleep", "--now"]) == 0
    out = capsys.readouterr().out
    assert "Sleep done: 1 episodes from 1 sessions" in out and "Backup: " in out
    engine = open_engine(load_config())
    try:
        assert (
            engine.memory.facts.list(engine.memory.profile.id)[0].statement
            == "The user plays the oboe"
        )
    finally:
        engine.close()


def test_a_dry_run_lists_the_proposals_and_writes_nothing(week_ago, capsys):
    assert main(["sleep", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "Would propose 1 new facts" in out and "The user plays the oboe" in out
    engine = open_engine(load_config())
    try:
        assert engine.memory.facts.count(engine.memory.profile.id) == 0
    finally:
        engine.close()


def test_sleep_without_now_runs_only_when_a_night_is_due(week_ago, capsys):
    assert main(["sleep"]) == 0  # never ran: due
    assert main(["sleep"]) == 0
    assert "Nothing is due" in capsys.readouterr().out


@pytest.fixture
def key_in_a_moved_config(tmp_path, monkeypatch):
    """A config folder found through XDG_CONFIG_HOME alone, holding the key file."""
    import keyring
    from keyring.backends import fail

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("HIPPO_CONFIG_DIR")
    monkeypatch.delenv("HIPPO_DB_KEY")
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # no keyring: the key goes to the key file
    assert main(["event", "add", "The timer must find this file's key."]) == 0
    yield tmp_path / "xdg" / "hippo"
    keyring.set_keyring(previous)


@pytest.mark.heavy  # runs the timer's command once (a Python start, ~1.5 s of CPU)
@pytest.mark.skipif(sys.platform != "linux", reason="writes the systemd units on Linux")
def test_install_timer_keeps_a_moved_config_folder_and_runs_once_as_systemd_would(
    key_in_a_moved_config, tmp_path, capsys
):
    config_dir = key_in_a_moved_config
    assert (config_dir / "data-file.key").exists()
    capsys.readouterr()
    assert main(["sleep", "install-timer"]) == 0
    units = tmp_path / "xdg" / "systemd" / "user"
    assert "OnCalendar=*-*-* 03:00:00" in (units / "hippo-sleep.timer").read_text()
    service = (units / "hippo-sleep.service").read_text()
    assert "sleep --now" in service
    assert f"Environment=HIPPO_CONFIG_DIR={config_dir}" in service
    out = capsys.readouterr().out
    assert "Installed: its command ran once as the timer will run it, and went through" in out
    assert "systemctl --user enable --now hippo-sleep.timer" in out


@pytest.mark.heavy  # runs the timer's command once (a Python start, ~1.5 s of CPU)
@pytest.mark.skipif(sys.platform != "linux", reason="writes the systemd units on Linux")
def test_install_timer_refuses_a_key_the_timer_would_not_have(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert main(["event", "add", "Keyed by HIPPO_DB_KEY alone."]) == 0
    capsys.readouterr()
    assert main(["sleep", "install-timer"]) == 1
    err = capsys.readouterr().err
    assert "The nightly timer was not installed" in err and "its key is missing" in err
    assert "Traceback" not in err
    assert not list((tmp_path / "home").rglob("hippo-sleep.*"))


def test_the_progress_bar_redraws_one_line():
    out = io.StringIO()
    bar = ProgressBar(out)
    bar(Progress("episodes", 1, 4))
    bar(Progress("episodes", 4, 4))
    bar.finish()
    assert out.getvalue().count("\r") == 2 and "[########################] 4/4" in out.getvalue()
