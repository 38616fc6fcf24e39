"""Run the first-start conversion (or a rekey) and kill -9 this process at a chosen step.

Usage: python -m tests.encryption.killer DB_PATH convert|rekey STEP SHARE
Kills itself at the first progress report of the step whose name starts with STEP that
says SHARE or more (of the copy: up to 0.85; checked: 0.95; swapped in: 1.0).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from assistant.datakey import KeyStore
from assistant.encryption import prepare_data_file, rekey


def main() -> None:
    path, action, step, at = Path(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])

    def progress(what: str, share: float) -> None:
        if what.startswith(step) and share >= at:
            os.kill(os.getpid(), signal.SIGKILL)

    keys = KeyStore.from_environment()
    if action == "convert":
        prepare_data_file(path, keys, progress)
    else:
        rekey(path, keys, progress)
    print("finished without being killed")


if __name__ == "__main__":
    main()
