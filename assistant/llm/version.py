"""Ollama's version asked over the standard library, for the status line's first answer.

The gateway asks through `httpx`, whose import and client (with its certificate store)
take about half a second on a busy two-core machine, while the engine's modules load in
another thread. A local Ollama's version needs none of that: one plain HTTP/1.0 request
on a socket answers in milliseconds, so the status line can say "up" with the first
frames. Only for a plain-http host on this machine (`quick_probe_fits`): a remote one
may need the environment's proxy or a token from the keyring, which the gateway handles.

Failures are the gateway's own errors (`OllamaUnreachable`, `OllamaTimeout`,
`OllamaResponseError`), so whoever asks can't tell the two doors apart.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.parse

from assistant.errors import OllamaUnreachable
from assistant.llm import failures
from assistant.llm.hosts import is_loopback

__all__ = ["ask_version", "quick_probe_fits"]

# A version answer is a few dozen bytes; more than this is not Ollama.
_MOST_BYTES = 64 * 1024


def quick_probe_fits(host: str) -> bool:
    """Whether `ask_version` may stand in for the gateway's probe of ``host``.

    Args:
        host: the resolved host URL (see `assistant.llm.hosts.resolve_host`).
    """
    return urllib.parse.urlsplit(host).scheme == "http" and is_loopback(host)


def ask_version(host: str, timeout: float, token: str | None = None) -> str:
    """Ollama's version at ``host`` (plain http), within ``timeout`` seconds.

    One HTTP/1.0 request on a socket: the modules it needs are loaded before any frame is
    drawn, so asking costs the app's first frame nothing but a few system calls (even
    `http.client`'s import, ~10 ms of CPU, took a visible share of a busy machine's first
    frame). HTTP/1.0 keeps the answer plain: no chunks, and the server closes after it.

    Args:
        host: the resolved host URL, e.g. "http://127.0.0.1:11434".
        timeout: the limit to connect, and then to get the answer.
        token: a bearer token to send (a local proxy in front of Ollama may want one).

    Returns:
        The version, e.g. "0.12.6".

    Raises:
        OllamaUnreachable: nothing listens there, or it did not accept in time.
        OllamaTimeout: it accepted the connection and then did not answer in time.
        OllamaResponseError: it answered with an error status, or not as Ollama does.
    """
    split = urllib.parse.urlsplit(host)
    try:
        sock = socket.create_connection((split.hostname or "", split.port or 80), timeout)
    except TimeoutError:
        raise OllamaUnreachable(host, f"no answer within {timeout:g} s") from None
    except ConnectionRefusedError:
        raise OllamaUnreachable(host, "connection refused") from None
    except socket.gaierror:
        raise OllamaUnreachable(host, "host name not found") from None
    except OSError as exc:
        raise OllamaUnreachable(host, exc.strerror or str(exc)) from None
    with sock:
        key = token or os.environ.get("OLLAMA_API_KEY")  # as the gateway's client sends it
        request = _request(split.netloc, f"{split.path.rstrip('/')}/api/version", key)
        try:
            sock.sendall(request)
            answer = _read_answer(sock)
        except TimeoutError:
            raise failures.timed_out(host, timeout, "", midway=False) from None
        except OSError as exc:
            raise failures.mid_way(host, exc.strerror or type(exc).__name__) from None
    return _version_in(host, answer)


def _request(netloc: str, path: str, token: str | None) -> bytes:
    lines = [f"GET {path} HTTP/1.0", f"Host: {netloc}", "Accept: application/json"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _read_answer(sock: socket.socket) -> bytes:
    """The whole answer: up to the length its header gives, or until the server closes."""
    data = b""
    while len(data) < _MOST_BYTES:
        head, blank, body = data.partition(b"\r\n\r\n")
        length = _content_length(head) if blank else None
        if length is not None and len(body) >= length:
            break
        part = sock.recv(_MOST_BYTES)
        if not part:
            break
        data += part
    return data


def _content_length(head: bytes) -> int | None:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            return int(value.strip())
    return None


def _version_in(host: str, answer: bytes) -> str:
    """The version in a whole HTTP answer, or the error that says what it was instead."""
    head, _, raw = answer.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise failures.unreadable(host, f"not an HTTP answer: {status_line[:60]!r}")
    status, body = int(parts[1]), raw.decode("utf-8", "replace")
    if status >= 400:
        raise failures.status_error(host, status, failures.error_text(body))
    try:
        version = json.loads(body).get("version")
    except (ValueError, AttributeError):  # not JSON, or not an object
        version = None
    if not isinstance(version, str):
        raise failures.unreadable(host, f"no version in {body[:60]!r}")
    return version
