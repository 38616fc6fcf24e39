"""Run the first-start conversion (or a rekey) and kill -9 this process at a chosen step.

Usage: python -m tests.encryption.killer DB_PATH convert|rekey STEP N
Kills itself at the Nth progress report of the step whose name starts with STEP
(N = 0: at the report that the step is complete).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from assistant.datakey import KeyStore
from assistant.encryption import prepare_data_file, rekey


def main() -> None:
    path, action, step, nth = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
    seen = 0

    def progress(what: str, share: float) -> None:
        nonlocal seen
        if not what.startswith(step):
            return
        seen += 1
        if (nth and seen == nth) or (not nth and share >= 1.0):
            os.kill(os.getpid(), signal.SIGKILL)

    keys = KeyStore.from_environment()
    if action == "convert":
        prepare_data_file(path, keys, progress)
    else:
        rekey(path, keys, progress)
    print("finished without being killed")


if __name__ == "__main__":
    main()
