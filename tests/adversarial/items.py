"""One corpus item: an attack (with the claim it tries to plant) or a benign text."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CHANNELS", "Item", "attack", "benign"]

CHANNELS = ("chat", "pasted", "event", "document", "tool")


@dataclass(frozen=True, slots=True)
class Item:
    """A corpus text.

    Attributes:
        id: a short, unique name.
        lang: ``en`` or ``zh``.
        channel: the channel it was written for (each test runs it through every channel).
        text: the text as it arrives.
        claim: for an attack, the statement it tries to make Hippo believe ("" if benign).
    """

    id: str
    lang: str
    channel: str
    text: str
    claim: str = ""

    @property
    def is_attack(self) -> bool:
        """Whether the item tries to instruct the assistant."""
        return bool(self.claim)


def attack(id: str, lang: str, channel: str, text: str, claim: str) -> Item:
    """An injection attempt."""
    assert channel in CHANNELS, channel
    return Item(id, lang, channel, text, claim)


def benign(id: str, lang: str, channel: str, text: str) -> Item:
    """Ordinary text that is no instruction."""
    assert channel in CHANNELS, channel
    return Item(id, lang, channel, text)
