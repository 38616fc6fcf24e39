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


def test_every_platform_carries_the_command_words_and_environment(tmp_path):
    command = ["/opt/py 3/bin/python", "-m", "assistant.cli", "--data-dir", "/d & e"]
    env = {"OLLAMA_HOST": "http://10.0.0.5:11434"}
    for platform in ("linux", "darwin", "win32"):
        timer = install_timer(
            command, THREE, home=tmp_path, data_dir=tmp_path, platform=platform, environment=env
        )
        text = "\n".join(timer.files.values())
        assert "10.0.0.5:11434" in text, platform
        if platform != "linux":
            xml.dom.minidom.parseString(text.encode())
    mac = install_timer(command, THREE, home=tmp_path, data_dir=tmp_path, platform="darwin")
    assert "<string>/opt/py 3/bin/python</string><string>-m</string>" in next(
        iter(mac.files.values())
    )
    win = install_timer(
        command, THREE, home=tmp_path, data_dir=tmp_path, platform="win32", environment=env
    )
    task = next(iter(win.files.values()))
    assert "<Command>cmd.exe</Command>" in task and 'set "OLLAMA_HOST=' in task
    assert '"/opt/py 3/bin/python" -m' in task and '"/d &amp; e" sleep --now' in task


def test_systemd_quotes_paths_with_spaces_and_percent_signs(tmp_path):
    linux = install_timer(
        ["/opt/py 3/python", "-m", "assistant.cli", "--data-dir", "/data/100%"],
        THREE,
        home=tmp_path,
        data_dir=tmp_path,
        platform="linux",
        config_home=tmp_path / "xdg",
    )
    service = linux.files[tmp_path / "xdg" / "systemd" / "user" / "hippo-sleep.service"]
    assert 'ExecStart="/opt/py 3/python" -m assistant.cli --data-dir /data/100%% sleep' in service
