"""Hippo's memory tiers and the one object over them.

``Memory`` (``recall.py``) holds the stores and the retriever and answers ``recall``;
each table family has one store that owns its SQL: ``messages.py`` (profiles, sessions,
messages), ``facts/`` (facts, their evidence and history), ``episodes.py``,
``archival.py`` (documents and chunks), ``sensory.py`` (events from outside the chat),
``core.py`` and ``core_proposals.py`` (core memory), ``entities.py``, ``vectors.py``
(embeddings), ``usage.py`` (which memories went into a reply), ``sleep_*.py`` (the
consolidation's records), and ``profile_data/`` for whole-profile operations (forget,
export, restore, counts) that know every table. Retrieval is ``retrieval.py`` (fusion),
``scoring.py`` (relevance), ``tiers.py`` (one adapter per tier) and ``search.py``.

Nothing is imported here: `hippo log` loads only the modules it uses.
"""
