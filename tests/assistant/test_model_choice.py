"""A model is checked before it is chosen: installed, and able to do its slot's job."""

from __future__ import annotations

from assistant.llm.gateway import OllamaGateway
from assistant.model_choice import check_models, close_names


def _cli_pull(name: str) -> str:
    return f"Pull it with `hippo model pull {name}`."


def test_an_installed_model_able_to_do_its_job_passes(fake_ollama):
    with OllamaGateway(fake_ollama.host) as llm:
        problems = check_models(llm, {"chat": "qwen3:1.7b", "embedding": "all-minilm:latest"})
    assert problems == []


def test_an_unknown_name_is_refused_with_close_names_and_how_to_pull_it(fake_ollama):
    with OllamaGateway(fake_ollama.host) as llm:
        (problem,) = check_models(llm, {"chat": "qwen3:1.8b"})
    assert problem.kind == "unknown"
    assert problem.close == ("qwen3:1.7b",)
    text = problem.text(_cli_pull)
    assert "has no model 'qwen3:1.8b'" in text
    assert "Did you mean 'qwen3:1.7b'?" in text
    assert text.endswith("Pull it with `hippo model pull qwen3:1.8b`.")


def test_a_chat_model_is_refused_for_the_embedding_slot_and_able_ones_named(fake_ollama):
    fake_ollama.add_model("tiny-chat", capabilities=("completion", "tools"))
    with OllamaGateway(fake_ollama.host) as llm:
        (problem,) = check_models(llm, {"embedding": "tiny-chat"})
    assert problem.kind == "unable"
    assert not problem.forcible
    text = problem.text(_cli_pull)
    assert "'tiny-chat' can't be the embedding model" in text
    assert "embed text (embedding)" in text
    assert "all-minilm, embeddinggemma" in text


def test_an_embedding_model_is_refused_for_the_chat_slot(fake_ollama):
    with OllamaGateway(fake_ollama.host) as llm:
        (problem,) = check_models(llm, {"chat": "embeddinggemma"})
    assert problem.kind == "unable"
    assert "must generate text (completion)" in problem.text(_cli_pull)
    assert problem.able == ("qwen3:1.7b",)


def test_when_no_installed_model_can_do_the_job_one_to_pull_is_named(fake_ollama):
    fake_ollama.remove_model("embeddinggemma")
    fake_ollama.remove_model("all-minilm")
    with OllamaGateway(fake_ollama.host) as llm:
        (problem,) = check_models(llm, {"embedding": "qwen3:1.7b"})
    assert "None installed can; embeddinggemma does." in problem.text(_cli_pull)
    assert "`hippo model pull embeddinggemma`" in problem.text(_cli_pull)


def test_a_model_whose_capabilities_ollama_does_not_report_is_taken_on_trust(fake_ollama):
    fake_ollama.add_model("old-style", capabilities=())
    with OllamaGateway(fake_ollama.host) as llm:
        assert check_models(llm, {"chat": "old-style", "embedding": "old-style"}) == []


def test_every_choice_is_unchecked_when_ollama_is_down(fake_ollama):
    host = fake_ollama.host
    fake_ollama.stop()
    with OllamaGateway(host, connect_timeout=2) as llm:
        problems = check_models(llm, {"chat": "qwen3:1.7b", "embedding": "ghost"})
    assert [(p.slot, p.kind, p.forcible) for p in problems] == [
        ("chat", "unchecked", True),
        ("embedding", "unchecked", True),
    ]
    assert "Could not check 'ghost' (the embedding model): Can't reach Ollama" in (
        problems[1].text(_cli_pull)
    )


def test_close_names_put_the_same_family_first_and_ignore_case():
    installed = ["qwen3:1.7b", "qwen2.5:0.5b", "llama3.2:1b", "embeddinggemma:latest"]
    assert close_names("qwen3", installed)[0] == "qwen3:1.7b"
    assert close_names("EmbeddingGema", installed) == ("embeddinggemma",)
    assert close_names("nonexistent-model", installed) == ()


def test_a_typo_in_the_family_finds_the_tagged_model():
    installed = ["qwen3:1.7b", "embeddinggemma:latest", "all-minilm:latest"]
    assert close_names("qwn3", installed) == ("qwen3:1.7b",)
    assert close_names("qwen3:1.7", installed)[0] == "qwen3:1.7b"
