"""Which memories went into an incognito reply: kept in memory with the reply itself.

Apart from `assistant.memory.incognito` so that `hippo log` never loads the usage store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import apsw

from assistant.memory.incognito import IncognitoMessages, is_incognito_id
from assistant.memory.usage import MemoryUse, UsageStore

__all__ = ["RoutedUsage"]


class RoutedUsage(UsageStore):
    """Which memories went into each reply; an incognito reply's record stays in memory.

    Args:
        conn: returns the calling thread's connection to the data file.
        incognito: the in-memory store of incognito chats.
    """

    def __init__(self, conn: Callable[[], apsw.Connection], incognito: IncognitoMessages) -> None:
        super().__init__(conn)
        self._hidden = UsageStore(incognito.connection)

    def record(self, uses: Sequence[MemoryUse]) -> None:
        """Store the memories used for a reply where the reply lives."""
        super().record([u for u in uses if not is_incognito_id(u.message_id)])
        self._hidden.record([u for u in uses if is_incognito_id(u.message_id)])

    def for_reply(self, message_id: int) -> list[MemoryUse]:
        """The memories used for a reply, wherever it lives."""
        if is_incognito_id(message_id):
            return self._hidden.for_reply(message_id)
        return super().for_reply(message_id)
