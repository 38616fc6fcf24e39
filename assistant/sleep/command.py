"""The nightly timer for this Hippo: what ``hippo sleep install-timer`` writes.

The CLI (`assistant.cli.sleep`) decides which run to make and prints it; this writes
the timer files for the same Python, package, data file and Ollama host.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from assistant.config import Config
from assistant.sleep.settings import SleepSettings
from assistant.sleep.timers import install_timer, timer_environment

__all__ = ["install_nightly"]


def install_nightly(
    config: Config, settings: SleepSettings, profile: str | None
) -> tuple[list[Path], str]:
    """Write the timer for this Hippo: this Python and package, this data file and host.

    Returns:
        (the files written, the command that turns the timer on).
    """
    command = [sys.executable, "-m", "assistant.cli", "--data-dir", str(config.data_dir)]
    if profile:
        command += ["--profile", profile]
    timer = install_timer(
        command,
        settings.at_time,
        home=Path.home(),
        data_dir=config.data_dir,
        environment=timer_environment(os.environ, config.ollama.host),
        config_home=os.environ.get("XDG_CONFIG_HOME") or None,
    )
    for path, text in timer.files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(timer.files), timer.enable
