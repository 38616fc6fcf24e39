"""How long Hippo takes to give up on, or get away from, an Ollama that never answers.

Against the fake Ollama in its hung mode (it takes every request and answers none), prints:
- `hippo ask` on a fresh data file: seconds to the error message, with the default waits
  and with short ones set in config.toml;
- a cancelled call (Esc in the chat): seconds from the cancel to the freed thread;
- ctrl+q in the real app, in a pseudo-terminal, while its requests hang: seconds to exit;
- the status line: seconds from Ollama stopping (and starting again) to "down" ("up").

Usage: python bench/hang.py [--skip-defaults]   (the default-waits run takes ~35 s)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.config import Config  # noqa: E402
from assistant.errors import OllamaError  # noqa: E402
from assistant.llm.gateway import OllamaGateway  # noqa: E402
from assistant.settings import OllamaSettings  # noqa: E402
from tests.fake_ollama import FakeOllama  # noqa: E402


def ask_seconds(config_toml: str) -> tuple[float, str]:
    """Seconds `hippo ask` takes against a hung Ollama, and its last line of error."""
    with FakeOllama() as fake, tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "c").mkdir()
        Path(tmp, "c", "config.toml").write_text(config_toml)
        env = {**os.environ, "HIPPO_DATA_DIR": f"{tmp}/d", "HIPPO_CONFIG_DIR": f"{tmp}/c",
               "OLLAMA_HOST": fake.host}  # fmt: skip
        fake.fall_silent()
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "assistant.cli", "ask", "are you there?"],
            capture_output=True, text=True, env=env, cwd=ROOT, timeout=600,
        )  # fmt: skip
        took = time.monotonic() - started
    return took, (done.stderr.strip().splitlines() or ["(nothing)"])[-1]


def cancel_seconds() -> float:
    """Seconds from a cancel to the thread of a call held by a hung Ollama being free."""
    with FakeOllama() as fake, OllamaGateway(fake.host) as gateway:
        fake.fall_silent()
        cancel = threading.Event()

        def embed() -> None:
            with gateway.stopping_on(cancel), _quietly():
                gateway.embed("all-minilm", ["x"])

        thread = threading.Thread(target=embed)
        thread.start()
        fake.wait_until(lambda: fake.hanging == 1, 30)
        started = time.monotonic()
        cancel.set()
        thread.join()
        return time.monotonic() - started


class _quietly:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, *rest: object) -> bool:
        return kind is not None and issubclass(kind, OllamaError)  # type: ignore[arg-type]


def quit_seconds() -> float:
    """Seconds from ctrl+q to the end of the `hippo` process while every request hangs."""
    from tests.ui.test_quit_while_hung import Terminal

    with FakeOllama() as fake, tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TERM": "xterm-256color", "HIPPO_DATA_DIR": f"{tmp}/d",
               "HIPPO_CONFIG_DIR": f"{tmp}/c", "OLLAMA_HOST": fake.host}  # fmt: skip
        fake.fall_silent()  # from the start: the startup check hangs too
        os.chdir(ROOT)
        terminal = Terminal(env)
        try:
            fake.wait_until(lambda: fake.hanging >= 1, 120)
            terminal.type(b"are you there?\r")
            fake.wait_until(lambda: fake.hanging >= 2, 120)
            started = time.monotonic()
            terminal.type(b"\x11")
            terminal.process.wait(120)
            return time.monotonic() - started
        finally:
            terminal.close()


async def status_seconds() -> tuple[float, float]:
    """Seconds for the status line to say "down" after Ollama stops, and "up" after it starts."""
    from assistant.clock import ManualClock
    from assistant.engine import Hippo
    from ui import HippoApp

    with FakeOllama() as fake, tempfile.TemporaryDirectory() as tmp:
        config = Config(
            data_dir=Path(tmp), config_dir=Path(tmp), ollama=OllamaSettings(host=fake.host)
        )
        engine = Hippo(config.db_path, OllamaGateway(fake.host), chat_model=config.models.chat,
                       embedding_model=config.models.embedding, clock=ManualClock())  # fmt: skip
        app = HippoApp(engine, config)
        async with app.run_test(size=(100, 30)) as pilot:
            status = app.chat.status

            async def until(state: bool) -> float:
                started = time.monotonic()
                while status.reachable is not state:
                    await pilot.pause(0.05)
                return time.monotonic() - started

            await until(True)
            fake.stop()
            down = await until(False)
            fake.start()
            up = await until(True)
        engine.close()
    return down, up


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-defaults", action="store_true", help="skip the ~35 s run")
    args = parser.parse_args()
    short = "[ollama]\nconnect_timeout = 1\nload_timeout = 3\nstall_timeout = 2\n"
    runs = [("short waits (connect 1, load 3, stall 2)", short)]
    if not args.skip_defaults:
        runs.insert(0, ("default waits (connect 5, load 120, stall 30)", ""))
    for label, toml in runs:
        took, said = ask_seconds(toml)
        print(f"hippo ask, hung Ollama, {label}: {took:.1f} s\n  -> {said}")
    print(f"cancel of a call held by a hung Ollama: {cancel_seconds() * 1000:.0f} ms to free")
    print(f"ctrl+q with every request hung: {quit_seconds():.2f} s to exit")
    down, up = asyncio.run(status_seconds())
    print(f"status line: 'down' {down:.1f} s after Ollama stopped, 'up' {up:.1f} s after start")


if __name__ == "__main__":
    main()
