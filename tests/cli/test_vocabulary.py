"""One vocabulary: noun-verb commands, global options anywhere, old spellings as aliases.

An old spelling does the same thing as its new one when both parse to the same
arguments: the handlers see nothing else. Each alias is checked that way, and the
ones whose options changed meaning are also run end to end.
"""

from __future__ import annotations

import argparse
import io
import json
import shlex
import sys
from importlib.metadata import version

import pytest

from assistant.cli import aliases, build_parser, main
from assistant.cli.parser import parse_line
from tests.cli.parsers import whole_parser
from tests.cli.stored import stored_rows


def _parsed(argv: list[str]) -> dict[str, object]:
    """What the handlers get for ``argv`` (which they pick by ``command``)."""
    found = vars(whole_parser().parse_args(argv))
    found.pop("words", None)  # how it was spelt, for messages only
    found["command"] = found["command"] or "chat"  # `hippo` alone is `hippo chat`
    found.pop("sleep_command", None)  # sleep's handler reads the mode flags only
    return found


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _listed(capsys, *argv: str) -> list[dict[str, object]]:
    """What ``hippo ARGV --json`` lists (read through the CLI, as a script would)."""
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


# Every old spelling and the new one it stands for (as typed in a shell).
ALIASES = {
    "search Anna -n 3 --json": "message search Anna -n 3 --json",
    "sessions -n 5": "session list -n 5",
    "embed": "memory embed",
    "recall Anna --json": "memory recall Anna --json",
    "log 'ran 5k' --source watch --ttl-hours 2": "event add 'ran 5k' --source watch --ttl-hours 2",
    "log --json --source watch": "event import --source watch",
    "ingest a.md b": "document add a.md b",
    "path": "db path",
    "models --json": "model list --json",
    "models use --chat qwen3:1.7b": "model use --chat qwen3:1.7b",
    "pull all-minilm": "model pull all-minilm",
    "import x.json --profile new --max-mb 5": "profile import x.json new --max-mb 5",
    "import --profile=new x.json": "profile import x.json new",
    "token set": "token set",
    "token clear": "token clear",
    "token status": "token show",
    "memory add 'I like tea' --scope home": "fact add 'I like tea' --scope home",
    "memory list --status active --page 2": "fact list --status active --page 2",
    "memory facts --order recent": "fact list --order recent",
    "memory search tea --semantic": "fact search tea --semantic",
    "memory show 3": "fact show 3",
    "memory edit 3 --importance 7": "fact edit 3 --importance 7",
    "memory pin 3": "fact pin 3",
    "memory unpin 3": "fact unpin 3",
    "memory wrong 3": "fact wrong 3",
    "memory outdated 3": "fact outdated 3",
    "memory review": "review list",
    "memory review reflection --json": "review list --kind reflection --json",
    "memory approve 'core#2'": "review approve 'core#2'",
    "memory approve 4 --statement Tea": "review approve 4 --statement Tea",
    "memory approve --all": "review approve --all",
    "memory approve --all sleep": "review approve --all --kind sleep",
    "memory reject --all=agent": "review reject --all --kind agent",
    "memory reject 4": "review reject 4",
    "memory history --kind core": "history list --kind core",
    "memory undo 'fact#2'": "history undo 'fact#2'",
    "memory believed tea --as-of 2026-01-01": "history believed tea --as-of 2026-01-01",
    "memory sessions -n 4 --json": "session list -n 4 --json",
    "memory sessions --delete 2": "session delete 2",
    "memory episodes": "episode list",
    "memory episodes -n 3 --delete 2 --json": "episode delete 2",
    "memory events --json": "event list --json",
    "memory events --delete=2": "event delete 2",
    "memory documents -n 2": "document list -n 2",
    "memory documents --delete 2": "document delete 2",
    "memory rm episode 2": "episode delete 2",
    "memory rm fact 2": "fact delete 2",
    "memory core": "core list",
    "memory activity --days 3": "memory activity --days 3",
    "memory stats": "memory stats",
    "memory forget Anna --yes": "memory forget Anna --yes",
    "memory export -o x.json --format markdown": "profile export -o x.json --format markdown",
    "memory backup x.db --force": "backup create x.db --force",
    "memory backups --json": "backup list --json",
    "memory restore hippo-1.db -y": "backup restore hippo-1.db -y",
    "memory path": "db path",
    "memory rekey": "db rekey",
    "sleep": "sleep run",
    "sleep --now --max-llm-calls 4": "sleep run --now --max-llm-calls 4",
    "sleep --retry": "sleep run --retry",
    "sleep --dry-run": "sleep preview",
    "sleep --install-timer": "sleep install-timer",
    "--scope work ask hi": "ask --scope work hi",
    "-c ask hi": "ask -c hi",
    "--scope work": "chat --scope work",
    "--continue": "chat -c",
    "--scope work memory add x": "fact add x --scope work",
}


@pytest.mark.parametrize("old", sorted(ALIASES))
def test_an_old_spelling_parses_to_what_its_new_spelling_does(old):
    got, want = _parsed(shlex.split(old)), _parsed(shlex.split(ALIASES[old]))
    assert got == want


def test_every_alias_has_its_test():
    spelt = {
        " ".join(old.split()[:2]) if old.startswith("memory") else old.split()[0] for old in ALIASES
    }
    assert {f"memory {verb}" for verb in aliases.MEMORY} <= spelt
    assert set(aliases.TOP) <= spelt


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = parser._subparsers
    return {} if sub is None else dict(sub._group_actions[0].choices)


def _shown(parser: argparse.ArgumentParser) -> set[str]:
    sub = parser._subparsers
    return set() if sub is None else {a.dest for a in sub._group_actions[0]._choices_actions}


def test_help_shows_only_the_vocabulary():
    root = build_parser()
    nouns = _choices(root)
    assert set(nouns) == _shown(root)  # every command is listed, and nothing else exists
    assert not (set(aliases.TOP) - {"token"}) & set(nouns)
    for noun, parser in nouns.items():
        assert set(_choices(parser)) == _shown(parser), noun
        assert not {"rm", "facts", "sessions", "backups", "status"} & set(_choices(parser))
    assert set(_choices(nouns["memory"])) == {"recall", "embed", "stats", "activity", "forget"}
    before_env = root.format_help().split("environment:")[0]
    assert "--scope" not in before_env and "--continue" not in before_env  # chat options


def test_the_old_memory_rm_with_a_bad_kind_names_the_kinds(capsys):
    code, out, err = _run(capsys, "memory", "rm", "bogus", "3")
    assert code == 1 and out == ""
    assert "deletes a fact, session, episode, event or document, not 'bogus'" in err
    assert "hippo fact delete 12" in err and "Traceback" not in err


def test_version_prints_the_installed_version_anywhere_on_the_line(capsys):
    for argv in (["--version"], ["fact", "list", "--version"]):
        code, out, _ = _run(capsys, *argv)
        assert (code, out) == (0, f"hippo {version('hippo-memory')}\n")


@pytest.mark.parametrize(
    "argv",
    [
        ["--profile", "work", "fact", "list", "--json"],
        ["fact", "--profile", "work", "list", "--json"],
        ["fact", "list", "--profile", "work", "--json"],
        ["fact", "list", "--json", "--profile=work"],
        ["memory", "list", "--profile", "work", "--json"],  # an old spelling, too
    ],
)
def test_global_options_are_taken_anywhere_on_the_line(argv):
    parsed = whole_parser().parse_args(argv)
    assert (parsed.profile, parsed.memory_command, parsed.json) == ("work", "list", True)


def test_a_global_option_given_before_and_after_keeps_the_last():
    parsed = whole_parser().parse_args(["--model", "a", "ask", "hi", "--model", "b"])
    assert parsed.model == "b"


def test_the_data_dir_after_the_command_is_the_one_used(tmp_path, capsys):
    code, out, _ = _run(capsys, "db", "path", "--data-dir", str(tmp_path / "d"))
    assert code == 0 and out.strip() == str(tmp_path / "d" / "hippo.db")


def test_a_model_to_pull_is_not_the_chat_model_of_the_run():
    parsed = whole_parser().parse_args(["--model", "qwen3:1.7b", "model", "pull", "all-minilm"])
    assert (parsed.model, parsed.name) == ("qwen3:1.7b", "all-minilm")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["sleep", "--install-timer", "--dry-run"], "install-timer` and `hippo sleep preview`"),
        (["sleep", "--install-timer", "--now"], "install-timer` and `hippo sleep run --now`"),
        (["sleep", "--dry-run", "--retry"], "`hippo sleep preview` and `hippo sleep run --retry`"),
        (["sleep", "--retry", "preview"], "`hippo sleep preview` and `hippo sleep run --retry`"),
        (["sleep", "run", "--now", "--retry"], "argument --retry: not allowed with argument --now"),
        (["sleep", "--install-timer", "run"], "`hippo sleep install-timer` and"),
    ],
)  # fmt: skip
def test_sleep_modes_that_exclude_each_other_are_refused(tmp_path, monkeypatch, capsys, argv, said):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    code, out, err = _run(capsys, "--data-dir", str(tmp_path / "d"), *argv)
    assert code == 1 and out == "" and said in err and "usage: hippo" in err
    assert not (tmp_path / "cfg").exists()  # no timer was written
    assert not (tmp_path / "d").exists()  # nothing was opened


@pytest.mark.parametrize(
    "argv",
    [
        ["--scope", "work", "memory", "list"],
        ["--scope", "work", "fact", "list"],
        ["--scope", "work", "sessions"],
        ["-c", "memory", "list"],
        ["--continue", "doctor"],
    ],
)
def test_scope_or_continue_before_a_command_they_mean_nothing_to_is_refused(capsys, argv):
    code, out, err = _run(capsys, *argv)
    assert code == 1 and out == "" and "Traceback" not in err
    assert "goes with chat or ask" in err or "it goes with chat or ask" in err


def test_scope_before_the_old_memory_add_still_scopes_the_fact(seeded, engine, capsys):
    code, out, _ = _run(capsys, "--scope", "work", "memory", "add", "The standup is at 9")
    assert code == 0 and "Remembered" in out
    facts = _listed(capsys, "fact", "search", "standup")
    assert [(f["statement"], f["scope"]) for f in facts] == [("The standup is at 9", "work")]


def test_the_old_and_new_listings_print_the_same(seeded, capsys):
    for old, new in (
        (["sessions"], ["session", "list"]),
        (["memory", "sessions", "--json"], ["session", "list", "--json"]),
        (["memory", "list"], ["fact", "list"]),
        (["memory", "review", "fact"], ["review", "list", "--kind", "fact"]),
        (["search", "Anna"], ["message", "search", "Anna"]),
        (["recall", "Berlin"], ["memory", "recall", "Berlin"]),
        (["memory", "backups"], ["backup", "list"]),
        (["path"], ["db", "path"]),
    ):
        assert _run(capsys, *old)[:2] == _run(capsys, *new)[:2], old


def test_the_old_import_with_profile_restores_into_that_new_profile(
    seeded, engine, tmp_path, capsys
):
    export = tmp_path / "x.json"
    assert main(["profile", "export", "-o", str(export)]) == 0
    code, out, _ = _run(capsys, "import", str(export), "--profile", "old-way")
    assert code == 0 and "Imported into profile 'old-way'" in out
    code, out, _ = _run(capsys, "profile", "import", str(export), "new-way")
    assert code == 0 and "Imported into profile 'new-way'" in out
    code, out, _ = _run(capsys, "profile", "list", "--json")
    counts = {p["name"]: p["facts"] for p in json.loads(out)}
    assert counts["old-way"] == counts["new-way"] == counts["default"] > 0


def test_the_old_log_json_and_event_import_read_the_same_lines(
    seeded, engine, tmp_path, monkeypatch, capsys
):
    lines = b'{"text": "took the bus"}\n{"text": "fed the cat"}\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines)))
    assert _run(capsys, "log", "--json")[:2] == (0, "Logged 2 event(s).\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines)))
    assert _run(capsys, "event", "import")[:2] == (0, "Logged 2 event(s).\n")
    path = tmp_path / "events.jsonl"
    path.write_bytes(lines)
    assert _run(capsys, "event", "import", str(path), "--source", "phone")[:2] == (
        0,
        "Logged 2 event(s).\n",
    )
    texts = [
        (e["text"], e["source"])
        for e in _listed(capsys, "event", "list")
        if e["text"] in ("took the bus", "fed the cat")
    ]
    assert sorted(texts).count(("fed the cat", "phone")) == 1 and len(texts) == 6


def test_event_import_of_a_missing_file_says_so_and_logs_nothing(seeded, engine, tmp_path, capsys):
    before = stored_rows(engine.memory.db.path)
    code, out, err = _run(capsys, "event", "import", str(tmp_path / "none.jsonl"))
    assert code == 1 and out == "" and "there is no such file" in err
    assert stored_rows(engine.memory.db.path) == before


def test_the_old_delete_spellings_and_the_new_one_each_delete(seeded, capsys):
    kept = [e["id"] for e in _listed(capsys, "event", "list")]
    assert _run(capsys, "event", "add", "one")[0] == _run(capsys, "event", "add", "two")[0] == 0
    ids = [e["id"] for e in _listed(capsys, "event", "list") if e["text"] in ("one", "two")]
    assert _run(capsys, "memory", "events", "--delete", str(ids[0]))[0] == 0
    assert _run(capsys, "memory", "rm", "event", str(ids[1]))[0] == 0
    assert [e["id"] for e in _listed(capsys, "event", "list")] == kept
    assert _run(capsys, "event", "delete", str(kept[0]))[0] == 0
    assert _listed(capsys, "event", "list") == []


def test_review_approve_kind_without_all_is_refused(seeded, capsys):
    code, out, err = _run(capsys, "review", "approve", "--kind", "sleep")
    assert code == 1 and out == "" and "add --all, or drop --kind" in err


@pytest.mark.parametrize("new", sorted(set(ALIASES.values())))
def test_the_lazy_parser_main_uses_parses_as_the_whole_one(new):
    argv = shlex.split(new)
    assert vars(build_parser(lazy=True).parse_args(argv)) == vars(whole_parser().parse_args(argv))


def test_the_parser_main_keeps_parses_each_line_as_a_whole_one_whatever_came_before():
    # `main` parses every line with one parser a process: lines before, which built
    # other commands' verbs, or gave options a value, leave no trace in the next line.
    lines = [shlex.split(new) for new in sorted(set(ALIASES.values()))]
    lines += [["memory", "forget", "Anna", "--keep", "1,2"], ["memory", "forget", "Anna"]]
    for argv in [*lines, *reversed(lines)]:
        assert vars(parse_line(argv)) == vars(whole_parser().parse_args(argv)), argv
    assert parse_line(["memory", "forget", "Anna"]).keep == []


def test_the_lazy_parser_lists_every_command_and_a_used_commands_verbs(capsys):
    whole, lazy = build_parser(), build_parser(lazy=True)
    assert lazy.format_help() == whole.format_help()
    assert main(["review", "--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"    {verb} " in out for verb in ("list", "approve", "reject"))


def test_a_profile_typo_after_the_command_is_refused_as_before_it(seeded, capsys):
    code, out, err = _run(capsys, "fact", "list", "--profile", "defualt")
    assert code == 1 and out == "" and "There is no profile called 'defualt'" in err
    assert "Did you mean 'default'" in err
    assert _run(capsys, "fact", "list", "--profile", "work", "--create-profile")[0] == 0
    assert {p["name"] for p in _listed(capsys, "profile", "list")} == {"default", "work"}
