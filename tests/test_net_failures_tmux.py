"""Every network failure at the full-screen table ends as the headless run ends: one line naming it,
the same exit status (the README's table), never a traceback.  Each runs ``host`` or ``join`` with the
table in a real terminal (tmux) and drives one failure:

* the mailbox cannot be reached (``host --code``): status 3, one line;
* the friend does not come back within ``--reconnect-wait`` (the host's table): status 4, one line, and
  the claim is signed and logged;
* the relay goes away for good under a match by code (the guest's table): status 4, one line and how to
  resume;
* the peer sends a frame that does not decode: status 5, the fault named;
* the disk of the match log fills up and so does the temporary directory (root only: a tmpfs): status 1,
  one line and how to resume.

Skipped where tmux is not installed; the rendezvous servers where ``twistd`` is not there."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from p2ptrumps.net.testing import rendezvous_servers
from p2ptrumps.wire.verify import verify_log
from tests.test_net_tmux import Peers, TableRun, peers, port_in
from tests.test_ui_tmux import Tmux, wait_for

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
__all__ = ["peers"]  # the fixture, shared with test_net_tmux

TICKET = "mfrg-gzdf-mztw-q2lk"


def ended(run: TableRun, timeout_s: float = 60) -> tuple[int, str]:
    """Wait for the command in tmux to end: its exit status and the screen as one text (tmux wraps long
    lines at 100 columns: they are joined back)."""
    try:
        wait_for("the command to end", lambda: run.stty_file.exists() and run.stty_file.stat().st_size > 0, timeout_s)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the screen:\n{run.tmux.screen()}") from None
    return int(run.status_file.read_text()), run.tmux.screen()


def leave_when_stopped(run: TableRun, what: str, timeout_s: float) -> tuple[int, str]:
    """Wait until the table says the match stopped ("Press q to leave"), press ``q`` once (nothing more is
    asked: there is nothing left to resign), and return as :func:`ended` does."""
    try:
        wait_for(what, lambda: "Press q to leave" in run.tmux.screen(), timeout_s)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the screen:\n{run.tmux.screen()}") from None
    run.tmux.run("send-keys", "-t", "t", "q")
    return ended(run)


def said(screen: str, command: str) -> list[str]:
    """What the command printed on ``screen`` once the table closed, wrapped lines joined, from its one line
    in its own voice (``p2ptrumps host: ...``, the only one) on."""
    out: list[str] = []
    for r in (r.rstrip() for r in screen.splitlines()):
        if out and len(out[-1]) % 100 == 0 and not r.startswith(("p2ptrumps ", "match log", "take it up")):
            out[-1] += r
        elif r:
            out.append(r)
    voice = [i for i, line in enumerate(out) if line.startswith(f"p2ptrumps {command}: ")]
    assert len(voice) == 1, screen
    return out[voice[0]:]


def no_traceback(screen: str) -> None:
    assert "Traceback" not in screen and "ExceptionGroup" not in screen, screen


@pytest.fixture
def home_network() -> Iterator[tuple[str, ...]]:
    """A network namespace of the test's own with nothing but loopback: the words that run a command in it,
    as at home -- the host asks its router for a port mapping (``P2PTRUMPS_NO_MAP`` unset), which nothing
    answers there, and every address it can reach is its own.  Skipped without root or ``ip``."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("a network namespace of the test's own needs root and ip")
    name = f"fieldnet{os.getpid()}x{uuid.uuid4().hex[:4]}"
    subprocess.run(["ip", "netns", "add", name], check=True, capture_output=True, timeout=20)
    try:
        subprocess.run(["ip", "-n", name, "link", "set", "lo", "up"], check=True, capture_output=True, timeout=20)
        yield ("ip", "netns", "exec", name, "env", "-u", "P2PTRUMPS_NO_MAP")
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=20, check=False)


def test_host_by_code_at_the_table_with_no_mailbox_says_one_line_and_exits_3(
        tmp_path: Path, tmux: Tmux, home_network: tuple[str, ...]) -> None:
    url = "ws://127.0.0.1:9/v1"  # nothing listens in the namespace of its own
    run = TableRun(tmux, tmp_path, tmp_path / "me", ["host", "--code", "--rendezvous", url, "--name", "Hana"],
                   prefix=home_network)
    status, screen = ended(run)
    no_traceback(screen)
    assert status == 3, screen
    assert said(screen, "host")[-1:] == [f"p2ptrumps host: cannot reach the mailbox server {url}: connection refused "
                                         "(is the mailbox server running, and the URL right?)"], screen


def test_the_host_s_table_when_the_friend_does_not_come_back_exits_4_with_the_abandonment_logged(
        tmp_path: Path, tmux: Tmux, peers: Peers, home_network: tuple[str, ...]) -> None:
    run = TableRun(tmux, tmp_path, tmp_path / "me", ["host", "--port", "0", "--trump", "S", "--name", "Hana",
                                                     "--ticket", TICKET, "--reconnect-wait", "2", "--timeout", "5"],
                   prefix=home_network)
    port = port_in(tmux.screen)
    ai = peers.start(tmp_path / "ai", tmp_path / "ai.out", "join", f"127.0.0.1:{port}/{TICKET}", "--headless",
                     "--ai", "random", "--think", "0.05", "--accept-new", "--name", "Gus", prefix=home_network)
    run.wait_for_table()
    ai.send_signal(signal.SIGKILL)  # gone for good: no resume comes
    ai.wait(10)
    status, screen = leave_when_stopped(run, "the connection lost", 60)
    no_traceback(screen)
    assert status == 4, screen
    lines = said(screen, "host")
    assert lines[0].startswith("p2ptrumps host: the peer is gone: the peer closed the connection before the match "
                               "ended"), screen
    m = re.search(r"match log \(kept\): (\S+\.p2plog)", "".join(lines))
    assert m, screen
    v = verify_log(Path(m[1]).read_bytes())
    # The host ended the match as abandoned by the friend, who stayed away past the reconnect wait (whoever's
    # turn it was, protocol/wire.md §15.1): signed, logged; never a claim on time across an outage (§16).
    assert "you ended the match as abandoned by the opponent (your log keeps it signed)" in " ".join(lines), screen
    assert (v.status, v.claims, [s for s, _, _, _ in v.abandonments]) == ("valid", [], [0])


def test_a_bad_frame_from_the_peer_at_the_table_names_the_fault_and_exits_5(tmp_path: Path, tmux: Tmux) -> None:
    from tests.test_net_hostile import hostile_guest

    run = TableRun(tmux, tmp_path, tmp_path / "me", ["host", "--port", "0", "--trump", "S", "--name", "Hana",
                                                     "--open", "--deals", "1"])
    port = port_in(tmux.screen)

    async def evil() -> None:
        async with trio.open_nursery() as n:
            n.start_soon(hostile_guest, port, "garbage-frame", 0)

            async def play_my_lead() -> None:  # the host leads first half the time: play its first card
                for _ in range(300):
                    screen = await trio.to_thread.run_sync(tmux.screen)
                    if "Your lead" in screen:
                        await trio.to_thread.run_sync(tmux.run, "send-keys", "-t", "t", "Enter")
                        return
                    if "Press q to leave" in screen:
                        return
                    await trio.sleep(0.1)
            n.start_soon(play_my_lead)

    with contextlib.suppress(trio.BrokenResourceError, OSError):
        trio.run(evil)
    status, screen = leave_when_stopped(run, "the fault on the table", 30)
    no_traceback(screen)
    assert status == 5, screen
    lines = said(screen, "host")
    assert lines[0].startswith("p2ptrumps host: the peer broke the protocol: ") and "[garbage-frame]" in lines[0], \
        screen


@pytest.mark.skipif(sys.platform == "win32", reason="twistd servers are POSIX here")
def test_the_relay_gone_for_good_at_the_guest_s_table_exits_4_with_how_to_resume(
        tmp_path: Path, tmux: Tmux, peers: Peers) -> None:
    (tmp_path / "servers").mkdir()
    with rendezvous_servers(tmp_path / "servers") as (mailbox_url, relay_url):
        relay_port = int(relay_url.rsplit(":", 1)[1])
        host = peers.start(tmp_path / "ai", tmp_path / "ai.out", "host", "--code", "--rendezvous", mailbox_url,
                           "--relay", relay_url, "--no-direct", "--bind", "127.0.0.1", "--port", "0", "--headless",
                           "--ai", "random", "--think", "0.5", "--trump", "C", "--name", "Hana",
                           "--reconnect-wait", "3", "--deals", "3")
        out = tmp_path / "ai.out"
        wait_for("the code", lambda: "Tell your opponent: p2ptrumps join" in out.read_text(), 30)
        code = out.read_text().split("Tell your opponent: p2ptrumps join ", 1)[1].split()[-1]
        run = TableRun(tmux, tmp_path, tmp_path / "me", ["join", "--rendezvous", mailbox_url, code, "--trump", "S",
                                                         "--name", "Tess", "--reconnect-wait", "3"])
        wait_for("the rules question", lambda: "accept these rules? [Y/n]" in tmux.screen(), 30)
        tmux.run("send-keys", "-t", "t", "Enter")
        run.wait_for_table()
        # The relay goes away for good: every process listening on its port is stopped.
        found = subprocess.run(["sh", "-c", f"ss -ltnpH 'sport = :{relay_port}'"], capture_output=True, text=True)
        pids = {int(p) for p in re.findall(r"pid=(\d+)", found.stdout)}
        assert pids, found.stdout
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        wait_for("the connection lost", lambda: "Press q to leave" in tmux.screen() or run.stty_file.exists(), 60)
        if not run.stty_file.exists():
            tmux.run("send-keys", "-t", "t", "q")
        status, screen = ended(run)
        host.wait(30)
    no_traceback(screen)
    assert status == 4, screen
    lines = said(screen, "join")
    assert lines[0].startswith("p2ptrumps join: the peer is gone: "), screen
    assert any(line.startswith("take it up when you both can: p2ptrumps resume ") for line in lines), screen


def test_a_full_disk_everywhere_at_the_table_exits_1_with_how_to_resume(
        tmp_path: Path, tmux: Tmux, peers: Peers, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.test_platform import mounted_tmpfs

    with mounted_tmpfs(tmp_path / "disk", "1200k") as disk:
        (disk / "tmp").mkdir()
        monkeypatch.setenv("TMPDIR", str(disk / "tmp"))  # the table's terminal (tmux) has it: no spare disk
        ai = peers.start(tmp_path / "ai", tmp_path / "ai.out", "host", "--port", "0", "--headless", "--ai", "random",
                         "--think", "0.05", "--deals", "3", "--trump", "C", "--name", "Hana", "--reconnect-wait", "60")
        port = port_in((tmp_path / "ai.out").read_text)
        log = disk / "guest.p2plog"
        run = TableRun(tmux, tmp_path, tmp_path / "me", ["join", f"127.0.0.1:{port}", "--accept-new", "--trump", "S",
                                                         "--name", "Tess", "--log", str(log)])
        wait_for("the rules question", lambda: "accept these rules? [Y/n]" in tmux.screen(), 20)
        tmux.run("send-keys", "-t", "t", "Enter")
        run.wait_for_table()
        with open(disk / "filler", "wb", buffering=0) as filler, contextlib.suppress(OSError):
            for _ in range(2000):
                filler.write(b"\0" * 4096)
        # Play on until a frame cannot be written (the log's last page had room for a few): the table says so
        # and stops the match (TMPDIR is on the full disk too).
        for _ in range(600):  # bounded: a few hundred key presses at most, 0.1 s apart
            screen = tmux.screen()
            if "Press q to leave" in screen:
                break
            if "Your lead" in screen or "second card" in screen or "Beat " in screen:
                tmux.run("send-keys", "-t", "t", "Enter")
            elif "pick up" in screen.lower():
                tmux.run("send-keys", "-t", "t", "p")
            time.sleep(0.1)
        status, screen = leave_when_stopped(run, "the fault on the table", 30)
        ai.kill()
    no_traceback(screen)
    assert status == 1, screen
    lines = said(screen, "join")
    assert lines[0].startswith(f"p2ptrumps join: cannot write the match log {log}: No space left on device"), screen


async def test_a_relay_that_resets_while_it_answers_is_one_line_not_a_traceback() -> None:
    """The relay killed while a guest's reconnection was saying "please relay" to it: the reset came out
    of open_relay as a raw BrokenResourceError, past every handler (a traceback at the table, seen when
    the test above raced the kill); now it is the relay's refusal, one line."""
    import functools
    import socket as stdsocket
    import struct

    from p2ptrumps.net import meet

    async def reset(stream: trio.SocketStream) -> None:
        await stream.receive_some(200)  # the request line
        stream.socket.setsockopt(stdsocket.SOL_SOCKET, stdsocket.SO_LINGER, struct.pack("ii", 1, 0))
        stream.socket.close()  # a reset, as from a process killed with SIGKILL

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, reset, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        with pytest.raises(meet.RelayRefused) as info:
            await meet.open_relay(meet.Relay(f"tcp:127.0.0.1:{port}", bytes(32)), bytes(8), 10.0)
        nursery.cancel_scope.cancel()
    assert str(info.value).startswith(f"the relay 127.0.0.1:{port} broke the connection ("), str(info.value)
