"""The forget preview counts what the receipt will count, tier by tier, in the same units
(over the inspector's seeded file, where words reach every tier)."""

from __future__ import annotations

import pytest

NEEDLES = ["Bolo", "Porto", "Ana", "Lisbon", "Dagster", "peanuts", "cable"]


@pytest.mark.parametrize("needle", NEEDLES)
def test_the_preview_counts_what_the_receipt_counts(seeded, needle):
    engine, _ = seeded
    preview = engine.admin.forget.preview(needle)
    assert not preview.empty

    receipt = engine.admin.forget.text(needle)

    assert receipt.counts == preview.counts
    assert receipt.total == preview.total == sum(len(h) for h in preview.hits.values())
    assert (receipt.vectors, receipt.index_entries) == (preview.vectors, preview.index_entries)
