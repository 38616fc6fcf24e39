"""The `hippo` command line: every parser and printer of the CLI lives in this package."""

from __future__ import annotations

from assistant.cli.commands import build_parser, main

__all__ = ["build_parser", "main"]
