"""`hippo ask` never hangs: a hung or stalling Ollama ends with a message that names it.

The waits are set short in config.toml, as a user would set them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.config import load_config
from assistant.factory import open_engine
from tests.fake_ollama import Reply


@pytest.fixture
def short_waits(fake_ollama, monkeypatch):
    """Hippo pointed at the fake, with waits of a fraction of a second."""
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    folder = Path(os.environ["HIPPO_CONFIG_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        "[ollama]\nconnect_timeout = 0.3\nload_timeout = 0.6\nstall_timeout = 0.4\n"
    )
    return fake_ollama


def _stored() -> list[tuple[str, str]]:
    """The roles and statuses of the last session's messages."""
    engine = open_engine(load_config())
    try:
        session = engine.conversations.last_session()
        assert session is not None
        return [(m.role, m.status) for m in engine.conversations.history(session.id)]
    finally:
        engine.close()


def test_ask_a_server_that_never_answers_ends_with_a_message_naming_the_host(short_waits, capsys):
    short_waits.fall_silent()
    assert main(["ask", "are you there?"]) == 1
    err = capsys.readouterr().err
    assert f"hippo: Ollama at {short_waits.host}" in err
    assert "did not answer within" in err and "ollama serve" in err
    assert "Traceback" not in err
    short_waits.answer_again()
    assert _stored() == [("user", "complete")]  # the message kept; no empty reply stored


def test_ask_with_a_known_embedding_model_waits_long_once_not_per_request(short_waits, capsys):
    assert main(["ask", "my bike is a green Brompton"]) == 0  # its vectors now exist
    short_waits.fall_silent()
    assert main(["ask", "what colour is my bike?"]) == 1
    err = capsys.readouterr().err
    # The first request waited its whole limit, a version check the short one; nothing
    # more was sent.
    assert re.search(
        r"did not answer within 0.[46] s, nor a check that it is alive within 0.3 s", err
    )
    assert f"Ollama at {short_waits.host}" in err


def test_ask_a_reply_that_stalls_mid_way_keeps_what_came_and_says_so(short_waits, capsys):
    short_waits.script(Reply(content="The first words, then", chunk_size=5, stall_after=2,
                             stall=600))  # fmt: skip
    assert main(["ask", "tell me"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("The first")
    assert "stopped sending the reply: nothing came for 0.4 s" in captured.err
    assert short_waits.wait_until(lambda: short_waits.disconnects == 1)
