"""A small week: a drift (Python, then Go), a dated plan, a habit; with its model replies."""

from __future__ import annotations

from assistant.engine import Hippo
from tests.fake_ollama import Reply
from tests.sleep.helpers import chat, day, decisions, episode, episodes, fact, facts

LANGUAGE = "uses programming language"


def small_week(engine: Hippo) -> list[Reply]:
    """Write three conversations; return the replies one clean run consumes, in order."""
    _, mon = chat(engine, day("2026-11-23"), "I use Python for everything at work.", "Nice!")
    _, wed = chat(
        engine,
        day("2026-11-25"),
        "I have a dentist appointment next Friday.",
        "Noted.",
        "I drink green tea every morning.",
        "Lovely.",
    )
    _, thu = chat(engine, day("2026-11-26"), "I switched to Go this week.", "Go is great.")
    dentist = {
        "text": "Dentist appointment next Friday",
        "when": "next Friday",
        "message_id": wed[0].id,
    }
    return [
        episodes(episode(mon[0].id, mon[1].id, "Python at work.", importance=4)),
        episodes(
            episode(wed[0].id, wed[1].id, "A dentist appointment.", dated=[dentist]),
            episode(wed[2].id, wed[3].id, "Green tea.", importance=3),
        ),
        episodes(episode(thu[0].id, thu[1].id, "Switched to Go.", importance=6)),
        facts(fact("The user uses Python at work", [mon[0].id], predicate=LANGUAGE)),
        facts(fact("The user drinks green tea every morning", [wed[2].id], predicate="drinks")),
        facts(fact("The user switched to Go", [thu[0].id], predicate=LANGUAGE)),
        decisions((0, "supersede", 1)),
    ]
