"""The real server speaks Ollama's protocol with what the models really produce."""

from __future__ import annotations

import math
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from assistant.llm.gateway import OllamaGateway
from assistant.llm.values import Done, TextDelta
from tests.real_ollama.models import PATIENT
from tests.real_ollama.server import CHAT_MODEL, EMBEDDING_MODEL

pytestmark = [pytest.mark.realmodel, pytest.mark.timeout(600)]

USER = [{"role": "user", "content": "Say hello to Anna in one short sentence."}]


def test_it_lists_and_shows_both_models_with_their_true_capabilities(real_ollama):
    gateway = OllamaGateway(real_ollama.host, **PATIENT)
    assert gateway.probe()
    models = {m.name: m for m in gateway.list_models()}
    chat, embed = models[CHAT_MODEL], models[EMBEDDING_MODEL]
    assert chat.capabilities == {"completion", "tools"} and chat.context_length == 4096
    assert embed.capabilities == {"embedding"} and embed.embedding_length == 384


def test_show_and_tags_report_the_ggufs_own_metadata(real_ollama):
    import httpx

    shown = httpx.post(f"{real_ollama.host}/api/show", json={"model": CHAT_MODEL}).json()
    listed = httpx.get(f"{real_ollama.host}/api/tags").json()["models"]
    tagged = next(m for m in listed if m["name"] == CHAT_MODEL)
    for details in (shown["details"], tagged["details"]):
        assert (details["family"], details["parameter_size"]) == ("llama", "134.52M")
        assert details["quantization_level"] == "Q4_1"
    info = shown["model_info"]
    assert (info["general.basename"], info["llama.block_count"]) == ("smollm2", 30)
    assert info["general.parameter_count"] == 134_515_008
    assert info["llama.context_length"] == 4096  # the window loaded (the file says 8192)
    assert "<|im_start|>" in shown["template"]  # the GGUF's own chat template


def test_a_reply_streams_in_many_parts(real_ollama):
    events = list(OllamaGateway(real_ollama.host, **PATIENT).chat(CHAT_MODEL, USER))
    text = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(text) > 1 and "".join(text).strip()
    assert isinstance(events[-1], Done) and events[-1].completion_tokens > 0


class _Greeting(BaseModel):
    name: Annotated[str, Field(max_length=20)]
    mood: Literal["happy", "sad"]
    ids: Annotated[list[Literal[3, 7]], Field(max_length=3)]


def test_a_json_schema_in_format_is_followed(real_ollama):
    # As Ollama's structured-output docs do: the model's schema as format, then validation.
    gateway = OllamaGateway(real_ollama.host, **PATIENT)
    result = gateway.chat_once(CHAT_MODEL, USER, format=_Greeting.model_json_schema())
    _Greeting.model_validate_json(result.content)


def test_thinking_is_refused_as_ollama_refuses_it_for_this_model(real_ollama):
    from assistant.errors import OllamaError

    with pytest.raises(OllamaError):
        OllamaGateway(real_ollama.host, **PATIENT).chat_once(CHAT_MODEL, USER, think=True)


def test_embeddings_read_meaning_across_languages(real_ollama):
    gateway = OllamaGateway(real_ollama.host, **PATIENT)
    cat, chinese_cat, market = gateway.embed(
        EMBEDDING_MODEL, ["I love my cat.", "我爱我的猫。", "The stock market fell sharply."]
    )
    assert len(cat) == 384 and math.isclose(sum(x * x for x in cat), 1.0, rel_tol=1e-3)
    cosine = lambda a, b: sum(x * y for x, y in zip(a, b, strict=True))  # noqa: E731
    assert cosine(cat, chinese_cat) > cosine(cat, market)


def test_ps_lists_the_models_that_were_used(real_ollama):
    gateway = OllamaGateway(real_ollama.host, **PATIENT)
    gateway.embed(EMBEDDING_MODEL, ["hello"])
    listed = gateway._client().ps()
    assert EMBEDDING_MODEL in {m.model for m in listed.models}


def test_an_emulated_thinking_model_thinks_before_it_answers():
    from assistant.llm.values import ThinkingDelta
    from tests.real_ollama.models import missing
    from tests.real_ollama.server import RealOllama

    if missing():
        pytest.skip(missing())
    with RealOllama(max_tokens=96, thinking=True) as server:
        gateway = OllamaGateway(server.host, **PATIENT)
        assert "thinking" in gateway.show(CHAT_MODEL).capabilities
        events = list(gateway.chat(CHAT_MODEL, USER, think=True))
    thought = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    assert thought.strip() and "<think>" not in thought and isinstance(events[-1], Done)
    # Stopped, it freed the weights: a Llama left to the collector is freed at exit, after
    # llama_cpp's module is torn down, and printed a TypeError traceback under the benches.
    assert not server.chat_model.loaded
