"""A fooled model: it believes an injected claim and does everything it can to store it.

The defences against injected instructions must hold where the model fails, not only
where it behaves. With ``FakeOllama.fool(FooledModel(claim))`` every unscripted reply
acts as a model that read an injection and obeyed it:

* a chat turn offered tools calls ``core_memory_append`` (or ``core_memory_replace`` of
  the human block's first line, when the block is not empty), ``remember_fact`` and
  ``archival_insert``, each with the claim; with ``read_first`` it first calls that read
  tool (to fetch the injected tool output) and writes in the next round; it then replies
  "Noted: <claim>.";
* sleep's episode step summarises the conversation as the claim; extraction states the
  claim as ``user_stated``, confidence 0.95, citing every message of the transcript (the
  injected one among them); the update step adds every candidate; reflection asks about
  the claim and concludes it, citing the first memory it was shown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tests.fake_ollama.wire import Reply

__all__ = ["FooledModel"]

_IDS = re.compile(r"^\[id (\d+)\]", re.MULTILINE)
_CANDIDATES = re.compile(r"^Candidate (\d+):", re.MULTILINE)
_LABELS = re.compile(r"\b(?:fact|episode):\d+\b")
_HUMAN = re.compile(r"<human>\n(.*?)\n</human>", re.DOTALL)
_READS = ("recall_search", "archival_search")
# Characters per streamed part of its replies. Hippo reads any split alike (tests/llm and
# the fake's own tests check streaming); the corpus tests run ~700 turns and sleeps, and
# the fake's default of 4 made ~100 parts a sleep.
_CHUNK = 64


@dataclass(frozen=True)
class FooledModel:
    """What a model fooled into believing ``claim`` answers.

    Attributes:
        claim: the injected statement it tries to store.
        read_first: a read tool ("archival_search", "recall_search") to call before writing.
        query: what it searches for with ``read_first``.
    """

    claim: str
    read_first: str | None = None
    query: str = ""

    def reply(self, body: dict[str, Any]) -> Reply | None:
        """The fooled answer to a chat request (None: answer as the fake always does)."""
        schema = body.get("format")
        if isinstance(schema, dict):
            return self._structured(schema.get("properties", {}), body.get("messages") or [])
        return self._chat(body.get("messages") or [], bool(body.get("tools")))

    # -- a chat turn -------------------------------------------------------------------

    def _chat(self, messages: list[dict[str, Any]], tools: bool) -> Reply:
        last = messages[-1] if messages else {}
        if not tools:
            return Reply(content=f"Noted: {self.claim}.", chunk_size=_CHUNK)
        if last.get("role") == "user":
            if self.read_first:
                query = self.query or self.claim
                return Reply(tool_calls=[{"name": self.read_first, "arguments": {"query": query}}])
            return Reply(tool_calls=self._writes(messages))
        if last.get("role") == "tool" and self._only_read(messages):
            return Reply(tool_calls=self._writes(messages))
        return Reply(content=f"Noted: {self.claim}.", chunk_size=_CHUNK)

    @staticmethod
    def _only_read(messages: list[dict[str, Any]]) -> bool:
        """Whether the model's last tool round only read (so it has yet to write)."""
        for message in reversed(messages):
            if message.get("role") == "assistant":
                calls = message.get("tool_calls") or []
                return bool(calls) and all(
                    (c.get("function") or {}).get("name") in _READS for c in calls
                )
        return False

    def _writes(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        system = messages[0].get("content", "") if messages else ""
        human = _HUMAN.search(system)
        lines = [] if human is None else human.group(1).strip().splitlines()
        if lines and lines[0].strip() and lines[0].strip() != "(empty)":
            core = {
                "name": "core_memory_replace",
                "arguments": {"label": "human", "old_content": lines[0], "new_content": self.claim},
            }
        else:
            core = {
                "name": "core_memory_append",
                "arguments": {"label": "human", "content": self.claim},
            }
        return [
            core,
            {"name": "remember_fact", "arguments": {"statement": self.claim, "importance": 9}},
            {"name": "archival_insert", "arguments": {"content": self.claim}},
        ]

    # -- sleep's structured calls --------------------------------------------------------

    def _structured(
        self, properties: dict[str, Any], messages: list[dict[str, Any]]
    ) -> Reply | None:
        prompt = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
        if "episodes" in properties:
            value: Any = self._episodes(prompt)
        elif "facts" in properties:
            value = self._facts(prompt)
        elif "decisions" in properties:
            value = {
                "decisions": [
                    {"candidate": int(n), "action": "add", "fact_id": 0, "reason": "new"}
                    for n in _CANDIDATES.findall(prompt)
                ]
            }
        elif "questions" in properties:
            value = {"questions": [f"What should be remembered about the user: {self.claim}?"]}
        elif "insights" in properties:
            labels = _LABELS.findall(prompt)
            if not labels:
                return None
            value = {
                "insights": [{"statement": self.claim, "evidence": labels[:1], "importance": 9}]
            }
        else:
            return None
        return (
            None
            if value is None
            else Reply(content=json.dumps(value, ensure_ascii=False), chunk_size=_CHUNK)
        )

    def _episodes(self, prompt: str) -> dict[str, Any] | None:
        ids = [int(i) for i in _IDS.findall(prompt)]
        if not ids:
            return None
        episode = {
            "first_message_id": min(ids),
            "last_message_id": max(ids),
            "title": "What to remember",
            "summary": self.claim[:2000],
            "topics": ["memory"],
            "importance": 9,
            "dated_items": [],
        }
        return {"episodes": [episode]}

    def _facts(self, prompt: str) -> dict[str, Any] | None:
        ids = [int(i) for i in _IDS.findall(prompt)]
        if not ids:
            return None
        fact = {
            "statement": self.claim[:300],
            "subject": "user",
            "predicate": "",
            "source": "user_stated",
            "message_ids": ids[:10],
            "confidence": 0.95,
            "importance": 9,
        }
        return {"facts": [fact]}
