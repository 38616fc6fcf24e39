"""Core memory follows a correction: the human block never states a retired value as current.

When a statement of the user's supersedes a fact, a sentence of the human block that the
statement corrects ("Lives in Porto." after "I live in Lisbon now") is:

* proposed for replacement by the user's new words, in the review queue: the block is the
  user's own curated text, in every prompt, and Hippo changes it only with their consent
  (as it does the model's edits), so it is not rewritten unasked;
* marked in the prompt until then (`mark_outdated`): "[outdated since <date>: now
  "<new statement>"]", so the block, the facts and recall never disagree about what holds.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from assistant.memory.core import CoreMemory
from assistant.memory.core_proposals import CoreProposal, CoreProposals
from assistant.memory.facts.claims import sentences
from assistant.memory.facts.corrections import judge
from assistant.memory.facts.settle import Settled

__all__ = ["CORRECTED", "CoreFollows", "mark_outdated"]

CORRECTED = "you corrected this since (the new statement replaces it)"


class CoreFollows:
    """Proposes the human block's update after a correction.

    Args:
        core: core memory.
        proposals: the core edits awaiting review.
    """

    def __init__(self, core: CoreMemory, proposals: CoreProposals) -> None:
        self._core = core
        self._proposals = proposals

    def corrected(
        self, profile_id: int, settled: Settled, message_id: int | None
    ) -> list[CoreProposal]:
        """Propose replacing each sentence of the human block that ``settled`` corrects."""
        if not settled.superseded:
            return []
        block = self._core.block(profile_id, "human").value
        waiting = {p.old_content for p in self._proposals.pending(profile_id)}
        made = []
        for said in sentences(block):
            if said in waiting or block.count(said) != 1:
                continue
            if judge(settled.fact.statement, said) == "corrects":
                made.append(
                    self._proposals.propose(
                        profile_id,
                        "human",
                        "replace",
                        settled.fact.statement,
                        old_content=said,
                        message_id=message_id,
                        reason=CORRECTED,
                    )
                )
        return made


def mark_outdated(block: str, corrections: Sequence[tuple[str, datetime]]) -> str:
    """``block`` with each sentence a newer statement corrects marked as outdated.

    Args:
        block: the human block's text.
        corrections: (statement that holds now, since when), newest first.
    """
    for said in sentences(block):
        for statement, since in corrections:
            if judge(statement, said) == "corrects":
                now = json.dumps(statement, ensure_ascii=False)
                mark = f"{said} [outdated since {since.astimezone():%Y-%m-%d}: now {now}]"
                block = block.replace(said, mark, 1)
                break
    return block
