"""One word per state: what a fact action says, its status, its history and the CLI agree,
and an action that changes nothing logs nothing."""

from __future__ import annotations

import pytest

from assistant.cli import main
from tests.admin.helpers import seed


@pytest.fixture
def seeded(engine, tmp_path, fake_ollama, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    return seed(engine, tmp_path)


def _run(capsys, *argv: str) -> str:
    assert main(["memory", *argv]) == 0
    return capsys.readouterr().out


def test_a_repeated_pin_changes_nothing_and_logs_nothing(engine, admin, seeded):
    admin.facts.pin(seeded.pasta.id)
    logged = len(admin.history.changes(limit=100))

    again = admin.facts.pin(seeded.pasta.id)

    assert again.pinned
    assert len(admin.history.changes(limit=100)) == logged
    admin.facts.pin(seeded.moved.id, False)  # never pinned: nothing to unpin
    assert len(admin.history.changes(limit=100)) == logged


def test_reject_and_expire_use_the_word_of_the_state_everywhere(engine, admin, seeded, capsys):
    out = _run(capsys, "wrong", str(seeded.pasta.id))
    assert out.startswith("Rejected:") and " rejected " in out
    assert admin.history.changes(limit=1)[0].action == "reject"
    out = _run(capsys, "outdated", str(seeded.moved.id))
    assert out.startswith("Expired:") and " expired " in out
    assert admin.history.changes(limit=1)[0].action == "expire"
    logged = len(admin.history.changes(limit=100))

    assert _run(capsys, "wrong", str(seeded.pasta.id)).startswith("Already rejected:")
    assert _run(capsys, "outdated", str(seeded.moved.id)).startswith("Already expired:")
    _run(capsys, "pin", str(seeded.sister.id))
    assert _run(capsys, "pin", str(seeded.sister.id)).startswith("Already pinned:")
    assert len(admin.history.changes(limit=100)) == logged + 1  # the first pin only
