"""The chat's way into memory: F4 and the palette, slash commands, and "memories used"."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, SystemCommand

from assistant.errors import HippoError
from ui.screens.chat import ChatScreen
from ui.slash import COMMANDS, SlashCommand, help_text
from ui.widgets import MessageView

if TYPE_CHECKING:
    from textual.screen import Screen

    from assistant.engine import Hippo
    from ui.screens.inspector.pane import InspectorPane, Place

__all__ = ["MemoryCommands"]

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


class MemoryCommands(App[None]):
    """The memory half of `HippoApp`: opening the inspector, and the chat's memory commands."""

    @property
    def engine(self) -> Hippo:  # provided by HippoApp
        raise NotImplementedError

    @property
    def chat(self) -> ChatScreen:  # provided by HippoApp
        raise NotImplementedError

    def action_memory(self, tab: str = "facts", forget: str = "") -> None:
        """Open the memory inspector on ``tab``."""
        if self.screen is self.chat and self.chat.require_engine():
            # The inspector (and the admin code under it) loads on first use, not at start-up.
            from ui.screens.inspector import InspectorScreen

            inspector = InspectorScreen(self.engine, tab=tab, forget=forget)
            self.push_screen(inspector, self._open_from_memory)

    async def _open_from_memory(self, place: Place | None) -> None:
        self.chat.status.refresh_pending()
        if place is not None:
            await self.chat.open_session(place.session_id)
            if place.message_id is not None:
                self.chat.reveal(place.message_id)

    @work(thread=True, exclusive=True, group="incognito", exit_on_error=False)
    def purge_incognito(self) -> None:
        """Delete incognito chats a crash left behind (they keep nothing past their end)."""
        try:
            receipt = self.engine.admin.purge_incognito()
        except HippoError:
            return  # tried again next start
        if receipt is not None:
            self.call_from_thread(
                self.notify, "An unfinished incognito chat was deleted.", title="Incognito"
            )

    def on_inspector_pane_changed(self, event: InspectorPane.Changed) -> None:
        self.chat.status.refresh_pending()

    def on_message_view_show_memories(self, event: MessageView.ShowMemories) -> None:
        from ui.screens.inspector import ProvenanceScreen

        self.push_screen(
            ProvenanceScreen(self.engine, reply_id=event.reply_id), self._open_from_memory
        )

    async def on_chat_screen_command(self, event: ChatScreen.Command) -> None:
        await self.run_slash(event.command)

    async def run_slash(self, command: SlashCommand) -> None:
        """Carry out a slash command typed in the chat box (all but /help need the engine)."""
        name, argument = command.name, command.argument
        if name == "remember":
            await self.remember(argument)
        elif name == "forget":
            self.action_memory("forget", argument)
        elif name in ("memory", "review"):
            self.action_memory("facts" if name == "memory" else "review")
        elif name == "incognito":
            await self.chat.action_new_incognito()
        elif name == "scope":
            await self.change_scope(argument)
        elif name == "profile":
            self.profile_help(argument)
        else:
            unknown = "" if name == "help" else f"There is no command /{name}.\n"
            self.notify(unknown + help_text(), title="Commands", timeout=12, markup=False)

    async def change_scope(self, name: str) -> None:
        """Start a chat about ``name``, or say what the chat's scope is (no name)."""
        if not name:
            now = (
                f"This chat's scope: {self.chat.scope}."
                if self.chat.scope
                else ("This chat has no scope: it recalls memories of every scope.")
            )
            self.notify(f"{now}\n{COMMANDS['scope']}", title="Scope", markup=False)
            return
        try:
            await self.chat.new_scoped(name)
        except HippoError as exc:
            self.notify(str(exc), title="No new chat", severity="error", markup=False)

    async def remember(self, text: str) -> None:
        """Save ``text`` as your message and a fact you stated (the chat says what happened)."""
        await self.chat.remember(text)

    def profile_help(self, name: str) -> None:
        """Say how to switch profiles (a profile is chosen when Hippo starts)."""
        current = self.engine.profile.name
        names = ", ".join(p.name for p in self.engine.messages.profiles()) or current
        if not name or name == current:
            text = f"Profile in use: {current}. Profiles: {names}."
        else:
            text = (
                f"Hippo opens one profile per run. To use {name!r}, quit (ctrl+q) and run: "
                f"hippo --profile {shlex.quote(name)}\nProfiles: {names}."
            )
        self.notify(text, title="Profile", timeout=12, markup=False)

    def ask_remember(self) -> None:
        """Ask what to remember (the palette's "Remember…")."""

        async def answered(text: str | None) -> None:
            if text:
                await self.remember(text)

        from ui.screens.dialogs import TextDialog

        self.push_screen(TextDialog("Remember (saved as something you told Hippo)"), answered)

    def memory_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The palette's memory commands (from the chat only)."""
        if screen is not self.chat:
            return
        from ui.screens.inspector import TABS

        for tab_id, title, _ in TABS:
            help_text_ = _PALETTE_HELP[tab_id]
            yield SystemCommand(
                f"Memory: {title}", help_text_, lambda t=tab_id: self.action_memory(t)
            )
        yield SystemCommand(
            "Remember…", "Tell Hippo a fact to keep (like /remember)", self.ask_remember
        )
        yield SystemCommand(
            "New incognito chat",
            "A chat that keeps nothing after it ends",
            self.chat.action_new_incognito,
        )
        yield SystemCommand(
            "Profiles", "Which profile is in use, and how to switch", lambda: self.profile_help("")
        )
