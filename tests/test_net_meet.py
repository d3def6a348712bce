"""Meeting by code (protocol/rendezvous.md): ``host --code`` / ``join CODE``
against a real magic-wormhole mailbox server and transit relay started on loopback for these tests
(never the public ones): a direct and a relayed match verify as one chain, a wrong code fails with one
line, neither a wrong code nor a stranger at the port takes the seat, kill -9 and ``resume`` across the
relay completes the match, and (through the encrypted link of wire.md §18) the relay sees no frame."""

from __future__ import annotations

import contextlib
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from p2ptrumps.net import meet
from p2ptrumps.net.config import NetplayError
from p2ptrumps.net.testing import CuttingProxy, peer_command, peer_env, rendezvous_servers
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.log import LOG_MAGIC, read_log
from p2ptrumps.wire.verify import verify_log
from tests.conftest import load_bench

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="twistd servers and SIGKILL are POSIX here")

PLAY = ("--headless", "--ai", "random", "--think", "0.01", "--timeout", "20")
RULES = ("--deals", "1", "--pack", "32", "--turn-limit", "120")


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A mailbox server and a transit relay on loopback: ``(mailbox_url, relay_url)``."""
    with rendezvous_servers(tmp_path_factory.mktemp("rendezvous")) as urls:
        yield urls


# ----- the texts ----------------------------------------------------------------------------------


def test_what_join_reads_as_a_code_and_the_relay_url() -> None:
    assert [t for t in ("7-crossover-clockwork", "12-a-b-c", "7-crossover", "host:4816", "example.org", "7",
                        "7-Crossover-clockwork", "7-cross_over", "localhost", "[::1]:4816", "-a-b")
            if meet.is_code(t)] == ["7-crossover-clockwork", "12-a-b-c", "7-crossover", "7-Crossover-clockwork"]
    assert meet.parse_relay_url("tcp:transit.magic-wormhole.io:4001") == ("transit.magic-wormhole.io", 4001)
    assert meet.parse_relay_url("tcp:[::1]:4001") == ("::1", 4001)
    for bad in ("transit.example:4001", "tcp:host", "tcp:host:0", "tcp:host:70000", "ws://host:1/v1"):
        with pytest.raises(ValueError, match="expected tcp:HOST:PORT"):
            meet.parse_relay_url(bad)


KEY = Identity.from_seed(bytes(range(32))).public_bytes


def test_the_offer_and_the_answer_on_the_wire() -> None:
    offer = meet.Offer("host", KEY, ["127.0.0.1:4816", "[::1]:4816"],
                       meet.Relay("tcp:127.0.0.1:4001", bytes([7]) * 32))
    assert offer.encode() == (
        b'{"p2ptrumps-meet":1,"role":"host","key":"' + KEY.hex().encode() + b'",'
        b'"candidates":["127.0.0.1:4816","[::1]:4816"],'
        b'"relay":{"url":"tcp:127.0.0.1:4001","channel":"' + b"07" * 32 + b'"}}')
    assert meet.decode_offer(offer.encode(), "host") == offer
    answer = meet.Offer("guest", KEY)
    assert answer.encode() == b'{"p2ptrumps-meet":1,"role":"guest","key":"' + KEY.hex().encode() + b'"}'
    assert meet.decode_offer(answer.encode(), "guest") == answer


@pytest.mark.parametrize("data, status, text", [
    (b'{"p2ptrumps-meet":2,"role":"guest","key":"00"}', 3,
     "the peer's p2ptrumps meets by code version 2; this one speaks 1 (update one of them)"),
    (b"\xff", 5, "the peer's message through the mailbox is malformed: not UTF-8 JSON"),
    (b"[]", 5, "the peer's message through the mailbox is malformed: not a JSON object"),
    (b'{"p2ptrumps-meet":1,"role":"host","key":"' + KEY.hex().encode() + b'"}', 5,
     "the peer's message through the mailbox is malformed: role 'host', expected 'guest'"),
    (b'{"p2ptrumps-meet":1,"role":"guest","key":"abc"}', 5,
     "the peer's message through the mailbox is malformed: the key is not 64 hex digits"),
    (b'{"p2ptrumps-meet":1,"role":"guest","key":"' + b"x" * 5000 + b'"}', 5,
     "the peer's message through the mailbox is malformed: 5044 bytes, more than 4096"),
])
def test_a_malformed_or_other_version_answer_is_one_line(data: bytes, status: int, text: str) -> None:
    with pytest.raises(NetplayError) as err:
        meet.decode_offer(data, "guest")
    assert (err.value.status, str(err.value)) == (status, text)


def test_a_malformed_offer_names_its_fault() -> None:
    base = b'{"p2ptrumps-meet":1,"role":"host","key":"' + KEY.hex().encode() + b'",'
    for tail, why in ((b'"candidates":["a:b:c"],"relay":null}', "address 'a:b:c' has too many ':'"),
                      (b'"candidates":' + str([f"h{i}:1" for i in range(17)]).replace("'", '"').encode()
                       + b',"relay":null}', "at most 16 addresses"),
                      (b'"candidates":[],"relay":{"url":"tcp:h:1","channel":"00"}}', "a malformed relay")):
        with pytest.raises(NetplayError, match=why) as err:
            meet.decode_offer(base + tail, "host")
        assert err.value.status == 5


# ----- matches by code ----------------------------------------------------------------------------


def _start_host(work: Path, servers: tuple[str, str], *extra: str) -> tuple[subprocess.Popen[bytes], Path]:
    out = work / "host.out"
    with open(out, "wb") as f:
        proc = subprocess.Popen(
            peer_command("host", "--code", "--rendezvous", servers[0], "--relay", servers[1], "--bind", "127.0.0.1",
                         "--port", "0", "--log", str(work / "host.p2plog"), *PLAY, *RULES, *extra),
            stdout=f, stderr=subprocess.STDOUT, env=peer_env(work / "host"))
    return proc, out


def _wait_line(out: Path, start: str, proc: subprocess.Popen[bytes], after: int = 0, timeout_s: float = 30.0) -> str:
    """The ``after``-th (0 first) line of ``out`` that starts with ``start``, once printed."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        lines = [ln for ln in out.read_text(errors="replace").splitlines() if ln.startswith(start)]
        if len(lines) > after:
            return lines[after]
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"no line {start!r} from the host: {out.read_text(errors='replace')}")


def _join(work: Path, servers: tuple[str, str], code: str, name: str = "guest",
          *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(peer_command("join", code, "--rendezvous", servers[0], "--name", name, *PLAY, *extra,
                                       "--log", str(work / f"{name}.p2plog")),
                          capture_output=True, text=True, env=peer_env(work / name), timeout=90)


def _said(run: subprocess.CompletedProcess[str]) -> str:
    """What a run said on stderr besides the note of its new identity key (a fresh data directory)."""
    return "".join(ln for ln in run.stderr.splitlines(keepends=True) if not ln.startswith("created your identity key"))


def _code(line: str) -> str:
    """The code of the host's ``Tell your opponent: p2ptrumps join --rendezvous URL CODE`` (a mailbox of
    one's own is part of what to tell)."""
    *rest, code = line.removeprefix("Tell your opponent: p2ptrumps join ").split()
    assert rest[0] == "--rendezvous" and rest[1].startswith("ws://127.0.0.1:") and len(rest) == 2, line
    return code


def _verify_pair(work: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(peer_command("verify", str(work / "host.p2plog"), str(work / "guest.p2plog")),
                          capture_output=True, text=True, timeout=60)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", ["direct", pytest.param("relay", marks=pytest.mark.slow)])
def test_a_match_by_code_direct_or_through_the_relay_verifies_as_one_chain(
        tmp_path: Path, servers: tuple[str, str], path: str) -> None:
    """The relayed path in CI is test_a_relayed_link_cut_mid_match_reconnects_through_the_relay's (the same
    lines checked, and more), so the relay parameter here is ``slow``."""
    host, out = _start_host(tmp_path, servers, *(("--no-direct",) if path == "relay" else ()))
    try:
        line = _wait_line(out, "Tell your opponent: p2ptrumps join ", host)
        code = _code(line)
        assert meet.is_code(code)
        # our own mailbox is in what the opponent is told to type (a bare code opened the public one)
        assert line == f"Tell your opponent: p2ptrumps join --rendezvous {servers[0]} {code}"
        said = out.read_text().splitlines()  # "hosting as" once the mailbox gave the code, right before it
        told = said.index(line)
        offered = "none" if path == "relay" else "127.0.0.1:"
        assert said[told - 1].startswith("hosting as '") and f"; addresses offered: {offered}" in said[told - 1]
        assert [ln for ln in said if ln.startswith("hosting as ")] == [said[told - 1]]
        guest = _join(tmp_path, servers, code)
        assert host.wait(60) == 0, out.read_text()
    finally:
        host.kill()
        host.wait(5)
    assert guest.returncode == 0, guest.stderr
    relay = meet.relay_host(servers[1])
    # While it waits, the guest says where it looks and which path it tries.
    looking, trying, first = guest.stdout.splitlines()[:3]
    assert looking == f"looking for the host of code {code} on the mailbox {servers[0].split('/')[2]} ..."
    if path == "relay":
        assert trying == f"the host offered no address: trying through relay {relay} ..."
        assert first.startswith(f"connected through relay {relay}; the host's key came with the code (")
        assert f"a guest connected through relay {relay}" in out.read_text()
    else:
        offered = out.read_text().split("addresses offered: ", 1)[1].split(";")[0]
        assert offered.startswith("127.0.0.1:")
        assert trying == f"trying the host directly at {offered}; through relay {relay} if no answer in 3 s ..."
        assert first.startswith(f"connected to {offered} (on this machine); the host's key came with the code (")
    assert "its key pinned by the code" in guest.stdout  # no question, no --accept-new, no fingerprint to read
    check = _verify_pair(tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.startswith("VALID: two logs of one game, one chain")
    # The same code is spent: nobody waits on it any more.
    again = _join(tmp_path, servers, code, "late", "--timeout", "2")
    assert (again.returncode, _said(again)) == (3, f"p2ptrumps join: nobody is waiting on code {code} (the host "
                                                   "stopped, or the code is mistyped); gave up after 2 s\n")


@pytest.mark.timeout(150)
def test_a_wrong_code_fails_in_one_line_and_neither_it_nor_a_stranger_takes_the_seat(
        tmp_path: Path, servers: tuple[str, str]) -> None:
    host, out = _start_host(tmp_path, servers)
    try:
        code = _code(_wait_line(out, "Tell your opponent: p2ptrumps join ", host))
        nameplate = code.split("-")[0]
        # Words of the list in their places (a slip outside it is refused before the mailbox: test_net_codes).
        words = "-adroitness-aardvark" if not code.endswith("-adroitness-aardvark") else "-adviser-absurd"
        wrong = nameplate + words
        tried = _join(tmp_path, servers, wrong, "guesser")
        assert (tried.returncode, _said(tried)) == (
            3, f"p2ptrumps join: the code {wrong} is wrong, or was used already: ask the host for a new one\n")
        new = _code(_wait_line(out, "Tell your opponent: p2ptrumps join ", host, after=1))
        assert new != code
        assert "someone tried a wrong code: that code is spent; a new one:" in out.read_text()
        # A stranger who found the port (another key) connects first; then the real guest opens the new code.
        # The host takes no connection before the code has brought the guest's key, then turns the stranger away.
        port = _wait_line(out, "hosting as ", host).split("addresses offered: ")[1].split(";")[0]
        assert port.startswith("127.0.0.1:")
        stranger = subprocess.Popen(peer_command("join", port, "--accept-new", *PLAY,
                                                 "--log", str(tmp_path / "stranger.p2plog")),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env=peer_env(tmp_path / "stranger"))
        time.sleep(1.0)
        guest = subprocess.Popen(peer_command("join", new, "--rendezvous", servers[0], *PLAY,
                                              "--log", str(tmp_path / "guest.p2plog")),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=peer_env(tmp_path / "guest"))
        sout, serr = stranger.communicate(timeout=60)
        assert stranger.returncode == 8, sout + serr  # refused at the doorway: not the code's key
        assert not (tmp_path / "stranger.p2plog").exists()
        _, gerr = guest.communicate(timeout=90)
        assert guest.returncode == 0, gerr
        assert host.wait(60) == 0
    finally:
        host.kill()
        host.wait(5)
    text = out.read_text()
    # The seat went to the key the code brought (the stranger was turned away, or closed once the match was
    # taken -- which of the two comes first is a race of the two handshakes).
    code_key = text.split("the guest's key came with the code (")[1].split(")")[0]
    assert "guest 'root' accepted the rules" in text and f"({code_key}), a new key (pinned)" in text
    check = _verify_pair(tmp_path)
    assert check.returncode == 0, check.stdout
    assert verify_log((tmp_path / "host.p2plog").read_bytes()).status == "valid"


KILL = load_bench("net_kill")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("victim, target", [("guest", "reveal"),
                                            pytest.param("host", "commit", marks=pytest.mark.slow)])
def test_kill_9_and_resume_through_the_relay_completes_the_match(
        tmp_path: Path, servers: tuple[str, str], victim: str, target: str) -> None:
    r = KILL.aimed_trial(tmp_path, victim, target, 2, random.Random(15), meet=servers)
    assert r.problems == [] and r.ok, r.line()
    assert r.resume_s is not None
    run = sorted(tmp_path.glob("attempt*"))[-1]
    guest, host = (run / "guest.out").read_text(), (run / "host.out").read_text()
    assert "connected through relay" in guest and "a guest connected through relay" in host
    if victim == "guest":  # the restarted guest reconnects by the resume file's meet field, through the relay
        assert "connecting again to the host met by code" in guest
        assert guest.count("reconnected through relay") >= 1
    else:  # the restarted host waits at the relay again; the guest comes back through it
        assert "waiting at relay" in host
        assert "reconnected through relay" in guest


def _frames_over(log: Path, n: int) -> bool:
    """True once the match log ``log`` (being written) holds more than ``n`` frames."""
    data = log.read_bytes() if log.exists() else b""
    return data.startswith(LOG_MAGIC) and len(read_log(data).frames) > n


@pytest.mark.timeout(150)
async def test_a_relayed_link_cut_mid_match_reconnects_through_the_relay(tmp_path: Path,
                                                                        servers: tuple[str, str]) -> None:
    """A match by code through the relay (``--no-direct``), whose line to the relay is cut mid-match: both
    come back through the relay, and both logs verify as one chain; the relay (a proxy in front of it that
    keeps every byte) saw no frame and no name (wire.md §18)."""
    relay_port = meet.parse_relay_url(servers[1])[1]
    proxy = CuttingProxy(relay_port, record=True)  # the relay's line, which we cut in the middle of the match
    guest_log = tmp_path / "guest.p2plog"
    async with trio.open_nursery() as nursery:
        await nursery.start(proxy.serve)
        spy = f"tcp:127.0.0.1:{proxy.port}"
        hout, gout = tmp_path / "host.out", tmp_path / "guest.out"
        done: list[int] = []

        async def run(argv: list[str], out: Path, home: str) -> None:
            with open(out, "wb") as f:
                r = await trio.run_process(argv, stdout=f, stderr=subprocess.STDOUT, env=peer_env(tmp_path / home),
                                           check=False)
            done.append(r.returncode)

        host_argv = peer_command("host", "--code", "--no-direct", "--rendezvous", servers[0], "--relay", spy,
                                 "--bind", "127.0.0.1", "--port", "0", "--name", "Zebulon Host",
                                 "--log", str(tmp_path / "host.p2plog"),
                                 *PLAY, "--deals", "2", "--pack", "32", "--turn-limit", "120")
        nursery.start_soon(run, host_argv, hout, "host")
        code = ""
        with trio.fail_after(30):
            while not code:
                await trio.sleep(0.05)
                lines = hout.read_text(errors="replace").splitlines() if hout.exists() else []
                code = next((_code(ln) for ln in lines if ln.startswith("Tell your opponent: p2ptrumps join ")), "")
        nursery.start_soon(run, peer_command("join", code, "--rendezvous", servers[0], "--name", "Yolanda Guest",
                                             "--log", str(guest_log), *PLAY), gout, "guest")
        with trio.fail_after(60):
            while not _frames_over(guest_log, 40):
                await trio.sleep(0.02)
        cuts = proxy.connections
        proxy.cut()
        with trio.fail_after(100):
            while len(done) < 2:
                await trio.sleep(0.1)
        nursery.cancel_scope.cancel()
    assert done == [0, 0], gout.read_text() + hout.read_text()
    assert proxy.connections > cuts  # both came back through the relay
    relay = meet.relay_host(spy)
    guest_said = gout.read_text()
    assert f"connected through relay {relay}; the host's key came with the code (" in guest_said
    assert "its key pinned by the code" in guest_said  # no question, no --accept-new, no fingerprint to read
    assert "reconnected through relay" in guest_said
    host_said = hout.read_text()
    assert f"a guest connected through relay {relay}" in host_said
    hosting = [ln for ln in host_said.splitlines() if ln.startswith("hosting as '")]
    assert len(hosting) == 1 and f"; addresses offered: none; relay: {relay}" in hosting[0]  # --no-direct
    seen = bytes(proxy.recorded or b"")
    assert len(seen) > 1000  # the match went through the relay
    frames = read_log(guest_log.read_bytes()).frames
    assert len(frames) > 40
    assert [f for f in frames if f in seen] == []
    assert b"Zebulon Host" not in seen and b"Yolanda Guest" not in seen
    for log in (guest_log, tmp_path / "host.p2plog"):
        v = verify_log(log.read_bytes())
        assert (v.status, v.reconnections >= 1) == ("valid", True)
    assert _verify_pair(tmp_path).returncode == 0


async def test_a_mailbox_that_refuses_or_never_answers_is_one_line_in_bounded_time() -> None:
    from p2ptrumps.net import mailbox
    from p2ptrumps.net.testing import free_port

    refused = f"ws://127.0.0.1:{free_port()}/v1"
    with pytest.raises(mailbox.MailboxError) as got:
        await mailbox.exchange(refused, None, b"{}", lambda code: None, welcome_wait_s=30.0)
    assert str(got.value) == (f"cannot reach the mailbox server {refused}: connection refused (is the mailbox "
                              "server running, and the URL right?)")
    # A server that takes the connection and never says a word: named after welcome_wait_s, not the system's 30 s+.
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        silent = f"ws://127.0.0.1:{listeners[0].socket.getsockname()[1]}/v1"
        taken: list[trio.SocketStream] = []

        async def hold() -> None:
            for _ in range(10):
                taken.append(await listeners[0].accept())

        nursery.start_soon(hold)
        with pytest.raises(mailbox.MailboxError) as got, trio.fail_after(30):
            await mailbox.exchange(silent, "7-crossover-clockwork", b"{}", lambda code: None, welcome_wait_s=1.0)
        assert str(got.value) == (f"cannot reach the mailbox server {silent}: no answer in 1 s (is the address "
                                  "right? a firewall on the way?)")
        assert taken  # it did connect: the silence was the server's
        nursery.cancel_scope.cancel()
    for s in [*taken, *listeners]:
        await s.aclose()


async def test_a_candidate_that_is_not_the_host_is_left_out_and_the_next_one_tried(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both homes use one private network (192.168.1.0/24 is common): the host's local address offered by
    the code may reach another machine in the guest's own home.  Its handshake fails (or proves another
    key); the guest leaves it out and goes on to the next candidate, where the host is."""
    from p2ptrumps.net.secure import secure
    from tests.test_net_lobby import GUEST_KEY, HOST_KEY, guest_cfg

    async def junk(stream: trio.SocketStream) -> None:  # a web server next door
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await stream.send_all(b"HTTP/1.0 400 Bad Request\r\n\r\n")
        await stream.aclose()

    async def host(stream: trio.SocketStream) -> None:
        s = secure(stream, HOST_KEY, server=True, expect=GUEST_KEY.public_bytes)
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await s.handshake()
            await s.receive_some(1)
        await trio.aclose_forcefully(s)

    # The next candidate starts only once the one before failed: the machine next door answers first.
    monkeypatch.setattr(meet, "ATTEMPT_DELAY_S", 60.0)
    notes: list[str] = []
    async with trio.open_nursery() as nursery:
        ports = []
        for handler in (junk, host):
            listeners = await nursery.start(trio.serve_tcp, handler, 0)
            ports.append(listeners[0].socket.getsockname()[1])
        offer = meet.Offer("host", HOST_KEY.public_bytes, [f"127.0.0.1:{p}" for p in ports], None)
        with trio.fail_after(30):
            stream, path = await meet.dial_offer(guest_cfg(tmp_path), offer, b"12345678", 20.0,
                                                 HOST_KEY.public_bytes, notes.append)
        assert path == f"127.0.0.1:{ports[1]} (on this machine)"
        assert stream.peer_key == HOST_KEY.public_bytes
        await trio.aclose_forcefully(stream)
        nursery.cancel_scope.cancel()
    assert notes[0] == f"trying the host directly at 127.0.0.1:{ports[0]}, 127.0.0.1:{ports[1]} ..."
    assert notes[1].startswith(f"127.0.0.1:{ports[0]} answered but is not the host (")
    assert notes[1].endswith("); trying the others ...")


@pytest.mark.timeout(180)
def test_the_relay_gone_for_good_ends_both_sides_with_one_line_and_how_to_resume(
        tmp_path: Path, servers: tuple[str, str]) -> None:
    """Mid-match the relay (the only path: ``--no-direct``) goes away and stays away: both sides wait
    ``--reconnect-wait``, then end with one line saying why (the guest: what its last try met), the log
    kept -- valid, each side having ended the match as abandoned by the other (wire.md §15.1) -- and the
    command that takes the match up later."""
    from p2ptrumps.net.testing import _twistd, free_port

    port = free_port()
    relay = _twistd(tmp_path, "relay", ["transitrelay"], port, "127.0.0.1", [])
    try:
        log = tmp_path / "relay.log"
        for _ in range(1200):
            if log.exists() and "starting on" in log.read_text(errors="replace"):
                break
            assert relay.poll() is None, log.read_text(errors="replace")
            time.sleep(0.05)
        url = f"tcp:127.0.0.1:{port}"
        play = ("--headless", "--ai", "random", "--think", "0.3", "--reconnect-wait", "4")
        out = tmp_path / "host.out"
        with open(out, "wb") as f:
            host = subprocess.Popen(peer_command("host", "--code", "--rendezvous", servers[0], "--relay", url,
                                                 "--no-direct", "--bind", "127.0.0.1", "--port", "0", "--log",
                                                 str(tmp_path / "host.p2plog"), *play, *RULES),
                                    stdout=f, stderr=subprocess.STDOUT, env=peer_env(tmp_path / "host"))
        code = _code(_wait_line(out, "Tell your opponent: p2ptrumps join ", host))
        guest = subprocess.Popen(peer_command("join", code, "--rendezvous", servers[0], "--name", "guest", *play,
                                              "--log", str(tmp_path / "guest.p2plog")),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=peer_env(tmp_path / "guest"))
        assert guest.stdout is not None
        for _ in range(200):  # a state: the match is under way (its second move printed)
            if re.match(r"\s+2\. ", guest.stdout.readline().decode()):
                break
        relay.terminate()
        relay.wait(10)
        _, err = guest.communicate(timeout=90)
        assert host.wait(60) == 4, out.read_text()
    finally:
        for p in (relay, *[x for x in (locals().get("host"), locals().get("guest")) if x is not None]):
            if p.poll() is None:
                p.kill()
                p.wait(5)
    lines = [ln for ln in err.decode().splitlines() if not ln.startswith("created your identity key")]
    assert guest.returncode == 4
    assert lines[0].startswith("p2ptrumps join: the peer is gone: ")
    assert f"the peer did not come back within 4 s (the last try: tried relay 127.0.0.1:{port} " in lines[0]
    guest_log = tmp_path / "guest.p2plog"
    assert lines[1:3] == [f"match log (kept): {guest_log}",
                          f"take it up when you both can: p2ptrumps resume {guest_log}"]
    said = out.read_text().splitlines()
    assert any(ln.startswith("p2ptrumps host: the peer is gone: ") for ln in said)
    assert f"take it up when you both can: p2ptrumps resume {tmp_path / 'host.p2plog'}" in said
    for path, seat in ((guest_log, 1), (tmp_path / "host.p2plog", 0)):  # each ended it as abandoned (wire.md §15.1)
        v = verify_log(path.read_bytes())
        assert (v.status, [s for s, _, _, continued in v.abandonments if continued is None]) == ("valid", [seat])


@contextlib.contextmanager
def _closed_port() -> Iterator[int]:
    """A loopback port nothing listens on, for as long as the block runs: bound here and never listened on
    (connecting to it is refused), so that no other process can take it meanwhile (bind, close and reuse
    could hand it to another test's listener)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


@pytest.mark.timeout(90)
def test_host_by_code_with_an_unreachable_mailbox_says_so_in_one_line_and_nothing_else(tmp_path: Path) -> None:
    subprocess.run(peer_command("id"), capture_output=True, env=peer_env(tmp_path / "host"), timeout=60, check=True)
    with _closed_port() as port:
        url = f"ws://127.0.0.1:{port}/v1"
        run = subprocess.run(peer_command("host", "--code", "--rendezvous", url, "--relay", "none", "--bind",
                                          "127.0.0.1", "--port", "0", "--name", "Hana", *PLAY),
                             capture_output=True, text=True, env=peer_env(tmp_path / "host"), timeout=80)
    assert (run.returncode, run.stdout, run.stderr) == (
        3, "", f"p2ptrumps host: cannot reach the mailbox server {url}: connection refused (is the mailbox server "
        "running, and the URL right?)\n")


@pytest.mark.parametrize(("url", "why"), [
    ("relay.magic-wormhole.io:4000", "not a mailbox URL 'relay.magic-wormhole.io:4000' (expected ws://HOST:PORT/v1, "
                                     "e.g. ws://relay.magic-wormhole.io:4000/v1)"),
    ("ws://::1:4000/v1", "not a mailbox URL 'ws://::1:4000/v1' (expected ws://HOST:PORT/v1): address '::1:4000': "
                         "write an IPv6 address with its port in brackets: [::1]:4000, or [::1:4000] for the IPv6 "
                         "address ::1:4000 itself on the default port 80"),
])
@pytest.mark.parametrize("command", [["host", "--code"], ["join", "7-crossover-clockwork"]])
def test_a_malformed_mailbox_url_is_a_usage_error(url: str, why: str, command: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from p2ptrumps.commands.main import main

    with pytest.raises(SystemExit) as info:
        main([*command, "--rendezvous", url, "--headless", "--ai", "random"])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"p2ptrumps {command[0]}: --rendezvous: {why}"
