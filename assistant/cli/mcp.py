"""`hippo mcp`: serve the profile's memory to MCP clients (Claude Desktop, Cursor, oterm...).

Over stdio, the way clients launch their servers: the client writes to Hippo's stdin and
reads its stdout, so nothing else may be printed there; notices go to stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from assistant.cli.tree import Verbs, verb

if TYPE_CHECKING:
    from assistant.config import Config

__all__ = ["COMMANDS", "add_parsers"]


def add_parsers(sub: Verbs) -> None:
    """Add ``mcp`` to the `hippo` parser."""
    serve = verb(
        sub,
        "mcp",
        "serve this profile's memory to MCP clients over stdio (recall, facts, proposals)",
    )
    serve.add_argument(
        "--scope", default="", help="serve this scope's facts and the general ones only"
    )
    serve.add_argument(
        "--read-only",
        action="store_true",
        help="offer no writing tool (no proposals, no events)",
    )


def mcp_command(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Serve MCP over stdio until the client closes the stream."""
    from assistant.factory import open_engine
    from assistant.mcp_server import build_server
    from assistant.memory.records import scope_name

    scope = scope_name(args.scope) if args.scope else ""
    with open_engine(config) as engine:
        for notice in engine.background.take_notices():
            print(f"hippo: {notice}", file=sys.stderr)
        server = build_server(engine, scope=scope, read_only=args.read_only)
        # The SDK takes the process's own stdin and stdout byte streams (and diverts
        # stray prints to stderr): it is handed them, not the CLI's escaping wrappers.
        wrapped = sys.stdin, sys.stdout
        sys.stdin, sys.stdout = sys.__stdin__, sys.__stdout__
        try:
            server.run("stdio")
        finally:
            sys.stdin, sys.stdout = wrapped
    return 0


COMMANDS = {"mcp": mcp_command}
