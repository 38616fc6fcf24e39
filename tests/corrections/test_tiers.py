"""Cross-tier consistency after a correction: the fact, the episode and core memory's line
do not disagree about what holds now."""

from __future__ import annotations

from tests.fake_ollama import Reply
from tests.sleep.helpers import chat, episode, episodes, fact, facts, sleep


def _system(fake) -> str:
    return [r.body for r in fake.requests if r.path == "/api/chat"][-1]["messages"][0]["content"]


def _lived_in_porto(engine, fake_ollama, clock):
    engine.memory.core.set(
        engine.memory.profile.id, "human", "Name: Ana. Lives in Porto.", actor="user"
    )
    _, said = chat(engine, clock.now(), "I live in Porto, by the river.", "Lovely city.")
    clock.advance(days=1)
    fake_ollama.script(
        episodes(episode(said[0].id, said[1].id, "Home talk. The user lives in Porto.")),
        facts(fact("The user lives in Porto", [said[0].id])),
    )
    assert sleep(engine).status == "done"
    clock.advance(days=1)
    engine.background.embed_pending()


def test_a_correction_marks_core_memorys_line_and_proposes_its_replacement(
    engine, fake_ollama, clock
):
    _lived_in_porto(engine, fake_ollama, clock)
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="Welcome to Lisbon."))

    list(engine.send(session.id, "I moved to Lisbon, I live in Lisbon now."))

    core = _system(fake_ollama).split("<human>")[1].split("</human>")[0]
    today = f"{clock.now().astimezone():%Y-%m-%d}"
    assert f'Lives in Porto. [outdated since {today}: now "I moved to Lisbon' in core
    proposals = engine.admin.review.core_queue()
    assert [(p.proposal.old_content, p.proposal.content) for p in proposals] == [
        ("Lives in Porto.", "I moved to Lisbon, I live in Lisbon now.")
    ]
    engine.admin.review.approve_core(proposals[0].proposal.id)
    block = engine.memory.core.block(engine.memory.profile.id, "human").value
    assert block == "Name: Ana. I moved to Lisbon, I live in Lisbon now."


def test_after_a_correction_the_old_episode_is_recalled_as_past(engine, fake_ollama, clock):
    _lived_in_porto(engine, fake_ollama, clock)
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="Welcome to Lisbon."))
    list(engine.send(session.id, "I moved to Lisbon, I live in Lisbon now."))
    engine.background.embed_pending()

    found = engine.memory.recall("is home Porto or Lisbon?", limit=10)

    active = engine.admin.facts.list(status="active")
    assert [f.statement for f in active] == ["I moved to Lisbon, I live in Lisbon now."]
    told = {m.kind: m for m in found if "Porto" in m.text}
    assert "past: corrected" in told["episode"].source
    current = [m for m in found if "past" not in m.source]
    assert "Lisbon" in current[0].text
