"""Timer templates for running ``hippo sleep`` nightly without the app."""

from __future__ import annotations

import xml.dom.minidom
from datetime import time
from pathlib import Path

from assistant.sleep.timers import install_timer, launchd_plist, systemd_units, windows_task

PACKAGING = Path(__file__).resolve().parents[2] / "packaging"
THREE = time(3, 0)


def test_the_packaging_templates_are_what_the_code_writes():
    for name, text in systemd_units("%h/.local/bin/hippo", THREE).items():
        assert (PACKAGING / "systemd" / name).read_text() == text
    plist = launchd_plist(
        "/Users/YOU/.local/bin/hippo", THREE, "/Users/YOU/Library/Application Support/hippo"
    )
    assert (PACKAGING / "launchd" / "io.hippo.sleep.plist").read_text() == plist
    task = windows_task("%USERPROFILE%\\.local\\bin\\hippo.exe", THREE)
    assert (PACKAGING / "windows" / "hippo-sleep-task.xml").read_text() == task


def test_the_xml_templates_are_well_formed():
    for text in (launchd_plist("/bin/hippo", THREE, "/tmp"), windows_task("hippo.exe", THREE)):
        xml.dom.minidom.parseString(text.encode())


def test_each_platform_gets_its_own_timer_and_the_command_to_enable_it(tmp_path):
    at = time(2, 30)
    linux = install_timer("/bin/hippo", at, home=tmp_path, data_dir=tmp_path, platform="linux")
    mac = install_timer("/bin/hippo", at, home=tmp_path, data_dir=tmp_path, platform="darwin")
    win = install_timer("hippo.exe", at, home=tmp_path, data_dir=tmp_path, platform="win32")
    assert any("OnCalendar=*-*-* 02:30:00" in t for t in linux.files.values())
    assert "<integer>30</integer>" in next(iter(mac.files.values()))
    assert "T02:30:00" in next(iter(win.files.values()))
    assert "systemctl --user" in linux.enable and "launchctl" in mac.enable
    assert "schtasks /Create" in win.enable
