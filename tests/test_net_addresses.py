"""Addresses that survive the real internet: both families by default, IPv6 in
brackets, IDN names and names with ``_``, every resolved address tried, failures named."""

from __future__ import annotations

import io
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from p2ptrumps.net import config, dial, lobby
from p2ptrumps.net.addresses import AddressError, parse_address, worth_giving_out
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log

HOST_KEY = Identity.from_seed(fixed_bytes("addr-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("addr-test/guest"))


def configs(tmp_path: Path) -> tuple[config.NetConfig, config.NetConfig]:
    h = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h",
                         rules=RuleSet(pack_size=32, deals=1, turn_limit=120), ai="random", think_s=0.01,
                         out=io.StringIO(), timeout_s=10)
    g = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path / "g", ai="random",
                         think_s=0.01, accept_new=True, out=io.StringIO(), timeout_s=10)
    return h, g


async def match_via(tmp_path: Path, bind: str | None, address: str) -> tuple[config.NetResult, str]:
    """Host on ``bind`` (port 0), join at ``address`` with ``{port}`` filled in; both logs verify.
    Returns the guest's result and what the host printed."""
    h, g = configs(tmp_path)
    got: dict[str, config.NetResult] = {}

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        got["h"] = await lobby.host(h, bind, 0, task_status=task_status)

    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            port = await n.start(run_host)
            got["g"] = await dial.join(g, address.format(port=port))
    for res in got.values():
        assert res.log_path is not None and verify_log(res.log_path.read_bytes()).status == "valid"
    out = h.out.getvalue()  # type: ignore[attr-defined]
    return got["g"], out


@pytest.mark.parametrize("address", ["127.0.0.1:{port}", "[::1]:{port}", "localhost:{port}"])
async def test_a_default_host_takes_guests_of_both_families(tmp_path: Path, address: str) -> None:
    result, out = await match_via(tmp_path, None, address)
    assert result.peer_name == "Hana" and result.score_halves is not None
    given = _given(out)
    port = out.split("waiting for a guest on port ", 1)[1].split()[0]
    # One address to tell, the others after it; IPv6 in brackets.  Loopback only when there is nothing
    # else (a person elsewhere would reach their own machine at 127.0.0.1).
    others = [a for a in portmap_worth(port) if not a.startswith(("127.", "[::1]"))]
    assert given == (others or [f"[::1]:{port}", f"127.0.0.1:{port}"])
    assert all(a.startswith("[") == (a.count(":") > 1) for a in given)


def _given(out: str) -> list[str]:
    """The addresses the host's output gives out: the one to tell, then the ``(or: ...)`` ones."""
    first = out.split("Tell your opponent: p2ptrumps join ", 1)[1].splitlines()[0]
    rest = out.split(first, 1)[1].splitlines()[1]
    return [first] + (rest.removeprefix("(or: ").split(";")[0].rstrip(")").split(", ")
                      if rest.startswith("(or: ") else [])


def portmap_worth(port: str) -> list[str]:
    """This machine's addresses worth giving out, as the host orders them (IPv6 first in a group)."""
    import socket

    from p2ptrumps.net.addresses import format_address, local_addresses, worth_giving_out

    return [format_address(a, int(port)) for a in worth_giving_out(
        local_addresses({socket.AF_INET6, socket.AF_INET}), {socket.AF_INET, socket.AF_INET6})]


async def test_bind_takes_an_ipv6_literal_or_a_name(tmp_path: Path) -> None:
    _, out = await match_via(tmp_path / "v6", "::1", "[::1]:{port}")
    assert "Tell your opponent: p2ptrumps join [::1]:" in out
    _, out = await match_via(tmp_path / "name", "localhost", "127.0.0.1:{port}")
    assert _given(out)[-1].startswith("127.0.0.1:")


class FakeResolver(trio.abc.HostnameResolver):
    """Maps host names (as the resolver receives them: IDNA-encoded bytes) to addresses."""

    def __init__(self, table: dict[bytes, list[tuple[int, str]]]) -> None:
        self.table = table
        self.asked: list[bytes] = []

    async def getaddrinfo(self, host: bytes | None, port: bytes | str | int | None, family: int = 0,
                          type: int = 0, proto: int = 0, flags: int = 0) -> list[tuple[
                              socket.AddressFamily, socket.SocketKind, int, str,
                              tuple[str, int] | tuple[str, int, int, int]]]:
        assert host is not None
        self.asked.append(host)
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        out: list[tuple[socket.AddressFamily, socket.SocketKind, int, str,
                        tuple[str, int] | tuple[str, int, int, int]]] = []
        for fam, addr in self.table[host]:
            sockaddr: tuple[str, int] | tuple[str, int, int, int] = (
                (addr, int(port or 0), 0, 0) if fam == socket.AF_INET6 else (addr, int(port or 0)))
            out.append((socket.AddressFamily(fam), socket.SOCK_STREAM, 6, "", sockaddr))
        return out

    async def getnameinfo(self, sockaddr: tuple[str, int] | tuple[str, int, int, int],
                          flags: int) -> tuple[str, str]:
        raise NotImplementedError


@pytest.fixture
async def resolver() -> AsyncIterator[FakeResolver]:
    fake = FakeResolver({
        b"xn--80afo7a.xn--p1ai": [(socket.AF_INET6, "::1")],
        b"my_host": [(socket.AF_INET, "127.0.0.1")],
        b"both.example": [(socket.AF_INET6, "::1"), (socket.AF_INET, "127.0.0.1")],
    })
    old = trio.socket.set_custom_hostname_resolver(fake)
    yield fake
    trio.socket.set_custom_hostname_resolver(old)


@pytest.mark.parametrize(("name", "sent"), [("игра.рф", b"xn--80afo7a.xn--p1ai"), ("my_host", b"my_host")])
async def test_idn_and_underscore_names_reach_the_resolver(tmp_path: Path, resolver: FakeResolver, name: str,
                                                          sent: bytes) -> None:
    result, _ = await match_via(tmp_path, None, name + ":{port}")
    assert result.score_halves is not None
    assert resolver.asked == [sent]


async def test_every_address_tried_and_each_failure_named(tmp_path: Path, resolver: FakeResolver) -> None:
    _, g = configs(tmp_path)
    probe = trio.socket.socket()  # a port with nobody listening on either family
    await probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    with pytest.raises(config.NetplayError) as info:
        await dial.join(g, f"both.example:{port}")
    assert info.value.status == config.EXIT_CONNECT
    assert str(info.value) == (f"cannot connect to both.example:{port}: tried [::1]:{port} connection refused; "
                               f"127.0.0.1:{port} connection refused (is the host running? is the port right?)")
    with pytest.raises(config.NetplayError) as info:
        await dial.join(g, f"nowhere.example:{port}")
    assert str(info.value).startswith(f"cannot connect to nowhere.example:{port}: unknown host name "
                                      "'nowhere.example' (")


async def test_a_slow_first_address_does_not_hold_up_the_next(resolver: FakeResolver) -> None:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    # A loopback address that never answers (no packet leaves this machine): a listener there whose queue
    # of one unaccepted connection is full, so the kernel drops every further SYN (Linux: listen(0)).
    # Then the real address: connected at once, though the first attempt is still waiting.
    slow = socket.socket()
    slow.bind(("127.0.0.3", port))
    slow.listen(0)
    filler = socket.create_connection(("127.0.0.3", port), timeout=10)
    with trio.move_on_after(0.5) as waited:  # the premise: that address takes no connection now
        await trio.open_tcp_stream("127.0.0.3", port)
    assert waited.cancelled_caught
    resolver.table[b"slow.example"] = [(socket.AF_INET, "127.0.0.3"), (socket.AF_INET, "127.0.0.1")]
    try:
        with trio.fail_after(30):
            stream = await dial.connect("slow.example", port, timeout_s=60, attempt_delay_s=0.05)
        assert stream.socket.getpeername()[0] == "127.0.0.1"
        await stream.aclose()
    finally:
        filler.close()
        slow.close()
        await listener.aclose()


def test_typed_addresses() -> None:
    assert parse_address("[2001:db8::7]:4816") == ("2001:db8::7", 4816)
    assert parse_address("игра.рф:4816") == ("игра.рф", 4816)
    assert parse_address("my_host") == ("my_host", 4816)
    for bad, why in (("bad host:1", "has a space or control character inside"), ("a..b:1", "is not a host name"),
                     ("-игра.рф:1", r"is not a host name or IP address \(")):
        with pytest.raises(AddressError, match=why):
            parse_address(bad)


def test_addresses_worth_giving_out_global_first() -> None:
    given = worth_giving_out(["127.0.0.1", "192.168.1.20", "fe80::1", "2001:4860::8888", "::1", "8.8.4.4",
                              "fd00::5", "0.0.0.0", "192.168.1.20"], {socket.AF_INET, socket.AF_INET6})
    assert given == ["2001:4860::8888", "8.8.4.4", "fd00::5", "192.168.1.20", "::1", "127.0.0.1"]
    assert worth_giving_out(given, {socket.AF_INET}) == ["8.8.4.4", "192.168.1.20", "127.0.0.1"]


# ----- the command line around the table ---------------------------------------------


@pytest.mark.parametrize("command", [["host", "--port", "0"], ["join", "127.0.0.1:1"],
                                     ["host", "--port", "0", "--ai", "random"]])
def test_host_and_join_refuse_without_a_terminal_unless_headless(
        command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from p2ptrumps.commands.main import main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(command) == 2  # pytest's stdin is not a terminal
    err = capsys.readouterr().err
    assert err == (f"p2ptrumps {command[0]}: the table needs a terminal: stdin is not a tty (for a match "
                   "without one, add --headless, with --ai LEVEL to let the AI play)\n")
    assert not (tmp_path / "p2ptrumps").exists()  # nothing created


async def test_two_processes_sharing_one_key_get_a_hint(tmp_path: Path) -> None:
    h, g = configs(tmp_path)
    g.identity = h.identity
    got: dict[str, object] = {}

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        got["h"] = await lobby.host(h, "127.0.0.1", 0, task_status=task_status)

    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            port = await n.start(run_host)
            with pytest.raises(config.NetplayError) as info:
                await dial.join(g, f"127.0.0.1:{port}")
            n.cancel_scope.cancel()
    assert info.value.status == config.EXIT_PEER_FAULT
    assert str(info.value) == (
        "the peer broke the protocol: the peer uses our own public key [bad-key] -- both sides use one identity "
        f"key: are two p2ptrumps processes sharing one data directory ({g.data})? Give each its own with "
        "XDG_DATA_HOME=/some/other/dir")


async def test_log_is_a_directory_and_peer_names_stay_readable(tmp_path: Path) -> None:
    from datetime import datetime

    from p2ptrumps.net.logfile import check_log_free, default_log_path

    h, _ = configs(tmp_path)
    h.log_path = tmp_path
    with pytest.raises(config.NetplayError) as info:
        check_log_free(h)
    assert str(info.value) == (f"log file {tmp_path} is a directory: give the path of a new file "
                               f"(e.g. {tmp_path / 'match.p2plog'})")
    when = datetime(2026, 11, 29, 18, 5)
    assert default_log_path(tmp_path, "host", when, "Саша").name == "2026-11-29_1805_host_vs-Саша.p2plog"
    assert default_log_path(tmp_path, "host", when, "../../a b\u202e").name == "2026-11-29_1805_host_vs-a-b.p2plog"
    assert default_log_path(tmp_path, "guest", when, "...").name == "2026-11-29_1805_guest_vs-peer.p2plog"


async def test_port_zero_picks_again_when_the_picked_port_is_taken_in_the_other_family(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``host --port 0`` listens on one port in both families: when another program holds the port the IPv6
    listener picked on IPv4 (as happened in a loaded CI run), a new port is picked, never "in use"."""
    import errno

    real = trio.socket.socket
    taken: list[int] = []

    def socket_(family: int, *args: object) -> trio.socket.SocketType:
        sock = real(family, *args)  # type: ignore[arg-type]
        if family == socket.AF_INET:
            bind = sock.bind

            async def busy_bind(address: tuple[str, int]) -> None:
                if len(taken) < 2:  # the first two ports picked are held on IPv4 by "another program"
                    taken.append(address[1])
                    raise OSError(errno.EADDRINUSE, "Address already in use")
                await bind(address)

            sock.bind = busy_bind  # type: ignore[method-assign]
        return sock

    monkeypatch.setattr(trio.socket, "socket", socket_)
    listeners = await lobby.open_listeners(None, 0)
    try:
        ports = {lst.socket.getsockname()[1] for lst in listeners}
        assert len(listeners) == 2 and len(ports) == 1 and len(taken) == 2 and ports.isdisjoint(taken)
    finally:
        for lst in listeners:
            await lst.aclose()
    taken.clear()
    monkeypatch.setattr(lobby, "FREE_PORT_TRIES", 2)  # bounded: the last try says what happened
    with pytest.raises(config.NetplayError, match=r"^address 0\.0\.0\.0:\d+ is in use \(another host running\? "):
        await lobby.open_listeners(None, 0)
