"""The issue's steps, through the command line: five 'I live in Porto', then a move to Lisbon."""

from __future__ import annotations

from datetime import datetime

from assistant.cli import main


def test_fact_add_five_times_then_a_move_leaves_lisbon_current_and_porto_past(
    engine, fake_ollama, monkeypatch, capsys
):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    for _ in range(5):
        assert main(["fact", "add", "I live in Porto"]) == 0
    assert main(["fact", "add", "I moved to Lisbon last month, I live in Lisbon now"]) == 0
    capsys.readouterr()

    assert main(["fact", "list", "--status", "active"]) == 0
    active = capsys.readouterr().out
    assert main(["memory", "recall", "where do I live"]) == 0
    recalled = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    today = f"{datetime.now().astimezone():%Y-%m-%d}"
    assert main(["history", "believed", "--as-of", today]) == 0
    believed = capsys.readouterr().out

    assert "Lisbon" in active and "Porto" not in active
    assert "Lisbon" in recalled[0]
    porto = [line for line in recalled if "Porto" in line]
    assert len(porto) == 1 and f"past: corrected {today}" in porto[0]
    assert "Lisbon" in believed and "Porto" not in believed
