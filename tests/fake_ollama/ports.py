"""Ports for test servers that the machine will not hand to anyone else meanwhile.

A server that stops and starts again keeps its port (Ollama going down and coming back).
The kernel picks a port for ``bind(0)`` from its ephemeral range, and it gives out the
same range as the local port of every outgoing connection: with five workers making
thousands of connections, one of them can take the port while the server is down, and
its restart then fails (seen once in ~20 whole runs on the 2-core machine). The kernel
never gives out ports below that range on its own; two servers that pick the same one
find out when they bind, and the second picks again.
"""

from __future__ import annotations

import errno
import random
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

__all__ = ["bind_outside_ephemeral", "ephemeral_start"]

T = TypeVar("T")

_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_FLOOR = 10_000  # below: the ports that well-known local services tend to use
_TRIES = 50


def ephemeral_start() -> int:
    """The lowest port the kernel gives out by itself (Linux's setting, else 32768)."""
    try:
        return int(_RANGE.read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default; macOS and Windows start higher still


def bind_outside_ephemeral(bind: Callable[[int], T]) -> T:
    """``bind(port)`` on a free port below the ephemeral range, else ``bind(0)``.

    Raises:
        OSError: binding failed for another reason than the port being taken.
    """
    low = ephemeral_start()
    if low - _FLOOR >= 1_000:
        for _ in range(_TRIES):
            try:
                return bind(random.randrange(_FLOOR, low))
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise
    return bind(0)
