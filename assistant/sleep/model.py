"""Sleep's model calls: structured output, one retry with the validation error, a budget.

Every call counts against the run's cap (stopping cleanly when it is reached), and its
tokens and seconds go into the run record. A reply that is not JSON, does not follow the
schema or fails the caller's own check, even after the clear repairs of ``repair``, is
counted as malformed and retried once, with the errors; if it still fails,
the caller gets None and the errors to record, and nothing is written.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assistant.errors import OllamaError
from assistant.sleep.errors import BudgetExhausted
from assistant.sleep.prompts import retry_prompt
from assistant.sleep.repair import Reading, read_reply
from assistant.sleep.schemas import Shape

if TYPE_CHECKING:
    from assistant.llm.backend import ChatBackend

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
    clean: int = 0  # answers valid as they came
    malformed: int = 0  # answers that stayed invalid after repair (each is retried or dropped)
    repaired: int = 0  # answers made valid by a clear repair (see ``repair``)
    dropped_items: int = 0  # broken items dropped from otherwise valid answers

    def counted(self, reading: Reading) -> Reading:
        """Count one answer's outcome."""
        if reading.errors:
            self.malformed += 1
        elif reading.notes:
            self.repaired += 1
        else:
            self.clean += 1
        self.dropped_items += reading.dropped if not reading.errors else 0
        return reading


def _parsed(content: str, schema: Shape, check: Check | None) -> Reading:
    if len(content) > _MAX_REPLY:
        reading = Reading()
        reading.errors = [f"the reply was {len(content)} characters long, not a JSON object"]
        return reading
    reading = read_reply(content, schema)
    if reading.value is not None and check is not None:
        reading.errors = check(reading.value)
        if reading.errors:
            reading.value = None
    reading.errors = reading.errors[:20]
    return reading


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
        llm: ChatBackend,
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
        schema: Shape,
        check: Check | None = None,
        *,
        validate: Shape | None = None,
    ) -> tuple[Any, list[str]]:
        """The model's reply as validated JSON, or None and what was wrong with it.

        Args:
            system: the instructions.
            user: the material.
            schema: the reply's model: its JSON schema is sent as ``format`` (Ollama
                constrains decoding to it), and the reply is validated by it.
            check: the caller's own check of a valid reply.
            validate: the model the reply is checked against, where it should be looser
                than ``schema`` (so that the caller's defences see and record what a model
                that ignores ``format`` invents); default ``schema``.

        Raises:
            BudgetExhausted: the cap is reached (before a call, never mid-way).
            OllamaError: the model could not be asked.
        """
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        content = self._call(messages, schema)
        rules = schema if validate is None else validate
        first = self.use.counted(_parsed(content, rules, check))
        if not first.errors:
            return first.value, []
        messages += [
            {"role": "assistant", "content": content[:_ECHO_BACK]},
            {"role": "user", "content": retry_prompt(first.errors)},
        ]
        second = self.use.counted(_parsed(self._call(messages, schema), rules, check))
        return (second.value, []) if not second.errors else (None, second.errors)

    def _call(self, messages: list[dict[str, str]], schema: Shape) -> str:
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
                format=schema.json_schema,
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
