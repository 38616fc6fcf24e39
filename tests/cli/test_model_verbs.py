"""`hippo model use` checks a name with Ollama before saving it; `model list` sizes read well."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from assistant.config import load_config


def _saved() -> tuple[str, str]:
    models = load_config().models
    return models.chat, models.embedding


def test_an_unknown_chat_model_is_refused_with_close_names_and_nothing_saved(ollama_up, capsys):
    before = _saved()
    assert main(["model", "use", "--chat", "qwen3:1.8b"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("hippo: Ollama at http://127.0.0.1:")
    assert "has no model 'qwen3:1.8b'. Did you mean 'qwen3:1.7b'?" in err
    assert "Pull it with `hippo model pull qwen3:1.8b`." in err
    assert "add --force" in err and "Nothing was saved." in err
    assert "Traceback" not in err
    assert _saved() == before


def test_the_old_spelling_refuses_a_nonexistent_model_too(ollama_up, capsys):
    assert main(["models", "use", "--chat", "nonexistent-model"]) == 1
    err = capsys.readouterr().err
    assert "has no model 'nonexistent-model'." in err and "Did you mean" not in err
    assert "`hippo model pull nonexistent-model`" in err


def test_a_chat_model_is_refused_as_the_embedding_model_even_with_force(ollama_up, capsys):
    ollama_up.add_model("tiny-chat", capabilities=("completion",))
    before = _saved()
    for force in ([], ["--force"]):
        assert main(["model", "use", "--embedding", "tiny-chat", *force]) == 1
        err = capsys.readouterr().err
        assert "'tiny-chat' can't be the embedding model" in err
        assert "all-minilm, embeddinggemma" in err and "Nothing was saved." in err
        assert "--force" not in err  # forcing would not help
    assert _saved() == before


def test_an_embedding_model_is_refused_as_the_chat_model(ollama_up, capsys):
    assert main(["model", "use", "--chat", "all-minilm"]) == 1
    assert "'all-minilm' can't be the chat model" in capsys.readouterr().err


def test_both_problems_are_told_at_once(ollama_up, capsys):
    assert main(["model", "use", "--chat", "ghost", "--embedding", "qwen3:1.7b"]) == 1
    err = capsys.readouterr().err
    assert "no model 'ghost'" in err and "'qwen3:1.7b' can't be the embedding model" in err


def test_installed_able_models_are_saved(ollama_up, capsys):
    assert main(["model", "use", "--chat", "qwen3:1.7b", "--embedding", "all-minilm"]) == 0
    assert "chat: qwen3:1.7b  embedding: all-minilm  (saved to" in capsys.readouterr().out
    assert _saved() == ("qwen3:1.7b", "all-minilm")


def test_a_name_ollama_lacks_is_saved_with_force_and_said_so(ollama_up, capsys):
    assert main(["model", "use", "--chat", "llama3.2", "--force"]) == 0
    out, err = capsys.readouterr()
    assert "chat: llama3.2" in out
    assert "saved anyway (--force)" in err and "`hippo model pull llama3.2`" in err
    assert _saved()[0] == "llama3.2"


def test_with_ollama_away_a_name_is_not_saved_unless_forced(ollama_up, capsys):
    ollama_up.stop()
    before = _saved()
    assert main(["model", "use", "--chat", "qwen3:1.7b"]) == 1
    err = capsys.readouterr().err
    assert "Could not check 'qwen3:1.7b' (the chat model): Can't reach Ollama" in err
    assert "add --force to save without checking" in err and "Nothing was saved." in err
    assert _saved() == before
    assert main(["model", "use", "--chat", "qwen3:1.7b", "--force"]) == 0
    assert "saved anyway (--force): Could not check" in capsys.readouterr().err
    assert _saved()[0] == "qwen3:1.7b"


@pytest.mark.parametrize("args", [["--chat", ""], ["--embedding", "  "], []])
def test_an_empty_name_or_none_is_refused(ollama_up, capsys, args):
    assert main(["model", "use", *args]) == 1
    assert capsys.readouterr().err.startswith("hippo: ")


def test_the_listing_shows_small_models_in_mb_and_large_ones_in_gb(ollama_up, capsys):
    assert main(["model", "list"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "46.0 MB" in lines["all-minilm:latest"]
    assert "621.9 MB" in lines["embeddinggemma:latest"]
    assert "1.4 GB" in lines["qwen3:1.7b"] and "*chat" in lines["qwen3:1.7b"]
    assert main(["model", "list", "--json"]) == 0
    sizes = {row["name"]: row["size"] for row in json.loads(capsys.readouterr().out)}
    assert sizes["all-minilm:latest"] == 45_960_996  # bytes, for scripts


def test_a_missing_chat_model_at_ask_points_to_the_cli_pull(ollama_up, capsys):
    ollama_up.remove_model("qwen3:1.7b")
    assert main(["ask", "hello"]) == 1
    failed = next(line for line in capsys.readouterr().err.splitlines() if "qwen3" in line)
    assert "Model 'qwen3:1.7b' is not installed on Ollama" in failed
    assert "`hippo model pull qwen3:1.7b`" in failed and "F2" not in failed
