"""Run ``hippo sleep`` nightly without the app: systemd user timer, launchd, Task Scheduler.

The templates in ``packaging/`` are these renderings with placeholder paths (a test keeps
them identical); ``hippo sleep --install-timer`` writes them for this machine and prints
the one command that enables them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import time
from pathlib import Path

__all__ = ["TimerFiles", "install_timer", "launchd_plist", "systemd_units", "windows_task"]

LABEL = "io.hippo.sleep"


@dataclass(frozen=True, slots=True)
class TimerFiles:
    """What to write where, and the command that turns it on."""

    files: dict[Path, str]
    enable: str


def systemd_units(command: str, at: time) -> dict[str, str]:
    """A user service and timer (``Persistent=true`` runs a missed night at next boot)."""
    service = (
        "[Unit]\nDescription=Hippo nightly memory consolidation (sleep)\n"
        "After=network-online.target\n\n"
        f"[Service]\nType=oneshot\nExecStart={command} sleep --now\nNice=10\n"
        "IOSchedulingClass=idle\n"
    )
    timer = (
        "[Unit]\nDescription=Run Hippo's memory consolidation nightly\n\n"
        f"[Timer]\nOnCalendar=*-*-* {at:%H:%M}:00\nPersistent=true\nRandomizedDelaySec=300\n\n"
        "[Install]\nWantedBy=timers.target\n"
    )
    return {"hippo-sleep.service": service, "hippo-sleep.timer": timer}


def launchd_plist(command: str, at: time, log_dir: str) -> str:
    """A launchd agent (a missed night runs when the Mac wakes)."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>{LABEL}</string>
  <key>ProgramArguments</key>
  <array><string>{command}</string><string>sleep</string><string>--now</string></array>
  <key>StartCalendarInterval</key>
  <dict><key>Hour</key><integer>{at.hour}</integer><key>Minute</key><integer>{at.minute}</integer></dict>
  <key>LowPriorityIO</key><true/>
  <key>Nice</key><integer>10</integer>
  <key>StandardOutPath</key><string>{log_dir}/sleep.log</string>
  <key>StandardErrorPath</key><string>{log_dir}/sleep.log</string>
</dict>
</plist>
"""


def windows_task(command: str, at: time) -> str:
    """A Task Scheduler task (``StartWhenAvailable`` runs a missed night at next logon)."""
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
    <Exec><Command>{command}</Command><Arguments>sleep --now</Arguments></Exec>
  </Actions>
</Task>
"""


def install_timer(
    command: str, at: time, *, home: Path, data_dir: Path, platform: str = sys.platform
) -> TimerFiles:
    """The timer files for this platform (not yet written) and how to enable them.

    Args:
        command: the absolute path of the ``hippo`` command.
        at: the local time to run.
        home: the user's home folder.
        data_dir: Hippo's data folder (logs and the Windows task file go there).
        platform: ``sys.platform``.
    """
    if platform == "darwin":
        path = home / "Library" / "LaunchAgents" / f"{LABEL}.plist"
        return TimerFiles(
            {path: launchd_plist(command, at, str(data_dir))},
            f"launchctl bootstrap gui/$(id -u) {path}",
        )
    if platform == "win32":
        path = data_dir / "hippo-sleep-task.xml"
        return TimerFiles(
            {path: windows_task(command, at)}, f'schtasks /Create /TN "Hippo sleep" /XML "{path}"'
        )
    folder = home / ".config" / "systemd" / "user"
    units = systemd_units(command, at)
    return TimerFiles(
        {folder / name: text for name, text in units.items()},
        "systemctl --user daemon-reload && systemctl --user enable --now hippo-sleep.timer",
    )
