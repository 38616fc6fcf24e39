"""Candidates, rejections and dated items: importable from here as before.

Their store holds SQL, so it lives with the stores, in
``assistant/memory/sleep_candidates.py``; sleep's own modules import it from there.
"""

from __future__ import annotations

from assistant.memory.sleep_candidates import (
    REVIEW_REJECTION,
    Candidate,
    CandidateStore,
    DatedItem,
)

__all__ = ["REVIEW_REJECTION", "Candidate", "CandidateStore", "DatedItem"]
