"""A burst from outside: 3,000 events imported at once, half of them important, then
expired and consolidated. One review item per source and day is the target (not 1,500),
with every important event cited by it, and the review list short enough to read.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from bench.reliability_integrity import CaseOutcome
from bench.reliability_lab import Lab

__all__ = ["run_burst"]

EVENTS = 3_000


def run_burst(*, keep: bool = False) -> CaseOutcome:
    """Import the burst, let it expire, sleep once, and count what review holds."""
    lab = Lab("burst", keep=keep)
    try:
        now = datetime.now(UTC)
        lines = [
            json.dumps(
                {
                    "text": f"sensor reading {n}: level {n % 97}",
                    "source": "watch",
                    "importance": 8 if n % 2 else 2,
                    "occurred_at": (now - timedelta(hours=3)).isoformat(),
                    "expires_at": (now - timedelta(hours=1)).isoformat(),
                }
            )
            for n in range(EVENTS)
        ]
        feed = lab.folder / "burst.jsonl"
        feed.write_text("\n".join(lines) + "\n", encoding="utf-8")
        imported = lab.run("event", "import", str(feed), timeout=600)
        acked = EVENTS if f"Logged {EVENTS} event(s)" in imported.out else 0
        slept = lab.run("sleep", "run", "--now", timeout=1200)
        items = json.loads(lab.run("review", "list", "--json").out or "[]")
        cited = {e["ref_id"] for item in items for e in item["fact"]["evidence"]}
        important = EVENTS // 2
        said = f"{len(items)} review item(s) citing {len(cited)} of {important} important events"
        named = slept.rc == 0 and len(items) == 1 and len(cited) == important
        return CaseOutcome("3,000-event burst", acked, important - len(cited), said, named)
    finally:
        lab.close()
