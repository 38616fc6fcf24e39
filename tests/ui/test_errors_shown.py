"""The inspector shows Hippo's own errors as notices; any other exception is a bug (issue 11).

Before, every ValueError counted as Hippo's own and was shown, hiding real bugs; input
that can't be used is now ``InvalidInput`` (a HippoError), and the rest raises.
"""

from __future__ import annotations

import pytest

from assistant.errors import InvalidInput, NotFound
from tests.ui.helpers import notified, open_inspector
from ui import HippoApp
from ui.screens.inspector.pane import InspectorPane

SIZE = (120, 36)


def _fails(exc: Exception):
    def call() -> None:
        raise exc

    return call


async def test_hippos_errors_are_notices_and_a_bare_value_error_is_a_bug(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "facts")
        pane = app.screen.query(InspectorPane).first()
        assert pane.attempt(_fails(InvalidInput("importance must be between 1 and 10"))) is None
        assert pane.attempt(_fails(NotFound("There is no fact 99 in this profile."))) is None
        await pilot.pause()
        assert notified(app, "importance must be between 1 and 10")
        assert notified(app, "There is no fact 99")
        with pytest.raises(ValueError, match="a bug"):
            pane.attempt(_fails(ValueError("a bug")))
