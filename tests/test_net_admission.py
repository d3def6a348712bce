"""Admission (protocol/wire.md §7.3): the join ticket, an expected guest key, the
refusals a guest reads, room shared by network prefix; and nothing pinned by a guest for a
host that never signed."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
import trio

from p2ptrumps.commands.main import build_parser
from p2ptrumps.net import admission, config, dial, secure
from p2ptrumps.net.admission import FairRoom, TicketError, network_prefix, parse_ticket, split_ticket, ticket_text
from p2ptrumps.net.commands import _host_ticket
from p2ptrumps.wire import framing
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import fixed_bytes
from tests.test_net_strangers import (
    EVIL_KEY,
    GUEST_KEY,
    HOST_KEY,
    RULES,
    files_under,
    guest_cfg,
    host_cfg,
    hosting,
    out_of,
    valid_match,
)

TICKET = b"abcdefghij"


def test_ticket_text_round_trips_and_bad_text_is_one_line() -> None:
    assert ticket_text(TICKET) == "mfrg-gzdf-mztw-q2lk"
    assert parse_ticket("MFRG gzdf-MZTW-q2lk") == TICKET
    assert split_ticket("[::1]:4816/mfrg-gzdf-mztw-q2lk") == ("[::1]:4816", TICKET)
    assert split_ticket("127.0.0.1:4816") == ("127.0.0.1:4816", None)
    with pytest.raises(TicketError) as err:
        parse_ticket("mfrg-1111")
    assert str(err.value) == ("the join ticket 'mfrg-1111' has '1', which no ticket has: a ticket is letters a-z and "
                              "digits 2-7 in groups of four, as the host shows it, e.g. mfrg-gzdf-mztw-q2lk")
    with pytest.raises(TicketError, match=r"^the join ticket 'mfrg-gzdf' has 8 characters; a ticket has 13 to 52 "):
        parse_ticket("mfrg-gzdf")
    assert len(admission.new_ticket()) == admission.TICKET_BYTES == 10


def test_network_prefix_counts_ipv6_by_64_and_ipv4_by_the_set_length() -> None:
    assert network_prefix("2001:db8:1:2:3:4:5:6") == network_prefix("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
    assert network_prefix("fe80::1%eth0") == "fe80::/64"
    assert network_prefix("192.0.2.7") == "192.0.2.7/32"
    assert network_prefix("::ffff:192.0.2.7", 24) == network_prefix("192.0.2.200", 24) == "192.0.2.0/24"
    assert network_prefix("memory") == "memory"


def test_a_full_room_replaces_the_oldest_of_the_busiest_network_never_another() -> None:
    room: FairRoom[str, int] = FairRoom(cap=4, share=2)
    for key, prefix in [("g", "guest"), ("a1", "crowd"), ("a2", "crowd")]:
        assert room.make_room(prefix) == []
        room.add(key, prefix, len(room))
    assert room.make_room("crowd") == [("a1", 1)]  # its own share is full: its own oldest goes
    room.add("a3", "crowd", 3)
    room.add("b1", "other", 4)
    assert len(room) == 4
    assert room.make_room("third") == [("a2", 2)]  # full: the busiest network (crowd: 2) gives up its oldest
    room.add("c1", "third", 5)
    assert room.count("guest") == 1 and room.remove("g", "guest") == 0 and room.remove("g", "guest") is None
    assert sorted(room.values()) == [3, 4, 5]


def test_in_a_ranked_room_a_member_that_sent_nothing_goes_before_one_that_did() -> None:
    """wire.md §7.3: in the doorway a connection that has sent nothing yet (rank 0) is replaced
    before one that has (rank 1), oldest first within a rank -- an idle crowd on the guest's own address
    cannot push out the guest's connection, which starts its handshake at once."""
    heard: dict[str, bool] = {}
    room: FairRoom[str, str] = FairRoom(cap=6, share=3, rank=lambda key: int(heard[key]))
    for key, sent in [("guest", True), ("idle1", False), ("idle2", False)]:
        heard[key] = sent
        assert room.make_room("nat") == []
        room.add(key, "nat", key)
    assert room.make_room("nat") == [("idle1", "idle1")]  # not the guest, though it is the oldest
    heard["idle3"] = False
    room.add("idle3", "nat", "idle3")
    assert room.make_room("nat") == [("idle2", "idle2")]
    heard["talker"] = True
    room.add("talker", "nat", "talker")
    assert room.make_room("nat") == [("idle3", "idle3")]
    heard["late"] = True
    room.add("late", "nat", "late")
    assert room.make_room("nat") == [("guest", "guest")]  # all sent something: the oldest goes, as before


def test_the_cli_host_draws_a_ticket_unless_open_or_an_ai() -> None:
    parser = build_parser()
    assert len(_host_ticket(parser.parse_args(["host"])) or b"") == 10
    assert _host_ticket(parser.parse_args(["host", "--open"])) is None
    assert _host_ticket(parser.parse_args(["host", "--ai", "random"])) is None
    assert _host_ticket(parser.parse_args(["host", "--ticket", "mfrg-gzdf-mztw-q2lk"])) == TICKET
    assert parser.parse_args(["host", "--ipv4-prefix", "24"]).ipv4_prefix == 24
    assert parser.parse_args(["join", "127.0.0.1:4816/mfrg-gzdf-mztw-q2lk"]).address == (
        "127.0.0.1:4816/mfrg-gzdf-mztw-q2lk")


async def _join(port: int, cfg: config.NetConfig, suffix: str = "") -> Any:
    try:
        return await dial.join(cfg, f"127.0.0.1:{port}{suffix}")
    except config.NetplayError as exc:
        return exc


async def test_a_ticket_host_refuses_joiners_without_it_by_name_and_plays_the_holder(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path, ticket=TICKET)
    refused: list[Any] = []

    async def attack(port: int) -> Any:
        refused.append(await _join(port, guest_cfg(tmp_path, data=tmp_path / "none", name="NoTicket")))
        refused.append(await _join(port, guest_cfg(tmp_path, data=tmp_path / "wrong", name="Wrong"),
                                   "/" + ticket_text(b"jihgfedcba")))
        return await _join(port, guest_cfg(tmp_path), "/" + ticket_text(TICKET))

    got = await hosting(cfg, attack)
    valid_match(got["h"])
    assert isinstance(got["a"], config.NetResult)
    for err in refused:
        assert isinstance(err, config.NetplayError) and err.status == config.EXIT_REFUSED
        assert str(err) == ("the host admits only guests with its join ticket, and refused ours (none, or a wrong "
                            "one): use the whole HOST:PORT/TICKET it shows")
    assert files_under(tmp_path / "none") == files_under(tmp_path / "wrong") == []  # nothing written
    out = out_of(cfg)
    assert out.count("refused a connection from 127.0.0.1: no join ticket, or a wrong one") == 2
    assert out.split("Tell your opponent: p2ptrumps join ", 1)[1].splitlines()[:2] == [
        "127.0.0.1:" + out.split("waiting for a guest on port ", 1)[1].split()[0] + "/mfrg-gzdf-mztw-q2lk",
        "(the part after / is the join ticket: without it the host admits nobody)"]


def _holder(tmp_path: Path) -> Any:
    async def attack(port: int) -> Any:
        return await _join(port, guest_cfg(tmp_path), "/" + ticket_text(TICKET))
    return attack


async def test_an_expected_guest_key_is_the_only_one_let_in(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path, guest_key=GUEST_KEY.public_bytes)
    refused: list[Any] = []

    async def attack(port: int) -> Any:
        refused.append(await _join(port, guest_cfg(tmp_path, identity=EVIL_KEY, data=tmp_path / "evil", name="Eve")))
        return await _join(port, guest_cfg(tmp_path))

    got = await hosting(cfg, attack)
    valid_match(got["h"])
    assert str(refused[0]) == "the host expects another guest (it admits one key only, and yours is not it)"
    assert files_under(tmp_path / "evil") == []
    assert "refused 'Eve' from 127.0.0.1: not the guest key expected" in out_of(cfg)


async def test_an_open_host_reads_past_a_ticket(tmp_path: Path) -> None:
    got = await hosting(host_cfg(tmp_path), _holder(tmp_path))  # open: the guest brings a ticket anyway
    valid_match(got["h"])


async def test_a_guest_pins_nothing_for_a_host_that_only_says_hello(tmp_path: Path) -> None:
    """protocol/wire.md §7.1, §17: the guest decides on the host's key at its hello (here: --accept-new)
    but writes ``known_peers.json`` only once the host has signed its rules."""
    async def fake_host(tcp: trio.SocketStream) -> None:
        stream = secure.secure(tcp, HOST_KEY, server=True)  # the encrypted layer (wire.md §18)
        s = Session("host", HOST_KEY, "Hana", fixed_bytes("admission/nonce"), rules=RULES)
        await stream.receive_some(4096)  # the guest's hello
        await stream.send_all(s.data_to_send())  # our hello, and never the signed rules
        await trio.sleep(2)
        await stream.aclose()

    g = guest_cfg(tmp_path, hello_timeout_s=0.5)
    async with trio.open_nursery() as n:
        listeners = await n.start(functools.partial(trio.serve_tcp, fake_host, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        err = await _join(port, g)
        n.cancel_scope.cancel()
    assert isinstance(err, config.NetplayError)
    assert str(err) == "'Hana' proposed no rules within 0.5 s"
    assert files_under(tmp_path / "g") == []


async def test_a_refuse_is_read_only_before_the_hosts_hello() -> None:
    """A refuse after the hellos is malformed (wire.md §7.3), and the host's session reads past a ticket."""
    host = Session("host", HOST_KEY, "Hana", fixed_bytes("admission/h"), rules=RULES)
    host.receive_data(framing.frame(m.Ticket(TICKET).encode()))
    assert host.violation is None and host.next_event() is None
    guest = Session("guest", GUEST_KEY, "Gus", fixed_bytes("admission/g"))
    guest.receive_data(host.data_to_send())
    guest.receive_data(framing.frame(m.Refuse("busy").encode()))
    assert guest.violation is not None and (guest.violation.code, guest.violation.reason) == (
        "malformed", "a refuse frame after the hellos, or from the wrong side (wire.md §7.3)")
