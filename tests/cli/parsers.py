"""The whole `hippo` parser, built once a process, for tests that parse many lines."""

from __future__ import annotations

import argparse
import functools

from assistant.cli import build_parser

__all__ = ["whole_parser"]


@functools.cache
def whole_parser() -> argparse.ArgumentParser:
    """``build_parser()``, made once: parsing a line leaves a whole parser as it was (a lazy
    one is not: parsing builds its verbs), and making one costs ~30 ms of CPU (about 60
    leaf parsers), which a test parsing a hundred lines paid a hundred times."""
    return build_parser()
