"""Hippo: a local-first personal memory assistant."""
