"""Run `hippo` with its data file encrypted (as shipped) or, for comparison, in plaintext.

For ``bench/startup.py --encryption`` only: both cases start through this same script, so
they differ in nothing but the encryption. "plain" swaps the key store for one that keeps
files in plaintext (a bench-only switch: Hippo itself has no way to turn encryption off).

Usage: python bench/hippo_as.py encrypted|plain [hippo arguments...]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

if __name__ == "__main__":
    mode, *argv = sys.argv[1:]
    if mode == "plain":
        from assistant.datakey import KeyStore
        from data_schema.cipher import NoEncryption

        KeyStore.for_config = classmethod(lambda cls, config: NoEncryption())  # type: ignore[method-assign,assignment]
    from assistant.cli import main

    sys.exit(main(argv))
