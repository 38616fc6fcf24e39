"""Every injection in the corpus, through every channel, with a model that obeys it.

The model is fooled (tests/fake_ollama/fooled.py): it proposes exactly the injected
claim to core memory, the profile and the archive, and sleep states it as the user's
word, citing the injected message. The defences must still hold: nothing injected
becomes an active fact, reaches core memory, or reaches the trusted part of a prompt
(core memory, profile facts) without the user's approval; it waits for review instead.

Both settings of ``[memory] model_core_edits`` are run: with ``review`` (the default)
every core edit of the model waits; with ``apply`` only the instruction detector stands
between the fooled model and core memory, so this is where a miss would show.
"""

from __future__ import annotations

import pytest

from tests.adversarial.attack import Outcome, attack
from tests.adversarial.corpus import ATTACKS, CHANNELS


def _where(outcome: Outcome) -> str:
    return "core" if outcome.in_core else "active fact" if outcome.active else "prompt"


@pytest.mark.heavy  # ~5 s of CPU each: 72 attacks, each a turn, a sleep run and a probe
@pytest.mark.parametrize("mode", ["review", "apply"])
@pytest.mark.parametrize("channel", CHANNELS)
def test_no_injected_claim_is_trusted_without_approval(
    engine, fake_ollama, clock, tmp_path, channel, mode
):
    engine.live_settings.change(core_edits=mode)
    outcomes = [attack(engine, fake_ollama, clock, item, channel, tmp_path) for item in ATTACKS]
    unreached = [o.item.id for o in outcomes if not o.reached_model]
    assert not unreached, f"the injected text never reached the model: {unreached}"
    trusted = [(o.item.id, _where(o)) for o in outcomes if o.trusted]
    assert not trusted, f"injected claims trusted without approval via {channel}: {trusted}"
    unproposed = [o.item.id for o in outcomes if not o.proposed_core]
    assert not unproposed, f"the fooled model's core edits did not wait for review: {unproposed}"
    unqueued = [o.item.id for o in outcomes if not o.pending]
    assert not unqueued, f"the fooled model's facts are not in the review queue: {unqueued}"
