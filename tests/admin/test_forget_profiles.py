"""Forget works in the profile in use and says so; --all-profiles forgets it in every one."""

from __future__ import annotations

import pytest

from assistant.cli import main
from assistant.sleep.backup import backup_database
from tests.admin.helpers import file_bytes, seed


def _as(engine, name):
    engine.memory.profile = engine.memory.messages.profile(name)
    return engine.admin


@pytest.fixture
def two_profiles(engine, tmp_path, fake_ollama, monkeypatch):
    """The default and the work profile both mention Zalando (messages, facts, core, ...)."""
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    for name in ("work", "default"):
        (tmp_path / name).mkdir()
        _as(engine, name)
        seed(engine, tmp_path / name)
    engine.background.embed_pending()
    return engine


def test_the_preview_says_which_profile_and_what_others_still_hold(two_profiles):
    preview = two_profiles.admin.forget.preview("Zalando")
    assert preview.profiles == ("default",) and preview.where == "in profile 'default'"
    assert set(preview.elsewhere) == {"work"} and preview.elsewhere["work"] > 0


def test_a_one_profile_forget_leaves_the_other_and_the_receipt_says_so(two_profiles):
    receipt = two_profiles.admin.forget.text("Zalando")
    text = receipt.text()
    assert "in profile 'default'" in text
    assert "Other profiles were left as they are and still mention it: 'work'" in text
    assert "--all-profiles" in text
    assert b"zalando" in file_bytes(two_profiles).lower()
    assert _as(two_profiles, "work").forget.preview("Zalando").total > 0


def test_all_profiles_forgets_it_everywhere_and_scrubs_the_bytes(two_profiles):
    nightly = backup_database(
        two_profiles.memory.db.conn, two_profiles.memory.db.path, two_profiles.clock.now()
    )
    preview = two_profiles.admin.forget.preview("Zalando", all_profiles=True)
    assert set(preview.profiles) == {"work", "default"}
    assert preview.elsewhere == {}

    receipt = two_profiles.admin.forget.text("Zalando", all_profiles=True)

    assert "in every profile" in receipt.text() and "Other profiles" not in receipt.text()
    assert b"zalando" not in file_bytes(two_profiles).lower()
    assert b"zalando" not in nightly.read_bytes().lower()
    assert b"carbonara" in file_bytes(two_profiles).lower()
    for name in ("work", "default"):
        assert _as(two_profiles, name).forget.preview("Zalando").empty


def test_the_cli_preview_and_receipt_name_the_profile(two_profiles, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    assert main(["memory", "forget", "Zalando"]) == 1
    out = capsys.readouterr().out
    assert "Forgetting 'Zalando' in profile 'default' would remove" in out
    assert "still mention it: 'work'" in out and "add --all-profiles" in out

    assert main(["memory", "forget", "Zalando", "--yes", "--all-profiles"]) == 0
    out = capsys.readouterr().out
    assert "Forgot everything mentioning 'Zalando' in every profile" in out
    assert b"zalando" not in file_bytes(two_profiles).lower()


def test_nothing_here_but_something_elsewhere_is_said(two_profiles, capsys):
    assert (
        main(["--profile", "empty", "--create-profile", "memory", "forget", "Zalando", "--yes"])
        == 0
    )
    out = capsys.readouterr().out
    assert "Nothing mentions 'Zalando' in profile 'empty'." in out
    assert "'work'" in out and "'default'" in out and "--all-profiles" in out
