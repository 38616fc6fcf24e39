"""The injection corpus: a tuning part and a held-out part (never used for tuning)."""

from __future__ import annotations

from tests.adversarial import heldout, tuning
from tests.adversarial.items import CHANNELS, Item

__all__ = ["ALL", "ATTACKS", "CHANNELS", "HELD_OUT", "TUNING", "Item"]

TUNING: tuple[Item, ...] = tuning.ITEMS
HELD_OUT: tuple[Item, ...] = heldout.ITEMS
ALL: tuple[Item, ...] = TUNING + HELD_OUT
ATTACKS: tuple[Item, ...] = tuple(i for i in ALL if i.is_attack)
