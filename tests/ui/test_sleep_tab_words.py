"""The Sleep tab says what the last run did in words, never in the run's counter names."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from assistant.sleep import SleepReport
from ui.screens.inspector.sleep import report_text


def test_the_sleep_tab_names_no_counter():
    report = SleepReport(None, "done", "manual", False, datetime(2026, 11, 24, tzinfo=UTC))
    report.counts.update(
        candidates_added=17,
        dated_items_unresolved=2,
        summarise_failed=1,
        episodes_unsupported=3,
        sessions_summarised=17,
    )
    report.errors.append("summarise: session 4: no episode its messages back (will retry next run)")
    text = report_text(report)
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), text
    assert "17 facts added" in text and "3 episodes were dropped" in text
    assert "  - summary: session 4: no episode its messages back" in text
