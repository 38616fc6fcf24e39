"""Hippo's screens. Only the chat loads at start-up; the others load when first opened."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ui.screens.chat import ChatScreen

if TYPE_CHECKING:
    from ui.screens.inspector import InspectorScreen, ProvenanceScreen
    from ui.screens.model_picker import ModelChoice, ModelPickerScreen
    from ui.screens.onboarding import OnboardingScreen
    from ui.screens.pull import PullScreen
    from ui.screens.sessions import SessionChoice, SessionListScreen

__all__ = [
    "ChatScreen",
    "InspectorScreen",
    "ModelChoice",
    "ModelPickerScreen",
    "OnboardingScreen",
    "ProvenanceScreen",
    "PullScreen",
    "SessionChoice",
    "SessionListScreen",
]

_LAZY = {
    "InspectorScreen": "ui.screens.inspector",
    "ProvenanceScreen": "ui.screens.inspector",
    "ModelChoice": "ui.screens.model_picker",
    "ModelPickerScreen": "ui.screens.model_picker",
    "OnboardingScreen": "ui.screens.onboarding",
    "PullScreen": "ui.screens.pull",
    "SessionChoice": "ui.screens.sessions",
    "SessionListScreen": "ui.screens.sessions",
}


def __getattr__(name: str) -> Any:
    """Import a screen on first use (PEP 562), keeping start-up light."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ui.screens' has no attribute {name!r}")
