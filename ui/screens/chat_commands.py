"""The slash commands the chat carries out itself: help, new, clear, retry, edit, continue,
model, copy, rename, export, remember and quit. Memory commands (/forget, /memory, /scope...)
go to the app, which owns the inspector."""

from __future__ import annotations

import asyncio
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.screen import Screen

from assistant.errors import HippoError
from ui.format import clip
from ui.slash import COMMANDS, SlashCommand, closest_command
from ui.widgets import Conversation, MessageView, PromptInput

if TYPE_CHECKING:
    from assistant.engine import Hippo
    from assistant.memory.facts import Fact
    from assistant.memory.records import Message as StoredMessage
    from assistant.memory.records import Session
    from ui.widgets import StatusLine

__all__ = [
    "ChatCommands",
    "Editing",
    "code_blocks",
    "forget_sent",
    "needs_engine",
    "remembered_notice",
    "session_markdown",
    "write_markdown",
]

_FENCE = re.compile(r"^(```+|~~~+)[^\n]*\n(.*?)^\1[ \t]*$", re.DOTALL | re.MULTILINE)
_LOCAL = frozenset(
    {"help", "new", "clear", "retry", "edit", "continue", "model", "copy", "rename", "export",
     "remember", "quit"}
)  # fmt: skip
_WITHOUT_ENGINE = frozenset({"help", "clear", "quit"})
_NEEDS_ENGINE = _LOCAL - _WITHOUT_ENGINE


def needs_engine(command: SlashCommand) -> bool:
    """Whether a command must wait for the data file (an unknown one is answered at once)."""
    return command.name in COMMANDS and command.name not in _WITHOUT_ENGINE


@dataclass(frozen=True)
class Editing:
    """The stored message the user is editing (/edit): sending replaces it and its replies.

    Attributes:
        message_id: the message's id.
        text: its words as stored.
    """

    message_id: int
    text: str


def forget_sent(prompt: PromptInput, text: str) -> None:
    """Take the newest ``text`` out of the box's history (its message was replaced)."""
    for back, sent in enumerate(reversed(prompt.sent), start=1):
        if sent == text:
            del prompt.sent[-back]
            return


def code_blocks(markdown: str) -> list[str]:
    """The fenced code blocks of a reply, in order, without their fences."""
    return [match.group(2).rstrip("\n") for match in _FENCE.finditer(markdown)]


def remembered_notice(fact: Fact, disputed: Sequence[Fact] = ()) -> tuple[str, str]:
    """What /remember did, as (title, text): kept, or sent to review, never a claim it wasn't.

    ``disputed``: the facts it may contradict (then it waits for review as a conflict).
    """
    text = clip(fact.statement, 80)
    if fact.status == "active":
        scope = f" (scope {fact.scope})" if fact.scope else ""
        return "Memory updated", f"Remembered{scope}: {text}"
    if disputed:
        olds = "; ".join(clip(f.statement, 60) for f in disputed)
        return (
            "Sent to review",
            f"Sent to review (it may contradict: {olds}; both are marked disputed): {text}. "
            "Approve it in the Review tab (F4, 2) to replace the old one.",
        )
    return (
        "Sent to review",
        f"Sent to review (it reads like an instruction): {text}. "
        "Approve it in the Review tab (F4, 2) to keep it.",
    )


def session_markdown(engine: Hippo, session_id: int) -> str:
    """A whole session as Markdown: its title, then each message with who said it and when."""
    session = engine.conversations.session(session_id)
    lines = [f"# {session.title or 'Untitled chat'}", ""]
    started = f"{session.started_at:%Y-%m-%d %H:%M}"
    lines += [
        f"_Hippo chat, started {started}" + (f", scope {session.scope}_" if session.scope else "_"),
        "",
    ]
    for message in engine.conversations.history(session_id, 1_000_000):
        who = "You" if message.role == "user" else "Hippo"
        cut = " · cut short at the model's length limit" if message.status == "cut" else ""
        lines += [f"## {who} · {message.created_at:%Y-%m-%d %H:%M}{cut}", "", message.content, ""]
    return "\n".join(lines).rstrip() + "\n"


class ChatCommands(Screen[None]):
    """The chat's own slash commands (the base of `ChatScreen`, which provides what follows)."""

    _editing: Editing | None = None

    if TYPE_CHECKING:
        session_id: int | None
        incognito: bool
        scope: str

        @property
        def engine(self) -> Hippo: ...
        @property
        def streaming(self) -> bool: ...
        @property
        def status(self) -> StatusLine: ...

        def require_engine(self) -> bool: ...
        def ensure_session(self) -> int: ...
        def start_retry(self) -> None: ...
        def start_turn(self, text: str) -> None: ...
        def use_model(self, name: str) -> None: ...
        def _title(self, session: Session | None) -> str: ...
        async def action_new_session(self) -> None: ...

    async def run_local(self, command: SlashCommand) -> bool:
        """Carry out ``command`` if it is the chat's own; say so (True), else leave it (False).

        Unknown names are answered here too, with the closest known command.
        """
        name, argument = command.name, command.argument
        if name not in COMMANDS:
            near = closest_command(name)
            hint = f" Did you mean /{near}?" if near else ""
            self.notify(
                f"There is no command /{name}.{hint} /help lists them all.",
                title="Commands", severity="warning", markup=False,
            )  # fmt: skip
            return True
        if name not in _LOCAL:
            return False
        if name in _NEEDS_ENGINE and not self.require_engine():
            return True
        handler = getattr(self, f"_slash_{name}")
        await handler(argument)
        return True

    async def _slash_help(self, _: str) -> None:
        self.action_show_help()

    def action_show_help(self) -> None:
        """Show every command and key on a panel that stays until closed."""
        from ui.screens.help import HelpScreen

        if not isinstance(self.app.screen, HelpScreen):
            self.app.push_screen(HelpScreen())

    async def _slash_new(self, _: str) -> None:
        await self.action_new_session()

    async def _slash_clear(self, _: str) -> None:
        await self.query_one(Conversation).clear()
        self.notify("Screen cleared: the chat and its memories are kept.", markup=False)

    async def _slash_quit(self, _: str) -> None:
        await self.app.run_action("quit")

    async def _slash_edit(self, _: str) -> None:
        if self.streaming:
            self.notify("A reply is still streaming: press Esc to stop it first.", markup=False)
            return
        if (user := self._last_said()) is None:
            self.notify("There is no message of yours in this chat to edit yet.", markup=False)
            return
        prompt = self.query_one(PromptInput)
        prompt.text = user.content
        prompt.pasted = user.origin == "pasted"
        prompt.move_cursor(prompt.document.end)
        prompt.focus()
        self._begin_edit(Editing(user.id, user.content))

    def _last_said(self) -> StoredMessage | None:
        """The chat's last message of the user's, as stored; None before there is one."""
        if self.session_id is None:
            return None
        try:
            return self.engine.conversations.last_exchange(self.session_id)[0]
        except HippoError:  # none of the user's in this session
            return None

    @property
    def editing(self) -> Editing | None:
        """The message being edited (/edit), until it is sent or the edit is left."""
        return self._editing

    def _begin_edit(self, editing: Editing) -> None:
        self.end_edit(keep_text=True)
        self._editing = editing
        self.query_one("#editing").display = True
        for view in self.query_one(Conversation).query_children(MessageView):
            view.set_class(view.message_id == editing.message_id, "-editing")

    def end_edit(self, *, keep_text: bool) -> Editing | None:
        """Leave the edit of the last message (if any); return what was being edited.

        Args:
            keep_text: leave the box as it is (it is being sent); else empty it, as the
                old message stays.
        """
        editing, self._editing = self.editing, None
        if editing is None:
            return None
        for box in self.query("#editing"):  # gone while the app closes
            box.display = False
        for view in self.query(MessageView).filter(".-editing"):
            view.remove_class("-editing")
        if not keep_text:
            for prompt in self.query(PromptInput):
                prompt.clear()
        return editing

    async def _slash_retry(self, _: str) -> None:
        if self.streaming:
            self.notify("A reply is still streaming: press Esc to stop it first.", markup=False)
            return
        if self.session_id is None:
            self.notify("There is no reply to retry yet: send a message first.", markup=False)
            return
        await self.query_one(Conversation).drop_last_replies()
        self.start_retry()

    async def _slash_continue(self, _: str) -> None:
        from assistant.turns import CONTINUE_MESSAGE

        if self.streaming:
            self.notify("A reply is still streaming: press Esc to stop it first.", markup=False)
            return
        reply = self.query_one(Conversation).last_reply()
        if reply is None or reply.status != "cut":
            self.notify(
                "The last reply was not cut short: there is nothing to continue.", markup=False
            )
            return
        self.start_turn(CONTINUE_MESSAGE)

    async def _slash_model(self, name: str) -> None:
        engine: Hippo = self.engine
        try:
            models = await asyncio.to_thread(engine.host.models)
        except HippoError as exc:  # anything else is a bug, and raises
            self.notify(str(exc), title="Model not changed", severity="error", markup=False)
            return
        chat = sorted(m.name for m in models if "embedding" not in m.capabilities)
        if not name:
            listed = ", ".join(chat) or "none installed"
            model = engine.live_settings.turn.chat_model
            self.notify(
                f"This chat answers with {model}. Chat models: {listed}.",
                title="Model", markup=False,
            )  # fmt: skip
            return
        names = {m.name: m for m in models} | {m.name.removesuffix(":latest"): m for m in models}
        found = names.get(name)
        if found is None or "embedding" in found.capabilities:
            self.notify(_no_such_model(name, found is not None, chat), title="Model not changed",
                        severity="error", markup=False)  # fmt: skip
            return
        self.use_model(found.name)
        self.notify(
            f"This chat now answers with {found.name} (F2 changes the model for good).",
            title="Model", markup=False,
        )  # fmt: skip

    async def _slash_copy(self, which: str) -> None:
        reply = self.query_one(Conversation).last_reply()
        blocks = code_blocks(reply.content) if reply is not None else []
        if not blocks:
            self.notify("The last reply has no code block to copy.", markup=False)
            return
        if which and not (which.isdigit() and 1 <= int(which) <= len(blocks)):
            self.notify(
                f"Say which code block to copy: 1 to {len(blocks)} (/copy 1).",
                severity="warning", markup=False,
            )  # fmt: skip
            return
        number = int(which) if which else len(blocks)
        self.app.copy_to_clipboard(blocks[number - 1])
        self.notify(f"Copied code block {number} of {len(blocks)}.", markup=False)

    async def _slash_rename(self, title: str) -> None:
        if not title.strip():
            self.notify(f"Say the new title: {COMMANDS['rename']}", markup=False)
            return
        if self.session_id is None:
            self.notify("Send a message first: an empty chat has nothing to rename.", markup=False)
            return
        engine: Hippo = self.engine
        session = engine.conversations.rename_session(self.session_id, title)
        self.sub_title = self._title(session)
        self.notify(f"Renamed: {session.title}", markup=False)

    async def _slash_export(self, path: str) -> None:
        session_id = self.session_id
        if session_id is None:
            self.notify("Send a message first: an empty chat has nothing to export.", markup=False)
            return
        target = Path(path).expanduser() if path else Path.cwd() / f"hippo-chat-{session_id}.md"
        try:
            written = await asyncio.to_thread(write_markdown, self.engine, session_id, target)
        except OSError as exc:
            self.notify(
                f"Could not write {target}: {exc.strerror or exc}. Give another file name: "
                "/export FILE.md",
                title="Not exported", severity="error", markup=False,
            )  # fmt: skip
            return
        self.notify(f"Saved this chat to {written}", title="Exported", markup=False)

    async def _slash_remember(self, text: str) -> None:
        await self.remember(text)

    async def remember(self, text: str) -> None:
        """Save ``text`` as your message and a fact you stated (in this chat's scope), and
        say what really happened: kept, sent to review, or refused in incognito."""
        from assistant.turns import UserSaved

        text = text.strip()
        if not text:
            self.notify(f"Say what to remember: {COMMANDS['remember']}", markup=False)
            return
        if self.incognito:
            self.notify(
                "Not remembered: this is an incognito chat, and nothing of it is kept. "
                "Leave it (/new) and use /remember there.",
                title="Incognito", severity="warning", markup=False,
            )  # fmt: skip
            return
        engine: Hippo = self.engine
        try:  # the message and its fact, or neither
            said, fact = engine.admin.facts.remember(text, self.ensure_session(), self.scope)
        except HippoError as exc:  # anything else is a bug, and raises
            self.notify(str(exc), title="Not remembered", severity="error", markup=False)
            return
        await self.query_one(Conversation).apply(UserSaved(said))
        title, notice = remembered_notice(fact, engine.admin.facts.disputed_by(fact.id))
        self.notify(notice, title=title, markup=False)
        self.status.refresh_pending()


def _no_such_model(name: str, embedding_only: bool, chat: list[str]) -> str:
    if embedding_only:
        return f"{name} makes embeddings and cannot chat. Chat models: {', '.join(chat) or 'none'}."
    near = difflib.get_close_matches(name, chat, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(near)}?" if near else ""
    return (
        f"There is no model {name!r} in Ollama.{hint} Pull it with F2 (p), or pick an "
        "installed one there."
    )


def write_markdown(engine: Hippo, session_id: int, target: Path) -> Path:
    """Write the session to ``target`` (never over an existing file); return its path."""
    text = session_markdown(engine, session_id)
    with target.open("x", encoding="utf-8") as out:  # "x": refuse to overwrite
        out.write(text)
    return target.resolve()
