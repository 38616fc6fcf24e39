"""The `hippo` command line, run in-process against the fake Ollama."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from assistant.cli import build_parser, main
from assistant.config import load_config
from data_schema.migrations import MIGRATIONS
from tests.fake_ollama import Reply


@pytest.fixture
def ollama_up(fake_ollama, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    return fake_ollama


def test_help_documents_every_command():
    text = build_parser().format_help()
    for command in (
        "chat", "ask", "fact", "review", "history", "session", "message", "episode", "event",
        "document", "core", "memory", "backup", "db", "profile", "sleep", "model", "token",
        "doctor",
    ):  # fmt: skip
        assert f"    {command} " in text
    assert "HIPPO_DATA_DIR" in text and "OLLAMA_HOST" in text


def test_the_installed_command_shows_help():
    out = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "usage: hippo" in out.stdout


def test_path_prints_the_data_file_under_the_data_dir_flag(tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path / "x"), "path"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "x" / "hippo.db")


def test_doctor_reports_everything_and_passes_when_all_is_well(ollama_up, capsys):
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    for label in ("data file", "schema", "sqlite-vec", "Ollama host", "reachable", "chat model"):
        assert label in out
    assert MIGRATIONS[-1].__name__ in out and ollama_up.host in out and "No problems found." in out


def test_doctor_says_which_scripts_the_embedding_model_reads(ollama_up, capsys):
    assert main(["doctor"]) == 0
    # The fake model's bag of words finds no paraphrase that shares no word.
    assert re.search(
        r"^it reads +English \(Latin script\): no; Chinese: no; searches in English"
        r" \(Latin script\) and Chinese match words, not meaning$",
        capsys.readouterr().out,
        re.MULTILINE,
    )
    from assistant.memory.script_probe import PARAPHRASES

    pair = {s: i for pairs in PARAPHRASES.values() for i, pair in enumerate(pairs) for s in pair}

    def reads_english(text: str) -> list[float]:
        """Each English sentence next to its paraphrase; Chinese ones all in one place."""
        return [1.0 if d == pair.get(text) and text.isascii() else 0.1 for d in range(8)]

    ollama_up.embed_as("embeddinggemma", reads_english)
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "English (Latin script): yes; Chinese: no; searches in Chinese match words" in out


def test_doctor_fails_with_one_line_per_problem_when_ollama_is_down(capsys):
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"^reachable +no$", out, re.MULTILINE)
    assert "1 problem(s):" in out
    assert "http://127.0.0.1:9" in out and "ollama serve" in out


def test_doctor_names_a_missing_model_and_how_to_get_it(ollama_up, capsys):
    ollama_up.remove_model("embeddinggemma")
    assert main(["doctor"]) == 1
    assert "`hippo model pull embeddinggemma`" in capsys.readouterr().out


def test_ask_streams_the_reply_and_keeps_the_conversation(ollama_up, capsys):
    ollama_up.script(Reply(content="Noted: you like tea."))
    assert main(["ask", "I like tea"]) == 0
    assert "Noted: you like tea." in capsys.readouterr().out
    assert main(["sessions"]) == 0
    assert "I like tea" in capsys.readouterr().out


def test_ask_says_on_stderr_that_a_reply_was_cut_at_the_length_limit(ollama_up, capsys):
    ollama_up.script(Reply(content="Here are the steps: 1. Open the", done_reason="length"))
    assert main(["ask", "How do I repot a fern?"]) == 0
    out, err = capsys.readouterr()
    assert out == "Here are the steps: 1. Open the\n"
    assert "cut at the model's length limit" in err and 'hippo ask -c "continue"' in err
    ollama_up.script(Reply(content="Whole."))
    assert main(["ask", "-c", "continue"]) == 0
    assert "cut" not in capsys.readouterr().err


def test_scope_starts_a_scoped_session_and_a_bad_name_is_refused(ollama_up, capsys):
    assert main(["--scope", "my work", "ask", "hello"]) == 1
    assert "not a scope name" in capsys.readouterr().err
    assert main(["--scope", "work", "ask", "the quarterly report is due Friday"]) == 0
    from assistant.factory import open_engine

    engine = open_engine(load_config())
    try:
        (session,) = engine.conversations.sessions()
        assert session.scope == "work"
    finally:
        engine.close()
    capsys.readouterr()
    assert main(["sessions"]) == 0
    assert f"{session.id:>6}" in (listed := capsys.readouterr().out) and "[work] " in listed


def test_ask_warns_when_the_message_is_longer_than_the_model_reads(ollama_up, capsys):
    # ~12,750 tokens: half again the 8,192 the model is given (more only costs time).
    ollama_up.script(Reply(content="Read it."))  # the fake's echo: 12,000 chunks of 4 chars
    assert main(["ask", "a pasted report, " * 3_000]) == 0
    assert "more than the 8,192 the model is given" in capsys.readouterr().err


def test_ask_with_ollama_down_exits_non_zero_with_advice(capsys):
    assert main(["ask", "hello"]) == 1
    assert "ollama serve" in capsys.readouterr().err


def test_search_prints_hits_with_their_scores(ollama_up, capsys):
    main(["ask", "my bike is a green Brompton"])
    capsys.readouterr()
    assert main(["search", "Brompton"]) == 0
    out = capsys.readouterr().out
    assert "green Brompton" in out and "kw 1.00" in out


def test_search_and_recall_say_when_similarities_do_not_count(ollama_up, capsys):
    main(["ask", "我的护照三月到期"])
    assert main(["embed"]) == 0
    capsys.readouterr()
    # The fake model's bag of words does not read Chinese, as the probe finds out.
    for command in ("search", "recall"):
        assert main([command, "护照什么时候到期"]) == 0
        out, err = capsys.readouterr()
        assert "does not read this query's script" in err and "护照三月到期" in out


def test_a_full_disk_ends_a_command_with_advice_not_a_traceback(ollama_up, capsys):
    import apsw

    from data_schema.connect import connect
    from tests.disk import cap_file

    assert main(["ask", "hello"]) == 0
    conn = connect(load_config().db_path)
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    conn.close()

    def full(conn: apsw.Connection) -> None:
        conn.execute(f"PRAGMA max_page_count = {pages}")

    apsw.connection_hooks.append(full)
    try:
        assert main(["ask", "my whole diary " * 400]) == 1
        assert main(["ingest", str(_diary(load_config().data_dir))]) == 1
    finally:
        apsw.connection_hooks.remove(full)
        cap_file(1 << 30)
    err = capsys.readouterr().err
    assert err.count("MB free), so nothing more can be saved. Free some space") == 2
    assert "Traceback" not in err


def _diary(folder):
    path = folder / "diary.md"
    path.write_text("# Garden\n\n" + "Tomatoes and basil. " * 2000)
    return path


def test_embed_says_when_new_weights_make_it_embed_everything_again(ollama_up, capsys):
    main(["ask", "my bike is a green Brompton"])
    assert main(["embed"]) == 0
    assert "Embedded 0 message(s); 0 still waiting." in capsys.readouterr().out
    ollama_up.new_weights("embeddinggemma")  # `ollama pull` found an update since
    assert main(["embed"]) == 0
    out, err = capsys.readouterr()
    assert "new weights for the embedding model embeddinggemma:latest" in err
    assert "Embedded 2 message(s); 0 still waiting." in out


def test_models_lists_capabilities_and_use_saves_the_choice(ollama_up, capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "qwen3:1.7b" in out and "tools" in out and "embedding" in out
    assert main(["models", "use", "--embedding", "all-minilm"]) == 0
    capsys.readouterr()
    main(["models"])
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("all-minilm"))
    assert "*embedding" in line


def test_pull_shows_progress_and_installs_the_model(ollama_up, capsys):
    ollama_up.pull_plan("llama3.2", layers=[3_000_000, 1_000])
    assert main(["pull", "llama3.2"]) == 0
    out = capsys.readouterr().out
    assert "100.0%" in out and "llama3.2 is ready." in out


def test_an_unknown_model_pull_fails_clearly(ollama_up, capsys):
    assert main(["pull", "no-such-model"]) == 1
    assert capsys.readouterr().err.startswith("hippo: ")


def test_token_status_says_where_the_token_comes_from(monkeypatch, capsys):
    monkeypatch.setenv("HIPPO_OLLAMA_TOKEN", "abc")
    assert main(["token", "status"]) == 0
    assert "token: environment" in capsys.readouterr().out


def test_doctor_reports_tiers_that_disagree(ollama_up, capsys):
    from assistant.config import load_config
    from data_schema.connect import connect

    assert main(["doctor"]) == 0
    assert "consistency" in capsys.readouterr().out
    conn = connect(load_config().db_path)
    conn.execute("INSERT INTO profiles(name, created_at) VALUES ('p', 'x')")
    conn.execute(
        "INSERT INTO facts(profile_id, statement, source_kind, learned_at)"
        " VALUES (1, 'orphan', 'user_stated', 'x')"
    )
    conn.close()
    assert main(["doctor"]) == 1
    assert "1 facts without evidence" in capsys.readouterr().out


def test_a_message_typed_before_the_file_failed_to_open_is_given_back(monkeypatch, capsys):
    from assistant.errors import StorageError
    from ui.app import HippoApp

    def run(app):  # what the app leaves when its data file fails to open
        app.chat._queued = "my words, typed at once"
        app.open_error = StorageError("hippo.db is not a readable Hippo database.")

    monkeypatch.setattr(HippoApp, "run", run)
    _a_terminal(monkeypatch)
    assert main([]) == 1
    err = capsys.readouterr().err
    assert "not sent, as the data file did not open: my words, typed at once" in err
    assert "is not a readable Hippo database" in err


def test_log_loads_only_what_logging_needs_and_never_asks_ollama(ollama_up, tmp_path):
    # Scripts call `hippo log` in loops: the chat, search and summary modules, the Ollama
    # client and the TOML parser (no config.toml here) stay unloaded, and Ollama unasked.
    code = (
        "import sys; from assistant.cli import main; rc = main(['log', 'ran 5k']);"
        "heavy = ('assistant.turns', 'assistant.chat', 'assistant.memory.search',"
        " 'assistant.memory.summary', 'assistant.memory.working', 'assistant.memory.usage',"
        " 'ollama', 'httpx', 'tomllib', 'textual');"
        "print(rc, sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "0 []"
    assert ollama_up.requests == []


def _a_terminal(monkeypatch):
    """Stdin and stdout claim to be a terminal, as in a shell."""
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
