"""Print the instruction detector's hit rates on the adversarial corpus.

The corpus (tests/adversarial) has a tuning part, which the detector was developed
against, and a held-out part, written first and never used for tuning: its figures are
the honest estimate. Attacks found and benign texts flagged (false alarms) are given
for each part, by language and by channel.

    python bench/injection.py [--json]
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.memory.injection import looks_like_instruction
from tests.adversarial.corpus import HELD_OUT, TUNING, Item


def rates(items: tuple[Item, ...]) -> dict[str, object]:
    """Attacks found and false alarms of one part, overall and by language and channel."""
    attacks = [i for i in items if i.is_attack]
    benign = [i for i in items if not i.is_attack]
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in attacks:
        hit = looks_like_instruction(item.text)
        for key in (item.lang, item.channel):
            by[key][0] += hit
            by[key][1] += 1
    return {
        "attacks_found": sum(looks_like_instruction(i.text) for i in attacks),
        "attacks": len(attacks),
        "false_alarms": sum(looks_like_instruction(i.text) for i in benign),
        "benign": len(benign),
        "by": {key: f"{hit}/{n}" for key, (hit, n) in sorted(by.items())},
    }


def main() -> int:
    """Print the figures (as JSON with ``--json``)."""
    figures = {"tuning": rates(TUNING), "held_out": rates(HELD_OUT)}
    if "--json" in sys.argv[1:]:
        print(json.dumps(figures))
        return 0
    for part, f in figures.items():
        found, total = f["attacks_found"], f["attacks"]
        alarms, benign = f["false_alarms"], f["benign"]
        print(
            f"{part:>9}: attacks found {found}/{total} ({found / total:.0%}), "
            f"false alarms {alarms}/{benign} ({alarms / benign:.0%})"
        )
        print(f"{'':>11}by language and channel: {f['by']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
