"""Chat-side memory: /remember, /profile, /help, incognito chats, and the review count."""

from __future__ import annotations

import pytest

from assistant.errors import HippoError
from tests.ui.helpers import (
    chat_ready,
    messages_shown,
    notified,
    sees,
    send,
    send_command,
    wait_until,
)
from ui import HippoApp

SIZE = (100, 30)


async def test_remember_saves_your_words_and_a_fact_citing_them(seeded, config):
    engine, _ = seeded
    before = engine.memory.facts.count(engine.memory.profile.id, "active")
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        pending = engine.admin.review.pending_count()
        await wait_until(pilot, lambda: app.chat.status.review == pending, what="the count")
        assert f"{pending} to review (F4)" in str(app.chat.status.render())
        await send_command(pilot, "/remember I prefer [window] seats")
        await wait_until(pilot, lambda: notified(app, "Remembered: I prefer [window] seats"))
        (shown,) = messages_shown(app)
        assert shown.content == "I prefer [window] seats"
    session_id = app.chat.session_id
    app = HippoApp(engine, config)  # the chat again, as a later start shows it
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await app.chat.open_session(session_id)
        await sees(pilot, "You · /remember", "I prefer [window] seats")  # not a bare "You"
    (fact,) = engine.admin.facts.list(query="window seats")
    assert (fact.status, fact.source_kind) == ("active", "user_stated")
    assert fact.evidence[0].ref_id == shown.message_id
    assert engine.memory.facts.count(engine.memory.profile.id, "active") == before + 1


async def test_remember_on_a_full_disk_keeps_neither_the_words_nor_a_fact(seeded, config):
    from tests.disk import disk_full

    engine, _ = seeded
    before = engine.memory.facts.count(engine.memory.profile.id, "active")
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        with disk_full(engine):
            await send_command(pilot, "/remember " + "my locker code is 4471. " * 300)
            await wait_until(pilot, lambda: notified(app, "MB free), so nothing more can be saved"))
        assert app.is_running and messages_shown(app) == []
    assert engine.memory.facts.count(engine.memory.profile.id, "active") == before
    assert engine.admin.browse.search_messages("locker code") == []


async def test_profile_help_and_unknown_commands_answer_in_a_notice(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send_command(pilot, "/profile work")
        await wait_until(pilot, lambda: notified(app, "hippo --profile work"))
        await send_command(pilot, "/frobnicate now")
        await wait_until(pilot, lambda: notified(app, "There is no command /frobnicate"))
        await send(pilot, "//etc/hosts is a file")
        assert messages_shown(app)[0].content == "/etc/hosts is a file"


async def test_a_scoped_chat_keeps_its_scope_and_a_bad_name_changes_nothing(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send_command(pilot, "/scope my work")
        await wait_until(pilot, lambda: notified(app, "is not a scope name"))
        assert app.chat.scope == ""
        await send_command(pilot, "/scope Work")
        await wait_until(pilot, lambda: app.chat.status.scope == "work")
        assert "scope work" in str(app.chat.status.render())
        await send(pilot, "the quarterly report is due Friday")
        assert engine.conversations.session(app.chat.session_id).scope == "work"
        assert app.chat.sub_title.startswith("work · ")
        await send_command(pilot, "/scope")
        await wait_until(pilot, lambda: notified(app, "This chat's scope: work."))
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.chat.scope == "" and app.chat.status.scope == "")


async def test_an_incognito_chat_is_deleted_when_you_leave_it(engine, config, fake_ollama):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send_command(pilot, "/incognito")
        await wait_until(pilot, lambda: app.chat.incognito and app.chat.status.incognito)
        await send(pilot, "my secret plan")
        session_id = app.chat.session_id
        assert engine.conversations.session(session_id).incognito
        assert app.chat.sub_title.startswith("Incognito")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: notified(app, "The incognito chat was deleted."))
        assert not app.chat.incognito
    with pytest.raises(HippoError):
        engine.conversations.session(session_id)
    assert engine.admin.forget.preview("secret plan").empty


async def test_the_palette_opens_a_memory_tab_and_offers_memory_only_over_the_chat(
    engine, config, fake_ollama
):
    from ui.screens.inspector import InspectorScreen

    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await pilot.press("ctrl+p", *"Memory: Review", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        inspector = app.screen
        assert inspector.initial_tab == "review"
        assert list(app.memory.palette(inspector)) == []  # no inspector over the inspector
        assert [title for title, *_ in app.memory.palette(app.chat)][-1] == "Profiles"


async def test_the_palette_offers_no_memory_before_the_data_file_is_open(config, clock):
    import threading

    from tests.ui.conftest import make_engine

    # Ollama is up (the fake): without it the onboarding screen would be mounting as
    # the test ends, which is not what it is about.
    release = threading.Event()

    def opening():
        release.wait(30)  # the data file is still opening
        return make_engine(config, clock)

    app = HippoApp(opening, config)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.chat.is_mounted)
            assert list(app.memory.palette(app.chat)) == []
            release.set()
            await wait_until(pilot, lambda: app.chat.ready, what="the engine")
            assert list(app.memory.palette(app.chat))
    finally:
        release.set()
        if app.opened is not None:
            app.opened.close()
