"""Hippo's exceptions: one base, each message says what happened and what to do next.

HippoError
├── OllamaError                 anything that went wrong talking to Ollama
│   ├── OllamaUnreachable       no answer from the host (refused, DNS, timeout)
│   ├── OllamaAuthError         the host wants a (different) bearer token
│   ├── ModelNotFound           the host answered, but lacks the model
│   ├── OllamaResponseError     the host answered with an error or broken data
│   │   └── OllamaTimeout       the host took the request, then was silent too long
│   └── OllamaStopped           Hippo stopped the request (cancelled, or closing)
├── StorageError                the SQLite file
│   ├── SQLiteError             SQLite refused a read or write (full disk, busy, read-only)
│   ├── DamagedFile             the file failed SQLite's integrity check
│   ├── ExtensionLoadError      sqlite-vec could not be loaded
│   ├── DataKeyError            the file is encrypted and no key at hand opens it
│   └── MigrationError          a schema migration failed (nothing was changed)
├── NotFound                    no such item (in this profile): a fact, session, file, ...
├── InvalidInput                what was given can't be used (also a ValueError)
├── MemoryWriteError            a memory write was refused
│   ├── CoreMemoryError         a core memory edit was refused
│   └── UndoConflict            a later change touched what an undo would revert
├── ToolError                   a memory tool call was refused (assistant.memory.tools)
├── SleepError                  the consolidation could not run (assistant.sleep.errors)
│   ├── SleepLocked             another process consolidates this file right now
│   └── BudgetExhausted         the run's cap on model calls is reached
├── ConfigError                 a bad setting in config.toml or the environment
└── SecretStoreError            no usable keyring backend

SQLite's own errors never leave the data layer raw: ``data_schema.connect`` turns each
into an ``SQLiteError`` that is also an instance of the apsw class it came from. The
interfaces (CLI, app) show any ``HippoError``'s message and treat anything else as a bug.
A test (tests/test_error_tree.py) keeps this tree equal to the classes.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "CoreMemoryError",
    "DamagedFile",
    "DataKeyError",
    "ExtensionLoadError",
    "HippoError",
    "InvalidInput",
    "MemoryWriteError",
    "MigrationError",
    "ModelNotFound",
    "NotFound",
    "OllamaAuthError",
    "OllamaError",
    "OllamaResponseError",
    "OllamaStopped",
    "OllamaTimeout",
    "OllamaUnreachable",
    "SQLiteError",
    "SecretStoreError",
    "StorageError",
    "UndoConflict",
]


class HippoError(Exception):
    """Base of every error Hippo raises on purpose."""


class OllamaError(HippoError):
    """Something went wrong talking to the Ollama server."""

    def __init__(self, message: str, *, host: str = "") -> None:
        super().__init__(message)
        self.host = host


class OllamaUnreachable(OllamaError):
    """The Ollama host did not answer at all."""

    def __init__(self, host: str, detail: str = "") -> None:
        why = f" ({detail})" if detail else ""
        super().__init__(
            f"Can't reach Ollama at {host}{why}. Start it with `ollama serve` "
            "(install it from https://ollama.com/download), or set OLLAMA_HOST "
            "to the host where it runs.",
            host=host,
        )


class OllamaAuthError(OllamaError):
    """The host rejected the request's credentials."""

    def __init__(self, host: str, status: int) -> None:
        super().__init__(
            f"Ollama at {host} refused the request (HTTP {status}): it needs a bearer "
            "token. Store one with `hippo token set`, or set HIPPO_OLLAMA_TOKEN.",
            host=host,
        )
        self.status = status


class ModelNotFound(OllamaError):
    """The host does not have the requested model.

    The message says what to do in the shell; ``in_app`` says it for the app (F2).
    """

    def __init__(self, model: str, host: str = "") -> None:
        self.missing = f"Model '{model}' is not installed on Ollama at {host or 'the host'}."
        super().__init__(
            f"{self.missing} Pull it with `hippo model pull {model}`, or choose an installed "
            "one (`hippo model list`, then `hippo model use`).",
            host=host,
        )
        self.model = model

    @property
    def in_app(self) -> str:
        """The message as the app says it: the models screen (F2) pulls and chooses."""
        return f"{self.missing} Press F2 to pull it (p) or to choose an installed one."


class OllamaResponseError(OllamaError):
    """The host answered with an error status or with data Hippo cannot read."""

    def __init__(self, message: str, *, host: str = "", status: int | None = None) -> None:
        super().__init__(message, host=host)
        self.status = status


class OllamaTimeout(OllamaResponseError):
    """The host took the request, then sent nothing for longer than allowed.

    Attributes:
        waited: the seconds allowed.
        midway: whether the answer had begun (a stall) or not (no first byte).
    """

    def __init__(self, message: str, *, host: str, waited: float, midway: bool) -> None:
        super().__init__(message, host=host)
        self.waited, self.midway = waited, midway


class OllamaStopped(OllamaError):
    """Hippo stopped the request itself: the user cancelled, or Hippo is closing."""


class StorageError(HippoError):
    """The SQLite data file could not be opened, read or written."""


class SQLiteError(StorageError):
    """SQLite refused a read or write; the message says what it means for the data file.

    Raised by the data layer in place of apsw's error (the ``__cause__``), as an instance
    of a subclass that also derives from that apsw class.
    """


class NotFound(HippoError):
    """What was asked for does not exist (in this profile); the message names it."""


class InvalidInput(HippoError, ValueError):
    """What was given can't be used; the message says what is allowed.

    Also a ``ValueError``, which such input raised before (callers that catch it keep working).
    """


class ExtensionLoadError(StorageError):
    """The sqlite-vec extension could not be loaded."""


class DataKeyError(StorageError):
    """The data file is encrypted and no key at hand opens it; the message says where it looked."""


class MigrationError(StorageError):
    """A schema migration failed; its transaction was rolled back."""


class MemoryWriteError(HippoError):
    """A memory write was refused; the message says why and what to do instead."""


class CoreMemoryError(MemoryWriteError):
    """A core memory edit was refused; the message says why and what to do instead."""


class ConfigError(HippoError):
    """A setting is missing or invalid."""


class SecretStoreError(HippoError):
    """No usable keyring backend to keep a secret in."""


class UndoConflict(MemoryWriteError):
    """An undo was refused: a later change touched what it would revert; the message names it."""


class DamagedFile(StorageError):
    """The data file failed SQLite's integrity check; the message offers a good backup."""
