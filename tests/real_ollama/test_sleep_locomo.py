"""`hippo sleep run --now` with a real small model over the first sessions of a LoCoMo dialogue.

Invariants only, never the model's text: the run completes and accounts for every model
call and every malformed answer; every stored fact cites evidence that exists in its
profile and supports it by the validator's rules; nothing the trust rules keep pending is
active; a second run proposes nothing already proposed or rejected.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from assistant.cli import main
from assistant.config import load_config, save_config
from assistant.factory import open_engine
from assistant.memory.facts import looks_like_instruction
from assistant.sleep import SleepSettings
from assistant.sleep.evidence import fingerprint, normal_statement, supports
from assistant.sleep.trust import is_strong
from bench.locomo_data import DEFAULT_DATA, load, write_sessions
from tests.real_ollama.models import PATIENT
from tests.real_ollama.server import CHAT_MODEL, EMBEDDING_MODEL

pytestmark = [pytest.mark.realmodel, pytest.mark.timeout(1800)]

SESSIONS = 2  # the first sessions of the first dev conversation: ~35 turns, real dates


@pytest.fixture
def locomo_home(real_ollama, monkeypatch):
    if not DEFAULT_DATA.is_file():
        pytest.skip(f"LoCoMo dev data not found at {DEFAULT_DATA}")
    monkeypatch.setenv("OLLAMA_HOST", real_ollama.host)
    config = load_config().with_models(chat=CHAT_MODEL, embedding=EMBEDDING_MODEL)
    save_config(replace(config, ollama=replace(config.ollama, **PATIENT)))
    engine = open_engine(load_config())
    try:
        write_sessions(engine, load(DEFAULT_DATA)[0].sessions[:SESSIONS])
    finally:
        engine.close()
    return real_ollama


def _chat_calls(server) -> int:
    return sum(1 for r in server.requests if r.path == "/api/chat")


def _sleep_now(server, capsys):
    before = _chat_calls(server)
    status = main(["sleep", "--now"])
    out = capsys.readouterr().out
    engine = open_engine(load_config())
    report = engine.sleep.last_report()
    assert report is not None, out
    return status, out, report, _chat_calls(server) - before, engine


def _check_run_record(status, out, report, calls):
    assert report.status in ("done", "failed"), out
    assert status == (0 if report.status == "done" else 1)
    if report.status == "failed":
        assert "nothing was consolidated" in out
    counts = report.counts
    assert report.llm_calls == calls  # every request the server answered is on record
    steps = ("episodes", "extract", "update", "reflect")
    assert sum(counts[f"llm_calls_{s}"] for s in steps) == calls
    answers = counts["clean_answers"] + counts["repaired_answers"] + counts["malformed_answers"]
    assert answers == calls  # each answer counted once: clean, repaired or malformed


def _check_facts(engine):
    pid = engine.memory.profile.id
    for fact in engine.memory.facts.list(pid, limit=1000):
        assert fact.evidence, fact
        cited_ids = [e.ref_id for e in fact.evidence if e.kind == "message"]
        cited = engine.memory.messages.messages_by_id(cited_ids, pid)
        assert sorted(cited) == sorted(cited_ids), f"evidence outside the profile: {fact}"
        for e in fact.evidence:
            if e.kind == "episode":
                assert engine.memory.episodes.get(e.ref_id).profile_id == pid
        if cited:
            assert supports(fact.statement, [m.content for m in cited.values()]), fact
        if fact.status == "active":  # only the user's own clear, confident words
            assert fact.source_kind == "user_stated", fact
            assert not looks_like_instruction(fact.statement), fact
            assert fact.confidence >= SleepSettings().auto_activate_confidence, fact
            assert is_strong(fact.statement, "user_stated", list(cited.values())), fact


def _known(engine):
    pid = engine.memory.profile.id
    facts = engine.memory.facts.list(pid, limit=1000)
    rejected = {
        row[0]
        for row in engine.memory.db.conn.execute(
            "SELECT fingerprint FROM sleep_rejections WHERE profile_id = ?", (pid,)
        )
    }
    return (
        {normal_statement(f.statement) for f in facts},
        rejected,
        max((f.id for f in facts), default=0),
    )


def test_sleep_now_over_locomo_sessions_keeps_every_invariant(locomo_home, capsys):
    status, out, report, calls, engine = _sleep_now(locomo_home, capsys)
    try:
        print(report.summary())  # what the tiny model did, for the run's log
        _check_run_record(status, out, report, calls)
        _check_facts(engine)
        statements, rejected, last_id = _known(engine)
    finally:
        engine.close()

    status, out, second, calls, engine = _sleep_now(locomo_home, capsys)
    try:
        print(second.summary())
        _check_run_record(status, out, second, calls)
        _check_facts(engine)
        for proposal in second.proposals:
            if proposal.kind not in ("fact", "reflection") or proposal.fact_id <= last_id:
                continue
            fact = engine.memory.facts.get(proposal.fact_id)
            assert normal_statement(fact.statement) not in statements, fact
            assert fingerprint(fact.statement, fact.evidence) not in rejected, fact
    finally:
        engine.close()
