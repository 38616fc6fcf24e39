"""Write a data file with N realistic-looking messages, for start-up and search benchmarks.

Usage: python bench/make_history.py PATH [--messages 100000] [--per-session 40]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.clock import ManualClock
from assistant.memory.messages import MessageStore
from data_schema.cipher import NoEncryption
from data_schema.connect import Database

_TOPICS = [
    "my sister's wedding in Lisbon",
    "the quarterly budget review",
    "training for a 10k run",
    "learning to bake sourdough",
    "the kitchen renovation",
    "our trip to Kyoto in spring",
    "my dentist appointment",
    "the Python migration at work",
    "adopting a rescue dog",
    "我下周五要去北京出差",
    "周末和朋友去爬山",
    "学习弹吉他的进度",
]
_USER = [
    "Can you remind me what we said about {t}?",
    "I'm worried about {t}.",
    "Quick update on {t}: it went better than expected.",
    "What should I do next for {t}?",
    "thanks!",
    "ok",
    "Let's plan {t} for next week.",
]
_ASSISTANT = [
    "Here is what I remember about {t}: you wanted to keep it simple and start early.",
    "That sounds like progress on {t}. Want me to note a next step?",
    "For {t}, I'd suggest three steps: list what's done, what's blocked, and one next action.",
]


def make_history(path: Path, messages: int, per_session: int, seed: int = 7) -> None:
    """Fill ``path`` with ``messages`` messages in sessions of ``per_session`` (plaintext:
    benchmarks make encrypted copies with their own key, never the user's keyring)."""
    rng = random.Random(seed)
    clock = ManualClock()
    clock.advance(days=-max(1, messages // per_session))
    db = Database(path, NoEncryption())
    store = MessageStore(lambda: db.conn, clock)
    profile = store.profile("default")
    conn = db.conn
    written = 0
    with conn:
        while written < messages:
            session = store.create_session(profile.id)
            for turn in range(min(per_session, messages - written)):
                topic = rng.choice(_TOPICS)
                pool = _USER if turn % 2 == 0 else _ASSISTANT
                role = "user" if turn % 2 == 0 else "assistant"
                store.add_message(session.id, role, rng.choice(pool).format(t=topic))
                clock.advance(seconds=rng.randint(5, 120))
                written += 1
            clock.advance(hours=rng.randint(4, 30))
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--per-session", type=int, default=40)
    args = parser.parse_args()
    if args.path.exists():
        sys.exit(f"{args.path} exists; remove it first")
    started = time.perf_counter()
    make_history(args.path, args.messages, args.per_session)
    print(f"wrote {args.messages} messages to {args.path} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
