"""``host``, ``join`` and ``resume`` with the full-screen table in a real terminal (tmux), stopped by
SIGTERM, SIGHUP or SIGINT: the match is left as ``q`` then ``y`` leaves it -- a signed
``leave`` (protocol/wire.md §15), so both logs verify as complete with the deal in play resigned and the
rest forfeited -- the terminal comes back (main screen, cursor shown, echo and line mode on), and the
exit status is 128 + the signal's number, as ``play`` exits (the README's table).  The other side is
a headless AI peer in its own process with its own data directory, over 127.0.0.1.  Skipped where
tmux is not installed; each test uses its own tmux server socket and kills it, and every peer process
it started, afterwards."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from p2ptrumps.wire.verify import Verdict, verify_log
from tests.test_ui_tmux import Tmux, wait_for

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

P2PTRUMPS = [sys.executable, "-m", "p2ptrumps"]


class Peers:
    """The headless AI peers a test starts (each a process with its own data directory); all are
    killed at the end of the test."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[str]] = []

    def start(self, data: Path, out: Path, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.Popen[str]:
        env = {**os.environ, "XDG_DATA_HOME": str(data), "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}  # its moves now
        with open(out, "w") as f:
            proc = subprocess.Popen([*prefix, *P2PTRUMPS, *args], stdin=subprocess.DEVNULL, stdout=f,
                                    stderr=subprocess.STDOUT, text=True, env=env)
        self.procs.append(proc)
        return proc

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)


@pytest.fixture
def peers() -> Iterator[Peers]:
    p = Peers()
    try:
        yield p
    finally:
        p.stop()


def port_in(text_of: Callable[[], str]) -> int:
    """The port a host prints while it waits for its guest."""
    found: list[int] = []

    def seen() -> bool:
        m = re.search(r"waiting for a guest on port (\d+)", text_of())
        if m:
            found.append(int(m[1]))
        return bool(m)

    wait_for("the host's port", seen, 20)
    return found[0]


class TableRun:
    """One command run in tmux with the table; its pid, exit status and terminal modes afterwards
    land in files under ``tmp``."""

    def __init__(self, tmux: Tmux, tmp: Path, data: Path, args: list[str], prefix: tuple[str, ...] = ()) -> None:
        """``prefix``: words that run the command (``ip netns exec NAME`` ...; none: as it is)."""
        self.tmux = tmux
        self.pid_file, self.status_file, self.stty_file = tmp / "pid", tmp / "status", tmp / "stty"
        command = shlex.join([*prefix, *P2PTRUMPS, *args])
        inner = f"echo $$ > {shlex.quote(str(self.pid_file))}; exec {command}"  # the pid is the command's
        script = (f"sh -c {shlex.quote(inner)}; echo $? > {shlex.quote(str(self.status_file))}; "
                  f"stty -a > {shlex.quote(str(self.stty_file))}; sleep 60")
        env = f"env XDG_DATA_HOME={shlex.quote(str(data))} LANG=C.UTF-8 TERM=xterm-256color"
        tmux.run("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", f"{env} sh -c {shlex.quote(script)}")

    def wait_for_table(self) -> None:
        def up() -> bool:
            screen = self.tmux.screen()
            return "Svoi Kozyri" in screen and "connected" in screen and "q quit" in screen

        try:
            wait_for("the table", up, 30)
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the screen:\n{self.tmux.screen()}") from None
        assert self.tmux.run("display", "-p", "-t", "t", "#{alternate_on}").strip() == "1"

    def signal(self, sig: signal.Signals) -> str:
        """Send ``sig``; wait for the command to end; check the terminal; return the screen (one line)."""
        os.kill(int(self.pid_file.read_text()), sig)
        wait_for("the command to end", lambda: self.stty_file.exists() and self.stty_file.stat().st_size > 0, 30)
        assert self.status_file.read_text().strip() == str(128 + sig)  # 143, 129, 130: it was 130 for all
        modes = self.stty_file.read_text().split()
        assert "icanon" in modes and "echo" in modes  # not -icanon / -echo
        assert self.tmux.run("display", "-p", "-t", "t", "#{alternate_on} #{cursor_flag}").split() == ["0", "1"]
        return self.tmux.screen()


def kept_log(screen: str, command: str, sig: signal.Signals) -> Path:
    """The log the stopped command names, after its one line saying why it stopped."""
    lines = [line.rstrip() for line in screen.splitlines()]
    said = (f"p2ptrumps {command}: stopped by {sig.name}: you resigned and left the match "
            "(both signed the final score)")
    joined = "".join(lines)  # tmux wraps long lines at 100 columns
    assert said in joined, screen
    m = re.search(r"match log \(kept\): (\S+?\.p2plog)", joined)
    assert m, screen
    return Path(m[1])


def peer_log(out: Path) -> Path:
    m = re.search(r"^match log: (.+)$", out.read_text(), re.M)
    assert m, out.read_text()
    return Path(m[1])


def check_left(log: Path, seat: int) -> Verdict:
    """Both sides signed the end after ``seat`` left during deal 1 of 3: valid and complete."""
    v = verify_log(log.read_bytes())
    assert v.status == "valid", (v.status, v.reason)
    assert v.left is not None and v.left[0] == seat
    assert v.forfeited == [2, 3]
    assert [(d.number, d.winner, d.reason) for d in v.deals] == [(1, 1 - seat, "resign")]
    assert v.score_halves == ((0, 6) if seat == 0 else (6, 0))
    return v


def table_against_ai(tmp_path: Path, tmux: Tmux, peers: Peers, command: str, ai_out: Path
                     ) -> tuple[TableRun, subprocess.Popen[str], int]:
    """``command`` (host or join, 3 deals) in the table in tmux against a headless AI peer writing to
    ``ai_out``; returns once the table is up: the run, the AI's process and our seat."""
    if command == "host":
        run = TableRun(tmux, tmp_path, tmp_path / "me", ["host", "--port", "0", "--deals", "3", "--trump", "S",
                                                        "--name", "Hana", "--ticket", "mfrg-gzdf-mztw-q2lk"])
        port = port_in(tmux.screen)
        ai = peers.start(tmp_path / "ai", ai_out, "join", f"127.0.0.1:{port}/mfrg-gzdf-mztw-q2lk", "--headless",
                         "--ai", "random",
                         "--think", "0.05", "--accept-new", "--name", "Gus")
        seat = 0
    else:
        ai = peers.start(tmp_path / "ai", ai_out, "host", "--port", "0", "--headless", "--ai", "random", "--think",
                         "0.05", "--deals", "3", "--trump", "C", "--name", "Hana")  # spades stay free for us
        port = port_in(ai_out.read_text)
        run = TableRun(tmux, tmp_path, tmp_path / "me", ["join", f"127.0.0.1:{port}", "--accept-new", "--trump", "S",
                                                        "--name", "Tess"])
        wait_for("the rules question", lambda: "accept these rules? [Y/n]" in tmux.screen(), 20)
        tmux.run("send-keys", "-t", "t", "Enter")
        seat = 1
    run.wait_for_table()
    return run, ai, seat


@pytest.mark.parametrize(("command", "sig"), [("host", signal.SIGTERM), ("join", signal.SIGHUP),
                                              ("join", signal.SIGINT)])
def test_a_signal_leaves_the_networked_table_as_q_does(tmp_path: Path, tmux: Tmux, peers: Peers, command: str,
                                                        sig: signal.Signals) -> None:
    ai_out = tmp_path / "ai.out"
    run, ai, seat = table_against_ai(tmp_path, tmux, peers, command, ai_out)
    screen = run.signal(sig)
    mine = kept_log(screen, command, sig)
    assert ai.wait(20) == 0  # the AI's match ended: the opponent resigned and left
    assert f"note: {'Hana' if seat == 0 else 'Tess'} resigned and left the match" in ai_out.read_text()
    theirs = peer_log(ai_out)
    assert mine.parent == tmp_path / "me" / "p2ptrumps" / "logs"
    for log in (mine, theirs):
        check_left(log, seat)


def test_a_signal_leaves_a_resumed_match_in_the_table_as_q_does(tmp_path: Path, tmux: Tmux, peers: Peers) -> None:
    """The host (an AI) is killed with SIGKILL mid-match; ``resume`` takes its seat up in the table,
    the guest comes back, and SIGTERM leaves the resumed match with both logs complete."""
    host_out, guest_out = tmp_path / "host.out", tmp_path / "guest.out"
    # normal, not random: random ignores --think and can finish deal 1 before the kill lands
    host = peers.start(tmp_path / "host", host_out, "host", "--port", "0", "--headless", "--ai", "normal",
                       "--think", "0.3", "--deals", "3", "--trump", "S", "--name", "Hana")
    port = port_in(host_out.read_text)
    guest = peers.start(tmp_path / "guest", guest_out, "join", f"127.0.0.1:{port}", "--headless", "--ai", "random",
                        "--think", "0.05", "--accept-new", "--name", "Gus", "--reconnect-wait", "60")
    wait_for("a few moves", lambda: re.search(r"^\s+3\. ", host_out.read_text(), re.M) is not None, 30)
    host.kill()
    host.wait(10)
    logs = list((tmp_path / "host" / "p2ptrumps" / "logs").glob("*.p2plog"))
    assert len(logs) == 1 and verify_log(logs[0].read_bytes()).status == "unfinished"
    run = TableRun(tmux, tmp_path, tmp_path / "host", ["resume", str(logs[0])])
    run.wait_for_table()
    screen = run.signal(signal.SIGTERM)
    assert kept_log(screen, "resume", signal.SIGTERM) == logs[0]
    assert guest.wait(20) == 0
    check_left(logs[0], 0)
    check_left(peer_log(guest_out), 0)


def test_a_signal_before_the_table_stops_at_once(tmp_path: Path, tmux: Tmux) -> None:
    """A host still waiting for its guest (no table yet, no match to leave) stops at once on SIGHUP."""
    run = TableRun(tmux, tmp_path, tmp_path / "me", ["host", "--port", "0"])
    # The first networked command asks for a name once, offering the login name.
    wait_for("the name question", lambda: "Your name, as other players will see it [" in tmux.screen())
    tmux.run("send-keys", "-t", "t", "Hana", "Enter")
    port_in(tmux.screen)
    assert "p2ptrumps host: your name 'Hana' is saved; change it with `p2ptrumps id --name NAME`" in tmux.screen()
    assert (tmp_path / "me" / "p2ptrumps" / "name").read_text() == "Hana\n"
    screen = run.signal(signal.SIGHUP)
    assert "p2ptrumps host: stopped by SIGHUP before the match began" in screen
    assert not list((tmp_path / "me" / "p2ptrumps").glob("logs/*"))


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("command", ["host", "join"])
def test_closing_the_terminal_leaves_the_networked_table_and_ends_the_process(
        tmp_path: Path, tmux: Tmux, peers: Peers, command: str) -> None:
    """The terminal window is closed (the tmux server killed: the pane's terminal is gone, then SIGHUP):
    the command leaves the match as ``q`` does and ends -- it never stays on holding the seat (it used
    to, when reading the dead terminal failed before SIGHUP came)."""
    ai_out = tmp_path / "ai.out"
    run, ai, seat = table_against_ai(tmp_path, tmux, peers, command, ai_out)
    pid = int(run.pid_file.read_text())
    subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True, timeout=10, check=False)
    try:
        wait_for("the command to end", lambda: _gone(pid), 20)
    finally:
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)  # never leave an orphan holding the seat behind
    assert ai.wait(20) == 0  # the AI's match ended: the opponent resigned and left
    assert f"note: {'Hana' if seat == 0 else 'Tess'} resigned and left the match" in ai_out.read_text()
    mine = list((tmp_path / "me" / "p2ptrumps" / "logs").glob("*.p2plog"))
    assert len(mine) == 1
    for log in (mine[0], peer_log(ai_out)):
        check_left(log, seat)
