"""Whole-profile operations, the one place that knows every table of the data file.

Each table family's own SQL lives in its store (`assistant.memory.messages` for sessions
and messages, `assistant.memory.facts` for facts, ...). What spans all of them lives
here, next to the list of tables it must cover (`tables.TABLES`, checked against the
schema by a test, so a new table can't be left out of a forget or an export unnoticed):

* ``purge_plan``, ``purge_find``, ``purge_select``, ``purge_run``, ``purge``: forgetting
  for real: what mentions a text (or belongs to a session or item), what goes with it,
  the lines the user deselects and what stays with them, the deletes in one
  transaction, and the scrubbing of the file (`Purge` composes them);
* ``dump``, ``portable``, ``restore``, ``transfer``: export a profile (ids renumbered)
  and import one into a new profile, and a consistent copy of the file;
* ``census``: a profile's counts, the file's counts and `hippo doctor`'s cross-tier
  consistency checks.
"""

from __future__ import annotations

from assistant.memory.profile_data.purge import Purge
from assistant.memory.profile_data.purge_plan import ForgetHit, PurgePlan
from assistant.memory.profile_data.tables import TABLES, TableRole
from assistant.memory.profile_data.transfer import (
    FORMAT,
    VERSION,
    copy_file,
    export_profile,
    import_profile,
)

__all__ = [
    "FORMAT",
    "TABLES",
    "VERSION",
    "ForgetHit",
    "Purge",
    "PurgePlan",
    "TableRole",
    "copy_file",
    "export_profile",
    "import_profile",
]
