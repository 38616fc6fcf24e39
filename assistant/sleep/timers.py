"""Run ``hippo sleep`` nightly without the app: systemd user timer, launchd, Task Scheduler.

The templates in ``packaging/`` are these renderings with placeholder paths (a test keeps
them identical); ``hippo sleep install-timer`` writes them for this machine and prints
the one command that enables them. What it writes runs the same Hippo the user installed
it from (this Python, ``-m assistant.cli``) on the same data file (``--data-dir``), with
the environment that chose the Ollama host and the settings (``timer_environment``).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import time
from pathlib import Path
from xml.sax.saxutils import escape

__all__ = [
    "TimerFiles",
    "install_timer",
    "launchd_plist",
    "service_environment",
    "systemd_units",
    "timer_environment",
    "windows_task",
]

LABEL = "io.hippo.sleep"
# What the timer's run must see as the installing shell did. Not the token nor
# HIPPO_DB_KEY: a unit file is no place for a secret (the keyring or the key file beside
# config.toml provides the key). XDG_*: keyring backends and platformdirs read them.
_CARRIED = ("OLLAMA_HOST", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR")
# What systemd's user manager (launchd, Task Scheduler alike) gives a job of its own.
_GIVEN = ("HOME", "USER", "LOGNAME", "LANG", "DBUS_SESSION_BUS_ADDRESS", "SYSTEMROOT")
_SERVICE_PATH = "/usr/local/bin:/usr/bin:/bin"
Command = str | Sequence[str]


def timer_environment(
    environ: Mapping[str, str], ollama_host: str | None, config_dir: Path | None = None
) -> dict[str, str]:
    """The variables the timer sets: the config folder in use (where the key file and
    config.toml are, however it was found: HIPPO_CONFIG_DIR or XDG_CONFIG_HOME), the
    Ollama host in use, and the XDG folders of a non-default setup."""
    found = {name: environ[name] for name in _CARRIED if environ.get(name)}
    if ollama_host and "OLLAMA_HOST" in found:
        found["OLLAMA_HOST"] = ollama_host
    chosen = config_dir or (environ.get("HIPPO_CONFIG_DIR") and Path(environ["HIPPO_CONFIG_DIR"]))
    if chosen:
        found["HIPPO_CONFIG_DIR"] = str(Path(chosen).expanduser().resolve())
    return found


def service_environment(
    environ: Mapping[str, str], environment: Mapping[str, str]
) -> dict[str, str]:
    """What a run started by the timer sees: the service manager's few variables and
    the unit's own, none of the installing shell's others (HIPPO_DB_KEY among them)."""
    given = {name: environ[name] for name in _GIVEN if environ.get(name)}
    return {**given, "PATH": _SERVICE_PATH, **environment}


def _systemd_word(word: str) -> str:
    """One argument as systemd reads it: quoted where needed, ``%`` and ``$`` doubled."""
    word = word.replace("%", "%%").replace("$", "$$")
    if word and not any(ch.isspace() or ch in "\\\"'" for ch in word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _systemd_line(command: Command) -> str:
    if isinstance(command, str):  # a template's path, written as it is
        return command
    return " ".join(_systemd_word(word) for word in command)


@dataclass(frozen=True, slots=True)
class TimerFiles:
    """What to write where, and the command that turns it on."""

    files: dict[Path, str]
    enable: str


def systemd_units(
    command: Command, at: time, environment: Mapping[str, str] | None = None
) -> dict[str, str]:
    """A user service and timer (``Persistent=true`` runs a missed night at next boot)."""
    env = "".join(
        f"Environment={_systemd_word(f'{k}={v}')}\n" for k, v in (environment or {}).items()
    )
    service = (
        "[Unit]\nDescription=Hippo nightly memory consolidation (sleep)\n"
        "After=network-online.target\n\n"
        f"[Service]\nType=oneshot\n{env}ExecStart={_systemd_line(command)} sleep --now\n"
        "Nice=10\nIOSchedulingClass=idle\n"
    )
    timer = (
        "[Unit]\nDescription=Run Hippo's memory consolidation nightly\n\n"
        f"[Timer]\nOnCalendar=*-*-* {at:%H:%M}:00\nPersistent=true\nRandomizedDelaySec=300\n\n"
        "[Install]\nWantedBy=timers.target\n"
    )
    return {"hippo-sleep.service": service, "hippo-sleep.timer": timer}


def launchd_plist(
    command: Command, at: time, log_dir: str, environment: Mapping[str, str] | None = None
) -> str:
    """A launchd agent (a missed night runs when the Mac wakes)."""
    words = [command] if isinstance(command, str) else list(command)
    program = "".join(f"<string>{escape(w)}</string>" for w in words)
    env = ""
    if environment:
        pairs = "".join(
            f"<key>{escape(k)}</key><string>{escape(v)}</string>" for k, v in environment.items()
        )
        env = f"  <key>EnvironmentVariables</key>\n  <dict>{pairs}</dict>\n"
    log_dir = escape(log_dir)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>{LABEL}</string>
  <key>ProgramArguments</key>
  <array>{program}<string>sleep</string><string>--now</string></array>
{env}  <key>StartCalendarInterval</key>
  <dict><key>Hour</key><integer>{at.hour}</integer><key>Minute</key><integer>{at.minute}</integer></dict>
  <key>LowPriorityIO</key><true/>
  <key>Nice</key><integer>10</integer>
  <key>StandardOutPath</key><string>{log_dir}/sleep.log</string>
  <key>StandardErrorPath</key><string>{log_dir}/sleep.log</string>
</dict>
</plist>
"""


def windows_task(command: Command, at: time, environment: Mapping[str, str] | None = None) -> str:
    """A Task Scheduler task (``StartWhenAvailable`` runs a missed night at next logon).

    A task can't set variables itself: with an ``environment``, ``cmd`` sets them first.
    """
    words = [command] if isinstance(command, str) else list(command)
    program, arguments = words[0], subprocess.list2cmdline([*words[1:], "sleep", "--now"])
    if environment:
        sets = " && ".join(f'set "{k}={v}"' for k, v in environment.items())
        arguments = f"/d /c {sets} && {subprocess.list2cmdline([program])} {arguments}"
        program = "cmd.exe"
    program, arguments = escape(program), escape(arguments)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>Hippo nightly memory consolidation (sleep)</Description>
  </RegistrationInfo>
  <Triggers>
    <CalendarTrigger>
      <StartBoundary>2026-01-01T{at:%H:%M}:00</StartBoundary>
      <ScheduleByDay><DaysInterval>1</DaysInterval></ScheduleByDay>
    </CalendarTrigger>
  </Triggers>
  <Settings>
    <StartWhenAvailable>true</StartWhenAvailable>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <ExecutionTimeLimit>PT2H</ExecutionTimeLimit>
    <Priority>7</Priority>
  </Settings>
  <Actions Context="Author">
    <Exec><Command>{program}</Command><Arguments>{arguments}</Arguments></Exec>
  </Actions>
</Task>
"""


def install_timer(
    command: Command,
    at: time,
    *,
    home: Path,
    data_dir: Path,
    platform: str = sys.platform,
    environment: Mapping[str, str] | None = None,
    config_home: Path | str | None = None,
) -> TimerFiles:
    """The timer files for this platform (not yet written) and how to enable them.

    Args:
        command: how to run this Hippo: its words (e.g. python, -m, assistant.cli,
            --data-dir, DIR), or one path.
        at: the local time to run.
        home: the user's home folder.
        data_dir: Hippo's data folder (logs and the Windows task file go there).
        platform: ``sys.platform``.
        environment: variables the run needs (see ``timer_environment``).
        config_home: ``XDG_CONFIG_HOME``, where systemd user units live (else ~/.config).
    """
    if platform == "darwin":
        path = home / "Library" / "LaunchAgents" / f"{LABEL}.plist"
        return TimerFiles(
            {path: launchd_plist(command, at, str(data_dir), environment)},
            f"launchctl bootstrap gui/$(id -u) {path}",
        )
    if platform == "win32":
        path = data_dir / "hippo-sleep-task.xml"
        return TimerFiles(
            {path: windows_task(command, at, environment)},
            f'schtasks /Create /TN "Hippo sleep" /XML "{path}"',
        )
    folder = Path(config_home or home / ".config") / "systemd" / "user"
    units = systemd_units(command, at, environment)
    return TimerFiles(
        {folder / name: text for name, text in units.items()},
        "systemctl --user daemon-reload && systemctl --user enable --now hippo-sleep.timer",
    )
