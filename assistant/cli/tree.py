"""The shape every `hippo` parser shares: global options anywhere, nouns that hold verbs.

A noun's parser only holds its verbs (``hippo fact`` alone is a usage error naming
them); a verb's parser is a leaf whose defaults say which handler runs it. Every
parser, noun or verb, also accepts the global options, so ``hippo fact list --profile
work`` means what ``hippo --profile work fact list`` does. Below the top they default
to "not given" (argparse's SUPPRESS), so that a leaf never overwrites a value given
before the command.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from assistant.cli.args import Parser

__all__ = [
    "PROG",
    "Nouns",
    "Verbs",
    "VersionAction",
    "add_globals",
    "noun",
    "verb",
    "words_of",
]

PROG = "hippo"


class VersionAction(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        kwargs.pop("default", None)
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("hippo-memory")
        except PackageNotFoundError:  # run from a source tree that was never installed
            found = "unknown (not installed; run `pip install -e .`)"
        print(f"{PROG} {found}", file=sys.stdout)
        parser.exit(0)


def add_globals(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Add the global options; below the top, an option not given leaves the top's value."""

    def default(value: object) -> object:
        return value if top else argparse.SUPPRESS

    parser.add_argument(
        "--data-dir",
        default=default(None),
        help="folder of the data file (overrides HIPPO_DATA_DIR)" if top else argparse.SUPPRESS,
    )
    parser.add_argument(
        "--profile",
        default=default(None),
        help="memory profile to use (e.g. work; `hippo profile list`)"
        if top
        else argparse.SUPPRESS,
    )
    parser.add_argument(
        "--create-profile",
        action="store_true",
        default=default(False),
        help="start the --profile named if it does not exist yet (else a typo is refused)"
        if top
        else argparse.SUPPRESS,
    )
    parser.add_argument(
        "--model",
        default=default(None),
        help="chat model for this run (not saved)" if top else argparse.SUPPRESS,
    )
    parser.add_argument(
        "--version",
        action=VersionAction,
        help="print Hippo's version and exit" if top else argparse.SUPPRESS,
    )


if TYPE_CHECKING:
    # Typeshed makes the action generic in the parsers it adds; argparse's class is
    # not subscriptable at run time, so the subscripted base exists only for mypy.
    Verbs = argparse._SubParsersAction[Parser]
    _NounsBase = argparse._SubParsersAction[Parser]
else:
    Verbs = _NounsBase = argparse._SubParsersAction


class Nouns(_NounsBase):
    """The top's commands, whose verbs are built when the command is used.

    Building every verb's parser costs more than parsing one line (about 60 leaf
    parsers, each with the global options), and `hippo event add` should start fast;
    help lists a command from its own parser, which is made at once.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: dict[str, Callable[[], None]] = {}
        self.lazy = False

    def later(self, name: str, build: Callable[[], None]) -> None:
        """Run ``build`` when ``name`` is parsed (at once unless lazy)."""
        if self.lazy:
            self.pending[name] = build
        else:
            build()

    def complete(self) -> None:
        """Build every command's verbs (to list or inspect them all)."""
        while self.pending:
            self.pending.pop(next(iter(self.pending)))()

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        build = self.pending.pop(values[0], None)
        if build is not None:
            build()
        super().__call__(parser, namespace, values, option_string)


def noun(
    sub: Verbs,
    name: str,
    what: str,
    fill: Callable[[Verbs], None],
    *,
    required: bool = True,
) -> None:
    """Add the noun ``name`` (described by ``what``); ``fill`` adds its verbs."""
    parser = sub.add_parser(name, help=what, description=what)
    add_globals(parser, top=False)
    verbs = parser.add_subparsers(
        dest=f"{name.replace('-', '_')}_command", metavar="VERB", required=required
    )
    if isinstance(sub, Nouns):
        sub.later(name, lambda: fill(verbs))
    else:
        fill(verbs)


def verb(verbs: Verbs, name: str, what: str, **runs: Any) -> Parser:
    """Add the verb ``name``; ``runs`` are the defaults that pick and feed its handler."""
    parser: Parser = verbs.add_parser(name, help=what, description=what)
    add_globals(parser, top=False)
    parser.set_defaults(**runs, words=parser.prog.removeprefix(f"{PROG} "))
    return parser


def words_of(args: argparse.Namespace) -> str:
    """The command as typed in the new vocabulary (``fact list``), for messages."""
    return str(getattr(args, "words", None) or args.command or "chat")
