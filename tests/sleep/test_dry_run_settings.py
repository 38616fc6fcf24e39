"""`hippo sleep --dry-run` previews with the engine's own settings, as the real run works.

Regression (issue 11): the dry run's twin engine was built with the default context
size, retrieval weights and budgets, so its preview could differ from the real run.
"""

from __future__ import annotations

from assistant.engine import Hippo
from assistant.llm.gateway import OllamaGateway
from assistant.memory.budget import ContextBudget
from assistant.memory.scoring import RetrievalWeights
from assistant.settings import MemorySettings, ModelSettings, Settings
from tests.sleep.helpers import chat, day, episode, episodes, facts, sleep


def test_a_dry_run_takes_a_long_session_in_the_same_parts_as_the_real_run(
    config, fake_ollama, clock
):
    small = Hippo(
        config.db_path,
        OllamaGateway(fake_ollama.host),
        chat_model=config.models.chat,
        embedding_model=config.models.embedding,
        clock=clock,
        context_tokens=512,  # a 2,048-token transcript: six of these turns per part
    )
    try:
        long_turn = "I keep a diary about my garden and its roses. " * 30  # ~350 tokens
        session, said = chat(small, day("2026-11-23"), *[long_turn] * 10)
        clock.advance(days=1)
        # The model answers as if it had read the whole session. The real run shows it
        # only the first part (its context is small), so it must refuse the episode's end.
        whole = (episodes(episode(said[0].id, said[9].id, "All of it.")), facts())
        fake_ollama.script(*whole)
        preview = sleep(small, dry_run=True)
        assert small.memory.episodes.for_session(session.id) == []  # the preview changed nothing
        fake_ollama.script(*whole)
        real = sleep(small)
        assert preview.dry_run and not real.dry_run
        assert (preview.status, preview.llm_calls, preview.counts, len(preview.errors)) == (
            real.status,
            real.llm_calls,
            real.counts,
            len(real.errors),
        )
        assert small.memory.episodes.for_session(session.id) == []  # refused, as previewed
    finally:
        small.close()


def test_the_engine_hands_its_settings_on_whole(engine):
    wanted = Settings(
        models=ModelSettings(
            engine.live_settings.turn.chat_model, engine.live_settings.embedding_model, 1024
        ),
        memory=MemorySettings("window", "apply", ContextBudget(facts=120)),
        retrieval=RetrievalWeights(recency=0.4, candidates=20),
        sleep=engine.live_settings.sleep.with_changes(max_llm_calls=7),
    )
    engine.live_settings.apply(wanted)
    assert engine.live_settings.current == wanted
    assert engine.memory.retriever.weights == wanted.retrieval
    assert (
        engine.live_settings.turn.context_tokens,
        engine.live_settings.turn.working_strategy,
        engine.live_settings.turn.core_edits,
    ) == (
        1024,
        "window",
        "apply",
    )
