"""`hippo mcp`: serve the profile's memory to MCP clients (Claude Desktop, Cursor, oterm...).

Over stdio, the way clients launch their servers: the client writes to Hippo's stdin and
reads its stdout, so nothing else may be printed there; notices go to stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING, TextIO

from assistant.cli import args as cli_args
from assistant.cli.shared import add_json_options, dump_listing, wants_json
from assistant.cli.tree import Verbs, verb

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from assistant.admin.browse import ClientUse
    from assistant.config import Config

__all__ = ["COMMANDS", "add_parsers"]


def add_parsers(sub: Verbs) -> None:
    """Add ``mcp`` to the `hippo` parser."""
    serve = verb(
        sub,
        "mcp",
        "serve this profile's memory to MCP clients over stdio (recall, facts, proposals); "
        "`mcp clients`: which clients wrote what",
    )
    serve.add_argument(
        "what",
        nargs="?",
        choices=["clients"],
        help="clients: list each MCP client that wrote here, with its counts and last use",
    )
    serve.add_argument(
        "--http",
        action="store_true",
        help="serve streamable HTTP on 127.0.0.1 instead of stdio; clients send the bearer "
        "token kept in the keyring (HIPPO_MCP_TOKEN overrides it; `--show-token` prints it)",
    )
    serve.add_argument("--port", type=cli_args.port, default=8765, help="with --http (8765)")
    serve.add_argument(
        "--show-token", action="store_true", help="print the HTTP bearer token and exit"
    )
    add_json_options(serve)
    serve.add_argument(
        "--scope", default="", help="serve this scope's facts and the general ones only"
    )
    serve.add_argument(
        "--read-only",
        action="store_true",
        help="offer no writing tool (no proposals, no events)",
    )


def mcp_command(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Serve MCP over stdio until the client closes the stream (or list the clients)."""
    from assistant.factory import open_engine

    if args.what == "clients":
        with open_engine(config) as engine:
            return _clients(engine.admin.browse.mcp_clients(), args, out)
    if args.show_token:
        from assistant.secrets import mcp_token

        print(mcp_token(), file=out)
        return 0
    from assistant.mcp_server import build_server
    from assistant.memory.records import scope_name

    scope = scope_name(args.scope) if args.scope else ""
    with open_engine(config) as engine:
        for notice in engine.background.take_notices():
            print(f"hippo: {notice}", file=sys.stderr)
        server = build_server(engine, scope=scope, read_only=args.read_only)
        if args.http:
            return _serve_http(server, args.port)
        # The SDK takes the process's own stdin and stdout byte streams (and diverts
        # stray prints to stderr): it is handed them, not the CLI's escaping wrappers.
        wrapped = sys.stdin, sys.stdout
        sys.stdin, sys.stdout = sys.__stdin__, sys.__stdout__
        try:
            server.run("stdio")
        finally:
            sys.stdin, sys.stdout = wrapped
    return 0


def _serve_http(server: MCPServer, port: int) -> int:
    from assistant.mcp_server import LOCAL_HOST, serve_http
    from assistant.secrets import mcp_token

    token = mcp_token()
    print(
        f"hippo: serving MCP at http://{LOCAL_HOST}:{port}/mcp (this machine only); clients "
        "send `Authorization: Bearer TOKEN`, the token `hippo mcp --show-token` prints. "
        "Ctrl+C stops.",
        file=sys.stderr,
    )
    serve_http(server, port=port, token=token)
    return 0


def _clients(uses: list[ClientUse], args: argparse.Namespace, out: TextIO) -> int:
    if wants_json(args):
        dump_listing((dataclasses.asdict(use) for use in uses), args, out)
        return 0
    if not uses:
        print("No MCP client has written here yet (reading leaves no trace).", file=out)
    for use in uses:
        print(
            f"{use.name:<24} {use.proposals:>5} proposal(s) {use.events:>5} event(s)  "
            f"last {use.last_at.astimezone():%Y-%m-%d %H:%M}",
            file=out,
        )
    return 0


COMMANDS = {"mcp": mcp_command}
