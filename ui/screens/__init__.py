"""Hippo's screens."""

from ui.screens.chat import ChatScreen
from ui.screens.inspector import InspectorScreen, ProvenanceScreen
from ui.screens.models import ModelChoice, ModelPickerScreen
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
