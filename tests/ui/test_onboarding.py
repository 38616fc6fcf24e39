"""Without Ollama the app explains what to do, never quits, and carries on once it's up."""

from __future__ import annotations

from assistant.config import Config
from assistant.settings import OllamaSettings
from tests.fake_ollama import FakeOllama
from tests.ui.conftest import make_engine
from tests.ui.helpers import chat_ready, messages_shown, sees, send, wait_until
from ui import HippoApp
from ui.screens import OnboardingScreen

SIZE = (100, 30)


async def test_ollama_down_shows_onboarding_then_retry_reaches_a_usable_chat(tmp_path, clock):
    server = FakeOllama()
    host = server.start()
    server.stop()  # the port is kept; nothing listens on it now
    config = Config(
        data_dir=tmp_path / "data", config_dir=tmp_path / "cfg", ollama=OllamaSettings(host=host)
    )
    engine = make_engine(config, clock)
    app = HippoApp(engine, config)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, OnboardingScreen))
            await sees(pilot, f"Host tried: {host}", "https://ollama.com/download", "ollama serve")
            assert app.chat.status.reachable is False

            await pilot.press("r")  # still down: the screen stays, and says so
            await sees(pilot, "Still no answer")
            assert isinstance(app.screen, OnboardingScreen)

            server.start()  # no need to press Retry: the status line notices, and checks again
            await chat_ready(pilot)
            await send(pilot, "finally")
            assert messages_shown(app)[1].content == "You said: finally"
    finally:
        server.stop()
        engine.close()


async def test_onboarding_names_the_host_from_ollama_host(tmp_path, clock):
    # tests/conftest.py sets OLLAMA_HOST to port 9, where nothing listens.
    config = Config(data_dir=tmp_path / "data", config_dir=tmp_path / "cfg")
    engine = make_engine(config, clock)
    app = HippoApp(engine, config)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, OnboardingScreen))
            await sees(pilot, "Host tried: http://127.0.0.1:9")
    finally:
        engine.close()


async def test_a_host_that_wants_a_token_is_explained_on_the_onboarding_screen(
    engine, config, fake_ollama
):
    fake_ollama.require_token("secret")
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, OnboardingScreen))
        await sees(pilot, "Ollama answered, but Hippo can't use it yet.", "hippo token set")


async def test_a_token_typed_on_the_onboarding_screen_is_used_and_the_chat_opens(
    engine, config, fake_ollama
):
    from ui.screens import ChatScreen

    fake_ollama.require_token("secret")
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, OnboardingScreen))
        await wait_until(pilot, lambda: app.focused is app.screen.query_one("#token"))
        for key in "secret":
            await pilot.press(key)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat")
    assert engine.host.gateway.probe()  # the engine now talks with the token


async def test_quitting_as_the_onboarding_screen_mounts_is_not_an_error(tmp_path, clock):
    """The app quits (ctrl+q, or the test ends) while the screen is still mounting: its
    focus must not look up a widget already taken down (it raised NoMatches)."""
    from assistant.errors import OllamaUnreachable

    config = Config(data_dir=tmp_path / "data", config_dir=tmp_path / "cfg")
    engine = make_engine(config, clock)
    app = HippoApp(engine, config)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.chat.is_mounted)
            app.push_screen(OnboardingScreen(engine, OllamaUnreachable("down")))
            app.exit()  # in the same tick as the screen is pushed
        assert app.return_code in (0, None)
    finally:
        engine.close()
