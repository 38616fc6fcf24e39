"""bench/stream.py's child: runs one app over a fake Ollama and prints what a reply cost.

python -m bench.stream_child hippo|plain|markdown HOST WIDTHxHEIGHT
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.drivers.headless_driver import HeadlessDriver
from textual.message import Message
from textual.widgets import Footer, Header, Input, Markdown, Static

from bench.stream_text import MARKER


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Recorder:
    """When tokens arrive and frames are written, and the CPU time at those moments."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        self.first_cpu = 0.0
        self.frames: list[float] = []
        self.marker_at: float | None = None
        self.done_at: float | None = None
        self.done_cpu = 0.0
        self.settled: Callable[[], bool] = lambda: False
        self.finished = asyncio.Event()

    def token(self) -> None:
        """A token arrived (called from the thread that reads the stream)."""
        if not self.arrivals:
            self.first_cpu = _cpu()
        self.arrivals.append(time.perf_counter())

    def frame(self, data: str) -> None:
        """The app wrote a frame to its terminal."""
        if not self.arrivals or self.done_at is not None:
            return
        now = time.perf_counter()
        self.frames.append(now)
        if self.marker_at is None and MARKER in data:
            self.marker_at = now
        if self.marker_at is not None and self.settled():
            self.done_at, self.done_cpu = now, _cpu()
            self.finished.set()

    def figures(self) -> dict[str, float]:
        """The figures bench/stream.py prints."""
        assert self.marker_at is not None and self.done_at is not None
        first, last = self.arrivals[0], self.arrivals[-1]
        tokens = len(self.arrivals)
        cpu = self.done_cpu - self.first_cpu
        streamed = [f for f in self.frames if f <= self.marker_at]
        return {
            "tokens": tokens,
            "rate": (tokens - 1) / max(last - first, 1e-9),
            "cpu_s": cpu,
            "cpu_per_1k": cpu / tokens * 1000,
            "core": cpu / (self.done_at - first),
            "lag_ms": (self.marker_at - last) * 1000,
            "done_ms": (self.done_at - last) * 1000,
            "fps": len(streamed) / max(self.marker_at - first, 1e-9),
        }


RECORDER = Recorder()


class RecordingDriver(HeadlessDriver):
    """Headless, yet the app renders each frame as for a terminal; the output is dropped."""

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        if len(data) > 16:  # not the begin/end-of-update codes around each frame
            RECORDER.frame(data)


class Delta(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class Ended(Message):
    pass


class BareStream(App[None]):
    """A bare Textual app that shows a streamed reply: plain text, or Textual's Markdown."""

    def __init__(self, host: str, markdown: bool) -> None:
        super().__init__()
        self.host, self.markdown, self.text, self.ended = host, markdown, "", False
        self.stream = None

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll():
            yield Markdown(id="reply") if self.markdown else Static(id="reply")
        yield Input(placeholder="Message")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).anchor()

    def start(self) -> None:
        self.run_worker(self._read, thread=True)

    def _read(self) -> None:
        import ollama

        client = ollama.Client(self.host)
        chunks = client.chat("qwen3:1.7b", [{"role": "user", "content": "hi"}], stream=True)
        for chunk in chunks:
            if chunk.message.content:
                RECORDER.token()
                self.post_message(Delta(chunk.message.content))
        self.post_message(Ended())

    async def on_delta(self, message: Delta) -> None:
        self.text += message.text
        if self.markdown:
            if self.stream is None:
                self.stream = Markdown.get_stream(self.query_one("#reply", Markdown))
            await self.stream.write(message.text)
        else:
            self.query_one("#reply", Static).update(Content(self.text))

    async def on_ended(self, _: Ended) -> None:
        if self.stream is not None:
            await self.stream.stop()
        self.ended = True
        self.refresh()


async def _bare(host: str, size: tuple[int, int], markdown: bool) -> None:
    app = BareStream(host, markdown)
    app.driver_class = RecordingDriver
    RECORDER.settled = lambda: app.ended
    async with app.run_test(headless=False, size=size) as pilot:
        await pilot.pause()
        app.start()
        await RECORDER.finished.wait()


def _instrumented(engine):
    from assistant.turns import TextDelta

    send = engine.send

    def timed_send(*args, **kwargs):
        for event in send(*args, **kwargs):
            if isinstance(event, TextDelta):
                RECORDER.token()
            yield event

    engine.send = timed_send
    return engine


async def _hippo(host: str, size: tuple[int, int]) -> None:
    from assistant.config import Config
    from assistant.factory import open_engine
    from assistant.settings import OllamaSettings
    from tests.ui.helpers import type_text, wait_until
    from ui import HippoApp

    with tempfile.TemporaryDirectory() as tmp:
        config = Config(
            data_dir=Path(tmp), config_dir=Path(tmp, "cfg"), ollama=OllamaSettings(host=host)
        )
        app = HippoApp(lambda: _instrumented(open_engine(config)), config)
        app.driver_class = RecordingDriver
        RECORDER.settled = lambda: bool(RECORDER.arrivals) and not app.chat.streaming
        try:
            async with app.run_test(headless=False, size=size) as pilot:
                await wait_until(  # a busy machine may take a while
                    pilot, lambda: app.chat.status.reachable, timeout=120, what="the chat ready"
                )
                await type_text(pilot, "Tell me everything.")
                await pilot.press("enter")
                await RECORDER.finished.wait()
        finally:
            if app.opened is not None:
                app.opened.close()


def main() -> None:
    kind, host, term = sys.argv[1:4]
    width, height = (int(x) for x in term.split("x"))
    if kind == "hippo":
        asyncio.run(_hippo(host, (width, height)))
    else:
        asyncio.run(_bare(host, (width, height), markdown=kind == "markdown"))
    print(json.dumps(RECORDER.figures()))


if __name__ == "__main__":
    main()
