"""The nightly timer for this Hippo: what ``hippo sleep install-timer`` writes.

The CLI (`assistant.cli.sleep`) decides which run to make and prints it; this writes
the timer files for the same Python, package, data file and Ollama host.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from assistant.config import Config
from assistant.sleep.settings import SleepSettings
from assistant.sleep.timers import install_timer, service_environment, timer_environment

__all__ = ["Installed", "install_nightly"]


@dataclass(frozen=True)
class Installed:
    """What ``install-timer`` did: the files, how to turn them on, and the trial run."""

    files: list[Path]
    enable: str
    trial_ok: bool
    trial_said: str


def install_nightly(
    config: Config, settings: SleepSettings, profile: str | None, *, trial_timeout_s: float = 1800
) -> Installed:
    """Write the timer for this Hippo (this Python and package, this data file, config
    folder and host), then run its command once as the service manager would.

    The trial run sees only what the timer gives it (`service_environment`): a key
    that comes from this shell alone (HIPPO_DB_KEY), or a config folder found through
    a variable the timer would not have, fails here, now, not at 3 in the morning.
    Where it fails, the files are taken away again.
    """
    command = [sys.executable, "-m", "assistant.cli", "--data-dir", str(config.data_dir)]
    if profile:
        command += ["--profile", profile]
    environment = timer_environment(os.environ, config.ollama.host, config.config_dir)
    timer = install_timer(
        command,
        settings.at_time,
        home=Path.home(),
        data_dir=config.data_dir,
        environment=environment,
        config_home=os.environ.get("XDG_CONFIG_HOME") or None,
    )
    for path, text in timer.files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    ok, said = _trial(command, service_environment(os.environ, environment), trial_timeout_s)
    if not ok:
        for path in timer.files:
            path.unlink(missing_ok=True)
    return Installed(list(timer.files), timer.enable, ok, said)


def _trial(command: list[str], env: dict[str, str], timeout_s: float) -> tuple[bool, str]:
    """Run the timer's command (``sleep --now``) as the timer would; (ok, what it said)."""
    try:
        done = subprocess.run(
            [*command, "sleep", "--now"],
            env=env,
            cwd=home if (home := env.get("HOME")) and os.path.isdir(home) else None,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False, f"it was still running after {timeout_s:.0f} s"
    except OSError as exc:
        return False, f"it could not start: {exc.strerror}"
    said = (done.stderr.strip() or done.stdout.strip()).splitlines()
    last = next((line for line in reversed(said) if line.startswith("hippo: ")), "")
    # 3: another sleep held the file's lock, which the timer's run would wait out.
    return done.returncode in (0, 3), last or (said[-1] if said else f"exit {done.returncode}")
