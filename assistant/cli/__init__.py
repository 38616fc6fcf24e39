"""The `hippo` command line: every parser and printer of the CLI lives in this package.

The vocabulary
==============
``hippo NOUN VERB [ARGS] [OPTIONS]``, in the manner of ``gh`` and ``llm``. ``hippo``
alone opens the chat; ``hippo --help`` lists the nouns and ``hippo NOUN --help`` a
noun's verbs.

Rules
-----
1. **Same verbs on every noun.** ``list`` shows them (``-n`` how many, ``--json`` JSON
   lines); ``show ID`` one; ``add`` makes one; ``delete ID`` removes one for good;
   ``search QUERY`` finds them; ``import``/``export`` read and write files.
2. **Sub-actions are always subcommands**, never a positional choice or a mode flag:
   ``token show``, not ``token status``; ``sleep preview``, not ``sleep --dry-run``.
3. **Filters are named options of their verb** and never share a name with a global
   option: ``fact list --scope work``, ``review list --kind reflection``. An option
   means one thing: ``--json`` always prints JSON lines (``event import`` reads them).
4. **Global options go anywhere on the line**: ``--profile NAME``, ``--data-dir DIR``,
   ``--model NAME``, ``--create-profile``, ``--version``, ``-h``.
5. **Modes that exclude each other are refused** with a usage error (exit 1) naming
   both, never silently dropped.

The nouns and their verbs
-------------------------
=========  ===================================================================
chat       (a verb) open the chat; ``-c`` resume, ``--scope S`` a scoped chat
ask        (a verb) one message in, the reply out; ``-c``, ``--scope S``
fact       list, search, show, add, edit, pin, unpin, wrong, outdated, delete
review     list [--kind], approve ID|--all [--kind], reject ID|--all [--kind]
history    list, undo CHANGE, believed [QUERY] --as-of TIME
session    list, delete
message    search
episode    list, delete
event      add TEXT, import [FILE|-], list, delete
document   add PATH..., list, delete
core       list
memory     recall QUERY, embed, stats, activity, forget TEXT (all tiers at once)
profile    list, rename OLD NEW, delete NAME, export [-o FILE], import FILE NAME
backup     create [PATH], list, restore BACKUP
db         path, rekey, vectors list|delete MODEL (an embedding model's vectors)
model      list, use --chat/--embedding, pull NAME
token      set, clear, show
sleep      run [--now|--retry], preview, install-timer (``sleep`` alone: ``run``)
doctor     (a verb) check the data file and Ollama
=========  ===================================================================

Old spellings (``hippo search``, ``hippo memory list``, ``hippo import FILE --profile
NEW``, ``hippo log --json``, ``hippo sleep --now``, ...) keep working as hidden
aliases: `assistant.cli.aliases` rewrites them into the vocabulary before parsing, and
``tests/cli/test_vocabulary.py`` holds each one to the spelling it stands for.

Modules
-------
``parser`` builds the parser (``tree`` the shape every parser shares); ``commands``
holds `main` and the handlers of the top-level commands; ``memory`` and
``memory_actions`` the memory nouns; ``storage`` where the file's bytes are (``memory
stats``, ``db vectors``); ``profiles``, ``backups``, ``ask``, ``sleep`` and
``progress`` their own; ``args`` the argument types and the quiet stdout. Handlers
import the engine lazily, so that ``hippo event add`` starts fast.
"""

from __future__ import annotations

from assistant.cli.commands import main
from assistant.cli.parser import build_parser

__all__ = ["build_parser", "main"]
