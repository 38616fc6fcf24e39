"""What Ollama sends: the shapes of its JSON bodies and NDJSON streams, and the values tests
script them with (`Reply`) or read back (`RecordedRequest`)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tests.fake_ollama.schema import schema_instance

__all__ = [
    "FAILURE_KINDS",
    "ChatTurn",
    "ModelSpec",
    "PullPlan",
    "RecordedRequest",
    "Reply",
    "Response",
    "canonical",
    "error",
    "pull_lines",
    "show_body",
    "tags_entry",
]

FAILURE_KINDS = frozenset({"500", "drop", "hang", "not_found", "unauthorized"})
MODIFIED_AT = "2025-06-01T10:00:00.000000000+00:00"


def _check_kind(kind: str | None) -> None:
    if kind is not None and kind not in FAILURE_KINDS:
        raise ValueError(f"unknown failure kind {kind!r}; use one of {sorted(FAILURE_KINDS)}")


@dataclass(frozen=True)
class Reply:
    """One scripted chat reply.

    Attributes:
        content: The visible text. With a `format`, it is sent as-is (it may be broken JSON
            on purpose); left empty, a minimal instance of the schema is sent instead.
        thinking: Sent as `message.thinking` when the request has `think` on and the model
            can think; dropped otherwise, as Ollama does.
        tool_calls: `[{"name": ..., "arguments": {...}}]`, sent only when the request has tools.
        chunk_size: Characters per streamed chunk.
        delay: Seconds between streamed chunks (0 uses the server's `reply_delay`).
        fail: A kind from `FAILURE_KINDS` for this reply ("drop" cuts it mid-way).
        done_reason: The final chunk's `done_reason` ("stop", "length", ...).
        stall_after: With `stall`, how many chunks are sent before the stream stalls.
        stall: Seconds the stream then sends nothing (a model stuck mid-reply), unless the
            client hangs up or the server stops first.
    """

    content: str = ""
    thinking: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    chunk_size: int = 4
    delay: float = 0.0
    fail: str | None = None
    done_reason: str = "stop"
    stall_after: int = 0
    stall: float = 0.0

    def __post_init__(self) -> None:
        _check_kind(self.fail)


@dataclass(frozen=True)
class RecordedRequest:
    """A request as the fake received it (header names in lower case)."""

    method: str
    path: str
    body: dict[str, Any] | None
    headers: dict[str, str]


@dataclass(frozen=True)
class ModelSpec:
    """An installed model; `revision` counts the new weights it got under its name."""

    name: str
    capabilities: tuple[str, ...]
    size: int
    context_length: int
    embedding_length: int | None
    family: str
    parameter_size: str
    revision: int = 0

    @property
    def digest(self) -> str:
        """The weights' sha256, as `/api/tags` lists it: new weights, a new digest."""
        weights = f"{self.name}@{self.revision}" if self.revision else self.name
        return hashlib.sha256(weights.encode()).hexdigest()


@dataclass(frozen=True)
class PullPlan:
    """What a pull streams, and what it installs once it completes."""

    layers: tuple[int, ...]
    delay: float
    capabilities: tuple[str, ...]
    context_length: int
    embedding_length: int | None


@dataclass
class Response:
    """One answer; the transport writes it."""

    status: int = 200
    body: Any = None  # one JSON value
    text: str | None = None  # plain text, as Go's router sends for unknown paths
    lines: list[dict[str, Any]] | None = None  # an NDJSON stream
    delay: float = 0.0  # seconds between streamed lines
    hang: bool = False  # hold it back until release() or stop()
    drop: bool = False  # cut it mid-way and close the connection
    stall_after: int = 0  # with `stall`: the lines sent before the stream goes quiet
    stall: float = 0.0  # seconds of silence after `stall_after` lines
    on_complete: Callable[[], None] | None = None  # runs once all of it was written


def error(status: int, message: str) -> Response:
    """Ollama's error shape: `{"error": message}`."""
    return Response(status=status, body={"error": message})


def canonical(name: str) -> str:
    """Ollama's name normalisation: a missing tag means ":latest"."""
    name = name.strip()
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _parameter_count(parameter_size: str) -> int:
    match = re.fullmatch(r"([\d.]+)\s*([KMBT]?)", parameter_size.strip().upper())
    if not match:
        return 0
    scale = {"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[match[2]]
    return int(float(match[1]) * scale)


def _details(model: ModelSpec) -> dict[str, Any]:
    return {
        "parent_model": "",
        "format": "gguf",
        "family": model.family,
        "families": [model.family],
        "parameter_size": model.parameter_size,
        "quantization_level": "F16" if "embedding" in model.capabilities else "Q4_K_M",
    }


def tags_entry(model: ModelSpec) -> dict[str, Any]:
    """One model as `/api/tags` lists it."""
    return {
        "name": model.name,
        "model": model.name,
        "modified_at": MODIFIED_AT,
        "size": model.size,
        "digest": model.digest,
        "details": _details(model),
    }


def show_body(model: ModelSpec) -> dict[str, Any]:
    """What `/api/show` answers for `model`."""
    info = {
        "general.architecture": model.family,
        "general.parameter_count": _parameter_count(model.parameter_size),
        "general.file_type": 15,
        f"{model.family}.context_length": model.context_length,
        # Ollama reports the hidden size here for every model, embedding or not.
        f"{model.family}.embedding_length": model.embedding_length or 2048,
        f"{model.family}.block_count": 28,
    }
    return {
        "license": "Apache License 2.0",
        "modelfile": f'# Modelfile generated by "ollama show"\nFROM {model.name}\n',
        "parameters": "temperature 0.6\ntop_k 20\ntop_p 0.95",
        "template": "{{ .Prompt }}",
        "details": _details(model),
        "model_info": info,
        "capabilities": list(model.capabilities),
        "modified_at": MODIFIED_AT,
    }


def pull_lines(name: str, plan: PullPlan) -> list[dict[str, Any]]:
    """The NDJSON lines `/api/pull` streams: manifest, progress per layer, success."""
    lines: list[dict[str, Any]] = [{"status": "pulling manifest"}]
    for index, size in enumerate(plan.layers):
        digest = "sha256:" + hashlib.sha256(f"{name}/{index}".encode()).hexdigest()
        status = f"pulling {digest[7:19]}"
        lines.append({"status": status, "digest": digest, "total": size})
        lines.extend(
            {"status": status, "digest": digest, "total": size, "completed": size * step // 4}
            for step in range(1, 5)
        )
    lines += [{"status": s} for s in ("verifying sha256 digest", "writing manifest", "success")]
    return lines


def _chunks(text: str, size: int) -> list[str]:
    if not text:
        return []
    if size <= 0:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


class ChatTurn:
    """One `/api/chat` answer, as stream chunks or as a whole object."""

    def __init__(self, model: str, body: dict[str, Any], reply: Reply, *, thinks: bool) -> None:
        self.model = model
        self.reply = reply
        self.thinking = reply.thinking if thinks else ""
        calls = reply.tool_calls if body.get("tools") else []
        self.tool_calls = [
            {"function": {"name": call["name"], "arguments": call.get("arguments", {})}}
            for call in calls
        ]
        self.content = self._content(body.get("format"))
        messages = body.get("messages") or []
        self.prompt_tokens = 1 + sum(len(str(m.get("content", "")).split()) for m in messages)

    def _content(self, schema: Any) -> str:
        if not schema or self.reply.content:
            return self.reply.content
        return "{}" if schema == "json" else json.dumps(schema_instance(schema))

    def _line(self, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {
            "model": self.model,
            "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "message": {"role": "assistant", "content": "", **message},
            **extra,
        }

    def _stats(self, eval_count: int) -> dict[str, Any]:
        return {
            "done": True,
            "done_reason": self.reply.done_reason,
            "total_duration": 250_000_000 + 1_000_000 * eval_count,
            "load_duration": 20_000_000,
            "prompt_eval_count": self.prompt_tokens,
            "prompt_eval_duration": 30_000_000,
            "eval_count": eval_count,
            "eval_duration": 1_000_000 * eval_count,
        }

    def stream(self) -> list[dict[str, Any]]:
        """Thinking chunks, then content chunks, then tool calls, then the done line."""
        size = self.reply.chunk_size
        lines = [self._line({"thinking": t}, done=False) for t in _chunks(self.thinking, size)]
        lines += [self._line({"content": c}, done=False) for c in _chunks(self.content, size)]
        if self.tool_calls:
            lines.append(self._line({"tool_calls": self.tool_calls}, done=False))
        lines.append(self._line({}, **self._stats(len(lines))))
        return lines

    def whole(self) -> dict[str, Any]:
        """The reply as one object, for `stream: false`."""
        message: dict[str, Any] = {"content": self.content}
        if self.thinking:
            message["thinking"] = self.thinking
        if self.tool_calls:
            message["tool_calls"] = self.tool_calls
        count = len(_chunks(self.content + self.thinking, self.reply.chunk_size))
        return self._line(message, **self._stats(count))
