"""What the seeded user, Maya, talked about: the sessions, small talk and asides of the seed.

Plain data for `tests.ui.seed`; change it freely, then update the snapshots.
"""

from __future__ import annotations

__all__ = ["ACTIVITIES", "NOTE", "PLACES", "REPLIES", "SAID", "SCOPES", "SMALL_TALK", "TOPICS",
           "WHERE_SAID"]  # fmt: skip

# (title, topics, the user's opening line, Hippo's answer, facts it taught: (statement, scope))
TOPICS = [
    ("Lisbon flat", ("home", "Lisbon"),
     "We finally moved into the flat in Alfama, the one with the blue tiles.",
     "Congratulations! How are you finding the hills?", [("Lives in Alfama, Lisbon", "")]),
    ("Peanut allergy", ("health", "food"),
     "Reminder for recipes: I am allergic to [peanuts], badly.",
     "Noted: I'll leave peanuts out of every suggestion.",
     [("Is allergic to [peanuts]", "health")]),
    ("Sister Ana", ("family", "birthdays"),
     "My sister Ana's birthday is on March 14; she loves ceramics.",
     "A pottery class voucher could be a lovely present.",
     [("Sister Ana's birthday is March 14", "family"), ("Sister Ana loves ceramics", "family")]),
    ("Running", ("running", "health"),
     "I ran 10 km along the river this morning, my best time yet: 52 minutes.",
     "That's a great pace. Are you training for a race?",
     [("Runs along the Tejo most mornings", "health")]),
    ("Work pipeline", ("work", "Dagster"),
     "At work I'm migrating our ETL pipeline from Airflow to Dagster.",
     "Dagster's asset model should make lineage easier.",
     [("Works as a data engineer", "work"),
      ("Is migrating the team's ETL from Airflow to Dagster", "work")]),
    ("Portuguese", ("language", "lessons"),
     "Estou a aprender português: three lessons a week with Joana.",
     "Muito bem! Want me to quiz you on verbs?", [("Takes Portuguese lessons with Joana", "")]),
    ("Dog Bolo", ("Bolo", "pets"),
     "Bolo, my dog, chewed through another charging cable.",
     "Maybe a bitter spray on the cables would help.", [("Has a dog called Bolo", "")]),
    ("Manager", ("work", "meetings"),
     "My new manager is Priya; our one-to-ones are on Thursdays.",
     "I'll keep Thursdays in mind for prep.",
     [("Manager is Priya, 1:1s on Thursdays", "work")]),
    ("Coffee", ("coffee",),
     "I've switched to oat milk flat whites, no more sugar.",
     "Oat milk froths well; good choice.", [("Drinks oat milk flat whites, no sugar", "")]),
    ("Book club", ("books",),
     "Our book club is reading 'The Dispossessed' this month.",
     "Le Guin is wonderful for discussion.", [("Is in a book club", "")]),
    ("Dentist", ("health",),
     "Dentist appointment moved to the 9th at 15:00; it's the clinic in Graça.",
     "I'll remember the new time.", [("Sees a dentist in Graça", "health")]),
    ("Trip to Porto", ("travel", "Porto"),
     "Planning a weekend in Porto with Ana in February.",
     "The Livraria Lello books out early; reserve ahead.",
     [("Plans a Porto weekend with Ana", "family")]),
    ("Guitar", ("music",),
     "Started guitar again, working on Bossa Nova chords.",
     "Try 'Corcovado', it's forgiving.", [("Plays guitar, learning Bossa Nova", "")]),
    ("Standup", ("work",),
     "Our daily standup moved to 09:30 because of the Berlin team.",
     "Good to know for morning planning.", [("Daily standup is at 09:30", "work")]),
    ("Balcony plants", ("home", "plants"),
     "The balcony basil died but the lemon tree is thriving.",
     "Basil hates the afternoon sun; try a shadier spot.",
     [("Grows a lemon tree on the balcony", "")]),
]  # fmt: skip
SCOPES = ("", "work", "health", "family")
# What else gets said in a session: (the user's line, Hippo's answer).
SMALL_TALK = [
    ("Can you suggest something for dinner tonight, nothing with nuts?",
     "How about a chickpea and spinach stew with lemon? Quick and nut-free."),
    ("What time is it in Berlin when it's 9:30 here?", "Berlin is an hour ahead, so 10:30."),
    ("Any idea for a rainy Sunday?", "The tile museum is lovely on a grey day."),
    ("Remind me what I wanted to read next?", "You mentioned Ursula Le Guin's other novels."),
    ("Is it worth taking the 28 tram?", "Early in the morning, yes; it's packed by ten."),
    ("How long should I rest after a long run?", "A day of easy walking is usually enough."),
]  # fmt: skip
# Lines said in passing that teach small facts (a special few said on purpose).
SAID = {
    "holiday": "We're on holiday until December 1, then back to work.",
    "mornings": "I do my best thinking before lunch, so I book meetings early.",
    "coffee": "Actually, I've quit the oat milk: black coffee from now on.",
    "manager": "Tomás is covering for Priya; our 1:1s are on Mondays now.",
}
WHERE_SAID = {"holiday": 0, "mornings": 7, "coffee": 12, "manager": 14}
ACTIVITIES = [
    "fado", "pastéis de nata", "a hike", "a picnic", "sardines", "a jazz gig", "a pottery class",
    "a board game night", "climbing", "a film festival", "a food market", "a swim",
    "a bike ride", "a gallery opening", "a flea market", "a boat trip", "a cooking class",
    "a concert", "a long lunch", "a sunset walk",
]  # fmt: skip
PLACES = [
    "Sintra", "Cascais", "Belém", "Graça", "the Gulbenkian gardens", "LX Factory",
    "Costa da Caparica", "Príncipe Real", "Mouraria", "Ericeira", "Setúbal", "Óbidos",
    "Évora", "Arrábida", "Campo de Ourique",
]  # fmt: skip
REPLIES = [
    "Sounds lovely!",
    "Noted, that sounds fun.",
    "Nice! Would you go again?",
    "Good to hear.",
]
NOTE = """# Flat notes

## Landlord
Sr. Costa, rent due on the 1st, paid by transfer. The boiler was serviced in October.

## Neighbours
Dona Lurdes downstairs keeps a spare key. The recycling goes out on Tuesdays.

## Internet
Fibre from MEO, the router is behind the bookshelf; the guest network is 'alfama-guest'.
"""
