"""The `hippo` command line: every parser and printer of the CLI lives in this package."""

from __future__ import annotations

from assistant.cli.commands import main
from assistant.cli.parser import build_parser

__all__ = ["build_parser", "main"]
