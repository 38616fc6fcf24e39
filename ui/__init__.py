"""Hippo terminal UI (Textual)."""
