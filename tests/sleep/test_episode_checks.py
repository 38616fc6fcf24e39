"""Episodes are checked against the messages they span, and must cover their session."""

from __future__ import annotations

from tests.sleep.helpers import chat, day, episode, episodes, facts, sleep

# What the user said to SmolLM2 by hand, and the episode it made of it.
ASKS = (
    "My name is Ana.",
    "Nice to meet you, Ana.",
    "I work as a nurse.",
    "Noted.",
    "I moved to Lisbon.",
    "Lisbon is lovely.",
)
INVENTED = "I am Alessandro and I love you! We both go to the beach every year and swim together."


def _marks(engine, session_id):
    conn = engine.memory.db.conn
    return conn.execute(
        "SELECT upto, state FROM sleep_marks WHERE step = 'summarise' AND item_id = ?",
        (session_id,),
    ).fetchone()


def test_an_episode_its_messages_do_not_back_is_dropped_and_the_session_stays_due(
    engine, fake_ollama, clock
):
    session, said = chat(engine, day("2026-11-23"), *ASKS)
    clock.advance(days=1)
    bad = episodes(episode(said[0], said[-1], INVENTED, title="The Great Difference"))
    fake_ollama.script(bad, facts())  # a reply with nothing backed is not asked again

    report = sleep(engine)

    assert engine.memory.episodes.for_session(session.id) == []
    assert report.counts["episodes_unsupported"] == 1 and report.counts["summarise_failed"] == 1
    assert _marks(engine, session.id)[1] == "failed"  # due again next run
    good = episode(said[0], said[-1], "Ana, a nurse, moved to Lisbon.", title="Ana's move")
    fake_ollama.script(episodes(good))
    sleep(engine)
    (kept,) = engine.memory.episodes.for_session(session.id)
    assert kept.summary == "Ana, a nurse, moved to Lisbon."


def test_a_title_its_messages_do_not_back_drops_the_episode(engine, fake_ollama, clock):
    session, said = chat(engine, day("2026-11-23"), *ASKS)
    clock.advance(days=1)
    pizza = episode(said[0], said[-1], "Ana moved to Lisbon.", title="Making pizza with friends")
    fake_ollama.script(episodes(pizza), facts())
    report = sleep(engine)
    assert engine.memory.episodes.for_session(session.id) == []
    assert report.counts["episodes_unsupported"] == 1


def test_an_uncovered_stretch_is_summarised_in_a_further_call(engine, fake_ollama, clock):
    session, said = chat(engine, day("2026-11-23"), *ASKS)
    clock.advance(days=1)
    fake_ollama.script(
        episodes(episode(said[0], said[1], "Ana told her name.")),
        episodes(episode(said[2], said[5], "Ana works as a nurse and moved to Lisbon.")),
        facts(),
    )

    report = sleep(engine)

    further = [r for r in fake_ollama.requests if r.path == "/api/chat"][1]
    transcript = further.body["messages"][1]["content"]
    assert "I work as a nurse." in transcript and "My name is Ana." not in transcript
    kept = engine.memory.episodes.for_session(session.id)
    assert [e.message_ids for e in kept] == [
        tuple(m.id for m in said[:2]),
        tuple(m.id for m in said[2:]),
    ]
    assert report.counts["sessions_summarised"] == 1 and report.llm_calls == 3
    assert _marks(engine, session.id) == (said[-1].id, "done")


def test_a_session_whose_rest_stays_uncovered_is_kept_due_with_the_reason(
    engine, fake_ollama, clock
):
    session, said = chat(engine, day("2026-11-23"), *ASKS)
    clock.advance(days=1)
    start = episodes(episode(said[0], said[1], "Ana told her name."))
    fake_ollama.script(start, episodes(), episodes(), facts())  # two further calls: nothing

    report = sleep(engine)

    (kept,) = engine.memory.episodes.for_session(session.id)
    assert kept.message_ids == (said[0].id, said[1].id)
    assert _marks(engine, session.id) == (said[1].id, "done")  # the rest is still due
    assert report.counts["sessions_partly_summarised"] == 1
    assert "episodes cover only 2 of its 6 messages" in " ".join(report.errors)
    rest = episode(said[2], said[5], "Ana works as a nurse and moved to Lisbon.")
    fake_ollama.script(episodes(rest))
    sleep(engine)
    assert len(engine.memory.episodes.for_session(session.id)) == 2
    assert _marks(engine, session.id) == (said[-1].id, "done")


def test_a_closing_reply_left_out_of_the_episode_needs_no_further_call(engine, fake_ollama, clock):
    session, said = chat(engine, day("2026-11-23"), *ASKS)
    clock.advance(days=1)
    fake_ollama.script(
        episodes(episode(said[0], said[4], "Ana, a nurse, moved to Lisbon.")), facts()
    )
    report = sleep(engine)
    assert report.llm_calls == 2 and report.counts["sessions_summarised"] == 1
    assert _marks(engine, session.id) == (said[-1].id, "done")


def test_the_call_cap_keeps_what_was_covered_and_counts_no_failure(engine, fake_ollama, clock):
    session, said = chat(engine, day("2026-11-23"), *ASKS)
    clock.advance(days=1)
    fake_ollama.script(episodes(episode(said[0], said[1], "Ana told her name.")))

    report = sleep(engine, max_llm_calls=1)  # the further call is past the cap

    assert report.status == "capped" and report.counts["summarise_failed"] == 0
    assert [e.message_ids for e in engine.memory.episodes.for_session(session.id)] == [
        (said[0].id, said[1].id)
    ]
    assert _marks(engine, session.id) == (said[1].id, "done")


def test_a_session_the_cap_stops_before_any_episode_is_not_a_failed_try(engine, fake_ollama, clock):
    session, _ = chat(engine, day("2026-11-23"), *ASKS)
    clock.advance(days=1)
    report = sleep(engine, max_llm_calls=0)
    assert report.status == "capped" and report.counts["summarise_failed"] == 0
    assert _marks(engine, session.id) is None


def test_a_model_whose_summaries_nothing_backs_is_asked_once_a_run(engine, fake_ollama, clock):
    _, said = chat(engine, day("2026-11-23"), *ASKS)
    clock.advance(days=1)
    bad = episodes(episode(said[0], said[-1], INVENTED, title="The Great Difference"))
    fake_ollama.script(bad, bad, bad)
    sleep(engine)
    asked = [
        r
        for r in fake_ollama.requests
        if r.path == "/api/chat" and "episodes" in str((r.body or {}).get("format", ""))
    ]
    assert len(asked) == 1  # no further call goes on from a reply that covered nothing
