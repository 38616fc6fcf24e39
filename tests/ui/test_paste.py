"""A paste holding terminal codes arrives whole, in order, and goes into the box clean."""

from __future__ import annotations

from textual import events
from textual.drivers import linux_driver

from tests.ui.helpers import chat_ready, wait_until
from ui import HippoApp
from ui.paste import PasteParser, clean_paste
from ui.widgets import PromptInput

COPIED = "before \x1b[31mred\x1b[0m after\r\nnext \x1b]0;title\x07line"


def test_a_bracketed_paste_with_colour_codes_arrives_whole_and_in_order():
    parser = PasteParser()
    # As a terminal sends it, split across reads, a key typed before and after.
    reads = ["a\x1b[200~before \x1b[31mred", "\x1b[0m after\x1b[20", "1~b"]
    got = [event for data in reads for event in parser.feed(data)]
    assert [type(event).__name__ for event in got] == ["Key", "Paste", "Key"]
    assert isinstance(got[1], events.Paste)
    assert got[1].text == "before \x1b[31mred\x1b[0m after"
    assert [getattr(event, "key", None) for event in (got[0], got[2])] == ["a", "b"]


def test_pasted_text_loses_its_codes_and_keeps_its_words_and_lines():
    assert clean_paste(COPIED) == "before red after\nnext line"
    assert clean_paste("tab\there \u202eevil \x9b1m") == "tab\there evil "


async def test_the_chat_box_takes_a_paste_clean_through_the_terminal_driver(engine, config):
    app = HippoApp(engine, config)
    assert getattr(linux_driver, "XTermParser") is PasteParser  # noqa: B009 (what a real terminal run reads with)
    async with app.run_test(size=(80, 24)) as pilot:
        await chat_ready(pilot)
        prompt = app.chat.query_one(PromptInput)
        prompt.focus()
        app.post_message(events.Paste(COPIED))
        await wait_until(pilot, lambda: prompt.text == "before red after\nnext line")
        assert prompt.pasted
