"""Pick a past conversation to continue, or start a new one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Header, Input, OptionList, Static
from textual.widgets.option_list import Option

from assistant.errors import HippoError
from assistant.terminal import visible
from ui.format import short_date
from ui.screens.dialogs import ConfirmDialog, TextDialog
from ui.screens.styles import SCREENS_CSS
from ui.widgets.footer import Footer

if TYPE_CHECKING:
    from datetime import datetime

    from textual.app import ComposeResult
    from textual.events import Key

    from assistant.engine import Hippo
    from assistant.memory.records import Session

__all__ = ["SessionChoice", "SessionListScreen"]

_TITLE_WIDTH = 48


@dataclass(frozen=True, slots=True)
class SessionChoice:
    """Which session to show: an existing one, or ``None`` for a new one."""

    session_id: int | None


def _prompt(session: Session, now: datetime) -> Content:
    title = visible(session.title) or "(untitled)"
    if len(title) > _TITLE_WIDTH:
        title = title[: _TITLE_WIDTH - 1] + "…"
    count = f"{session.message_count} message" + ("" if session.message_count == 1 else "s")
    when = short_date(session.last_active_at, now)
    return Content(f"{title:<{_TITLE_WIDTH}} {when:<16} {count:>13}")


class SessionListScreen(Screen[SessionChoice | None]):
    """Recent sessions, newest first; dismissed with the choice, or None (Esc).

    Args:
        engine: the engine whose sessions to list.
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_session", "New session"),
        Binding("slash", "search", "Filter titles"),
        Binding("r", "rename_session", "Rename"),
        Binding("e", "export_session", "Export"),
        Binding("d,delete", "delete_session", "Delete session"),
        Binding("escape", "close", "Back"),
    ]

    def __init__(self, engine: Hippo) -> None:
        super().__init__()
        self.engine = engine

    def compose(self) -> ComposeResult:
        sessions = self.engine.conversations.sessions()
        now = self.engine.clock.now()
        yield Header()
        with Vertical(id="sessions"):
            yield Static(
                Content("Recent sessions (Enter opens one, d deletes one for good)"),
                classes="section",
            )
            yield Input(placeholder="Filter titles: type words (/ comes here)", id="session-filter")
            yield OptionList(
                *(Option(_prompt(session, now), id=str(session.id)) for session in sessions),
                id="session-list",
            )
            no_match = Static(id="session-no-match", markup=False)
            no_match.display = False
            yield no_match
            if not sessions:
                yield Static(Content("No sessions yet: start one and say hello."))
            with Horizontal(classes="buttons"):
                yield Button("New session", id="sessions-new", variant="primary")
                yield Button("Back", id="sessions-back")
        yield Footer()

    def _highlighted(self) -> int | None:
        options = self.query_one("#session-list", OptionList)
        if options.highlighted is None:
            return None
        option = options.get_option_at_index(options.highlighted)
        return int(option.id) if option.id is not None else None

    def action_rename_session(self) -> None:
        """Give the highlighted session a title of your own."""
        if (session_id := self._highlighted()) is None:
            return
        title = self.engine.conversations.session(session_id).title

        def answered(text: str | None) -> None:
            if text:
                session = self.engine.conversations.rename_session(session_id, text)
                now = self.engine.clock.now()
                options = self.query_one("#session-list", OptionList)
                options.replace_option_prompt(str(session_id), _prompt(session, now))
                self.notify(f"Renamed: {session.title}", markup=False)

        self.app.push_screen(TextDialog("New title for this session", title), answered)

    def action_export_session(self) -> None:
        """Save the highlighted session as a Markdown file (never over an existing one)."""
        if (session_id := self._highlighted()) is None:
            return
        suggested = str(Path.cwd() / f"hippo-chat-{session_id}.md")

        def answered(path: str | None) -> None:
            if not path:
                return
            from ui.screens.chat_commands import write_markdown

            try:
                written = write_markdown(self.engine, session_id, Path(path).expanduser())
            except OSError as exc:
                self.notify(
                    f"Could not write {path}: {exc.strerror or exc}. Try another file name.",
                    title="Not exported", severity="error", markup=False,
                )  # fmt: skip
                return
            self.notify(f"Saved to {written}", title="Exported", markup=False)

        self.app.push_screen(TextDialog("Export this session to (Markdown)", suggested), answered)

    def action_search(self) -> None:
        """Put the keyboard in the filter: the list keeps only titles holding every word."""
        self.query_one("#session-filter", Input).focus()

    @on(Input.Changed, "#session-filter")
    def _filter(self, event: Input.Changed) -> None:
        """Filter as the user types; the first session left is highlighted."""
        words = event.value.strip()
        wanted = words.lower().split()
        now = self.engine.clock.now()
        found = [
            s
            for s in self.engine.conversations.sessions()
            if all(w in s.title.lower() for w in wanted)
        ]
        options = self.query_one("#session-list", OptionList)
        options.clear_options()
        options.add_options(Option(_prompt(s, now), id=str(s.id)) for s in found)
        options.highlighted = 0 if found else None
        self.sub_title = f"Sessions matching {words!r}" if wanted else "Sessions"
        no_match = self.query_one("#session-no-match", Static)
        no_match.update(f"No session title holds {words!r}." if not found and wanted else "")
        no_match.display = bool(wanted) and not found

    @on(Input.Submitted, "#session-filter")
    def _open_first(self) -> None:
        """Enter in the filter opens the highlighted session."""
        if (session_id := self._highlighted()) is not None:
            self.dismiss(SessionChoice(session_id))

    def on_key(self, event: Key) -> None:
        """Down from the filter goes to the list."""
        if event.key == "down" and isinstance(self.focused, Input):
            event.stop()
            self.query_one("#session-list", OptionList).focus()

    def on_mount(self) -> None:
        self.sub_title = "Sessions"
        self.query_one("#session-list", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(SessionChoice(int(event.option.id)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "sessions-new":
            self.action_new_session()
        else:
            self.action_close()

    def action_delete_session(self) -> None:
        """Delete the highlighted session and all it left in memory, after asking."""
        options = self.query_one("#session-list", OptionList)
        if options.highlighted is None:
            return
        option = options.get_option_at_index(options.highlighted)
        if option.id is None:
            return
        session_id = int(option.id)
        title = self.engine.conversations.session(session_id).title or "(untitled)"
        question = (
            f"Delete the session {title!r} with its messages, and the episodes and facts "
            "that came only from it? This can't be undone."
        )

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                receipt = self.engine.admin.forget.delete_session(session_id)
            except HippoError as exc:  # anything else is a bug, and raises
                self.notify(str(exc), title="Not deleted", severity="error", markup=False)
                return
            options.remove_option(str(session_id))
            self.notify(receipt.text(), title="Session deleted", markup=False)

        self.app.push_screen(ConfirmDialog(question, yes="Delete"), answered)

    def action_new_session(self) -> None:
        """Start a new, empty session."""
        self.dismiss(SessionChoice(None))

    def action_close(self) -> None:
        """Go back to the chat unchanged."""
        self.dismiss(None)
