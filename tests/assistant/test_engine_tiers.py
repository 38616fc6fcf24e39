"""One recall call over every tier: messages, documents, events, episodes."""

from __future__ import annotations

from datetime import timedelta

from assistant.cli import main


def test_recall_reaches_documents_events_and_messages(engine, fake_ollama, tmp_path):
    notes = tmp_path / "trip.md"
    notes.write_text("# Trip\n\nFlights to Lisbon on May 3.\n\n## Hotel\n\nAlfama guesthouse.\n")
    engine.intake.ingest(notes)
    engine.intake.log_event("booked a taxi to the Lisbon airport", source="phone")
    session = engine.conversations.new_session()
    engine.memory.messages.add_message(session.id, "user", "I am nervous about flying to Lisbon")
    engine.background.embed_pending()
    kinds = {m.kind for m in engine.memory.recall("Lisbon", limit=10)}
    assert kinds == {"chunk", "event", "message"}


def test_every_recalled_memory_carries_its_score_breakdown(engine, fake_ollama):
    engine.intake.log_event("ran 5k in the park")
    engine.background.embed_pending()
    (memory,) = engine.memory.recall("park run")
    assert memory.source == "event from cli"
    assert 0 < memory.relevance <= 1 and 0 < memory.recency <= 1
    assert memory.score > memory.relevance  # recency and importance add to it


def test_nothing_is_recalled_when_nothing_is_relevant(engine, fake_ollama):
    session = engine.conversations.new_session()
    engine.memory.messages.add_message(session.id, "user", "my cat is called Miso")
    engine.background.embed_pending()
    assert engine.memory.recall("quarterly tax deadline") == []


def test_expired_events_are_never_recalled(engine, fake_ollama, clock):
    engine.intake.log_event("the oven is preheating", ttl=timedelta(hours=1))
    assert [m.kind for m in engine.memory.recall("oven")] == ["event"]
    clock.advance(hours=2)
    assert engine.memory.recall("oven") == []


def test_episodes_written_directly_are_recalled(engine, fake_ollama, clock):
    now = clock.now()
    engine.memory.episodes.add(
        engine.memory.profile.id,
        summary="Planned the garden: tomatoes and basil",
        started_at=now - timedelta(hours=1),
        ended_at=now,
        importance=6,
    )
    (memory,) = engine.memory.recall("what did we plant in the garden?")
    assert memory.kind == "episode" and "tomatoes" in memory.text


def test_recency_decays_by_099_per_hour(engine, fake_ollama, clock):
    engine.intake.log_event("watered the ferns", ttl=timedelta(days=30))
    clock.advance(hours=10)
    (memory,) = engine.memory.recall("ferns watered")
    assert abs(memory.recency - 0.99**10) < 1e-6


def test_hippo_log_and_ingest_from_the_command_line(monkeypatch, fake_ollama, tmp_path, capsys):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    assert main(["log", "finished a 5k run"]) == 0
    assert "Logged event 1 (cli" in capsys.readouterr().out
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n\nThe wifi password is in the red notebook.\n")
    assert main(["ingest", str(doc)]) == 0
    assert main(["ingest", str(doc)]) == 0
    out = capsys.readouterr().out
    assert "added" in out and "unchanged" in out
    assert main(["recall", "wifi password"]) == 0
    assert "red notebook" in capsys.readouterr().out


def test_hippo_log_json_keeps_good_lines_and_reports_bad_ones(monkeypatch, capsys):
    import io

    monkeypatch.setattr(
        "sys.stdin", io.StringIO('{"text": "slept 7h", "source": "watch"}\n{oops\n')
    )
    assert main(["log", "--json"]) == 1
    captured = capsys.readouterr()
    assert "Logged 1 event(s)." in captured.out
    assert "line 2" in captured.err
