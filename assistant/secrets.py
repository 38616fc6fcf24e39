"""The bearer token for a remote Ollama host: from the environment or the system keyring.

Never written to a plaintext file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import ModuleType

from assistant.errors import SecretStoreError

__all__ = [
    "MCP_TOKEN_ENV",
    "TOKEN_ENV",
    "clear_token",
    "keyring_usable",
    "load_token",
    "mcp_token",
    "save_token",
]

TOKEN_ENV = "HIPPO_OLLAMA_TOKEN"
_SERVICE = "hippo-ollama"
MCP_TOKEN_ENV = "HIPPO_MCP_TOKEN"
_MCP_SERVICE = "hippo-mcp"
_MCP_ACCOUNT = "http"
_NO_BACKEND = (
    "No keyring backend is available on this system, so Hippo can't store the token safely. "
    "Install one (e.g. `pip install keyrings.alt` or start a Secret Service such as "
    "gnome-keyring), or set {env} in your environment instead."
)


def _keyring() -> ModuleType:
    # Imported when first used: keyring is optional and slow to import.
    import keyring

    return keyring


def keyring_usable() -> bool:
    """Whether a real keyring backend is present (not keyring's 'fail' stand-in)."""
    try:
        backend = _keyring().get_keyring()
    except Exception:
        return False
    return backend.priority > 0 and type(backend).__module__ != "keyring.backends.fail"


def load_token(
    host: str, *, use_keyring: bool = True, environ: Mapping[str, str] | None = None
) -> str | None:
    """The token for ``host``: the environment variable first, then the keyring."""
    env = os.environ if environ is None else environ
    if env.get(TOKEN_ENV):
        return env[TOKEN_ENV]
    if not use_keyring or not keyring_usable():
        return None
    try:
        token: str | None = _keyring().get_password(_SERVICE, host)
    except Exception:
        return None
    return token


def save_token(host: str, token: str) -> None:
    """Keep ``token`` for ``host`` in the system keyring.

    Raises:
        SecretStoreError: no keyring backend, or it refused the write.
    """
    if not keyring_usable():
        raise SecretStoreError(_NO_BACKEND.format(env=TOKEN_ENV))
    try:
        _keyring().set_password(_SERVICE, host, token)
    except Exception as exc:
        raise SecretStoreError(f"The keyring refused to store the token: {exc}.") from exc


def clear_token(host: str) -> bool:
    """Forget the stored token for ``host``; return whether there was one."""
    if not keyring_usable():
        return False
    keyring = _keyring()
    try:
        keyring.delete_password(_SERVICE, host)
    except keyring.errors.PasswordDeleteError:
        return False
    return True


def mcp_token(environ: Mapping[str, str] | None = None) -> str:
    """The bearer token `hippo mcp --http` asks of its clients: the environment's, else the
    keyring's, made (random, 256 bits) and kept there on first use.

    Raises:
        SecretStoreError: no token in the environment and no keyring to keep one in.
    """
    env = os.environ if environ is None else environ
    if env.get(MCP_TOKEN_ENV):
        return env[MCP_TOKEN_ENV]
    if not keyring_usable():
        raise SecretStoreError(_NO_BACKEND.format(env=MCP_TOKEN_ENV))
    keyring = _keyring()
    try:
        token: str | None = keyring.get_password(_MCP_SERVICE, _MCP_ACCOUNT)
        if not token:
            import secrets

            token = secrets.token_urlsafe(32)
            keyring.set_password(_MCP_SERVICE, _MCP_ACCOUNT, token)
    except Exception as exc:
        raise SecretStoreError(f"The keyring refused the MCP token: {exc}.") from exc
    return token
