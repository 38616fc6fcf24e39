"""What a consolidation's counters mean, in plain sentences for the report and the Sleep tab.

The counters are the run's own bookkeeping (``summarise_failed``, ``candidates_added``);
the user reads one sentence per kind of problem, with its count, and one line of what
the steps did. A counter with no words here is not shown.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["DETAILED_STEPS", "activity", "detail", "problems", "review_cap"]

# Steps whose problems are counted (and so said once per kind), with what their per-session
# lines are about. Any other step's problem (the run, the budget) is a sentence itself.
DETAILED_STEPS = {
    "summarise": "summary",
    "episodes": "summary",
    "extract": "facts",
    "update": "facts",
    "reflect": "reflection",
}

# (counter, one, many): "{n}" is the count.
_PROBLEMS = (
    (
        "malformed_answers",
        "{n} of the model's answers could not be used as it came",
        "{n} of the model's answers could not be used as they came",
    ),
    (
        "repaired_answers",
        "{n} answer of the model needed a small repair (broken JSON) before it could be read",
        "{n} answers of the model needed a small repair (broken JSON) before they could be read",
    ),
    (
        "dropped_items",
        "{n} broken item was left out of an otherwise good answer",
        "{n} broken items were left out of otherwise good answers",
    ),
    (
        "summarise_failed",
        "{n} session could not be summarised; it stays due",
        "{n} sessions could not be summarised; they stay due",
    ),
    (
        "episodes_unsupported",
        "{n} episode was dropped: the messages it spans do not say what it claims",
        "{n} episodes were dropped: the messages they span do not say what they claim",
    ),
    (
        "sessions_partly_summarised",
        "{n} session was summarised only in part; the rest of it stays due",
        "{n} sessions were summarised only in part; the rest of them stays due",
    ),
    (
        "extract_failed",
        "Facts could not be drawn from {n} session; it stays due",
        "Facts could not be drawn from {n} sessions; they stay due",
    ),
    (
        "update_failed",
        "{n} batch of new facts could not be compared with the known ones; it is tried again",
        "{n} batches of new facts could not be compared with the known ones; they are tried again",
    ),
    ("reflect_failed", "{n} reflection failed", "{n} reflections failed"),
    (
        "sessions_given_up",
        "{n} session was given up after failing too often; `hippo sleep run --retry` tries "
        "it again",
        "{n} sessions were given up after failing too often; `hippo sleep run --retry` tries "
        "them again",
    ),
    (
        "candidates_rejected",
        "{n} candidate fact was rejected: its messages do not back it",
        "{n} candidate facts were rejected: their messages do not back them",
    ),
    (
        "dated_items_unresolved",
        "{n} plan or appointment had no date Hippo could work out, and was not kept",
        "{n} plans or appointments had no date Hippo could work out, and were not kept",
    ),
)
# (counter, one, many), in the order the steps run.
_ACTIVITY = (
    ("sessions_closed", "{n} session closed", "{n} sessions closed"),
    ("sessions_trivial", "{n} small-talk session skipped", "{n} small-talk sessions skipped"),
    ("sessions_summarised", "{n} session summarised", "{n} sessions summarised"),
    ("episodes", "{n} episode written", "{n} episodes written"),
    ("sessions_extracted", "{n} session read for facts", "{n} sessions read for facts"),
    ("candidates", "{n} candidate fact", "{n} candidate facts"),
    ("candidates_added", "{n} fact added", "{n} facts added"),
    ("candidates_reinforced", "{n} fact confirmed again", "{n} facts confirmed again"),
    ("candidates_superseded", "{n} fact replacing an older one", "{n} facts replacing older ones"),
    ("candidates_ignored", "{n} candidate ignored", "{n} candidates ignored"),
    ("reflections", "{n} insight", "{n} insights"),
    ("facts_expired", "{n} fact expired", "{n} facts expired"),
    ("events_kept", "{n} expired event kept for review", "{n} expired events kept for review"),
    ("events_dropped", "{n} expired event dropped", "{n} expired events dropped"),
    ("facts_merged", "{n} duplicate fact merged", "{n} duplicate facts merged"),
    (
        "entity_links",
        "{n} item linked to the names it holds",
        "{n} items linked to the names they hold",
    ),
)


def _said(n: int, one: str, many: str) -> str:
    return (one if n == 1 else many).format(n=f"{n:,}")


def problems(counts: Mapping[str, int]) -> list[str]:
    """One sentence per kind of problem the counters show, with its count."""
    return [
        _said(counts[key], one, many) + "."
        for key, one, many in _PROBLEMS
        if counts.get(key, 0) > 0
    ]


def activity(counts: Mapping[str, int]) -> str:
    """What the steps did, in one line ("3 sessions summarised, 4 episodes written, ...")."""
    done = [_said(counts[key], one, many) for key, one, many in _ACTIVITY if counts.get(key, 0) > 0]
    return ", ".join(done) + "." if done else "Nothing to consolidate."


def detail(error: str) -> str | None:
    """A recorded problem as a detail line ("summary: session 4: ..."), or None if it is
    a problem of the whole run."""
    step, _, text = error.partition(": ")
    label = DETAILED_STEPS.get(step)
    return f"{label}: {text}" if label and text else None


def review_cap(counts: Mapping[str, int]) -> str:
    """How many review items wait for later runs, where the cap held some back ("" if none)."""
    waiting = counts.get("review_items_deferred", 0)
    if not waiting:
        return ""
    cap = counts.get("review_items_cap", 0)
    return (
        f"{waiting:,} more item{'s' * (waiting != 1)} for review wait for the next runs "
        f"(a run proposes at most {cap:,}: [sleep] max_review_items)."
    )
