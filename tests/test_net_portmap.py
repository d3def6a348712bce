"""Port mapping and paths (p2ptrumps/net/portmap.py): the parts that need no router."""

from __future__ import annotations

import pytest

from p2ptrumps.net import portmap
from p2ptrumps.net.portmap import Mapped, Pinhole, Reach, describe_path, is_public, mapping_wanted, order_given


def test_reserved_addresses_are_not_public() -> None:
    assert [is_public(a) for a in ("11.47.1.1", "100.64.3.2", "192.168.1.1", "10.0.0.1", "172.16.0.1",
                                    "203.0.113.5", "198.51.100.1", "127.0.0.1", "", "nonsense",
                                    "2a0b:bd40:6::2", "fd00::1", "fe80::1", "2001:db8::1", "::1")] == [
        True, False, False, False, False, False, False, False, False, False, True, False, False, False, False]


@pytest.mark.parametrize("bind, enabled, env, wanted", [
    (None, True, "", True), (None, False, "", False), (None, True, "1", False), (None, True, "0", True),
    ("127.0.0.1", True, "", False), ("[::1]", True, "", False), ("::1", True, "", False),
    ("localhost", True, "", False), ("192.168.1.2", True, "", True), ("myhost", True, "", True),
])
def test_mapping_is_asked_only_when_wanted(monkeypatch: pytest.MonkeyPatch, bind: str | None, enabled: bool,
                                           env: str, wanted: bool) -> None:
    monkeypatch.setenv(portmap.NO_MAP_ENV, env)
    assert mapping_wanted(bind, enabled) is wanted


@pytest.mark.parametrize("local, peer, mapped, path", [
    ("2a0b:bd40:6::2", "2a0b:bd40::2:10", False, "direct over IPv6"),
    ("2a0b:bd40:6::2", "2a0b:bd40:6::3", True, "on your local network"),  # one /64: the host's own home
    ("192.168.1.2", "11.47.3.1", True, "through your router's port mapping"),
    ("::ffff:192.168.1.2", "::ffff:11.47.3.1", True, "through your router's port mapping"),
    ("192.168.1.2", "192.168.1.7", True, "on your local network"),
    ("192.168.1.2", "11.47.3.1", False, "direct over the internet (IPv4)"),
    ("11.47.0.10", "11.47.3.1", False, "direct over the internet (IPv4)"),
    ("127.0.0.1", "127.0.0.1", False, "on this machine"),
    ("::1", "::1", True, "on this machine"),
    ("bogus", "11.47.3.1", False, "direct"),
])
def test_the_path_is_said_in_words(local: str, peer: str, mapped: bool, path: str) -> None:
    assert describe_path(local, peer, mapped=mapped) == path


def test_addresses_are_given_in_order_of_use() -> None:
    mapped = Reach(case="mapped", mapped=Mapped("UPnP-IGD v2", "11.47.6.1", 4816, "192.168.6.2", 4816, 3600))
    given = ["[2a0b:bd40:6::2]:4816", "192.168.6.2:4816", "[::1]:4816", "127.0.0.1:4816"]
    assert order_given(given, mapped) == ["[2a0b:bd40:6::2]:4816", "11.47.6.1:4816", "192.168.6.2:4816",
                                          "[::1]:4816", "127.0.0.1:4816"]
    assert order_given(given, Reach(case="double-nat")) == given
    assert order_given(["11.47.0.10:4816", "[::1]:4816"], Reach(case="public")) == ["11.47.0.10:4816", "[::1]:4816"]


def test_what_the_host_says_of_its_router() -> None:
    assert Reach(case="off").lines() == []
    reach = Reach(case="mapped", note="your router (UPnP-IGD v2) forwards 11.47.6.1:4816 to this machine",
                  pinhole=Pinhole("2a0b:bd40:6::2", 4816, 3600, 1), port=4816)
    assert reach.lines() == [
        "port mapping: your router (UPnP-IGD v2) forwards 11.47.6.1:4816 to this machine",
        "IPv6: your router's firewall lets guests reach [2a0b:bd40:6::2]:4816 (a pinhole, renewed while hosting, "
        "removed when you stop)"]
    v6 = Reach(case="no-service", note="n", unopened_v6="2a0b:bd40:5::2", port=4816)
    assert v6.lines() == ["port mapping: n", "IPv6: your router offered no pinhole; if its firewall drops inbound "
                          "connections (most do), allow TCP to [2a0b:bd40:5::2] port 4816 there"]


def test_a_guest_that_reached_nothing_is_told_what_next() -> None:
    assert portmap.next_step(["192.168.2.2"]).startswith("that is a local-network address")
    assert portmap.next_step(["11.47.2.1"]).startswith("no answer: the host's router or firewall drops")
    # A guest with no IPv6 route given an IPv6 address: its own network is the reason, not the host's router.
    assert portmap.next_step(["2a0b:bd40:5::2"], ["network unreachable"]) == (
        "no IPv6 route from here to the host: ask it for an IPv4 address, or to host with --code")
    assert portmap.next_step(["2a0b:bd40:5::2"], ["no answer in 3 s"]).startswith("no answer: the host's router")


async def test_nothing_is_asked_when_not_wanted() -> None:
    async with portmap.port_mapping(4816, ["192.168.1.2"], wanted=False) as reach:
        assert (reach.case, reach.mapped, reach.pinhole, reach.lines()) == ("off", None, None, [])


def test_no_map_on_the_command_line(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    from p2ptrumps.commands.main import build_parser
    from p2ptrumps.net import commands

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    parser = build_parser()
    on = commands._config(parser.parse_args(["host", "--headless"]), "host")
    off = commands._config(parser.parse_args(["host", "--headless", "--no-map"]), "host")
    guest = commands._config(parser.parse_args(["join", "127.0.0.1:1", "--headless"]), "guest")
    assert (on.port_map, off.port_map, guest.port_map) == (True, False, False)
    assert parser.parse_args(["resume", "--no-map"]).no_map is True


def test_the_host_tells_one_address_and_says_when_none_reaches_another_home() -> None:
    mapped = Reach(case="mapped", mapped=portmap.Mapped("UPnP-IGD v2", "11.47.2.1", 4816, "192.168.2.2", 4816, 600),
                   port=4816)
    given = portmap.order_given(["192.168.2.2:4816", "[::1]:4816", "127.0.0.1:4816"], mapped)
    assert portmap.tell_lines(given, mapped, "/abcd-efgh-ijkl-mnop") == [
        "Tell your opponent: p2ptrumps join 11.47.2.1:4816/abcd-efgh-ijkl-mnop",
        "(a guest in your home: 192.168.2.2:4816/abcd-efgh-ijkl-mnop; the part after / is the join ticket: "
        "without it the host admits nobody)"]
    # A plain NAT, carrier-grade NAT, an IPv6 firewall without a pinhole: no address reaches another home.
    code = ("a guest in another home cannot reach these addresses (see above): meet by code instead, "
            "p2ptrumps host --code")
    for reach, given in ((Reach(case="no-service", port=4816), ["192.168.3.2:4816", "127.0.0.1:4816"]),
                         (Reach(case="double-nat", port=4816), ["192.168.4.2:4816"]),
                         (Reach(case="no-service", unopened_v6="2a0b:bd40:5::2", port=4816),
                          ["[2a0b:bd40:5::2]:4816", "192.168.5.2:4816"])):
        lines = portmap.tell_lines(portmap.order_given(given, reach), reach)
        assert lines[0] == f"Tell your opponent: p2ptrumps join {given[0]}"
        assert lines[-1] == code
    # A pinhole, or a public address of its own: reachable, nothing more to say; loopback alone when only it.
    pin = Reach(case="no-service", pinhole=Pinhole("2a0b:bd40:6::2", 4816, 600, 1), port=4816)
    assert portmap.tell_lines(["[2a0b:bd40:6::2]:4816", "11.47.6.1:4816", "192.168.6.2:4816"], pin) == [
        "Tell your opponent: p2ptrumps join [2a0b:bd40:6::2]:4816",
        "(or: 11.47.6.1:4816; a guest in your home: 192.168.6.2:4816)"]
    assert portmap.tell_lines(["[::1]:4816", "127.0.0.1:4816"], Reach(case="off")) == [
        "Tell your opponent: p2ptrumps join [::1]:4816", "(or: 127.0.0.1:4816)"]
