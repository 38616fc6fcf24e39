"""Ollama's version asked over the standard library, for the status line's first answer.

The gateway asks through `httpx`, whose import and client (with its certificate store)
take about half a second on a busy two-core machine, while the engine's modules load in
another thread. A local Ollama's version needs none of that: one plain HTTP request over
`http.client` answers in milliseconds, so the status line can say "up" just after the
first frame. Only for a plain-http host on this machine (`quick_probe_fits`): a remote one
may need the environment's proxy or a token from the keyring, which the gateway handles.

Failures are the gateway's own errors (`OllamaUnreachable`, `OllamaTimeout`,
`OllamaResponseError`), so whoever asks can't tell the two doors apart.
"""

from __future__ import annotations

import os
import socket
import urllib.parse
from typing import TYPE_CHECKING

from assistant.errors import OllamaUnreachable
from assistant.llm import failures
from assistant.llm.hosts import is_loopback

if TYPE_CHECKING:
    from http.client import HTTPConnection

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
    import http.client

    split = urllib.parse.urlsplit(host)
    connection = http.client.HTTPConnection(split.hostname or "", split.port, timeout=timeout)
    try:
        try:
            connection.connect()
        except TimeoutError:
            raise OllamaUnreachable(host, f"no answer within {timeout:g} s") from None
        except ConnectionRefusedError:
            raise OllamaUnreachable(host, "connection refused") from None
        except socket.gaierror:
            raise OllamaUnreachable(host, "host name not found") from None
        except OSError as exc:
            raise OllamaUnreachable(host, exc.strerror or str(exc)) from None
        return _read_version(connection, host, split.path.rstrip("/"), timeout, token)
    finally:
        connection.close()


def _read_version(
    connection: HTTPConnection, host: str, prefix: str, timeout: float, token: str | None
) -> str:
    """Send the request on an open connection and read the version from the answer."""
    import http.client
    import json

    key = token or os.environ.get("OLLAMA_API_KEY")  # as the gateway's client sends it
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        connection.request("GET", f"{prefix}/api/version", headers=headers)
        response = connection.getresponse()
        body = response.read(_MOST_BYTES).decode("utf-8", "replace")
    except TimeoutError:
        raise failures.timed_out(host, timeout, "", midway=False) from None
    except (OSError, http.client.HTTPException) as exc:
        raise failures.mid_way(host, str(exc) or type(exc).__name__) from None
    if response.status >= 400:
        raise failures.status_error(host, response.status, failures.error_text(body))
    try:
        version = json.loads(body).get("version")
    except (ValueError, AttributeError):  # not JSON, or not an object
        version = None
    if not isinstance(version, str):
        raise failures.unreadable(host, f"no version in {body[:60]!r}")
    return version
