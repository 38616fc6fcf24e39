"""The app encrypts an old plaintext file behind the chat, with its progress shown, and
what it has to say about the file waits in the chat."""

from __future__ import annotations

import keyring
from keyring.backends import fail
from textual.widgets import Static

from assistant.factory import open_engine
from data_schema.cipher import file_state
from tests.encryption.helpers import plaintext_file
from tests.ui.helpers import chat_ready, notified, sees, wait_until
from ui import HippoApp

SIZE = (100, 30)


class WatchedApp(HippoApp):
    """The app, recording what its status line said while the file was encrypted."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.busy_shown: list[str] = []

    def on_hippo_app_upgrading(self, message: HippoApp.Upgrading) -> None:
        super().on_hippo_app_upgrading(message)
        self.busy_shown.append(self.chat.status.busy)


async def test_an_old_file_is_encrypted_with_progress_in_the_status_line(config, fake_ollama):
    plaintext_file(config.db_path)
    app = WatchedApp(lambda: open_engine(config), config)
    try:
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await wait_until(pilot, lambda: app.chat.ready, what="the engine")
            await chat_ready(pilot)
            await sees(pilot, "Your data file is now encrypted")  # a note in the chat
            assert any(s.startswith("Encrypting the data file: ") for s in app.busy_shown)
            assert app.busy_shown[-1] == "" and app.chat.status.busy == ""  # gone when done
    finally:
        if app.opened is not None:
            app.opened.close()
    assert file_state(config.db_path) == "encrypted"


async def test_a_long_notice_waits_in_the_chat_instead_of_covering_the_screen(
    config, fake_ollama, monkeypatch
):
    monkeypatch.delenv("HIPPO_DB_KEY")  # and no keyring: the key goes to a file, with a warning
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    app = HippoApp(lambda: open_engine(config), config)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await chat_ready(pilot)
            await wait_until(pilot, lambda: notified(app, "a note in the chat"))
            note = app.chat.query_one(".note", Static)
            assert "No keyring backend" in str(note.render())
            posted = app.__dict__["_notices_posted"]
            assert max(map(len, posted)) <= 120, posted  # every toast is short
    finally:
        keyring.set_keyring(previous)
        if app.opened is not None:
            app.opened.close()
