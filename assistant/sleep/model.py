"""Sleep's model calls: structured output, one retry with the validation error, a budget.

Every call counts against the run's cap (stopping cleanly when it is reached), and its
tokens and seconds go into the run record. A reply that is not JSON, does not follow the
schema or fails the caller's own check is retried once, with the errors; if it still fails,
the caller gets None and the errors to record, and nothing is written.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assistant.errors import OllamaError
from assistant.sleep.errors import BudgetExhausted
from assistant.sleep.prompts import retry_prompt
from assistant.sleep.schemas import schema_errors

if TYPE_CHECKING:
    from assistant.llm.gateway import OllamaGateway

__all__ = ["Asker", "ModelUse"]

_MAX_REPLY = 200_000  # characters; beyond this a reply is junk, not parsed
_ECHO_BACK = 2_000  # characters of an invalid reply shown back to the model

Check = Callable[[Any], list[str]]


@dataclass
class ModelUse:
    """Model use of one run."""

    calls: int = 0
    embed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


def _parsed(content: str, schema: Mapping[str, Any], check: Check | None) -> tuple[Any, list[str]]:
    text = content.strip()
    if not text:
        return None, ["the reply was empty"]
    if len(text) > _MAX_REPLY:
        return None, [f"the reply was {len(text)} characters long, not a JSON object"]
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, [f"the reply was not JSON ({str(exc)[:80]})"]
    errors = schema_errors(value, schema)
    if not errors and check is not None:
        errors = check(value)
    return (None, errors[:20]) if errors else (value, [])


class Asker:
    """Asks the model for structured replies within a call budget.

    Args:
        llm: the Ollama gateway.
        model: the model to ask.
        max_calls: the cap on calls for the run.
        use: where calls, tokens and seconds are counted.
        think: the ``think`` flag to send (False for thinking models: faster, same JSON).
        options: Ollama options (e.g. ``num_ctx``).
        on_call: called before each call (the lock's heartbeat).
    """

    def __init__(
        self,
        llm: OllamaGateway,
        model: str,
        *,
        max_calls: int,
        use: ModelUse | None = None,
        think: bool | None = None,
        options: Mapping[str, Any] | None = None,
        on_call: Callable[[], None] | None = None,
    ) -> None:
        self.llm = llm
        self.model = model
        self.max_calls = max_calls
        self.use = use or ModelUse()
        self._think = think
        self._options = dict(options or {})
        self._on_call = on_call

    @property
    def left(self) -> int:
        """Calls left in the budget."""
        return max(self.max_calls - self.use.calls, 0)

    def ask(
        self,
        system: str,
        user: str,
        schema: Mapping[str, Any],
        check: Check | None = None,
    ) -> tuple[Any, list[str]]:
        """The model's reply as validated JSON, or None and what was wrong with it.

        Raises:
            BudgetExhausted: the cap is reached (before a call, never mid-way).
            OllamaError: the model could not be asked.
        """
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        content = self._call(messages, schema)
        value, errors = _parsed(content, schema, check)
        if not errors:
            return value, []
        messages += [
            {"role": "assistant", "content": content[:_ECHO_BACK]},
            {"role": "user", "content": retry_prompt(errors)},
        ]
        value, errors = _parsed(self._call(messages, schema), schema, check)
        return (value, []) if not errors else (None, errors)

    def _call(self, messages: list[dict[str, str]], schema: Mapping[str, Any]) -> str:
        if self.use.calls >= self.max_calls:
            raise BudgetExhausted(self.max_calls)
        if self._on_call is not None:
            self._on_call()
        self.use.calls += 1
        started = time.perf_counter()
        try:
            result = self.llm.chat_once(
                self.model,
                messages,
                format=dict(schema),
                think=self._think,
                options=self._options or None,
            )
        finally:
            self.use.seconds += time.perf_counter() - started
        self.use.prompt_tokens += result.prompt_tokens
        self.use.completion_tokens += result.completion_tokens
        return result.content

    def embed(self, model: str, texts: Sequence[str]) -> list[list[float]] | None:
        """Vectors for ``texts`` in one request, or None if Ollama can't embed now."""
        if not texts:
            return []
        started = time.perf_counter()
        try:
            self.use.embed_calls += 1
            # Compared with stored facts, so embedded as they were.
            return self.llm.embed(model, list(texts), purpose="document")
        except OllamaError:
            return None
        finally:
            self.use.seconds += time.perf_counter() - started
