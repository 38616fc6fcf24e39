"""The chat's way into memory: F4 and the palette, slash commands, and "memories used".

Two objects: `MemoryCommands`, the handler the app owns (it opens the inspector and
carries out the chat's memory commands), and `MemoryProvider`, the command palette's
source of those commands, which asks the app for its handler.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from textual.command import DiscoveryHit, Hit, Hits, Provider

from assistant.errors import HippoError
from ui.screens.chat import ChatScreen
from ui.slash import COMMANDS, SlashCommand, help_text

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from assistant.engine import Hippo
    from ui.screens.chat import ChatScreen
    from ui.screens.inspector.pane import Place

__all__ = ["MemoryCommands", "MemoryProvider"]

_PALETTE_HELP = {
    "facts": "Every fact Hippo holds: search, edit, pin, mark wrong, delete",
    "review": "Approve or reject the facts sleep and the model proposed",
    "core": "Edit the human and persona blocks of core memory",
    "history": "Every memory change; undo one; what Hippo believed on a date",
    "forget": "Forget everything about something, with a preview first",
    "episodes": "Episodes day by day, and activity over recent weeks",
    "archive": "Search every message by keyword and meaning",
    "events": "Recent events and ingested documents",
    "sleep": "The last consolidation's report; run it now",
    "settings": "Models, retrieval weights, memory budgets, sleep time, trust and profile",
}

# A palette command: its title, its help, and what it does.
PaletteCommand = tuple[str, str, Callable[[], Any]]


class MemoryCommands:
    """Opens the memory inspector and carries out the chat's memory commands.

    Args:
        app: the app whose screens and notices the commands use.
        chat: the chat screen, which holds the engine once the data file is open.
    """

    def __init__(self, app: App[Any], chat: ChatScreen) -> None:
        self._app = app
        self._chat = chat

    @property
    def engine(self) -> Hippo:
        """The chat's engine (see `ChatScreen.engine`)."""
        return self._chat.engine

    def open(self, tab: str = "facts", forget: str = "") -> None:
        """Open the memory inspector on ``tab`` (from the chat, once the engine is open)."""
        if self._app.screen is self._chat and self._chat.require_engine():
            # The inspector (and the admin code under it) loads on first use, not at start-up.
            from ui.screens.inspector import InspectorScreen

            inspector = InspectorScreen(self.engine, tab=tab, forget=forget)
            self._app.push_screen(inspector, self.returned)

    def show_memories(self, reply_id: int) -> None:
        """Show which memories went into a reply."""
        from ui.screens.inspector import ProvenanceScreen

        self._app.push_screen(ProvenanceScreen(self.engine, reply_id=reply_id), self.returned)

    async def returned(self, place: Place | None) -> None:
        """Back from the inspector: refresh the review count, and continue the chat chosen
        (read-only first, from where it was found: the user chose to continue it)."""
        self._chat.status.refresh_pending()
        if place is not None:
            await self._chat.open_session(place.session_id)
            if place.message_id is not None:
                self._chat.reveal(place.message_id)
            self._app.notify(
                f"Continuing {self._chat.sub_title!r}. F3 lists your other chats.",
                markup=False,
            )

    def purge_incognito(self) -> None:
        """Delete incognito chats a crash left behind, in a thread (they keep nothing)."""
        self._app.run_worker(
            self._purge_incognito,
            thread=True,
            exclusive=True,
            group="incognito",
            exit_on_error=False,
        )

    def _purge_incognito(self) -> None:
        try:
            receipt = self.engine.admin.forget.purge_incognito()
        except HippoError:
            return  # tried again next start
        if receipt is not None:
            self._app.call_from_thread(
                self._app.notify, "An unfinished incognito chat was deleted.", title="Incognito"
            )

    async def run_slash(self, command: SlashCommand) -> None:
        """Carry out a slash command typed in the chat box (all but /help need the engine)."""
        name, argument = command.name, command.argument
        if name == "remember":
            await self.remember(argument)
        elif name == "forget":
            self.open("forget", argument)
        elif name in ("memory", "review"):
            self.open("facts" if name == "memory" else "review")
        elif name == "incognito":
            await self._chat.action_new_incognito()
        elif name == "scope":
            await self.change_scope(argument)
        elif name == "profile":
            self.profile_help(argument)
        else:
            unknown = "" if name == "help" else f"There is no command /{name}.\n"
            self._app.notify(unknown + help_text(), title="Commands", timeout=12, markup=False)

    async def change_scope(self, name: str) -> None:
        """Start a chat about ``name``, or say what the chat's scope is (no name)."""
        chat = self._chat
        if not name:
            now = (
                f"This chat's scope: {chat.scope}."
                if chat.scope
                else "This chat has no scope: it recalls memories of every scope."
            )
            self._app.notify(f"{now}\n{COMMANDS['scope']}", title="Scope", markup=False)
            return
        try:
            await chat.new_scoped(name)
        except HippoError as exc:
            self._app.notify(str(exc), title="No new chat", severity="error", markup=False)

    async def remember(self, text: str) -> None:
        """Save ``text`` as your message and a fact you stated (the chat says what happened)."""
        await self._chat.remember(text)

    def profile_help(self, name: str = "") -> None:
        """Say how to switch profiles (a profile is chosen when Hippo starts)."""
        current = self.engine.conversations.profile.name
        names = ", ".join(p.name for p in self.engine.admin.browse.profiles()) or current
        if not name or name == current:
            text = f"Profile in use: {current}. Profiles: {names}."
        else:
            text = (
                f"Hippo opens one profile per run. To use {name!r}, quit (ctrl+q) and run: "
                f"hippo --profile {shlex.quote(name)}\nProfiles: {names}."
            )
        self._app.notify(text, title="Profile", timeout=12, markup=False)

    def ask_remember(self) -> None:
        """Ask what to remember (the palette's "Remember…")."""

        async def answered(text: str | None) -> None:
            if text:
                await self.remember(text)

        from ui.screens.dialogs import TextDialog

        self._app.push_screen(TextDialog("Remember (saved as something you told Hippo)"), answered)

    def palette(self, screen: Screen[Any]) -> Iterator[PaletteCommand]:
        """The palette's memory commands over ``screen``: from the chat, once it has its engine."""
        if screen is not self._chat or not self._chat.ready:
            return
        from ui.screens.inspector import TABS

        for tab_id, title, _ in TABS:
            yield f"Memory: {title}", _PALETTE_HELP[tab_id], partial(self.open, tab_id)
        yield "Remember…", "Tell Hippo a fact to keep (like /remember)", self.ask_remember
        yield (
            "New incognito chat",
            "A chat that keeps nothing after it ends",
            self._chat.action_new_incognito,
        )
        yield "Profiles", "Which profile is in use, and how to switch", self.profile_help


class HasMemoryCommands(Protocol):
    """An app that owns a `MemoryCommands` (the palette's provider asks it for them)."""

    @property
    def memory(self) -> MemoryCommands:
        """The app's memory commands."""
        ...


class MemoryProvider(Provider):
    """The command palette's memory commands (`MemoryCommands.palette`), from the chat."""

    def _commands(self) -> list[PaletteCommand]:
        owner: HasMemoryCommands = self.app  # type: ignore[assignment]  # HippoApp's COMMANDS
        return list(owner.memory.palette(self.screen))

    async def discover(self) -> Hits:
        """Every memory command, for the palette before anything is typed."""
        for title, help_, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_)

    async def search(self, query: str) -> Hits:
        """The memory commands whose title matches ``query``, best first."""
        matcher = self.matcher(query)
        for title, help_, callback in self._commands():
            if (score := matcher.match(title)) > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_)
