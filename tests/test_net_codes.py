"""A code as people type it (protocol/rendezvous.md §1, "a code as people type it" and "a code whose host
is gone"):

* capitals, spaces around or instead of dashes, a pasted line end: the same code, never a host name;
* a slip (a word not in the list, or in the wrong place; a word missing) and a port alone are refused
  before anything is sent (status 2), and a slip never spends the host's code: the right code still works;
* a code whose host has stopped fails at once -- "nobody is waiting" -- not after the 30 s timeout.

Against a real magic-wormhole mailbox server and transit relay on loopback (as tests/test_net_meet.py)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2ptrumps.commands.main import main
from p2ptrumps.net import meet
from p2ptrumps.net.testing import peer_command, peer_env, rendezvous_servers
from tests.test_net_meet import PLAY, _code, _said, _wait_line

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="twistd servers are POSIX here")

RULES = ("--deals", "1", "--pack", "32", "--turn-limit", "30")  # a short match: what is tested is the meeting


@pytest.mark.parametrize(("typed", "code"), [
    ("7-crossover-clockwork", "7-crossover-clockwork"),
    ("7-Crossover-Clockwork", "7-crossover-clockwork"),
    ("  7-crossover-clockwork ", "7-crossover-clockwork"),
    ("7-crossover-clockwork\n", "7-crossover-clockwork"),
    ("7 crossover clockwork", "7-crossover-clockwork"),
    ("7 - CROSSOVER -  clockwork\r\n", "7-crossover-clockwork"),
])
def test_a_code_as_typed_is_the_code(typed: str, code: str) -> None:
    assert meet.is_code(typed)
    assert meet.check_code(typed) == code


@pytest.mark.parametrize(("typed", "said"), [
    ("7-crossovr-clockwork", "the code '7-crossovr-clockwork': 'crossovr' is not one of the code words (check its "
                             "spelling with the host)"),
    ("7-clockwork-crossover", "the code '7-clockwork-crossover': 'clockwork' is a code word, but never the first one "
                              "(are the words swapped?)"),
    ("7-crossover", "the code '7-crossover' has 1 word: a code is a number and 2 words, as the host printed it (e.g. "
                    "7-crossover-clockwork)"),
    ("41119", "address '41119' is a port alone: write the host's address before it (HOST:41119, as the host printed "
              "it), or give the host's code (7-crossover-clockwork)"),
])
def test_what_cannot_be_a_code_or_a_host_is_refused_before_anything_is_sent(
        typed: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    sent: list[object] = []
    monkeypatch.setattr("socket.getaddrinfo", lambda *a, **k: sent.append(a))  # never asked: no DNS
    with pytest.raises(SystemExit) as info:
        main(["join", typed, "--headless", "--ai", "random"])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[1] == f"p2ptrumps join: CODE|HOST:PORT[/TICKET]: {said}"
    assert sent == [] and list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    with rendezvous_servers(tmp_path_factory.mktemp("rendezvous")) as urls:
        yield urls


def _host(work: Path, servers: tuple[str, str], port: int = 0) -> tuple[subprocess.Popen[bytes], Path]:
    out = work / "host.out"
    with open(out, "wb") as f:
        proc = subprocess.Popen(
            peer_command("host", "--code", "--rendezvous", servers[0], "--relay", servers[1], "--bind", "127.0.0.1",
                         "--port", str(port), "--log", str(work / "host.p2plog"), *PLAY, *RULES),
            stdout=f, stderr=subprocess.STDOUT, env=peer_env(work / "host"))
    return proc, out


def _join(work: Path, servers: tuple[str, str], typed: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(peer_command("join", typed, "--rendezvous", servers[0], *PLAY, *extra,
                                       "--log", str(work / "guest.p2plog")),
                          capture_output=True, text=True, env=peer_env(work / "guest"), timeout=90)


@pytest.mark.timeout(120)
def test_a_slip_spends_nothing_and_the_code_as_pasted_plays(tmp_path: Path, servers: tuple[str, str]) -> None:
    """Also: the host's port is taken (another host on it), and a code carries any port: the host listens
    on a free one and says so in one line, instead of refusing."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    busy = int(taken.getsockname()[1])
    host, out = _host(tmp_path, servers, busy)
    try:
        moved = _wait_line(out, f"note: port {busy} is in use here; listening on port ", host)
        assert moved.endswith(" instead (the code tells the guest)"), moved
        code = _code(_wait_line(out, "Tell your opponent: p2ptrumps join ", host))
        number, first, second = code.split("-")
        slip = _join(tmp_path, servers, f"{number}-{first}x-{second}")
        assert (slip.returncode, _said(slip).splitlines()[1:]) == (2, [
            f"p2ptrumps join: CODE|HOST:PORT[/TICKET]: the code '{number}-{first}x-{second}': '{first}x' is not one "
            "of the code words (check its spelling with the host)"])
        pasted = f"  {number} {first.capitalize()}-{second.upper()}\n"  # as copied from a chat, line end and all
        guest = _join(tmp_path, servers, pasted)
        assert guest.returncode == 0, guest.stderr
        assert f"looking for the host of code {code} on the mailbox" in guest.stdout + guest.stderr
        assert host.wait(60) == 0
    finally:
        taken.close()
        if host.poll() is None:
            host.kill()
            host.wait(5)
    text = out.read_text()
    assert "wrong code" not in text and text.count("Tell your opponent:") == 1, text  # the code was never spent


@pytest.mark.timeout(120)
def test_a_code_whose_host_stopped_fails_at_once(tmp_path: Path, servers: tuple[str, str]) -> None:
    host, out = _host(tmp_path, servers)
    try:
        code = _code(_wait_line(out, "Tell your opponent: p2ptrumps join ", host))
        host.send_signal(signal.SIGTERM)  # before any guest: the mailbox is closed, the nameplate released
        host.wait(30)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(5)
    gone = _join(tmp_path, servers, code, "--timeout", "60")
    # Not "... gave up after 60 s": the mailbox does not list the number, so nothing waits for a host.
    assert (gone.returncode, _said(gone).splitlines()[-1]) == (
        3, f"p2ptrumps join: nobody is waiting on code {code} (the host stopped, or the number is mistyped)")
