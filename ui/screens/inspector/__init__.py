"""The memory inspector: facts, review queue, core memory, history, forget, episodes, archive,
events and documents, sleep; and provenance of a fact or a reply.

One module per tab; `InspectorScreen` holds them in a `TabbedContent`.
"""

from ui.screens.inspector.provenance import ProvenanceScreen
from ui.screens.inspector.screen import TABS, InspectorScreen

__all__ = ["TABS", "InspectorScreen", "ProvenanceScreen"]
