"""``play`` in a real terminal (tmux), stopped by SIGTERM or SIGHUP: the terminal comes back
as ``q`` leaves it — main screen, cursor shown, echo and line mode on — and the record is
saved.  Skipped where tmux is not installed.  Each run uses its own tmux
server socket and kills it afterwards."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from p2ptrumps.record import MatchRecord

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    """One detached tmux server (its own socket) running one command in a 100x30 window."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def run(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, "-f", os.devnull, *args], capture_output=True, text=True,
                             timeout=10, check=True)
        return out.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "t")


def wait_for(what: str, pred: Callable[[], bool], timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.1)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_restores_the_terminal_and_keeps_the_record(tmp_path: Path, tmux: Tmux,
                                                             sig: signal.Signals) -> None:
    pid_file, status_file, stty_file = tmp_path / "pid", tmp_path / "status", tmp_path / "stty"
    play = shlex.join([sys.executable, "-m", "p2ptrumps", "play", "--seed", "3", "--trump", "S", "--ai", "random",
                       "--log-dir", str(tmp_path / "records")])
    # The inner shell writes its pid and becomes the game (exec), so the pid is the game's.
    inner = f"echo $$ > {shlex.quote(str(pid_file))}; exec {play}"
    script = (f"sh -c {shlex.quote(inner)}; echo $? > {shlex.quote(str(status_file))}; "
              f"stty -a > {shlex.quote(str(stty_file))}; sleep 60")
    env = f"env XDG_DATA_HOME={shlex.quote(str(tmp_path))} LANG=C.UTF-8 TERM=xterm-256color"
    tmux.run("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", f"{env} sh -c {shlex.quote(script)}")
    wait_for("the table", lambda: "Your lead" in tmux.screen() or "Beat " in tmux.screen())
    assert tmux.run("display", "-p", "-t", "t", "#{alternate_on}").strip() == "1"
    if "Your lead" in tmux.screen():  # a record is written from the first move on
        tmux.run("send-keys", "-t", "t", "Enter")
        wait_for("my lead", lambda: "   1 You" in tmux.screen())
    os.kill(int(pid_file.read_text()), sig)
    wait_for("the game to end", lambda: stty_file.exists() and stty_file.stat().st_size > 0)
    assert status_file.read_text().strip() == str(128 + sig)
    modes = stty_file.read_text().split()
    assert "icanon" in modes and "echo" in modes  # not -icanon / -echo
    assert tmux.run("display", "-p", "-t", "t", "#{alternate_on} #{cursor_flag}").split() == ["0", "1"]
    screen = tmux.screen()
    assert f"p2ptrumps play: stopped by {sig.name}" in screen
    records = list((tmp_path / "records").glob("*.json"))
    assert len(records) == 1 and f"Record saved: {records[0]}" in screen.replace("\n", "")
    assert MatchRecord.load(records[0]).deals[0].outcome is None
