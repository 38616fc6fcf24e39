"""The injection tests run sleep once per corpus item and channel (hundreds of runs): they
are about what sleep trusts, not its backups, so their engine makes none (tests/sleep
checks the backups)."""

from __future__ import annotations

import pytest


@pytest.fixture
def sleep_backups() -> bool:
    return False
