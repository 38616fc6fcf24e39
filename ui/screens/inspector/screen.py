"""The memory inspector: every tier of memory in tabs, reachable from the chat with F4."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Header, TabbedContent, TabPane

from ui.screens.inspector.archive import ArchiveSearchPane
from ui.screens.inspector.core import CoreMemoryPane
from ui.screens.inspector.episodes import EpisodesPane
from ui.screens.inspector.events import EventsDocsPane
from ui.screens.inspector.facts import FactsPane
from ui.screens.inspector.forget import ForgetPane
from ui.screens.inspector.history import HistoryPane
from ui.screens.inspector.pane import InspectorPane, Place
from ui.screens.inspector.provenance import ProvenanceScreen
from ui.screens.inspector.review import ReviewPane
from ui.screens.inspector.settings import SettingsPane
from ui.screens.inspector.sleep import SleepPane
from ui.screens.inspector.tab_labels import tab_labels
from ui.screens.styles import SCREENS_CSS
from ui.widgets.footer import Footer

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.engine import Hippo

__all__ = ["TABS", "InspectorScreen"]

# (id, title, pane): the order of the tabs and of their number keys (1-9, then 0).
TABS: tuple[tuple[str, str, type[InspectorPane]], ...] = (
    ("facts", "Facts", FactsPane),
    ("review", "Review", ReviewPane),
    ("core", "Core", CoreMemoryPane),
    ("history", "History", HistoryPane),
    ("forget", "Forget", ForgetPane),
    ("episodes", "Episodes", EpisodesPane),
    ("archive", "Archive", ArchiveSearchPane),
    ("events", "Events & docs", EventsDocsPane),
    ("sleep", "Sleep", SleepPane),
    ("settings", "Settings", SettingsPane),
)
_PANES = {tab_id: pane for tab_id, _, pane in TABS}


class _Tabs(TabbedContent):
    """Tabs whose tab on show is chosen by the number keys and the tab bar, never by focus.

    A TabbedContent shows the tab of any widget that gets focus. But when a tab is hidden,
    Textual moves the keyboard from its focused widget to a sibling in that same, now hidden,
    tab (the Review tab's detail box, say), which would switch back to it: on a busy
    machine a number key was seen undone that way. The screen puts the keyboard back in
    the tab on show instead (`InspectorScreen.on_descendant_focus`).
    """

    def _on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        event.stop()
        event.prevent_default()  # TabbedContent's own handler would switch tabs


class InspectorScreen(Screen[Place | None]):
    """See, search, correct and forget what Hippo remembers.

    Dismissed with a place (a session, a message in it) when the user asks to open one
    in the chat, else with None (Esc).

    Args:
        engine: the engine whose memory to show.
        tab: the tab to open on (an id of ``TABS``).
        forget: text to preview in the Forget tab straight away (``/forget X``).
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        *(
            Binding(str(number % 10), f"show_tab('{tab_id}')", title, show=False)
            for number, (tab_id, title, _) in enumerate(TABS, start=1)
        ),
    ]

    def __init__(self, engine: Hippo, *, tab: str = "facts", forget: str = "") -> None:
        super().__init__()
        self.engine = engine
        self.initial_tab = tab
        self.forget_text = forget
        self._warned = False  # about unsaved settings, once

    def compose(self) -> ComposeResult:
        yield Header()
        with _Tabs(initial=self.initial_tab, id="inspector"):
            for number, (tab_id, title, pane) in enumerate(TABS, start=1):
                with TabPane(f"{number % 10} {title}", id=tab_id):
                    if tab_id == self.initial_tab:  # the others are built when first shown
                        yield pane(self.engine, id=f"{tab_id}-pane")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"Memory · profile {self.engine.conversations.profile.name}"
        if self.forget_text:
            self.query_one(ForgetPane).preview(self.forget_text)
        self.call_after_refresh(self._focus_pane)

    def on_resize(self) -> None:
        self._label_tabs()

    def _label_tabs(self) -> None:
        """Shorten the labels of the tabs not on show as far as the width needs."""
        tabs = self.query_one(TabbedContent)
        titles = [(tab_id, title) for tab_id, title, _ in TABS]
        for tab_id, label in tab_labels(titles, tabs.active, self.size.width).items():
            tab = tabs.get_tab(tab_id)
            if tab.label_text != label:
                tab.label = label

    def action_show_tab(self, tab_id: str) -> None:
        """Switch to a tab and put the keyboard in it."""
        self.query_one(TabbedContent).active = tab_id
        self.call_after_refresh(self._focus_pane)

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._label_tabs()
        tab_pane = event.pane
        if tab_pane.id is not None and not tab_pane.children:
            pane = _PANES[tab_pane.id](self.engine, id=f"{tab_pane.id}-pane")
            await tab_pane.mount(pane)
        self.call_after_refresh(self._focus_pane)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        tab = next((node for node in event.widget.ancestors if isinstance(node, TabPane)), None)
        if tab is not None and tab.id != self.query_one(TabbedContent).active:
            self.call_after_refresh(self._focus_pane)  # it landed in a hidden tab (see _Tabs)

    def _focus_pane(self) -> None:
        pane = self.active_pane
        focused = self.focused
        if pane is None or (focused is not None and pane in focused.ancestors_with_self):
            return  # not built yet, or the keyboard is in it already (in a field, say)
        pane.focus_first()

    @property
    def active_pane(self) -> InspectorPane | None:
        """The pane of the tab on show (None until it is built)."""
        active = self.query_one(TabbedContent).active
        for pane in self.query(InspectorPane):
            if pane.id == f"{active}-pane":
                return pane
        return None

    def on_inspector_pane_changed(self, event: InspectorPane.Changed) -> None:
        # Left to bubble on to the app (the chat's counts); the other tabs reload when shown.
        for pane in self.query(InspectorPane):
            if pane is not event.pane:
                pane.loaded = False

    def on_inspector_pane_open_session(self, event: InspectorPane.OpenSession) -> None:
        # Read-only over the inspector: the chat changes only if the user continues it.
        from ui.screens.session_view import SessionViewScreen

        event.stop()
        self.app.push_screen(SessionViewScreen(self.engine, event.place), self._opened)

    def on_inspector_pane_show_fact(self, event: InspectorPane.ShowFact) -> None:
        event.stop()
        self.app.push_screen(ProvenanceScreen(self.engine, fact_id=event.fact_id), self._opened)

    def _opened(self, place: Place | None) -> None:
        if place is not None:
            self.dismiss(place)

    def action_back(self) -> None:
        """Leave a field for the tab's table or list (where 1-9 switch tabs); from there, close.

        Esc never closes the inspector from a field, so keys typed after a stray Esc
        can't land in the chat box.
        """
        focused = self.focused
        pane = self.active_pane
        if focused is None or pane is None or pane not in focused.ancestors:
            self._leave()  # on the table bar, or nothing has the keyboard
        elif not pane.resting:
            pane.focus_first()
        else:
            self._leave()

    def _leave(self) -> None:
        """Close, unless settings were edited and not saved: then say so once, first."""
        settings = next(iter(self.query(SettingsPane)), None)
        if settings is not None and settings.unsaved and not self._warned:
            self._warned = True
            self.action_show_tab("settings")
            self.notify(
                "Your changes to the settings are not saved: ctrl+s saves them; Esc again "
                "leaves without them.",
                title="Settings", severity="warning", markup=False,
            )  # fmt: skip
            return
        self.dismiss(None)
