"""A reply's body while it streams: cheap to keep up to date however fast or long it grows.

Re-rendering the whole reply as Markdown at every token costs a CPU core (and the
cost grows with the reply). Here the text that arrives is shown at most `FRAME_RATE`
times a second; Markdown blocks that are finished (a later block has begun) are
rendered once, into chunks of a few KB that are never redrawn, and only the open
block, the one still growing, is drawn as plain text. An open block that grows long
(a paragraph that never ends) has its finished lines moved into plain pieces of
their own, so each frame wraps a line or two, not the whole block. When the reply
ends (`finish`), only its open block is rendered as Markdown: the chunks render as the
whole reply does, each finished block being one Rich renders on its own, with the blank
line Rich puts between blocks as a margin.

What a frame costs is mostly what it makes Textual paint. While the conversation follows
the reply's end, a reply that grows taller moves the whole view, which is painted again;
so the plain text keeps a few blank lines to grow into (a frame then paints it alone),
and finished blocks, whose rendering changes the reply's height too, are rendered when
the view moves anyway, or a second after they end.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from rich.console import RenderableType
    from textual.app import ComposeResult

__all__ = ["FRAME_RATE", "FramePacer", "LiveReply", "open_block_start"]

FRAME_RATE = 15
"""The most times a second the streaming text is redrawn."""

# Drawing a frame costs what the terminal's size and the conversation make it cost
# (~8 ms on a fast machine, ~20 ms on a slow one, to repaint a scrolled 100x40 view),
# and most people run the model on the same CPU: frames are spaced so that the whole
# app (drawing, and the thread that reads and stores the reply: ~0.05 of a core at 100
# tokens/s) uses at most this share of a core while a reply streams...
_STREAM_SHARE = 0.2
# ...but never further apart than this, so the newest words show within ~200 ms of
# arriving (one interval, then the frame itself).
_SLOWEST_S = 0.15
# Blank lines kept below the live text for it to grow into (see `_update_in_place`): the
# view is laid out and painted whole once per this many lines and one, not at each line.
_SLACK_LINES = 3
# A finished Markdown block is shown rendered at the latest this long after it ended
# (sooner if the screen is laid out before): rendering one changes the reply's height,
# and a block ends every line or two in a list or a code-heavy reply.
_SETTLE_WITHIN_S = 1.0

# A chunk of finished blocks is extended until it holds this many characters; a new
# block then starts a new chunk (re-rendering a chunk costs in proportion to its size).
_CHUNK_CHARS = 1500
# The open block's plain text is split into finished lines from this many characters.
_LIVE_CHARS = 1000
# An open block larger than this is parsed for block ends only when it has grown by a
# quarter since it last was (parsing costs in proportion to its size).
_PARSE_FREELY = 4000
_NEWLINE = re.compile(r"\r\n?|\n")
# Rich puts no blank line after a thematic break (a horizontal rule).
_RULE_AT_END = re.compile(r"(?:^|\n) {0,3}([-*_])(?: *\1){2,} *\s*$")
_OPEN_WITH_BLANK = frozenset(
    ("bullet_list_open", "ordered_list_open", "table_open", "blockquote_open")
)
# A link reference definition applies to the whole text, so blocks rendered apart may
# differ from the whole: such a reply is rendered whole at its end.
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:", re.MULTILINE)


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # Blocks only: where each starts is all that is asked, not what is inside them.
    return MarkdownIt("commonmark").enable("table").disable("inline")


def open_block_start(text: str) -> int:
    """Where the last top-level Markdown block of ``text`` starts (0: it has only one).

    Every block before it is finished: a later one has begun.
    """
    starts = [t.map[0] for t in _parser().parse(text) if t.level == 0 and t.map]
    if len(starts) < 2 or starts[-1] == 0:
        return 0
    line = starts[-1]
    # markdown-it counts lines as split by its own newline rule.
    for number, match in enumerate(_NEWLINE.finditer(text), start=1):
        if number == line:
            return match.end()
    return 0


def _opens_with_blank(text: str) -> bool:
    """Whether Rich starts its render of ``text`` with a blank line of its own.

    It does for a list, a table or a quote (then no margin is put before it).
    """
    head = "\n".join(text.lstrip("\r\n").splitlines()[:2])
    tokens = _parser().parse(head)
    return bool(tokens) and tokens[0].type in _OPEN_WITH_BLANK


def _wrap_offsets(line: str, width: int) -> list[int]:
    """Where a Static of ``width`` cells wraps ``line`` (one line, no newline)."""
    try:
        from textual._wrap import compute_wrap_offsets
    except ImportError:  # a Textual without it: break at the last space, near enough
        space = line.rfind(" ", 0, max(0, len(line) - width))
        return [space + 1] if space >= 0 else []
    return compute_wrap_offsets(line, width, tab_size=8)


def _update_in_place(live: Static, content: Content) -> bool:
    """Show ``content`` in ``live``, laying the screen out only when it outgrows its room.

    While the conversation follows the reply's end, a layout that makes the reply taller
    moves everything above it, and the whole view is painted again: 20-30 ms a frame on
    a slow machine. So the live text is given `_SLACK_LINES` blank lines to grow into;
    until it fills them, a frame paints only the live text.

    Returns:
        Whether it fitted (no layout).
    """
    live.update(content, layout=False)
    width = live.content_region.width
    room = live.content_region.height
    if width <= 0:
        live.refresh(layout=True)
        return False
    height = live.get_content_height(live.content_region.size, live.content_region.size, width)
    if height > room or height + _SLACK_LINES < room:
        live.styles.min_height = height + _SLACK_LINES  # laid out again
    return height <= room


class FramePacer:
    """How far apart to draw frames, so that the app takes at most a share of a core.

    Each frame is told (`framed`); the app's CPU time since the frame before, over the
    share allowed, is the interval that share allows, kept between `FRAME_RATE`'s and
    `_SLOWEST_S`. On a machine where frames are cheap that is `FRAME_RATE` frames a
    second; where they cost more, fewer, rather than a busier core. The whole process is
    counted, not only the thread that draws: what the others spend while a reply streams
    (reading and storing it) leaves drawing less.

    Args:
        share: the share of a core the app may use while a reply streams.
        cpu: the app's CPU time (every thread's).
    """

    def __init__(
        self, share: float = _STREAM_SHARE, cpu: Callable[[], float] = time.process_time
    ) -> None:
        self._share = share
        self._cpu = cpu
        self._cpu_at: float | None = None
        self.interval = 1 / FRAME_RATE
        """Seconds to leave between the start of one frame and the next."""

    def framed(self) -> None:
        """A frame starts now: pace the next by what the last interval cost."""
        now = self._cpu()
        if self._cpu_at is not None:
            wanted = (now - self._cpu_at) / self._share
            # Half the way there each frame: one slow frame (a chunk rendered as
            # Markdown) doesn't halve the rate, a steady cost soon sets it.
            wanted = (self.interval + wanted) / 2
            self.interval = min(_SLOWEST_S, max(1 / FRAME_RATE, wanted))
        self._cpu_at = now


class LiveReply(Vertical):
    """The streaming body of a reply: finished blocks as Markdown, the open one as plain text.

    Args:
        text: the text so far.
        markdown: makes the renderable of finished Markdown blocks (as the message's
            final render does, so they look the same).
        classes: CSS classes.
    """

    DEFAULT_CSS = """
    LiveReply { height: auto; }
    LiveReply > Static { height: auto; }
    """

    def __init__(
        self,
        text: str,
        markdown: Callable[[str], RenderableType],
        *,
        classes: str | None = None,
    ) -> None:
        super().__init__(classes=classes)
        self._text = text
        # Pieces not yet added to _text: adding each to a long str would copy it each time.
        self._arrived: list[str] = []
        self.frames = 0
        """How many times the shown text has been brought up to date."""
        self._markdown = markdown
        self._settled = 0  # text[:settled] is shown as Markdown, in chunks
        self._chunk: Static | None = None  # the newest chunk, extended while small
        self._chunk_from = 0
        self._pieces: list[Static] = []  # the open block's finished lines, as plain text
        self._live_from = 0  # text[live_from:] is in the live Static
        self._scanned = 0  # text[:scanned] was looked at for block ends
        self._finished_end = 0  # text[:finished_end] is finished blocks, shown or not
        self._settle_by = float("inf")  # when those not shown yet must be
        self._parsed_size = 0  # the open block's size when it was last parsed
        self._shown_upto = 0
        self._finished = False
        self._due = False
        self._last_frame = float("-inf")
        self.pacer = FramePacer()

    def compose(self) -> ComposeResult:
        yield Static(Content(""), classes="live")

    def on_mount(self) -> None:
        if self.text:
            self._schedule()

    @property
    def text(self) -> str:
        """All the text received so far."""
        if self._arrived:
            self._text += "".join(self._arrived)
            self._arrived.clear()
        return self._text

    @property
    def shown(self) -> str:
        """The text the widgets show now (all of it, once the next frame is drawn)."""
        return self.text[: self._shown_upto]

    def append(self, text: str) -> None:
        """Add a piece of the reply; it is drawn with the next frame."""
        self._arrived.append(text)
        self._schedule()

    def _schedule(self) -> None:
        if self._due or self._finished:
            return  # the next frame will show this text too (or `finish` showed it all)
        self._due = True
        wait = self._last_frame + self.pacer.interval - time.monotonic()
        if wait > 0:
            self.set_timer(wait, self._frame)
        else:
            self.call_later(self._frame)  # after the message being handled: pieces coalesce

    async def _frame(self) -> None:
        if self._finished:
            return
        self._due = False
        self._last_frame = time.monotonic()
        self.pacer.framed()
        end = self._finished_blocks_end()
        if end > self._settled and self._last_frame >= self._settle_by:
            await self._render_blocks(end)
        if not await self._frame_text() and end > self._settled:
            # The screen is laid out for the live text anyway: the blocks settle with it.
            await self._render_blocks(end)
            await self._frame_text()

    async def _frame_text(self, *, layout: bool = False) -> bool:
        """Bring the plain text shown up to date (``layout``: lay the screen out even so).

        Returns:
            Whether it fitted the room it had (no layout was needed).
        """
        self.frames += 1
        await self._split_open_block()
        self._shown_upto = len(self.text)
        live, text = self._live_text()
        if layout:
            live.update(text)
            return False
        return _update_in_place(live, text)

    def _finished_blocks_end(self) -> int:
        """Where the blocks finished so far end (`_settled` if none has since the last render).

        A finished block is rendered as Markdown when the screen is laid out anyway (the
        live text outgrew its room), or `_SETTLE_WITHIN_S` after it was found: each
        render changes the reply's height, and so the whole view is painted again.
        """
        if self._finished_end <= self._settled:
            self._finished_end = self._settled
            self._settle_by = float("inf")
        if self.text.find("\n", self._scanned) < 0:
            return self._finished_end  # a block ends only at a line's end
        open_size = len(self.text) - self._settled
        if open_size > _PARSE_FREELY and open_size < self._parsed_size * 1.25:
            return self._finished_end
        self._scanned, self._parsed_size = len(self.text), open_size
        start = open_block_start(self.text[self._settled :])
        if start > 0 and self._settled + start > self._finished_end:
            self._finished_end = self._settled + start
            if self._settle_by == float("inf"):
                self._settle_by = time.monotonic() + _SETTLE_WITHIN_S
                self.set_timer(_SETTLE_WITHIN_S, self._schedule)  # a frame then, text or not
        return self._finished_end

    async def _render_blocks(self, end: int) -> None:
        """Show ``text[settled:end]`` (whole blocks) as Markdown, instead of plain text.

        The plain text they replace (the live text's start, the pieces split off it)
        goes in the same step as they appear, before any await: no frame, however late
        the mount comes on a busy machine, shows those words twice.
        """
        mounting = None
        if self._chunk is not None and end - self._chunk_from <= _CHUNK_CHARS:
            self._chunk.update(self._markdown(self._chunk_text(end)))
        else:
            self._chunk, self._chunk_from = Static(classes="chunk"), self._settled
            self._chunk.update(self._markdown(self._chunk_text(end)))
            blank = _opens_with_blank(self._chunk_text(end))
            self._chunk.styles.margin = (0 if blank else self._gap(), 0, 0, 0)
            mounting = self.mount(self._chunk, before=self.query_one(".live"))
        self._settled = self._live_from = end
        self._parsed_size = 0
        live, text = self._live_text()
        live.update(text)
        pieces, self._pieces = self._pieces, []
        for piece in pieces:
            piece.display = False
        if mounting is not None:
            await mounting
        if pieces:
            await self.remove_children(pieces)

    def _live_text(self) -> tuple[Static, Content]:
        """The live text's widget, its margin set, and the text it is to show."""
        live = self.query_one(".live", Static)
        live.styles.margin = (self._gap() if self._live_from == self._settled else 0, 0, 0, 0)
        return live, Content(self.text[self._live_from :])

    def _chunk_text(self, end: int) -> str:
        return self.text[self._chunk_from : end]

    def _gap(self) -> int:
        """The blank lines Rich would put between the settled text and what follows."""
        # The settled text's last line is enough (a rule is one line).
        near = max(0, self.text.rfind("\n", 0, max(0, self._settled - 1)))
        if not self._settled or _RULE_AT_END.search(self.text, near, self._settled):
            return 0
        return 1

    def renders_whole(self, text: str) -> bool:
        """Whether `finish` would show ``text`` as one Markdown render of it would."""
        return text == self.text and _REFERENCE.search(text) is None

    @property
    def finished(self) -> bool:
        """Whether the whole reply is shown as Markdown (`finish` has run its course)."""
        return self._finished and self._shown_upto == len(self.text) and not self._due

    async def finish(self) -> None:
        """Show the rest of the reply at once, then as Markdown too; draw no more frames.

        Only what is still open is rendered: finished blocks are already shown as
        Markdown (see `renders_whole` for when that matches a render of the whole).
        The last words are drawn first, as plain text: rendering a long open block
        takes a moment, and the reader should not wait for it to see them.
        """
        self._finished, self._due = True, True
        # Laid out, so the frame showing the last words is drawn before `_render_rest`
        # (a repaint alone might be overtaken by it, and those words shown only later).
        await self._frame_text(layout=True)
        self.call_after_refresh(self._render_rest)

    async def _render_rest(self) -> None:
        if not self.is_attached:
            return  # gone meanwhile (another session shown)
        if self.text[self._settled :].strip():
            await self._render_blocks(len(self.text))
        await self.query_one(".live", Static).remove()
        self._due = False

    async def _split_open_block(self) -> None:
        """Move the open block's finished lines out of the live text, once it grows long."""
        live = self.text[self._live_from :]
        width = self.query_one(".live", Static).content_region.width
        if len(live) < _LIVE_CHARS or width <= 0:
            return
        cut = live.rfind("\n") + 1  # whole lines first
        if cut == 0:
            offsets = _wrap_offsets(live, width)
            cut = offsets[-1] if offsets else 0  # then wrapped lines of the last one
        if cut <= 0:
            return
        piece = Static(Content(live[:cut].removesuffix("\n")), classes="piece")
        piece.styles.margin = (0 if self._pieces else self._gap(), 0, 0, 0)
        self._pieces.append(piece)
        await self.mount(piece, before=self.query_one(".live"))
        self._live_from += cut
