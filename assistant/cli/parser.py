"""The `hippo` parser: the vocabulary of `assistant.cli`, old spellings rewritten first.

`build_parser` returns a parser whose ``parse_args`` takes old spellings too (see
`assistant.cli.aliases`) and then settles what argparse can't say alone: where the
old leading ``--scope`` and ``-c`` go, which modes of ``hippo sleep`` exclude each
other, and what ``review approve --all --kind`` means.
"""

from __future__ import annotations

import argparse
import functools
import sys
import threading
from collections.abc import Sequence

from assistant.cli import args as cli_args
from assistant.cli import mcp as cli_mcp
from assistant.cli import memory as cli_memory
from assistant.cli import profiles as cli_profiles
from assistant.cli.aliases import OldSpellingError, modern
from assistant.cli.shared import add_json_options
from assistant.cli.tree import PROG, Nouns, Verbs, add_globals, noun, verb, words_of

__all__ = ["build_parser", "parse_line"]

_DESCRIPTION = """\
Hippo: a local-first personal memory assistant on Ollama. With no command, opens the chat.

Commands are a noun and a verb (`hippo fact list`, `hippo session delete 3`); every
noun knows `list`, and those that can be removed know `delete`. Options such as
--profile go anywhere on the line. `hippo NOUN --help` lists a noun's verbs."""

_EPILOG = """\
environment:
  HIPPO_DATA_DIR       folder of the data file (beaten by --data-dir)
  HIPPO_CONFIG_DIR     folder of config.toml
  OLLAMA_HOST          the Ollama server (default http://127.0.0.1:11434)
  HIPPO_OLLAMA_TOKEN   bearer token for a remote Ollama host (else the keyring is used)
  HIPPO_DB_KEY         the data file's key, 64 hex digits (else the keyring, else a key
                       file beside config.toml where no keyring exists)
"""
_CHATTING = (None, "chat", "ask")
# One line is parsed at a time: a lazy parser builds a command's verbs as it parses it.
_PARSING = threading.Lock()


class RootParser(cli_args.Parser):
    """The top parser: rewrites old spellings, parses, then settles (see module doc)."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Parse ``args`` (old spellings included) into the vocabulary's namespace."""
        argv = sys.argv[1:] if args is None else list(args)
        try:
            argv = modern(argv)
        except OldSpellingError as exc:
            self.error(str(exc))
        parsed, extra = super().parse_known_args(argv, namespace)
        problem = _settle(parsed)
        if problem is not None:
            self.error(problem)
        return parsed, extra


def build_parser(*, lazy: bool = False) -> argparse.ArgumentParser:
    """The argument parser, with every command documented.

    Args:
        lazy: build a command's verbs only when a line names it (for `main`: one line is
            parsed, and building them all takes longer than that).
    """
    parser = RootParser(
        prog=PROG,
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_globals(parser, top=True)
    # Before a command these were the chat's; they still are (see _settle), unlisted.
    parser.add_argument(
        "-c", "--continue", dest="lead_resume", action="store_true", help=argparse.SUPPRESS
    )
    parser.add_argument("--scope", dest="lead_scope", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=cli_args.Parser, action=Nouns
    )
    if isinstance(sub, Nouns):  # always: the action asked for above
        sub.lazy = lazy
    _chat_parsers(sub)
    cli_memory.add_parsers(sub)
    cli_profiles.add_parsers(sub)
    _sleep_parsers(sub)
    _model_parsers(sub)
    verb(sub, "doctor", "check the data file and Ollama; non-zero exit on problems")
    cli_mcp.add_parsers(sub)
    return parser


def parse_line(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse one `hippo` command line (default: ``sys.argv``) with the process's parser.

    The parser is built once a process, lazily (see `build_parser`), and kept: parsing
    changes nothing in it but the verbs it builds for the commands it meets, which later
    lines reuse. Building one cost 5-15 ms of CPU, which every call of `main` paid again
    (the tests call it thousands of times).

    Raises:
        SystemExit: ``--help``, ``--version``, or a usage error (see `cli_args.Parser`).
    """
    with _PARSING:
        return _lazy_parser().parse_args(argv)


@functools.cache
def _lazy_parser() -> argparse.ArgumentParser:
    return build_parser(lazy=True)


def _chat_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-c",
        "--continue",
        dest="resume",
        action="store_true",
        default=argparse.SUPPRESS,
        help="resume the last session",
    )
    parser.add_argument(
        "--scope",
        default=argparse.SUPPRESS,
        help="a new chat about SCOPE (e.g. work): it recalls general memories and that "
        "scope's only, and facts learnt in it are kept in that scope",
    )


def _chat_parsers(sub: Verbs) -> None:
    _chat_options(verb(sub, "chat", "open the chat (the default)"))
    ask = verb(
        sub,
        "ask",
        "send one message and print the reply (no UI); `-` or a pipe reads it from stdin",
    )
    ask.add_argument("text", nargs="?", help="the message; `-` (or none, with a pipe): stdin")
    _chat_options(ask)


def _sleep_parsers(sub: Verbs) -> None:
    what = "consolidate memory (nightly): episodes, facts to review, reflections"
    sleep = sub.add_parser("sleep", help=what, description=f"{what}. Alone: `sleep run`.")
    add_globals(sleep, top=False)
    for flag in ("--now", "--retry", "--dry-run", "--install-timer"):  # the old spellings
        sleep.add_argument(flag, action="store_true", help=argparse.SUPPRESS)
    sleep.add_argument("--max-llm-calls", type=cli_args.calls, help=argparse.SUPPRESS)
    verbs = sleep.add_subparsers(dest="sleep_command", metavar="VERB")
    run = verb(verbs, "run", "consolidate what is due since the last nightly run")
    modes = run.add_mutually_exclusive_group()
    modes.add_argument(
        "--now",
        action="store_true",
        default=argparse.SUPPRESS,
        help="run even if nothing is due; it takes the sessions that are over (their app "
        "closed or `ask` ended, or 30 minutes idle) and says why it left any",
    )
    modes.add_argument(
        "--retry",
        action="store_true",
        default=argparse.SUPPRESS,
        help="run now, trying again the sessions sleep gave up on (the model failed on "
        "them 3 runs in a row; nightly and manual runs count alike)",
    )
    preview = verb(verbs, "preview", "show what a run would propose; write nothing")
    preview.set_defaults(dry_run=True)
    for parser in (run, preview):
        parser.add_argument(
            "--max-llm-calls",
            type=cli_args.calls,
            default=argparse.SUPPRESS,
            help="cap on model calls for this run (200)",
        )
    verb(
        verbs,
        "install-timer",
        "install a nightly systemd/launchd/Windows timer that runs this same Hippo on this "
        "data file and Ollama host",
        install_timer=True,
    )


def _model_parsers(sub: Verbs) -> None:
    noun(sub, "model", "the Ollama models: list, use, pull", _model_verbs)
    noun(sub, "token", "the bearer token for a remote Ollama host (keyring)", _token_verbs)


def _model_verbs(verbs: Verbs) -> None:
    listing = verb(verbs, "list", "installed models, and which ones Hippo uses")
    listing.set_defaults(command="models", models_command=None)
    add_json_options(listing)
    use = verb(verbs, "use", "choose the chat and/or embedding model (saved)")
    use.set_defaults(command="models", models_command="use")
    use.add_argument("--chat", help="chat model name")
    use.add_argument("--embedding", help="embedding model name")
    use.add_argument(
        "--force",
        action="store_true",
        help="save a name Ollama lacks or can't be asked about now (never one that can't "
        "do the job)",
    )
    pull = verb(verbs, "pull", "download a model into Ollama, with progress", command="pull")
    pull.add_argument("name", metavar="MODEL")


def _token_verbs(tokens: Verbs) -> None:
    for name, what, action in (
        ("set", "store it (typed, or piped on stdin)", "set"),
        ("clear", "remove it from the keyring", "clear"),
        ("show", "where the token for the host in use comes from", "status"),
    ):
        verb(tokens, name, what, command="token", action=action)


def _settle(args: argparse.Namespace) -> str | None:
    """Finish ``args`` as the handlers take them; the usage error to give, if any."""
    settle = vars(args).pop("settle", None)
    if settle is not None and (problem := settle(args)) is not None:
        return f"{words_of(args)}: {problem}"
    problem = _lead_options(args)
    if problem is not None:
        return problem
    if args.command == "sleep":
        return _sleep_modes(args)
    return None


def _lead_options(args: argparse.Namespace) -> str | None:
    """Where ``--scope`` and ``-c`` given before the command belong (old spellings)."""
    scope: str | None = vars(args).pop("lead_scope", None)
    resume: bool = vars(args).pop("lead_resume", False)
    chatting = args.command in _CHATTING
    if scope is not None:
        if chatting:
            vars(args).setdefault("scope", scope)
        elif words_of(args) == "fact add":
            args.fact_scope = scope if args.fact_scope is None else args.fact_scope
        else:
            return (
                f"--scope before a command is the scope of a new chat: it goes with chat or "
                f"ask (`hippo chat --scope {scope}`). To pick facts of a scope, give it "
                f"after the command: `hippo fact list --scope {scope}`."
            )
    if resume:
        if not chatting:
            return "-c/--continue resumes the last session: it goes with chat or ask."
        args.resume = True
    vars(args).setdefault("scope", "")
    vars(args).setdefault("resume", False)
    return None


def _sleep_modes(args: argparse.Namespace) -> str | None:
    """One mode per `hippo sleep`: the old flags could silently drop one another."""
    chosen = []
    if args.install_timer:
        chosen.append("sleep install-timer")
    if args.dry_run:
        chosen.append("sleep preview")
    if args.retry:
        chosen.append("sleep run --retry")
    elif args.sleep_command == "run" or (args.now and not args.dry_run):
        chosen.append("sleep run --now" if args.now else "sleep run")
    if args.install_timer and args.max_llm_calls is not None:
        chosen.append("sleep run --max-llm-calls")
    if len(chosen) > 1:
        return (
            f"`hippo {chosen[0]}` and `hippo {chosen[1]}` are different runs and can't be "
            "combined: run one, then the other."
        )
    return None
