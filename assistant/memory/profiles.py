"""Profiles of one data file: their names, listing, renaming and deleting.

A profile is a separate memory: every row carries its profile id, so deleting one
deletes its sessions, messages, facts, episodes, documents, events and sleep records
(foreign keys cascade); its vectors live in sqlite-vec tables, which do not cascade,
and are deleted here first.
"""

from __future__ import annotations

import difflib
import re
import shlex
from dataclasses import dataclass

from assistant.clock import to_iso
from assistant.errors import InvalidInput, NotFound
from assistant.memory.base import Store
from assistant.memory.records import Profile
from data_schema.rows import scalar

__all__ = [
    "DEFAULT_PROFILE",
    "ProfileStore",
    "ProfileSummary",
    "close_names",
    "profile_name",
]

DEFAULT_PROFILE = "default"
_NAME = re.compile(r"[^\W_][\w.-]{0,31}")
RULE = (
    "a profile name is one word of up to 32 letters, digits, '-', '_' or '.', "
    "starting with a letter or digit (e.g. work, personal, home-2026)"
)
# The sqlite-vec tables of an item kind: float, 1-bit and partitioned copies, per model.
_VEC_TABLE = re.compile(r"^vec(?:part|bit)?_(message|episode|fact|chunk|event)_m\d+$")
# Item kinds with vectors, and the table that holds each kind's rows.
_VECTOR_KINDS = {
    "message": "messages",
    "fact": "facts",
    "episode": "episodes",
    "chunk": "chunks",
    "event": "events",
}


def profile_name(text: str) -> str:
    """``text`` as a new profile's name.

    Raises:
        HippoError: not a profile name (the rule is said).
    """
    name = text.strip()
    if not _NAME.fullmatch(name):
        raise InvalidInput(f"{text!r} can't be a profile name: {RULE}.")
    return name


def close_names(name: str, names: list[str]) -> list[str]:
    """The existing names ``name`` may be a typo of, closest first."""
    folded = {n.casefold(): n for n in names}
    exact = folded.get(name.casefold())
    if exact is not None:
        return [exact]
    found = difflib.get_close_matches(name.casefold(), list(folded), n=3, cutoff=0.6)
    return [folded[n] for n in found]


@dataclass(frozen=True, slots=True)
class ProfileSummary:
    """A profile with how much it holds."""

    id: int
    name: str
    created_at: str
    sessions: int
    messages: int
    facts: int


class ProfileStore(Store):
    """The profiles table's one owner: creates, lists, finds, renames and deletes profiles."""

    def names(self) -> list[str]:
        """Every profile's name, sorted."""
        return [row[0] for row in self._conn().execute("SELECT name FROM profiles ORDER BY name")]

    def all(self) -> list[Profile]:
        """Every profile, in the order they were made."""
        return [Profile(*row) for row in self._conn().execute("SELECT id, name FROM profiles")]

    def summaries(self) -> list[ProfileSummary]:
        """Every profile with its counts, by name."""
        rows = self._conn().execute(
            "SELECT p.id, p.name, p.created_at,"
            " (SELECT count(*) FROM sessions s WHERE s.profile_id = p.id),"
            " (SELECT count(*) FROM messages m WHERE m.profile_id = p.id),"
            " (SELECT count(*) FROM facts f WHERE f.profile_id = p.id)"
            " FROM profiles p ORDER BY p.name"
        )
        return [ProfileSummary(*row) for row in rows]

    def find(self, name: str) -> int | None:
        """The id of the profile called ``name``, or None."""
        row = self._conn().execute("SELECT id FROM profiles WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def require(self, name: str) -> int:
        """The id of the profile called ``name``.

        Raises:
            HippoError: there is none (close names are suggested).
        """
        found = self.find(name)
        if found is None:
            raise NotFound(unknown_profile(name, self.names()))
        return found

    def rename(self, old: str, new: str) -> None:
        """Rename a profile; its memories stay with it.

        Raises:
            HippoError: no profile ``old``, ``new`` is not a name, or is taken.
        """
        pid = self.require(old)
        name = profile_name(new)
        if self.find(name) is not None:
            raise InvalidInput(f"There is already a profile called {name!r}; choose another name.")
        with self._conn() as conn:
            conn.execute("UPDATE profiles SET name = ? WHERE id = ?", (name, pid))

    def delete(self, name: str) -> dict[str, int]:
        """Delete a profile and everything in it; return the rows per table it held.

        Raises:
            NotFound: there is no such profile.
        """
        pid = self.require(name)
        conn = self._conn()
        counts = {
            table: scalar(conn, f"SELECT count(*) FROM {table} WHERE profile_id = ?", (pid,))
            for table in ("sessions", "messages", "facts", "episodes", "events", "documents")
        }
        vec_tables = [
            (name, found.group(1))
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'"
            )
            if (found := _VEC_TABLE.match(name))
        ]
        with conn:
            for table, kind in vec_tables:
                conn.execute(
                    f"DELETE FROM {table} WHERE item_id IN"
                    f" (SELECT id FROM {_VECTOR_KINDS[kind]} WHERE profile_id = ?)",
                    (pid,),
                )
            conn.execute("DELETE FROM profiles WHERE id = ?", (pid,))
        return counts

    def create(self, name: str) -> int:
        """Create a profile called ``name`` (a checked name) and return its id.

        Raises:
            HippoError: not a profile name.
        """
        return self.ensure(profile_name(name)).id

    def ensure(self, name: str) -> Profile:
        """The profile called ``name``, created if it does not exist yet."""
        conn = self._conn()
        found = conn.execute("SELECT id FROM profiles WHERE name = ?", (name,)).fetchone()
        if found is not None:  # read only: a file open for reading has its profiles
            return Profile(found[0], name)
        with conn:
            conn.execute(
                "INSERT OR IGNORE INTO profiles(name, created_at) VALUES (?, ?)",
                (name, to_iso(self._clock.now())),
            )
            pid = scalar(conn, "SELECT id FROM profiles WHERE name = ?", (name,))
        return Profile(pid, name)


def unknown_profile(name: str, names: list[str]) -> str:
    """The message for a profile that does not exist, with close names and what to run."""
    close = close_names(name, names)
    hint = f" Did you mean {close[0]!r} (--profile {shlex.quote(close[0])})?" if close else ""
    known = ", ".join(repr(n) for n in names) or "none yet"
    return (
        f"There is no profile called {name!r}.{hint} Profiles: {known}. To start a new "
        f"one, add --create-profile (hippo --profile {shlex.quote(name)} --create-profile ...)."
    )
