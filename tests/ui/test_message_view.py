"""MessageView on its own: a reply streams in cheaply, then renders once, whole, at the end."""

from __future__ import annotations

import io
import itertools
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rich.markdown import Markdown as RichMarkdown
from textual.app import App, ComposeResult
from textual.widgets import Static

import ui
from assistant.memory.records import Message
from tests.ui.helpers import screen_text, wait_until
from ui.widgets import MessageView
from ui.widgets.live_reply import LiveReply, open_block_start
from ui.widgets.message import RenderedOnce


def _markdown(content: object) -> RichMarkdown:
    """The Markdown a Static shows (rendered once per width)."""
    assert isinstance(content, RenderedOnce) and isinstance(content.renderable, RichMarkdown)
    return content.renderable


async def _drawn_piece(pilot, view: MessageView, piece: str) -> LiveReply:
    """Stream ``piece`` into ``view`` and wait for the frame that shows it; the live body."""
    live = view.query_one(LiveReply)
    await view.append_text(piece)
    await wait_until(pilot, lambda: live.shown == view.content)
    return live


def _stored(content: str, status: str = "complete", error: str = "") -> Message:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    return Message(1, 1, "assistant", content, moment, status=status, error=error)  # type: ignore[arg-type]


class _OneMessage(App[None]):
    def compose(self) -> ComposeResult:
        yield MessageView("assistant", status="streaming", model="qwen3:1.7b")


async def test_a_reply_that_fails_before_any_text_settles_cleanly():
    app = _OneMessage()
    async with app.run_test() as pilot:
        view = app.query_one(MessageView)
        await view.finish(_stored("", "failed", "Can't reach Ollama"))  # no stream ever started
        await pilot.pause()
        assert view.status == "failed" and view.error == "Can't reach Ollama"
        assert not view.query(LiveReply)


class _Shown(App[None]):
    CSS_PATH = Path(ui.__file__).with_name("app.tcss")

    def __init__(self, view: MessageView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


async def _drawn(view: MessageView, text: str = "", stream: bool = False) -> tuple[str, list]:
    """The screen showing ``view`` (after ``text`` streamed into it in pieces, if asked),
    and what its body's widgets show."""
    app = _Shown(view)
    async with app.run_test(size=(80, 200)) as pilot:
        if stream:
            for i in range(0, len(text), 9):
                await view.append_text(text[i : i + 9])
                if i % 90 == 0:  # a frame every ten pieces
                    live = view.query_one(LiveReply)
                    await wait_until(pilot, lambda: live.shown == view.content)  # noqa: B023
            live = view.query_one(LiveReply)
            await view.finish(_stored(text))
            assert live.shown == text, "the last words are drawn at once"
            await wait_until(pilot, lambda: live.finished, what="the rest rendered")
        await pilot.pause()
        return screen_text(app), [w.content for w in view.query(".body, .body > *").results(Static)]


_MARKDOWN = (
    "# Plan\n\nSome **bold** words and `code`.\n\n- one\n- two\n\n1. first\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n\n```python\nx = 1\n```\n\n---\n"
    "After the rule.\n\n## Next\n\nThe end, still **open"
)


async def test_a_streamed_reply_ends_looking_as_the_same_reply_stored():
    text = "\n\n".join([_MARKDOWN] * 9)  # 1.6 KB: two chunks, and taller than the screen
    streamed = MessageView("assistant", status="streaming")
    after, chunks = await _drawn(streamed, text, stream=True)
    assert len(chunks) > 1
    assert "".join(_markdown(c).markup for c in chunks) == text
    stored, _ = await _drawn(MessageView.from_message(_stored(text)))
    assert after == stored


async def test_a_reply_with_link_references_is_rendered_whole_when_it_ends():
    text = "See [the docs][d].\n\nMore.\n\n[d]: https://example.org"
    app = _OneMessage()
    async with app.run_test() as pilot:
        view = app.query_one(MessageView)
        await view.append_text(text)
        await view.finish(_stored(text))
        await pilot.pause()
        assert not view.query(LiveReply)
        body = view.query_one(".body", Static)
        assert _markdown(body.content).markup == text


async def test_a_reply_stored_other_than_it_streamed_is_rendered_as_stored():
    app = _OneMessage()
    async with app.run_test() as pilot:
        view = app.query_one(MessageView)
        for piece in ("# Ti", "tle\n\n- one\n", "- two"):
            await view.append_text(piece)
        assert view.query(LiveReply), "text streams into the live body"
        await view.finish(_stored("# Title\n\n- one\n- two\n- three"))
        await pilot.pause()
        assert not view.query(LiveReply)
        body = view.query_one(".body", Static)
        assert _markdown(body.content).markup == "# Title\n\n- one\n- two\n- three"
        assert view.content == "# Title\n\n- one\n- two\n- three"


async def test_pieces_that_arrive_between_two_frames_are_drawn_in_one():
    app = _OneMessage()
    async with app.run_test() as pilot:
        view = app.query_one(MessageView)
        live = view.query_one(LiveReply)
        pieces = [f"word{i} " for i in range(200)]
        for piece in pieces:  # no await that yields: all arrive before the next frame
            await view.append_text(piece)
        await wait_until(pilot, lambda: live.shown == "".join(pieces), what="the text drawn")
        assert live.frames == 1
        await view.append_text("more")
        await wait_until(pilot, lambda: live.shown.endswith("more"), what="the next piece")
        assert live.frames == 2


async def test_finished_blocks_show_as_markdown_and_the_open_one_as_plain_text():
    app = _OneMessage()
    async with app.run_test() as pilot:
        view = app.query_one(MessageView)
        live = view.query_one(LiveReply)
        text = "# Title\n\nSome **bold** words.\n\n- one\n- two\n\nStill **open"
        await view.append_text(text)
        await wait_until(pilot, lambda: live.shown == text, what="the text drawn")
        (chunk,) = live.query(".chunk").results(Static)
        assert (
            _markdown(chunk.content).markup == "# Title\n\nSome **bold** words.\n\n- one\n- two\n\n"
        )
        assert live.query_one(".live", Static).content.plain == "Still **open"
        assert "Still **open" in screen_text(app) and "Some bold words." in screen_text(app)


async def test_words_rendered_as_markdown_never_show_twice_on_the_way():
    # Rendering finished blocks mounts a chunk, and the mount is awaited: on a busy
    # machine the app handles other messages (and may paint) meanwhile. The plain words
    # the chunk takes over must be gone from the live text by then, not after it.
    shown_twice: list[str] = []

    def look(_message: object) -> None:  # at every message the app handles
        if not app.screen_stack:
            return  # not started yet, or ended
        chunks = app.query(".chunk")
        live = app.query(".live")
        if chunks and live and "Some **bold**" in live.first(Static).content.plain:
            shown_twice.append(live.first(Static).content.plain)

    app = _OneMessage()
    async with app.run_test(message_hook=look) as pilot:
        view = app.query_one(MessageView)
        live = view.query_one(LiveReply)
        text = "# Title\n\nSome **bold** words.\n\n- one\n- two\n\nStill **open"
        await view.append_text(text)
        await wait_until(pilot, lambda: live.query(".chunk"), what="the blocks rendered")
        await pilot.pause()
    assert not shown_twice


async def test_a_long_paragraph_keeps_its_finished_lines_apart_and_loses_nothing():
    app = _OneMessage()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(MessageView)
        live = view.query_one(LiveReply)
        sentence = "a paragraph that never ends goes on and on "
        for i in range(100):  # 4 KB, with frames in between
            await view.append_text(sentence)
            if i % 10 == 9:
                await wait_until(pilot, lambda: live.shown == view.content)
        pieces = [s.content.plain for s in live.query(".piece").results(Static)]
        tail = live.query_one(".live", Static).content.plain
        assert pieces, "finished lines moved out of the live text"
        assert len(tail) < 1000 + len(sentence) * 10
        assert "".join(pieces) + tail == view.content


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("One paragraph\nstill going", 0),
        ("Para\n\nNext", len("Para\n\n")),
        ("- a\n- b\n\n- c", 0),  # a loose list is one block
        ("Intro\n\n```py\nx = 1\n\ny = 2\n", len("Intro\n\n")),  # an open fence
        ("| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter", len("| a | b |\n|---|---|\n| 1 | 2 |\n\n")),
        ("Title\r\n\r\nNext", len("Title\r\n\r\n")),
    ],
)
def test_the_open_block_starts_after_the_last_finished_one(text, start):
    assert open_block_start(text) == start


async def test_text_growing_into_its_room_is_painted_without_laying_the_view_out():
    view = MessageView("assistant", status="streaming")
    app = _Shown(view)
    async with app.run_test(size=(40, 40)) as pilot:
        live = view.query_one(LiveReply)
        heights = []
        for i in range(40):  # ~20 lines of 40 cells, with a frame after each piece
            await view.append_text(f"w{i:02d} " + "x" * 14 + " ")
            await wait_until(pilot, lambda: live.shown == view.content)
            await pilot.pause()
            assert f"w{i:02d}" in screen_text(app), "a new word is never cut off"
            heights.append(view.region.height)
        assert heights[-1] - heights[0] >= 15, "the reply grew line by line"
        changes = sum(a != b for a, b in itertools.pairwise(heights))
        assert changes <= (heights[-1] - heights[0]) / 2, heights  # laid out every few lines


def test_a_render_is_kept_for_the_width_it_was_made_at():
    from rich.console import Console

    renders = []

    class Counted:
        def __rich_console__(self, console, options):
            renders.append(options.max_width)
            yield from console.render(RichMarkdown("# Title\n\nSome *words* here."), options)

    once = RenderedOnce(Counted())
    console = Console(width=30, file=io.StringIO(), force_terminal=True)
    first = console.render_lines(once, console.options)
    assert console.render_lines(once, console.options) == first
    assert renders == [30]
    console.render_lines(once, console.options.update_width(20))
    assert renders == [30, 20]
    assert first == console.render_lines(Counted(), console.options)


async def test_a_finished_block_is_rendered_even_when_no_more_text_comes():
    app = _OneMessage()
    async with app.run_test(size=(60, 30)) as pilot:
        view = app.query_one(MessageView)
        live = await _drawn_piece(pilot, view, "# Title\n\nSome")
        await view.append_text(" more words\n\nNext")  # fits the room the live text has
        await wait_until(
            pilot,
            lambda: any(
                "Some more words" in _markdown(c.content).markup
                for c in live.query(".chunk").results(Static)
            ),
            what="the finished paragraph rendered as Markdown",
        )
        assert live.query_one(".live", Static).content.plain == "Next"


async def test_a_reply_that_ends_before_its_blocks_render_stays_finished():
    app = _OneMessage()
    async with app.run_test(size=(60, 30)) as pilot:
        view = app.query_one(MessageView)
        await _drawn_piece(pilot, view, "Intro\n\nSome")
        live = await _drawn_piece(pilot, view, " more\n\nEnd")  # a block's render is due
        await view.finish(_stored(view.content))
        await wait_until(pilot, lambda: live.finished, what="the rest rendered")
        live._schedule()  # what the render's deadline does when it comes after the end
        await pilot.pause()
        assert live.finished, "a frame after the end must not leave the reply unfinished"
