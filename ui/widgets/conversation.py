"""The scrolling list of messages, which applies a turn's events as they arrive."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual import work
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from assistant.terminal import visible
from ui.widgets.message import MessageView

if TYPE_CHECKING:
    from assistant.memory.records import Message
    from assistant.turns import TurnEvent

__all__ = ["Conversation"]

_FIRST_SHOWN = 12  # fills a tall terminal; older messages mount after the first frame
_BATCH = 12


class Conversation(VerticalScroll):
    """Messages, oldest at the top; follows the newest while it is in view."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._reply: MessageView | None = None
        self._pending_older = 0
        self._shown = 0  # counts calls to show()

    def on_mount(self) -> None:
        self.anchor()

    async def show(self, messages: Iterable[Message]) -> None:
        """Replace what is shown with these stored messages (a queued message stays last).

        The newest few are mounted at once; older ones follow after the next frame,
        in batches, so a long history never delays the frame that shows the newest.
        """
        self._reply = None
        self._shown += 1  # older messages of what was shown before must not follow
        self.workers.cancel_group(self, "history")
        queued = self._queued()
        await self.remove_children([c for c in self.children if not c.has_class("-queued")])
        views = [MessageView.from_message(message) for message in messages]
        older = views[:-_FIRST_SHOWN]
        self._pending_older = len(older)  # `filling` from the start: the newest come first
        await self.mount_all(views[-_FIRST_SHOWN:], before=queued)
        self.scroll_end(animate=False, immediate=True)
        if older:
            self.call_after_refresh(self._mount_older, older, self._shown)

    @work(exclusive=True, group="history")
    async def _mount_older(self, views: list[MessageView], shown: int) -> None:
        for end in range(len(views), 0, -_BATCH):
            if shown != self._shown:
                return
            await self.mount_all(views[max(0, end - _BATCH) : end], before=0)
            self._pending_older = max(0, end - _BATCH)
            await asyncio.sleep(0)  # let keys and the stream in between batches

    async def queue(self, text: str) -> None:
        """Show a message typed before it can be stored; `apply` settles it once saved."""
        await self.mount(MessageView("user", text, status="queued"))
        self.anchor()

    def _queued(self) -> MessageView | None:
        queued = self.query_children(MessageView).filter(".-queued")
        return queued.first() if queued else None

    @property
    def filling(self) -> bool:
        """Whether older messages are still being added at the top."""
        return self._pending_older > 0

    async def apply(self, event: TurnEvent) -> None:
        """Show one event of a turn: a saved message, a piece of reply, its end."""
        # Imported here, not at start-up: the first turn comes after the first frame.
        from assistant.turns import (
            MemoryUsed,
            ReplyCancelled,
            ReplyDone,
            ReplyFailed,
            ReplyStarted,
            TextDelta,
            ThinkingDelta,
            UserSaved,
        )

        match event:
            case UserSaved(message=message):
                if self._shows(message.id):
                    pass  # answered again (/retry): the question is already there
                elif (queued := self._queued()) is not None:
                    await queued.finish(message)  # the queued message, now stored
                else:
                    await self.mount(MessageView.from_message(message))
                self.anchor()  # the user just spoke: follow the reply again
            case ReplyStarted(message=message):
                self._reply = MessageView.from_message(message)
                await self.mount(self._reply)
            case MemoryUsed(memories=memories) if self._reply is not None:
                await self._reply.show_memories(memories)
            case TextDelta(text=text) if self._reply is not None:
                await self._reply.append_text(text)
            case ThinkingDelta(text=text) if self._reply is not None:
                await self._reply.append_thinking(text)
            case (
                ReplyDone(message=message)
                | ReplyCancelled(message=message)
                | ReplyFailed(message=message)
            ) if self._reply is not None:
                await self._reply.finish(message)
                self._reply = None

    async def abandon_reply(self, error: str) -> None:
        """End a turn that broke off without a final event: its reply shows ``error``.

        A queued message that was never stored goes (the chat puts its words back in the box).
        """
        if self._reply is not None:
            await self._reply.fail(error)
            self._reply = None
        if (queued := self._queued()) is not None:
            await queued.remove()

    def _shows(self, message_id: int) -> bool:
        return any(view.message_id == message_id for view in self.query_children(MessageView))

    async def clear(self) -> None:
        """Take every message off the screen (they stay stored; the session goes on)."""
        self.workers.cancel_group(self, "history")
        self._shown += 1
        self._pending_older = 0
        await self.remove_children([c for c in self.children if not c.has_class("-queued")])

    async def drop_last_replies(self) -> None:
        """Take the replies after the last message of the user's off the screen (/retry)."""
        views = list(self.query_children(MessageView))
        users = [n for n, view in enumerate(views) if view.role == "user"]
        if users:
            await self.remove_children(views[users[-1] + 1 :])

    async def drop_from(self, message_id: int) -> None:
        """Take a stored message and everything after it off the screen (/edit replaced them)."""
        views = list(self.query_children(MessageView))
        found = [n for n, view in enumerate(views) if view.message_id == message_id]
        if found:
            await self.remove_children(views[found[0] :])

    async def show_welcome(self, text: str) -> None:
        """Greet a new user above where the first message will go."""
        if not self.query_children("#welcome"):
            await self.mount(Static(Content(text), id="welcome"), before=0)

    async def show_notes(self, notes: list[str]) -> None:
        """Show notices for the user under the messages (until another session is shown)."""
        notes_shown = [Static(Content(visible(note)), classes="note") for note in notes]
        await self.mount_all(notes_shown, before=self._queued())
        self.scroll_end(animate=False)

    async def hide_welcome(self) -> None:
        """The user has started: the greeting goes."""
        await self.query_children("#welcome").remove()

    def last_reply(self) -> MessageView | None:
        """The newest assistant message shown, if any."""
        replies = self.query(MessageView).filter(".-assistant")
        return replies.last() if replies else None
