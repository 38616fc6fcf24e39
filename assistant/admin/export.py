"""Export (JSON and Markdown), import into a new profile, and backups of the data file.

The JSON export is complete and versioned: everything a profile remembers, with ids
renumbered from 1 per kind (`portable.py`), so a file from another machine imports
cleanly. The Markdown export is for reading, and carries the same JSON at its end, so
it can be imported too.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any

import apsw

from assistant.admin.markdown import render_markdown
from assistant.admin.views import ImportReport
from assistant.clock import Clock
from assistant.errors import HippoError, InvalidInput, StorageError
from assistant.memory.profile_data import (
    FORMAT,
    VERSION,
    copy_file,
    export_profile,
    import_profile,
)
from assistant.memory.profiles import profile_name as checked_name
from assistant.memory.records import Profile
from assistant.textcheck import not_utf8, printable_path

__all__ = ["DATA_FENCE", "ExportAdmin", "load_export"]

DATA_FENCE = "hippo-export"
_FENCED = re.compile(r"^(`{3,})" + DATA_FENCE + r"\n(.*?)\n\1$", re.MULTILINE | re.DOTALL)
_SECTIONS = (
    "profile",
    "sessions",
    "core",
    "facts",
    "episodes",
    "documents",
    "events",
    "entities",
    "memories_used",
    "dated_items",
    "sleep_state",
)


def load_export(text: str) -> dict[str, Any]:
    """An export read from a JSON file or from a Markdown export's data block.

    Raises:
        HippoError: it is neither, or it is from a newer Hippo, or sections are missing.
    """
    found = _FENCED.search(text) if not text.lstrip().startswith("{") else None
    try:
        data = json.loads(found.group(2) if found else text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"This is not a Hippo export ({exc.msg} at line {exc.lineno}). Export one with "
            "`hippo profile export`; a Markdown export works too."
        ) from None
    except RecursionError:  # [[[[... 100k deep: an export nests a few levels only
        raise InvalidInput(
            "This is not a Hippo export: its JSON is nested too deeply to read."
        ) from None
    check_export(data)
    export: dict[str, Any] = data  # a dict: check_export raises otherwise
    return export


def check_export(data: Any) -> None:
    """Raise HippoError unless ``data`` is an export this Hippo can read."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidInput("This is not a Hippo export: it has no 'format': 'hippo-export'.")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise InvalidInput(
            f"This export has version {data.get('version')!r}; this Hippo reads version "
            f"{VERSION} and older. Upgrade Hippo (`pip install -U hippo-memory`) to import it."
        )
    missing = [key for key in _SECTIONS if key not in data]
    if missing:
        raise InvalidInput(f"This export is incomplete: it lacks {', '.join(missing)}.")


class ExportAdmin:
    """Export, import and backup.

    Args:
        conn: returns the calling thread's connection (handed to `profile_data`).
        data_file: the data file.
        profile: returns the profile every call works in.
        wake: tells the background worker new text waits for vectors (after an import).
        clock: the time source.
    """

    def __init__(
        self,
        conn: Callable[[], apsw.Connection],
        data_file: Path,
        profile: Callable[[], Profile],
        wake: Callable[[], None],
        clock: Clock,
    ) -> None:
        self._conn = conn
        self._data_file = Path(data_file)
        self._profile = profile
        self._wake = wake
        self._clock = clock

    def data(self) -> dict[str, Any]:
        """Everything the profile remembers, JSON-serialisable and versioned."""
        return export_profile(self._conn, self._profile().id, self._clock)

    def markdown(self, *, with_data: bool = True) -> str:
        """The export as readable Markdown; ``with_data`` appends the JSON, for import."""
        data = self.data()
        text = render_markdown(data)
        if not with_data:
            return text
        payload = json.dumps(data, ensure_ascii=False, indent=1)
        fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", payload)), default=0))
        return f"{text}\n## Data for `hippo import`\n\n{fence}{DATA_FENCE}\n{payload}\n{fence}\n"

    def import_(self, data: dict[str, Any], profile_name: str) -> ImportReport:
        """Restore an export into a new profile called ``profile_name`` (ids renumbered).

        Raises:
            HippoError: the profile exists already, or the data is not a readable export.
        """
        check_export(data)
        if not profile_name.strip():
            raise InvalidInput(
                "Name the new profile to import into: `hippo profile import FILE NAME`."
            )
        name = checked_name(profile_name)
        try:
            profile, counts, dropped = import_profile(self._conn, self._clock, data, name)
        except HippoError:  # said already (a profile of that name exists)
            raise
        except (KeyError, TypeError, ValueError, apsw.ConstraintError) as exc:
            raise InvalidInput(
                f"The export is damaged ({type(exc).__name__}: {exc}); nothing was imported."
            ) from exc
        self._wake()
        return ImportReport(profile, counts, tuple(dropped))

    def backup(self, path: Path | str | None = None, *, force: bool = False) -> Path:
        """A consistent copy of the whole data file, readable by its owner only.

        Args:
            path: where to write it; default ``backups/manual-<time>.db`` next to the data
                file (forget scrubs those too). Its folder must exist.
            force: replace a file already there (else it is refused, as export does).

        Raises:
            StorageError: the file exists (without ``force``), its folder does not, or
                the copy can't be written.
        """
        if path is None:
            stamp = self._clock.now().astimezone(UTC).strftime("%Y%m%d-%H%M%S-%f")
            target = self._data_file.parent / "backups" / f"manual-{stamp}.db"
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        else:
            target = Path(path).expanduser()
        if target.exists() and not (force and target.is_file()):
            raise InvalidInput(
                f"{target} exists already; choose a new file for the backup, or add --force "
                "to replace it."
                if not target.is_dir()
                else f"{target} is a folder; give a file name for the backup inside it."
            )
        if not target.parent.is_dir():
            raise InvalidInput(
                f"There is no folder {target.parent}; create it first, or choose another place "
                "for the backup. Nothing was written."
            )
        if not_utf8(str(target)):  # SQLite takes file names as UTF-8 only
            raise InvalidInput(
                f"Can't back up to {printable_path(target)}: SQLite needs a file name that is "
                "UTF-8 text; choose another name."
            )
        # Written beside the target and renamed over it: a failed copy leaves no half
        # file, and a replaced backup is swapped whole.
        temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            temp.unlink(missing_ok=True)
            os.close(os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            copy_file(self._conn(), temp)
            os.replace(temp, target)
        except (OSError, apsw.Error) as exc:
            temp.unlink(missing_ok=True)
            raise StorageError(f"Could not write the backup to {target}: {exc}.") from exc
        return target

    @property
    def path(self) -> Path:
        """The data file."""
        return self._data_file
