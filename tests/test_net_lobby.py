"""The host's waiting room against strays and floods, over 127.0.0.1 (tester's defects 1-3, 10, 11, 14).

A stray connection (junk, an immediate close, a reset, silence, a byte trickle,
a burst of connections) must never end the hosting nor keep the real guest out:
the host drops it with a note and waits on.  Guests are pinned by key, so two
people of one name can both play.  Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import io
import socket
import struct
from pathlib import Path

import trio

from p2ptrumps import events as wev
from p2ptrumps.net import config, dial, lobby, testing
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire import framing, messages
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log

HOST_KEY = Identity.from_seed(fixed_bytes("lobby-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("lobby-test/guest"))
OTHER_BOB = Identity.from_seed(fixed_bytes("lobby-test/other-bob"))


def host_cfg(tmp_path: Path, **kw: object) -> config.NetConfig:
    cfg = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h",
                            rules=RuleSet(pack_size=32, deals=1, turn_limit=120), ai="random", think_s=0.01,
                            out=io.StringIO(), timeout_s=10, hello_timeout_s=0.5)
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


def guest_cfg(tmp_path: Path, identity: Identity = GUEST_KEY, name: str = "Gus", **kw: object) -> config.NetConfig:
    cfg = config.NetConfig(role="guest", identity=identity, name=name, data=tmp_path / f"g-{name}-{identity.seed[0]}",
                            ai="random", think_s=0.01, accept_new=True, out=io.StringIO(), timeout_s=10)
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


def out_of(cfg: config.NetConfig) -> str:
    out = cfg.out
    assert isinstance(out, io.StringIO)
    return out.getvalue()


async def wait_for_text(cfg: config.NetConfig, text: str, timeout_s: float = 10) -> None:
    with trio.fail_after(timeout_s):
        while text not in out_of(cfg):
            await trio.sleep(0.01)


async def hosting(cfg: config.NetConfig, strays: object, guest: config.NetConfig | None) -> object:
    """Start the host, run ``await strays(port)``, then join with ``guest``; returns the guest's result
    (the host's result is checked to be a finished match with that guest)."""
    got: dict[str, object] = {}

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        got["h"] = await lobby.host(cfg, "127.0.0.1", 0, task_status=task_status)

    with trio.fail_after(40):
        async with trio.open_nursery() as n:
            port = await n.start(run_host)
            leftovers = await strays(port)  # type: ignore[operator]
            if guest is None:
                n.cancel_scope.cancel()
                return None
            got["g"] = await dial.join(guest, f"127.0.0.1:{port}")
            for s in leftovers or ():  # connections still open while the guest played
                await s.aclose()
    rh = got["h"]
    assert isinstance(rh, config.NetResult) and rh.score_halves is not None and sum(rh.score_halves) == 2
    assert rh.log_path is not None and verify_log(rh.log_path.read_bytes()).status == "valid"
    return got["g"]


async def test_strays_are_dropped_and_the_real_guest_plays(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)
    g = guest_cfg(tmp_path)

    async def strays(port: int) -> list[trio.abc.Stream]:
        plain = await trio.open_tcp_stream("127.0.0.1", port)  # junk below the encrypted layer
        await plain.send_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        await wait_for_text(cfg, "dropped a connection from 127.0.0.1: the connection ended before the guest's hello "
                                 "(not an encrypted p2ptrumps connection: its first byte is 0x47, where TLS starts "
                                 "with 0x16); still waiting for a guest")
        junk = await testing.encrypted(port)  # junk inside it
        await junk.send_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        await wait_for_text(cfg, "dropped a connection from 127.0.0.1: the peer broke the protocol: ")
        closer = await trio.open_tcp_stream("127.0.0.1", port)
        await closer.aclose()
        await wait_for_text(cfg, "dropped a connection from 127.0.0.1: the connection ended before the guest's hello")
        silent = await trio.open_tcp_stream("127.0.0.1", port)
        await wait_for_text(cfg, "dropped a connection from 127.0.0.1: the connection ended before the guest's hello "
                                 "(no encrypted handshake within 0.5 s); still waiting for a guest")
        trickle = await testing.encrypted(port)
        with contextlib.suppress(trio.BrokenResourceError):  # the host cuts it off
            for b in framing.frame(b"\x96" + b"\x00" * 40)[:12]:  # a frame's first bytes, one at a time
                await trickle.send_all(bytes([b]))
                await trio.sleep(0.1)
        with trio.fail_after(5):  # the trickle is cut at 0.5 s, though bytes keep coming
            while out_of(cfg).count("no hello from the peer within 0.5 s (not a p2ptrumps peer?)") < 1:
                await trio.sleep(0.01)
        burst = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(30)]  # all wait silently
        for s in (plain, junk, silent, trickle):
            await s.aclose()
        return burst

    result = await hosting(cfg, strays, g)
    assert isinstance(result, config.NetResult) and result.peer_name == "Hana"
    out = out_of(cfg)
    assert "[oversized-frame]" in out  # b"GET " read as a length prefix
    assert out.count("still waiting for a guest") >= 4
    assert "guest 'Gus' accepted the rules" in out
    # Connections dropped before a hello leave no log file: only the match's log is there.
    assert [p.name.split("_", 2)[2] for p in (tmp_path / "h" / "logs").iterdir()] == ["host_vs-Gus.p2plog"]


async def test_reset_at_once_does_not_crash_the_host(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)

    async def strays(port: int) -> None:
        for _ in range(8):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.connect(("127.0.0.1", port))
            s.close()  # RST
        await trio.sleep(0.3)

    result = await hosting(cfg, strays, guest_cfg(tmp_path))
    assert isinstance(result, config.NetResult)
    out = out_of(cfg)
    assert "Traceback" not in out
    dropped = out.count("dropped a connection that was reset at once") + out.count(
        "dropped a connection from 127.0.0.1: the connection ended before the guest's hello")
    assert dropped == 8


async def test_same_name_other_key_is_a_warning_not_a_lockout(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)

    async def nothing(port: int) -> None:
        return None

    first = await hosting(cfg, nothing, guest_cfg(tmp_path, GUEST_KEY, "bob"))
    assert isinstance(first, config.NetResult)
    assert f"guest 'bob' ({GUEST_KEY.fingerprint}), a new key (pinned)\n" in out_of(cfg)
    cfg2 = host_cfg(tmp_path)
    second = await hosting(cfg2, nothing, guest_cfg(tmp_path, OTHER_BOB, "bob"))
    assert isinstance(second, config.NetResult)
    assert (f"guest 'bob' ({OTHER_BOB.fingerprint}), a new key (pinned); WARNING: a different key than the "
            f"'bob' you played before, another person of that name? (another peer named 'bob' is pinned with key "
            f"{GUEST_KEY.fingerprint} (at 127.0.0.1); `p2ptrumps id --forget {GUEST_KEY.fingerprint}` forgets "
            "that one)\n") in out_of(cfg2)
    cfg3 = host_cfg(tmp_path)
    third = await hosting(cfg3, nothing, guest_cfg(tmp_path, GUEST_KEY, "bob"))
    assert isinstance(third, config.NetResult)
    assert f"guest 'bob' ({GUEST_KEY.fingerprint}), a known key\n" in out_of(cfg3)


async def test_existing_log_refused_before_listening_or_connecting(tmp_path: Path) -> None:
    existing = tmp_path / "taken.p2plog"
    existing.write_bytes(b"precious")
    for role in ("host", "guest"):
        cfg = host_cfg(tmp_path, log_path=existing) if role == "host" else guest_cfg(tmp_path, log_path=existing)
        with trio.fail_after(5):
            try:
                if role == "host":
                    await lobby.host(cfg, "127.0.0.1", 0)
                else:
                    await dial.join(cfg, "127.0.0.1:1")  # never reached: nothing listens there
            except config.NetplayError as exc:
                assert (exc.status, str(exc)) == (
                    config.EXIT_ERROR, f"log file {existing} exists; not overwriting it (choose another --log)")
            else:
                raise AssertionError("not refused")
        assert out_of(cfg) == "" and existing.read_bytes() == b"precious"


async def test_connection_refused_is_named(tmp_path: Path) -> None:
    lst = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = lst.socket.getsockname()[1]
    await lst.aclose()
    try:
        with trio.fail_after(10):
            await dial.join(guest_cfg(tmp_path), f"127.0.0.1:{port}")
    except config.NetplayError as exc:
        assert (exc.status, str(exc)) == (config.EXIT_CONNECT, f"cannot connect to 127.0.0.1:{port}: connection "
                                          "refused (is the host running? is the port right?)")
    else:
        raise AssertionError("connected to a closed port")


async def flooding_guest(port: int, pings: int) -> None:
    """Plays fair up to the match, then floods pings and never reads again."""
    async with await testing.encrypted(port, GUEST_KEY) as stream:
        s = Session("guest", GUEST_KEY, "Flo", fixed_bytes("lobby-test/nonce"))
        await stream.send_all(s.data_to_send())
        for _ in range(1000):
            data = bytes(await stream.receive_some(65536))
            if not data:
                return
            s.receive_data(data)
            while (ev := s.next_event()) is not None:
                if isinstance(ev, wev.PeerHello):
                    s.accept_key()
                elif isinstance(ev, wev.RulesProposed):
                    s.floor.accept_rules()
            await stream.send_all(s.data_to_send())
            if s.rules is not None:
                break
        ping = framing.frame(messages.Ping(1).encode())
        with trio.move_on_after(15), contextlib.suppress(trio.BrokenResourceError):  # until the host gives up
            for _ in range(pings // 1000):
                await stream.send_all(ping * 1000)


async def test_ping_flood_without_reading_is_named(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path, timeout_s=3, reconnect_wait_s=0)
    err: list[config.NetplayError] = []

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await lobby.host(cfg, "127.0.0.1", 0, task_status=task_status)
        except config.NetplayError as exc:
            err.append(exc)

    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            port = await n.start(run_host)
            n.start_soon(flooding_guest, port, 3_000_000)
            while not err:
                await trio.sleep(0.02)
            n.cancel_scope.cancel()
    assert err[0].status == config.EXIT_PEER_GONE
    assert str(err[0]).startswith("the peer is gone: the peer stopped reading: "), str(err[0])



async def test_a_full_waiting_room_does_not_lock_the_guest_out(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)
    n_strays = lobby.MAX_WAITING_CONNECTIONS + 6

    async def strays(port: int) -> list[trio.SocketStream]:
        silent = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(n_strays)]
        with trio.fail_after(5):  # the host has seen them all
            while out_of(cfg).count("dropped the oldest connection of the busiest network in the doorway") < min(
                n_strays - lobby.DOORWAY_SHARE, lobby.MAX_DROP_NOTES
            ):
                await trio.sleep(0.01)
        await trio.sleep(0.3)  # the rest of the connections reach the waiting room (not all are noted)
        return silent

    result = await hosting(cfg, strays, guest_cfg(tmp_path))
    assert isinstance(result, config.NetResult) and result.peer_name == "Hana"
    out = out_of(cfg)
    assert (  # silent strays only replace each other in the doorway (protocol/wire.md §7.3)
        f"dropped the oldest connection of the busiest network in the doorway: room for one from 127.0.0.1 (at most "
        f"{lobby.DOORWAY_SHARE} from one network, {lobby.MAX_DOORWAY} in all, say no first frame)" in out
    )
    assert "guest 'Gus' accepted the rules" in out

