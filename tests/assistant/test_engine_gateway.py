"""The engine changes its Ollama gateway in one place: the old one closed, nothing left on it."""

from __future__ import annotations

from assistant.engine import Hippo
from assistant.llm.gateway import OllamaGateway
from tests.conftest import CHAT_MODEL, EMBEDDING_MODEL


class ClosingGateway(OllamaGateway):
    """A gateway that remembers being closed."""

    closed = False

    def close(self) -> None:
        self.closed = True
        super().close()


def test_a_token_given_later_reaches_every_request_and_the_old_gateway_is_closed(
    tmp_path, fake_ollama, clock
):
    old = ClosingGateway(fake_ollama.host)
    engine = Hippo(
        tmp_path / "hippo.db",
        old,
        chat_model=CHAT_MODEL,
        embedding_model=EMBEDDING_MODEL,
        clock=clock,
    )
    try:
        engine.memory.recall("what do I like to drink")  # the reading probe is built on `old`
        fake_ollama.require_token("secret")
        seen = len(fake_ollama.requests)

        engine.host.use_token("secret")
        engine.memory.recall("我喜欢喝什么")  # a new script: the reading probe embeds again

        after = fake_ollama.requests[seen:]
        assert old.closed
        assert engine.host.gateway is not old and engine.host.ollama_host == fake_ollama.host
        assert any(r.path == "/api/embed" for r in after)
        assert all(r.headers.get("authorization") == "Bearer secret" for r in after)
    finally:
        engine.close()
