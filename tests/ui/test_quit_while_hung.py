"""ctrl+q ends the real `hippo` process promptly even while a request to Ollama hangs.

The app runs in a pseudo-terminal, as in a user's terminal, against the fake Ollama held
mid-request; the test waits for states (the request hanging, the process gone), with
generous ceilings, never for fixed times.
"""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="drives a Linux pseudo-terminal")

CTRL_Q = b"\x11"
STARTS_S = 120.0  # a cold start on a busy machine
ENDS_S = 30.0  # the ceiling, far above the promise (2 s), for a busy machine


class Terminal:
    """`hippo` in a pseudo-terminal of 100x30, whose output is drained as it comes."""

    def __init__(self, env: dict[str, str]) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "assistant.cli"],
            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        self._master = master
        self.output = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._master, 65536)
            except OSError:  # the terminal's last user left
                return
            if not chunk:
                return
            self.output += chunk

    def type(self, data: bytes) -> None:
        os.write(self._master, data)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self._master)


@pytest.fixture
def terminal(tmp_path, fake_ollama) -> Iterator[Terminal]:
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "HIPPO_DATA_DIR": str(tmp_path / "data"),
        "HIPPO_CONFIG_DIR": str(tmp_path / "config"),
        "OLLAMA_HOST": fake_ollama.host,
    }
    term = Terminal(env)
    yield term
    term.close()


def _wait_for(predicate, ceiling: float, what: str) -> None:
    deadline = time.monotonic() + ceiling
    while not predicate():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)  # polling a state another process changes, not a timed wait


def test_ctrl_q_ends_the_app_while_a_reply_hangs(terminal, fake_ollama):
    fake_ollama.fail_next("/api/chat", "hang")
    paths = lambda: [r.path for r in fake_ollama.requests]  # noqa: E731
    _wait_for(lambda: "/api/tags" in paths(), STARTS_S, "the app's check of Ollama")
    terminal.type(b"are you there?\r")
    assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 1, STARTS_S), "no hung request"
    terminal.type(CTRL_Q)
    terminal.process.wait(ENDS_S)
    assert terminal.process.returncode == 0
    assert fake_ollama.wait_until(lambda: fake_ollama.hanging == 0)  # it hung up


def test_ctrl_q_ends_the_app_while_ollama_hangs_everything(terminal, fake_ollama):
    _wait_for(lambda: any(r.path == "/api/tags" for r in fake_ollama.requests), STARTS_S, "start")
    fake_ollama.fall_silent()  # the status checks, the reply, the embedder: all held
    terminal.type(b"are you there?\r")
    assert fake_ollama.wait_until(lambda: fake_ollama.hanging >= 1, STARTS_S), "no hung request"
    terminal.type(CTRL_Q)
    terminal.process.wait(ENDS_S)
    assert terminal.process.returncode == 0


def _run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=ENDS_S * 2
    )


def test_a_thread_still_busy_after_the_app_cannot_hold_the_process():
    done = _run_python(
        "import threading; from ui.threads import exit_past_stragglers\n"
        "threading.Thread(target=threading.Event().wait, name='stuck').start()\n"
        "print('closed', flush=True); exit_past_stragglers(3)\n"
        "print('never here')"
    )
    assert (done.returncode, done.stdout) == (3, "closed\n")


def test_without_stragglers_the_process_ends_as_usual():
    done = _run_python(
        "import threading; from ui.threads import exit_past_stragglers\n"
        "threading.Thread(target=lambda: None).start()\n"
        "exit_past_stragglers(3); print('went on')"
    )
    assert (done.returncode, done.stdout) == (0, "went on\n")


def test_worker_threads_never_hold_their_loop_open():
    done = _run_python(
        "import asyncio, threading\n"
        "from ui.threads import use_daemon_threads\n"
        "async def main():\n"
        "    use_daemon_threads()\n"
        "    loop = asyncio.get_running_loop()\n"
        "    loop.run_in_executor(None, threading.Event().wait)  # blocked for good\n"
        "    return await loop.run_in_executor(None, lambda: 'worked')\n"
        "print(asyncio.run(main()))"
    )
    assert (done.returncode, done.stdout) == (0, "worked\n")
