"""One `/api/chat` request answered by the real model: prompt, grammar, generation.

What Ollama does for a model, done here with llama.cpp: the model's own chat template; a
JSON schema in `format` (or "json") turned into a grammar, so that decoding cannot leave
it; tools offered in the system prompt, a call being `<tool_call>{...}</tool_call>` held
to the tools' own schemas by a grammar (as far as a 135M model can follow it); `think` by
asking for `<think>...</think>` first, where the server emulates thinking (string
bounds longer than 64 characters are left out of grammars: llama-cpp-python cannot load
or sample them in reasonable time); a prompt too
long for the window cut from the oldest turns, as Ollama truncates.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.real_ollama.models import ChatModel

__all__ = ["Generation", "Piece", "grammar_for"]

_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_FREE_TEXT = r"[^<] [^<]*"  # a reply that does not begin a tool call or a thought


@dataclass(frozen=True)
class Piece:
    """A part of the answer: visible text, thinking, or the tool calls."""

    kind: str  # "content", "thinking" or "tool_calls"
    text: str = ""
    calls: tuple[dict[str, Any], ...] = ()


@dataclass
class Generation:
    """The model's answer to one chat request, made as it is read.

    Args:
        model: The chat model.
        body: The request body (messages, tools, format, think, options).
        max_tokens: The cap when the request sets no `num_predict` (Ollama has none; a
            135M model left alone can ramble to the end of its window).
        thinking: Whether this server emulates a thinking model.
    """

    model: ChatModel
    body: Mapping[str, Any]
    max_tokens: int = 512
    thinking: bool = False
    prompt_tokens: int = 0
    eval_count: int = 0
    done_reason: str = "stop"
    prompt_ns: int = 0
    eval_ns: int = 0
    notes: list[str] = field(default_factory=list)
    _stops: list[str] = field(default_factory=list)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The functions offered (the client always sends a list, often empty)."""
        return [t.get("function", t) for t in self.body.get("tools") or [] if isinstance(t, dict)]

    @property
    def thinks(self) -> bool:
        """Whether to think first: asked for, emulated, and nothing else constrains the reply."""
        wanted = self.body.get("think") not in (None, False)
        return wanted and self.thinking and not self.body.get("format") and not self.tools

    def pieces(self) -> Iterator[Piece]:
        """The answer, piece by piece; the model is held for the whole of it."""
        options = self.body.get("options") or {}
        with self.model.lock:
            llama = self.model.llama()
            tokens = self._prompt_tokens(llama, options)
            self.prompt_tokens = len(tokens)
            grammar = grammar_for(self.body.get("format"), self.tools, thinks=self.thinks)
            text = self._generate(llama, tokens, grammar, options)
            if self.thinks:
                yield from _split("".join(text), thinks=True)
            elif self.tools:
                yield from _streamed_or_called(text)
            else:
                for chunk in text:
                    yield Piece("content", chunk)

    def _generate(
        self, llama: Any, tokens: list[int], grammar: Any, options: Mapping[str, Any]
    ) -> Iterator[str]:
        limit = int(options.get("num_predict") or 0)
        room = llama.n_ctx() - len(tokens)
        limit = min(limit if limit > 0 else self.max_tokens, max(room, 1))
        started = time.perf_counter_ns()
        first = 0
        stream = llama.create_completion(
            prompt=tokens,
            max_tokens=limit,
            temperature=float(options.get("temperature", 0.2)),
            top_p=float(options.get("top_p", 0.9)),
            top_k=int(options.get("top_k", 40)),
            repeat_penalty=float(options.get("repeat_penalty", 1.1)),
            seed=int(options.get("seed", 42)),
            stop=list(options.get("stop") or []) + self._stops,
            grammar=grammar,
            stream=True,
        )
        try:
            for chunk in stream:
                choice = chunk["choices"][0]
                if not first:
                    first = time.perf_counter_ns()
                self.eval_count += 1
                if choice.get("finish_reason") == "length":
                    self.done_reason = "length"
                if choice.get("text"):
                    yield choice["text"]
        finally:
            stream.close()
            ended = time.perf_counter_ns()
            self.prompt_ns = (first or ended) - started
            self.eval_ns = ended - (first or ended)

    def _prompt_tokens(self, llama: Any, options: Mapping[str, Any]) -> list[int]:
        """The prompt's tokens; the oldest turns dropped while it leaves no room to answer."""
        messages = _template_messages(self.body.get("messages") or [], self._instructions())
        reserve = min(self.max_tokens, llama.n_ctx() // 4)
        while True:
            prompt, self._stops = self.model.prompt(messages)
            tokens = llama.tokenize(prompt.encode(), add_bos=False, special=True)
            if len(tokens) + reserve <= llama.n_ctx():
                return tokens
            droppable = [i for i, m in enumerate(messages[:-1]) if m["role"] != "system"]
            if not droppable:
                self.notes.append("prompt cut from the start to fit the window")
                return tokens[-(llama.n_ctx() - reserve) :]
            del messages[droppable[0]]
            self.notes.append("oldest turn dropped to fit the window")

    def _instructions(self) -> str:
        parts = []
        if self.tools:
            listed = "\n".join(json.dumps(t, ensure_ascii=False) for t in self.tools)
            parts.append(
                "You can call these tools:\n<tools>\n" + listed + "\n</tools>\n"
                'To call one, answer only <tool_call>{"name": NAME, "arguments": {...}}'
                "</tool_call>. Otherwise answer the user."
            )
        if self.thinks:
            parts.append("First think step by step inside <think></think>, then answer.")
        return "\n\n".join(parts)


def _template_messages(raw: list[Any], instructions: str) -> list[dict[str, str]]:
    """Ollama's messages as the chat template takes them (tool turns in words)."""
    out: list[dict[str, str]] = []
    for message in raw:
        if not isinstance(message, dict):
            continue
        role, content = str(message.get("role", "user")), str(message.get("content") or "")
        for call in message.get("tool_calls") or []:
            function = call.get("function", {}) if isinstance(call, dict) else {}
            content += "<tool_call>" + json.dumps(function, ensure_ascii=False) + "</tool_call>"
        if role == "tool":
            role, content = "user", f"<tool_response>\n{content}\n</tool_response>"
        out.append({"role": role if role in ("system", "user", "assistant") else "user",
                    "content": content})  # fmt: skip
    if instructions:
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": out[0]["content"] + "\n\n" + instructions}
        else:
            out.insert(0, {"role": "system", "content": instructions})
    return out


def _streamed_or_called(text: Iterator[str]) -> Iterator[Piece]:
    """A reply streamed as it comes, unless it begins a tool call (then read whole).

    The grammar lets an answer begin with "<" only to call a tool, so its first
    characters decide, as Ollama's parser decides from a model's first tokens.
    """
    head = ""
    for chunk in text:
        head += chunk
        if head.strip():
            break
    if head.lstrip().startswith("<"):
        yield from _split(head + "".join(text), thinks=False)
        return
    if head:
        yield Piece("content", head)
    for chunk in text:
        yield Piece("content", chunk)


def _split(text: str, *, thinks: bool) -> Iterator[Piece]:
    """Thinking, content and tool calls out of a whole answer."""
    if thinks and text.lstrip().startswith("<think>"):
        # Cut at the token cap mid-thought, it is all thinking and no answer.
        thought, _, text = text.partition("</think>")
        yield Piece("thinking", thought.replace("<think>", "", 1).strip())
        text = text.lstrip()
    calls = []
    for raw in _TOOL_CALL.findall(text):
        try:
            call = json.loads(raw)
        except json.JSONDecodeError:
            continue  # a broken call stays visible text, as Ollama leaves it
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            arguments = call.get("arguments")
            calls.append(
                {"function": {"name": call["name"], "arguments": arguments or {}}}
                if isinstance(arguments, dict | type(None))
                else {"function": {"name": call["name"], "arguments": {}}}
            )
    if calls:
        yield Piece("tool_calls", calls=tuple(calls))
        text = _TOOL_CALL.sub("", text).strip()
    if text:
        yield Piece("content", text)


def grammar_for(schema: Any, tools: list[dict[str, Any]], *, thinks: bool = False) -> Any:
    """The llama.cpp grammar a request's answer must follow, or None for free text.

    Raises:
        ValueError: the `format` is neither "json" nor a JSON schema llama.cpp can follow.
    """
    from llama_cpp import LlamaGrammar
    from llama_cpp.llama_grammar import JSON_GBNF

    if schema == "json":
        return LlamaGrammar.from_string(JSON_GBNF, verbose=False)
    if isinstance(schema, dict) and schema:
        return LlamaGrammar.from_json_schema(json.dumps(_tractable(schema)), verbose=False)
    if schema not in (None, "", {}):
        raise ValueError(f"invalid format: {json.dumps(schema)[:80]}")
    if tools:
        return LlamaGrammar.from_string(_tool_grammar(tools), verbose=False)
    if thinks:
        return LlamaGrammar.from_string(
            f'root ::= "<think>" [^<]* "</think>" answer\nanswer ::= {_FREE_TEXT}', verbose=False
        )
    return None


_LONGEST_BOUND = 64  # characters: longer string bounds are left to the client to check


def _tractable(schema: Any) -> Any:
    """The schema without long string-length bounds, which llama-cpp-python's converter
    spells out character by character (2,000 nested rules for a summary): past a few dozen
    the grammar fails to load, or samples at seconds a token. Everything else (types,
    required keys, enums, item counts) stays enforced.
    """
    if isinstance(schema, list):
        return [_tractable(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _tractable(value) for key, value in schema.items()}
    if out.get("maxLength", 0) > _LONGEST_BOUND:
        del out["maxLength"]
    if out.get("minLength", 0) > _LONGEST_BOUND:
        out["minLength"] = _LONGEST_BOUND
    return out


def _tool_grammar(tools: list[dict[str, Any]]) -> str:
    """A reply in free text, or a call of an offered tool with an object of arguments.

    The arguments are held to being a JSON object, not to the tool's own schema: its
    string-length bounds make grammars that llama-cpp-python samples from at seconds a
    token, and a model's wrong arguments are for Hippo to survive.
    """
    from llama_cpp.llama_grammar import SchemaConverter

    names = sorted({str(t.get("name", "")) for t in tools})
    call = {
        "type": "object",
        "properties": {"name": {"enum": names}, "arguments": {"type": "object"}},
        "required": ["name", "arguments"],
    }
    converter = SchemaConverter(prop_order={"name": 0, "arguments": 1}, allow_fetch=False,
                                dotall=False, raw_pattern=False)  # fmt: skip
    converter.visit(call, "call")
    rules = converter.format_grammar()
    head = f'root ::= "<tool_call>" call "</tool_call>" | reply\nreply ::= {_FREE_TEXT}\n'
    return head + rules
