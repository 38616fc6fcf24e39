"""Where Ollama runs: OLLAMA_HOST (or Hippo's host setting) parsed into a URL to connect to."""

from __future__ import annotations

import ipaddress
import os
import urllib.parse

from assistant.errors import ConfigError

__all__ = ["DEFAULT_HOST", "is_loopback", "resolve_host"]

DEFAULT_HOST = "http://127.0.0.1:11434"
_DEFAULT_PORT = 11434


def resolve_host(value: str | None = None) -> str:
    """The URL to reach Ollama at, parsed as the `ollama` client parses OLLAMA_HOST.

    `value` (or, when empty, the OLLAMA_HOST environment variable) may be a bare host
    ("example.com"), host and port ("0.0.0.0:11434"), a bare port (":11434" or "11434")
    or a URL; the port defaults to 11434, or 80/443 with an explicit http/https scheme.
    Two deliberate differences from the client: a wildcard address (0.0.0.0, ::), which
    OLLAMA_HOST often holds so that the server listens everywhere, means this machine
    (Ollama's own CLI connects there too), and digits alone are a port, not a host name.

    Raises:
        ConfigError: the value is not an http(s) address.
    """
    raw = (value or os.environ.get("OLLAMA_HOST") or "").strip()
    text = f":{raw}" if raw.isdigit() else raw
    scheme, sep, rest = text.partition("://")
    port = {"http": 80, "https": 443}.get(scheme, _DEFAULT_PORT) if sep else _DEFAULT_PORT
    if not sep:
        scheme, rest = "http", text
    try:
        split = urllib.parse.urlsplit(f"{scheme}://{rest}")
        name, port = split.hostname or "127.0.0.1", split.port or port
    except ValueError as exc:
        raise _bad_host(raw, str(exc)) from None
    if scheme not in ("http", "https"):
        raise _bad_host(raw, f"unsupported scheme {scheme}://")
    host = _connectable(name)
    path = split.path.strip("/")
    return f"{scheme}://{host}:{port}" + (f"/{path}" if path else "")


def _bad_host(raw: str, why: str) -> ConfigError:
    return ConfigError(
        f"The Ollama host {raw!r} is not a valid address ({why}). Set OLLAMA_HOST (or the "
        "host in Hippo's settings) like 127.0.0.1:11434 or https://ollama.example.com."
    )


def _connectable(name: str) -> str:
    """`name` ready for a URL: IPv6 in brackets, wildcard addresses made loopback."""
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return name
    if address.is_unspecified:
        address = ipaddress.ip_address("::1" if address.version == 6 else "127.0.0.1")
    return f"[{address.compressed}]" if address.version == 6 else address.compressed


def is_loopback(url: str) -> bool:
    """Whether `url` names this machine: localhost, or a loopback address in any spelling.

    A name that merely starts like one ("127.example.com") is another machine.
    """
    name = (urllib.parse.urlsplit(url).hostname or "").rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):  # RFC 6761: always this machine
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return address.is_loopback or (mapped is not None and mapped.is_loopback)
