"""A host that strangers cannot wedge, flood or poison: each attack attacked over 127.0.0.1,
each outcome asserted exactly.  The bounds are protocol/wire.md §17; the chat limits §9.7; what is
logged after the match, and evidence of equivocation, §12; the waiting room §7.1.

The hostile peers are real :class:`~p2ptrumps.wire.session.Session` objects played over a TCP
stream by :class:`Raw` (honest by default: the scripts of :mod:`p2ptrumps.wire.testing`), with the
tampering done by hand; the strays are :func:`p2ptrumps.net.testing.stray`.  Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from p2ptrumps import events as wev
from p2ptrumps.commands.main import build_parser
from p2ptrumps.events import MatchEvent as Event
from p2ptrumps.match import Action
from p2ptrumps.net import clock, config, dial, lobby, secure
from p2ptrumps.net.testing import STRAY_KINDS, stray
from p2ptrumps.record import PlayerInfo
from p2ptrumps.rules import Position, RuleSet
from p2ptrumps.wire import framing
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.chain import MAX_SUPERSEDED
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.log import LOG_MAGIC, read_log
from p2ptrumps.wire.referee import MAX_CHATS_PER_TURN
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import Script, Side, act, fixed_bytes, handle
from p2ptrumps.wire.verify import verify_log
from tests.conftest import load_bench

HOST_KEY = Identity.from_seed(fixed_bytes("strangers-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("strangers-test/guest"))
EVIL_KEY = Identity.from_seed(fixed_bytes("strangers-test/evil"))
RULES = RuleSet(pack_size=32, deals=1, turn_limit=120)  # random play may run a deal to 1000 turns: not tested here


#: The host's wait for an answer to its rules where a stray stalls there ("hello-stall"), and for the hello where
#: every stray says it at once: the host must drop the stalling stray by then, and the real guest -- which pins the
#: host's key and creates its log, each flushed to the disk, before it answers -- must answer within it even on a
#: loaded machine.  Strays there hold on for :data:`STRAY_HOLD_S`, far longer, so "the host dropped it" and "it
#: gave up by itself" stay apart.
STALL_AGREE_S = 5.0
STRAY_HOLD_S = 30.0



def host_trump(s: Session) -> int | None:
    """The host's trump in ``s``'s match, once chosen."""
    match = None if s.chain is None else s.chain.referee.match
    return None if match is None else match.trumps[0]

def host_cfg(tmp_path: Path, **kw: Any) -> config.NetConfig:
    cfg = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h", rules=RULES,
                            ai="random", think_s=0.01, out=io.StringIO(), timeout_s=10, hello_timeout_s=1.0,
                            reconnect_wait_s=0)
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


def guest_cfg(tmp_path: Path, **kw: Any) -> config.NetConfig:
    cfg = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path / "g", ai="random",
                            think_s=0.01, accept_new=True, out=io.StringIO(), timeout_s=10, reconnect_wait_s=0)
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


def out_of(cfg: config.NetConfig) -> str:
    assert isinstance(cfg.out, io.StringIO)
    return cfg.out.getvalue()


async def wait_for_text(cfg: config.NetConfig, text: str, count: int = 1, timeout_s: float = 10) -> None:
    with trio.fail_after(timeout_s):
        while out_of(cfg).count(text) < count:
            await trio.sleep(0.01)


#: Every test stream opened: closed after each test, whatever happened (no socket left to a later test).
_OPEN: list[trio.SocketStream] = []


@pytest.fixture(autouse=True)
def _close_streams() -> Iterator[None]:
    yield
    for stream in _OPEN:  # the test's trio run is over: close the descriptor itself
        fd = stream.socket.detach()
        if fd >= 0:
            os.close(fd)
    _OPEN.clear()


class Raw:
    """A real session over a TCP stream, played honestly by :mod:`p2ptrumps.wire.testing`'s script
    (accept the key and the rules, first free trump, fixed secrets, first legal move) until a test
    takes over.  ``side.log`` is the log this side would have written."""

    def __init__(self, stream: trio.abc.HalfCloseableStream, session: Session, label: str = "evil") -> None:
        self.stream = stream
        self.side = Side(session, Script(label))

        def hook(frame: bytes, direction: str) -> None:
            from p2ptrumps.wire.testing import LoggedFrame

            self.side.log.append(LoggedFrame(frame, direction))  # type: ignore[arg-type]

        session._outbox.on_message = hook
        hook(session.data_to_send(), "sent")  # our hello (queued at once; sent by the first flush)
        self._hello = self.side.log[-1].frame
        self.sent_hello = False
        self.unhandled: list[wev.Event] = []  # events read while not playing honestly

    @property
    def session(self) -> Session:
        return self.side.session

    async def flush(self, extra: bytes = b"") -> None:
        out = (b"" if self.sent_hello else self._hello) + self.session.data_to_send() + extra
        self.sent_hello = True
        if out:
            await self.stream.send_all(out)

    async def until(self, done: Callable[[Session], bool], honest: bool = True, max_reads: int = 20000) -> bool:
        """Read, let the script answer (if ``honest``), send, until ``done(session)`` -- checked before
        the script acts on what came; False if the peer closed first."""
        if honest:
            for ev in self.unhandled:
                handle(self.side, ev)
            self.unhandled.clear()
            if not done(self.session):
                act(self.side)
        await self.flush()
        for _ in range(max_reads):
            if done(self.session):
                return True
            data = bytes(await self.stream.receive_some(65536))
            if not data:
                return False
            self.session.receive_data(data)
            while (ev := self.session.next_event()) is not None:
                if honest:
                    handle(self.side, ev)
                else:
                    self.unhandled.append(ev)
            if honest and not done(self.session):
                act(self.side)
            await self.flush()
        raise AssertionError("the match never got there")

    async def until_closed(self, timeout_s: float = 5.0) -> None:
        """Read (and drop) what comes until the peer closes, for at most ``timeout_s`` seconds."""
        with trio.move_on_after(timeout_s), contextlib.suppress(trio.BrokenResourceError):
            while await self.stream.receive_some(65536):
                pass

    def forge(self, kind: str, items: list[Any], *, seq: int | None = None, prev: bytes | None = None,
              key: Identity | None = None) -> bytes:
        """A frame holding a message of our seat signed for ``seq``/``prev`` (default: the end of our chain)."""
        chain = self.session.chain
        assert chain is not None
        msg = m.build_signed(chain.game_id, self.session.seat, len(chain) if seq is None else seq,
                             chain.head if prev is None else prev, m.BODY_TYPES[kind].parse(items),
                             (key or self.session.identity).sign)
        return framing.frame(msg.payload)


async def open_stream(port: int) -> trio.SocketStream:
    """A connection to 127.0.0.1:``port``, closed after the test whatever happens."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    _OPEN.append(stream)
    return stream


async def connect_raw(port: int, key: Identity = EVIL_KEY, name: str = "Mallory") -> Raw:
    stream = secure.secure(await open_stream(port), key, server=False)  # the encrypted layer (wire.md §18)
    return Raw(stream, Session("guest", key, name, fixed_bytes(f"strangers-test/{name}/nonce")))


async def hosting(cfg: config.NetConfig, attack: Callable[[int], Awaitable[Any]],
                  guest: config.NetConfig | None = None, timeout_s: float = 40) -> dict[str, Any]:
    """Run the host; ``await attack(port)``; then (if given) join with ``guest``.  Returns the host's
    result or NetplayError under "h", the attack's value under "a", the guest's under "g"."""
    got: dict[str, Any] = {}

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            got["h"] = await lobby.host(cfg, "127.0.0.1", 0, task_status=task_status)
        except config.NetplayError as exc:
            got["h"] = exc

    try:
        with trio.fail_after(timeout_s):
            async with trio.open_nursery() as n:
                port = await n.start(run_host)
                got["a"] = await attack(port)
                if guest is not None:
                    try:
                        got["g"] = await dial.join(guest, f"127.0.0.1:{port}")
                    except config.NetplayError as exc:
                        got["g"] = exc
                while "h" not in got:
                    await trio.sleep(0.01)
                n.cancel_scope.cancel()
    except (Exception, BaseExceptionGroup) as exc:
        raise AssertionError(f"the host did not end as expected ({type(exc).__name__}); its output:\n"
                             + out_of(cfg)) from _one(exc)
    return got


def _one(exc: BaseException) -> BaseException:
    """The first real exception of a (nested) group: a short failure report, not a tree of them."""
    for _ in range(100):
        if not isinstance(exc, BaseExceptionGroup):
            break
        real = [e for e in exc.exceptions if not isinstance(e, trio.Cancelled)]
        exc = (real or list(exc.exceptions))[0]
    return exc.with_traceback(None) if isinstance(exc, BaseExceptionGroup) else exc


def valid_match(result: object) -> config.NetResult:
    assert isinstance(result, config.NetResult), result
    assert result.log_path is not None and result.score_halves is not None and sum(result.score_halves) == 2
    v = verify_log(result.log_path.read_bytes())
    assert (v.status, v.code) == ("valid", None), v.reason
    return result


def files_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file()) if path.exists() else []


# ----- 1. the waiting room cannot be wedged ------------------------------------------------------------


async def test_1_idle_connections_from_the_guests_address_never_evict_it(tmp_path: Path) -> None:
    """Idle connections from the real guest's address, opened after its hello and again after its
    agree: the silent ones are dropped first, the guest that signed has left the waiting room, the
    match completes and the host ends as usual."""
    cfg = host_cfg(tmp_path)
    n_idle = lobby.MAX_WAITING_CONNECTIONS + 2 * lobby.MAX_WAITING_PER_ADDRESS
    kept: list[trio.SocketStream] = []

    async def attack(port: int) -> Raw:
        raw = await connect_raw(port, GUEST_KEY, "Gus")
        assert await raw.until(lambda s: s.peer_name is not None, honest=False)  # hello said, rules not answered
        kept.extend([await open_stream(port) for _ in range(n_idle)])
        await wait_for_text(cfg, "(more dropped connections are not shown)")  # 20 notes, then quiet
        await trio.sleep(0.2)  # the last of them reach the waiting room
        assert await raw.until(lambda s: s.rules is not None)  # now it agrees: the match is its
        kept.extend([await open_stream(port) for _ in range(n_idle)])
        await raw.until(lambda s: s.finished)
        await raw.stream.send_eof()  # we are done: the host need not wait for our close
        return raw

    got = await hosting(cfg, attack)
    for s in kept:
        await s.aclose()
    valid_match(got["h"])
    assert verify_log(got["a"].side.log_bytes()).status == "valid"
    out = out_of(cfg)
    # The guest (hello said) was let in; the silent connections only replaced each other in the doorway
    # (protocol/wire.md §7.3), so the waiting room never had to drop anyone.
    assert out.count("dropped the oldest connection of the busiest network in the doorway: room for one from "
                     "127.0.0.1 (at most 8 from one network, 256 in all, say no first frame)") == lobby.MAX_DROP_NOTES
    assert "dropped the oldest waiting connection" not in out
    assert "guest 'Gus' accepted the rules" in out


async def test_1_a_claim_is_released_when_its_match_never_begins(tmp_path: Path) -> None:
    """The waiting room itself: a claimed connection leaves it (never evicted), and a claim whose
    task is cancelled is released, so the host waits again."""
    room = lobby.Lobby(host_cfg(tmp_path))
    token = object()
    room.room.add(token, "127.0.0.1/32", lobby._Waiting(trio.CancelScope(), "127.0.0.1", "127.0.0.1/32"))
    assert room.claim(token, config.NetResult(None, 0, peer_name="Gus"))
    assert (len(room.room), room.room.by_prefix, room.owner is token) == (0, {}, True)
    assert not room.claim(object(), config.NetResult(None, 0, peer_name="Other"))
    room.release(token)
    assert room.owner is None and room.claim(object(), config.NetResult(None, 0, peer_name="Other"))


# ----- 2. a stray never creates --log PATH -----------------------------------------------------------------


async def test_2_a_stray_hello_does_not_create_the_log_and_the_real_guest_plays(tmp_path: Path) -> None:
    path = tmp_path / "match.p2plog"
    cfg = host_cfg(tmp_path, log_path=path, agree_wait_s=STALL_AGREE_S, hello_timeout_s=STALL_AGREE_S)

    async def attack(port: int) -> list[str]:
        ends = [await stray(k, port, hold_s=STRAY_HOLD_S)
                for k in ("hello-leave", "hello-stall", "refuse-rules", "refuse-key")]
        await wait_for_text(cfg, "waiting for another guest", 4)
        assert not path.exists()
        return ends

    got = await hosting(cfg, attack, guest_cfg(tmp_path))
    assert got["a"] == ["closed"] * 4
    assert valid_match(got["h"]).log_path == path
    # the real guest's match only: its pinned key, and the lock of its match, let go (files.md "Resuming")
    game_id = verify_log(path.read_bytes()).game_id
    lock = f"resuming/{game_id}-host"
    assert files_under(tmp_path / "h") == ["known_peers.json", lock]
    assert (tmp_path / "h" / lock).read_bytes() == b""


# ----- 3. a finished log cannot be poisoned -------------------------------------------------------------


def _junk(raw: Raw, kind: str) -> bytes:
    if kind == "garbage":
        return framing.frame(b"\xc1")
    if kind == "oversized":
        return (1 << 20).to_bytes(4, "big")
    if kind == "out-of-turn":
        return raw.forge("trump", [2])  # signed by the guest: an out-of-turn message it would be proven by
    raise AssertionError(kind)


@pytest.mark.parametrize("junk", ["garbage", "oversized", "out-of-turn"])
async def test_3_junk_after_the_match_is_dropped_not_evidence(tmp_path: Path, junk: str) -> None:
    cfg = host_cfg(tmp_path, rules=RULES)

    async def attack(port: int) -> Raw:
        raw = await connect_raw(port)
        assert await raw.until(lambda s: s.finished)  # both match-ends signed
        await raw.flush(_junk(raw, junk))
        await raw.until_closed()  # the host closes
        return raw

    got = await hosting(cfg, attack)
    result = valid_match(got["h"])
    frames = read_log(result.log_path.read_bytes()).frames  # type: ignore[union-attr]
    assert len(frames) == len(got["a"].side.log)  # the guest's own log has exactly as many frames
    code = {"garbage": "garbage-frame", "oversized": "oversized-frame", "out-of-turn": "out-of-turn"}[junk]
    assert re.search(rf"note: Mallory sent something after the match's end \(.*\[{code}\]\): dropped, "
                     r"not logged; the match stays complete", out_of(cfg)), out_of(cfg)


async def test_3_a_host_sending_junk_after_the_match_does_not_poison_the_guests_log(tmp_path: Path) -> None:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    g = guest_cfg(tmp_path, reconnect_wait_s=60)  # junk after the end is no lost link: nothing to wait for
    got: dict[str, Any] = {}

    async def evil_host() -> None:
        tcp = await listener.accept()
        _OPEN.append(tcp)
        stream = secure.secure(tcp, EVIL_KEY, server=True)
        raw = Raw(stream, Session("host", EVIL_KEY, "Hana", fixed_bytes("evil-host/nonce"), rules=RULES), "host")
        assert await raw.until(lambda s: s.finished)
        await trio.sleep(0.3)  # the guest's ping after its match-end is answered (wire.md §14.5)
        await raw.until(lambda s: True)
        await raw.flush(framing.frame(b"\xc1") + raw.forge("rematch", []) + raw.forge("rematch", []))
        await raw.until_closed()
        got["host_log"] = raw.side.log_bytes()
        await stream.aclose()

    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            n.start_soon(evil_host)
            got["g"] = await dial.join(g, f"127.0.0.1:{port}")
    await listener.aclose()
    valid_match(got["g"])
    assert verify_log(got["host_log"]).status == "valid"


# ----- 4. chat has limits, on receipt, with a named fault ----------------------------------------------


async def test_4_a_chat_flood_is_a_named_fault_and_the_log_holds_no_more_than_the_limit(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path, rules=RuleSet(pack_size=32, deals=1))

    async def attack(port: int) -> Raw:
        raw = await connect_raw(port)
        # the guest's turn (the host waits for it): no floor message of the host can start a new turn of
        # chat (wire.md §9.7) between our ten lines and the eleventh
        assert await raw.until(lambda s: s.trumps is not None and s.waiting_for()[0] == s.seat)
        for k in range(MAX_CHATS_PER_TURN):
            raw.session.floor.chat(f"line {k}")  # the session itself allows 10 ...
        with pytest.raises(Exception, match="10 chat lines in one turn are the most"):
            raw.session.floor.chat("one more")  # ... and refuses the 11th
        await raw.flush(raw.forge("chat", ["one more"]) + framing.frame(b"\xc1") * 1000)
        await raw.until_closed()
        return raw

    got = await hosting(cfg, attack)
    err = got["h"]
    assert isinstance(err, config.NetplayError) and err.status == config.EXIT_PEER_FAULT
    assert str(err) == ("the peer broke the protocol: the guest sent a chat beyond its limits: 10 chat lines in one "
                        "turn are the most [chat-limit]")
    v = verify_log(err.result.log_path.read_bytes())  # type: ignore[attr-defined]
    assert (v.status, v.code, v.offender, v.offender_proven, v.index) == ("invalid", "chat-limit", 1, True,
                                                                          v.frames - 1)
    chats = [f for f in read_log(err.result.log_path.read_bytes()).frames  # type: ignore[attr-defined]
             if isinstance(msg := m.decode(f[4:]), m.Signed) and msg.kind == "chat"]
    assert len(chats) == MAX_CHATS_PER_TURN + 1  # the ten allowed, and the offending one as evidence


# ----- 5. hellos that never sign cost no disk ------------------------------------------------------------


async def test_5_unsigned_hellos_write_nothing_and_pin_nobody(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path, agree_wait_s=STALL_AGREE_S, hello_timeout_s=STALL_AGREE_S)  # strays say hello at once
    kinds = ["hello-leave"] * 20 + ["hello-stall"] * 5 + ["refuse-rules"] * 5 + ["refuse-key"] * 5

    async def attack(port: int) -> list[str]:
        ends: list[str] = []
        async with trio.open_nursery() as n:
            for k, kind in enumerate(kinds):
                async def one(kind: str = kind, k: int = k) -> None:
                    ends.append(await stray(kind, port, source=f"127.0.0.{2 + k % 3}", hold_s=STRAY_HOLD_S,
                                            name=f"s{k}"))
                n.start_soon(one)
        assert files_under(tmp_path / "h") == []  # nothing at all: no log, no known_peers.json
        return ends

    got = await hosting(cfg, attack, guest_cfg(tmp_path))
    assert sorted(got["a"]) == ["closed"] * len(kinds)
    valid_match(got["h"])
    logs = files_under(tmp_path / "h" / "logs")
    assert len(logs) == 1 and logs[0].endswith("_host_vs-Gus.p2plog")
    peers = (tmp_path / "h" / "known_peers.json").read_text()
    assert peers.count('"fingerprint"') == 1 and GUEST_KEY.fingerprint in peers


#: The host's note for each kind of stray (a regular expression matched against one whole line).
STRAY_NOTES = {
    "idle": r"dropped a connection from 127\.0\.0\.\d+: the connection ended before the guest's hello \(no encrypted "
            r"handshake within 3 s\); still waiting for a guest",
    "tls-junk": r"dropped a connection from 127\.0\.0\.\d+: the connection ended before the guest's hello \(not an "
                r"encrypted p2ptrumps connection: its first byte is 0x47, where TLS starts with 0x16\); still waiting "
                r"for a guest",
    "tls-stall": r"dropped a connection from 127\.0\.0\.\d+: the connection ended before the guest's hello \(no "
                 r"encrypted handshake within 3 s\); still waiting for a guest",
    "junk": r"dropped a connection from 127\.0\.0\.\d+: the peer broke the protocol: frame at stream byte 0 announces "
            r"1195725856 bytes, more than the maximum 16384 \[oversized-frame\]; still waiting for a guest",
    "oversized": r"dropped a connection from 127\.0\.0\.\d+: the peer broke the protocol: frame at stream byte 0 "
                 r"announces 1048576 bytes, more than the maximum 16384 \[oversized-frame\]; still waiting for a guest",
    "reset": r"dropped a connection that was reset at once|dropped a connection from 127\.0\.0\.\d+: the connection "
             r"ended before the guest's hello \((?!no encrypted|not an encrypted).*\); still waiting for a guest",
    "hello-leave": r"'hello-leave' left during the handshake, before accepting the rules \((the peer closed the "
                   r"connection before the match ended|the connection broke \(Connection reset by peer\))\); it may "
                   r"have refused your key; waiting for another guest \.\.\.",
    "hello-stall": rf"'hello-stall' did not answer the rules within {STALL_AGREE_S:g} s; waiting for another guest "
                   r"\.\.\.",
    "refuse-key": r"'refuse-key' left during the handshake, before accepting the rules \((the peer closed the "
                  r"connection before the match ended|the connection broke \(Connection reset by peer\))\); it may "
                  r"have refused your key; waiting for another guest \.\.\.",
    "refuse-rules": r"'refuse-rules' refused the rules; waiting for another guest \.\.\.",
    "dribble": r"dropped a connection from 127\.0\.0\.\d+: no hello from the peer: a frame of the peer did not arrive "
               r"whole within 1 s of its first byte \(\d bytes of it came\) \(not a p2ptrumps peer\?\); still waiting "
               r"for a guest",
    "ping-flood": r"dropped 'ping-flood' during the handshake, before it accepted the rules \(the peer stopped "
                  r"reading: \d+ bytes of ours wait to be sent \(more than 65536\); it floods us without "
                  r"reading\); waiting for another guest \.\.\.",
    "resume-stranger": r"dropped a connection from 127\.0\.0\.\d+: the peer broke the protocol: a resume frame outside "
                       r"a reconnection \[out-of-turn\]; still waiting for a guest",
    "garbage-after-hello": r"'garbage-after-hello': the peer broke the protocol: not a msgpack value: byte 0 is c1 "
                           r"\(never used\) \[garbage-frame\]; waiting for another guest \.\.\.",
    "ping-only": r"dropped a connection from 127\.0\.0\.\d+: no hello from the peer within 3 s \(not a p2ptrumps "
                 r"peer\?\); still waiting for a guest",
    "chat-flood": r"'chat-flood': the peer broke the protocol: guest sent chat while the match is at phase agree "
                  r"\(waiting for the guest: agree\) \[out-of-turn\]; waiting for another guest \.\.\.",
    "crossing-flood": rf"'crossing-flood': the peer flooded the connection: the guest sent more than {MAX_SUPERSEDED} "
                      r"messages in a row that crossed ours \(superseded\): it floods us \(not in the log: no log can "
                      r"show it\); waiting for another guest \.\.\.",
    "equivocate": r"'equivocate': the peer broke the protocol: the guest signed two different messages for place 0 on "
                  r"one history \(chat [0-9a-f]{16}…, after a superseded one, [0-9a-f]{16}…\) \[equivocation\]; "
                  r"waiting for another guest \.\.\.",
}


async def test_5_every_kind_of_stray_is_dropped_by_name_and_leaves_nothing(tmp_path: Path) -> None:
    """One stray of each kind at once (each from its own address), with short deadlines: the host drops
    each with a note naming why, none of them holds on (the host closes every one), nothing is written
    for them, and the real guest then plays."""
    assert set(STRAY_NOTES) == set(STRAY_KINDS)
    cfg = host_cfg(tmp_path, hello_timeout_s=3.0, agree_wait_s=STALL_AGREE_S, frame_time_s=1.0)

    async def attack(port: int) -> dict[str, str]:
        ends: dict[str, str] = {}
        async with trio.open_nursery() as n:
            for k, kind in enumerate(STRAY_KINDS):
                async def one(kind: str = kind, k: int = k) -> None:
                    ends[kind] = await stray(kind, port, source=f"127.0.0.{10 + k}", hold_s=STRAY_HOLD_S, name=kind)
                n.start_soon(one)
        assert files_under(tmp_path / "h") == []
        return ends

    got = await hosting(cfg, attack, guest_cfg(tmp_path))
    assert got["a"] == {kind: "closed" for kind in STRAY_KINDS}
    log_path = valid_match(got["h"]).log_path
    assert log_path is not None
    lines = out_of(cfg).split("waiting for a guest on port")[1].split("guest 'Gus' accepted the rules")[0]
    notes = lines.splitlines()[1:]
    matched = {kind: sum(1 for line in notes if re.fullmatch(STRAY_NOTES[kind], line)) for kind in STRAY_KINDS}
    same = {kind: list(STRAY_NOTES.values()).count(STRAY_NOTES[kind]) for kind in STRAY_KINDS}  # idle, ping-only
    assert (matched, len(notes)) == (same, len(STRAY_KINDS)), "\n".join(notes)
    files = files_under(tmp_path / "h")  # the real guest's match only: its key, its log, the lock of its match
    lock = f"resuming/{verify_log(log_path.read_bytes()).game_id}-host"
    assert len(files) == 3 and files[0] == "known_peers.json" and files[1].endswith("_host_vs-Gus.p2plog"), files
    assert files[2] == lock and (tmp_path / "h" / lock).read_bytes() == b"", files


# ----- 6. no stall without a limit ---------------------------------------------------------------------


async def test_6_a_guest_that_never_answers_the_rules_does_not_hold_the_host(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)  # the default 120 s to answer the rules: the real guest does not wait for it
    stalls: list[str] = []

    async def attack(port: int) -> None:
        async def staller() -> None:
            stalls.append(await stray("hello-stall", port, hold_s=30))
        trio.lowlevel.spawn_system_task(staller)
        await trio.sleep(0.3)

    with trio.fail_after(20):
        got = await hosting(cfg, attack, guest_cfg(tmp_path))
        while not stalls:
            await trio.sleep(0.01)
    valid_match(got["h"])
    assert stalls == ["closed"]  # closed once the real guest took the match


async def test_6_a_dribbled_frame_is_cut_off(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path, frame_time_s=1.0, move_time=0)

    async def attack(port: int) -> Raw:
        raw = await connect_raw(port)
        assert await raw.until(lambda s: s.waiting_for() == (1, "move") or s.finished)
        pos = raw.session.position
        assert pos is not None
        raw.session.floor.play(pos.legal_moves()[0])
        frame = raw.session.data_to_send()
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            for b in frame:
                await raw.stream.send_all(bytes([b]))
                await trio.sleep(0.25)
        return raw

    got = await hosting(cfg, attack)
    err = got["h"]
    assert isinstance(err, config.NetplayError) and err.status == config.EXIT_PEER_GONE
    assert re.fullmatch(r"the peer is gone: a frame of the peer did not arrive whole within 1 s of its first byte "
                        r"\(\d+ bytes of it came\); you claimed deal 1 on time \(your log keeps the signed claim\)",
                        str(err)), str(err)
    v = verify_log(err.result.log_path.read_bytes())  # type: ignore[attr-defined]
    assert (v.status, [(s, w) for s, _, w in v.claims]) == ("unfinished", [(0, [1])])


async def test_6_heartbeats_alone_do_not_hold_the_trump_choice(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "CLAIM_GRACE_S", 0.0)
    cfg = host_cfg(tmp_path, rules=RuleSet(pack_size=32, deals=3), move_time=0, no_clock_limit_s=1.0,
                   statement_wait_s=1.0)

    async def attack(port: int) -> Raw:
        raw = await connect_raw(port)
        assert await raw.until(lambda s: s.trumps is not None or host_trump(s) is not None)
        ping = framing.frame(m.Ping(1).encode())
        with trio.move_on_after(15), contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            while True:  # alive, but never chooses a trump nor signs anything
                await raw.stream.send_all(ping)
                await trio.sleep(0.5)
        return raw

    got = await hosting(cfg, attack)
    err = got["h"]
    assert isinstance(err, config.NetplayError) and err.status == config.EXIT_PEER_GONE
    assert str(err) == "the peer is gone: the peer did not sign its match-end statement within 1 s (it is due at once)"
    assert "note: Mallory's time ran out (to choose a trump): you claimed deals 1, 2, 3" in out_of(cfg)
    v = verify_log(err.result.log_path.read_bytes())  # type: ignore[attr-defined]
    assert (v.status, v.waiting, [(s, w) for s, _, w in v.claims]) == ("unfinished", (1, "match-end"),
                                                                        [(0, [1, 2, 3])])


class Stalling:
    """A player that never moves (a peer keeping the connection alive with heartbeats only)."""

    def __init__(self, name: str) -> None:
        self.info = PlayerInfo(name, "human")

    async def choose_move(self, position: Position, seat: int) -> Action:
        await trio.sleep_forever()
        raise AssertionError

    async def observe(self, event: Event) -> None:
        return None

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return False


async def test_6_without_a_move_clock_a_stalled_move_is_still_claimed(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "CLAIM_GRACE_S", 0.0)
    cfg = host_cfg(tmp_path, move_time=0, no_clock_limit_s=1.5)
    g = guest_cfg(tmp_path, hooks=config.SeatHooks(make_player=lambda cfg, seat: Stalling("Gus")), no_clock_limit_s=1.5)
    got = await hosting(cfg, lambda port: trio.sleep(0), g)
    for side in ("h", "g"):
        v = verify_log(got[side].log_path.read_bytes())
        assert (v.status, v.move_time, [(s, w) for s, _, w in v.claims]) == ("valid", 0, [(0, [1])])
    assert "note: Gus's time ran out: you claimed deal 1" in out_of(cfg)


# ----- 7. a stray that refuses the rules does not end the host --------------------------------------------


async def test_7_a_stray_refusing_the_rules_is_dropped_and_the_host_waits_on(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)

    async def attack(port: int) -> str:
        return await stray("refuse-rules", port, name="Mallory")

    got = await hosting(cfg, attack, guest_cfg(tmp_path))
    assert got["a"] == "closed"
    valid_match(got["h"])
    assert "'Mallory' refused the rules; waiting for another guest ...\n" in out_of(cfg)


async def test_7_a_guest_whose_agree_checked_out_took_the_match_even_if_it_breaks_the_protocol_at_once(
        tmp_path: Path) -> None:
    """The agree and an out-of-turn trump in one write: the session reads both before the handshake task
    runs.  The agree checked out, so the match is this guest's (wire.md §7.1): pinned, logged with the
    evidence, the host ends on the fault -- it is not shrugged off as a stray."""
    cfg = host_cfg(tmp_path)

    async def attack(port: int) -> Raw:
        raw = await connect_raw(port)
        assert await raw.until(lambda s: any(isinstance(e, wev.RulesProposed) for e in raw.unhandled), honest=False)
        raw.session.accept_key()
        raw.session.floor.accept_rules()
        await raw.flush(raw.forge("trump", [2]))  # the host chooses first: out of turn, signed
        await raw.until_closed()
        return raw

    got = await hosting(cfg, attack)
    err = got["h"]
    assert isinstance(err, config.NetplayError) and err.status == config.EXIT_PEER_FAULT
    assert str(err) == ("the peer broke the protocol: guest sent trump but the match waits for the host (trump) "
                        "[out-of-turn]")
    v = verify_log(err.result.log_path.read_bytes())  # type: ignore[attr-defined]
    assert (v.status, v.code, v.offender, v.offender_proven, v.frames) == ("invalid", "out-of-turn", 1, True, 5)
    assert "guest 'Mallory' accepted the rules" in out_of(cfg)
    assert EVIL_KEY.fingerprint in (tmp_path / "h" / "known_peers.json").read_text()


# ----- 8. equivocation is evidence, and the host's memory of crossings is bounded -------------------------


async def test_8_two_messages_for_one_superseded_place_are_logged_as_evidence(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)

    async def attack(port: int) -> Raw:
        raw = await connect_raw(port)
        assert await raw.until(lambda s: s.rules is not None)
        chain = raw.session.chain
        assert chain is not None
        a = raw.forge("chat", ["I resign"], seq=0, prev=chain.game_id)  # crosses the host's rules: superseded
        b = raw.forge("chat", ["I never said that"], seq=0, prev=chain.game_id)  # another one for that place
        await raw.flush(a + a + a + b)
        await raw.until_closed()
        return raw

    got = await hosting(cfg, attack)
    err = got["h"]
    assert isinstance(err, config.NetplayError) and err.status == config.EXIT_PEER_FAULT
    assert "[equivocation]" in str(err)
    data = err.result.log_path.read_bytes()  # type: ignore[attr-defined]
    v = verify_log(data)
    assert (v.status, v.code, v.offender, v.offender_proven, v.index) == ("invalid", "equivocation", 1, True,
                                                                          v.frames - 1)
    frames = read_log(data).frames
    texts = [m.decode(f[4:]).body.text for f in frames[-2:]]  # type: ignore[union-attr]
    assert texts == ["I resign", "I never said that"]  # the superseded one kept, once, before the offending one


async def test_8_a_flood_of_crossing_messages_is_bounded_and_not_logged(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)

    async def attack(port: int) -> Raw:
        raw = await connect_raw(port)
        assert await raw.until(lambda s: s.rules is not None)
        # The host's trump has come: the match waits for ours (the host may claim it when we are gone).
        assert await raw.until(lambda s: host_trump(s) is not None, honest=False)
        chain = raw.session.chain
        assert chain is not None
        prev, out = chain.game_id, b""
        for k in range(MAX_SUPERSEDED + 1):  # a chain of chats that all cross the host's messages
            frame = raw.forge("chat", [f"#{k}"], seq=k, prev=prev)
            prev = m.message_hash(frame[4:])
            out += frame
        await raw.flush(out)
        await raw.until_closed()
        return raw

    got = await hosting(cfg, attack)
    err = got["h"]
    assert isinstance(err, config.NetplayError) and err.status == config.EXIT_PEER_FAULT
    assert str(err) == (f"the peer flooded the connection: the guest sent more than {MAX_SUPERSEDED} messages in a "
                        "row that crossed ours (superseded): it floods us (not in the log: no log can show it); you "
                        "claimed deal 1 on time (your log keeps the signed claim)")
    v = verify_log(err.result.log_path.read_bytes())  # type: ignore[attr-defined]
    assert (v.status, v.superseded) == ("unfinished", 0)  # nothing of the flood was logged


def test_8_the_same_crossing_message_again_and_again_costs_nothing() -> None:
    from p2ptrumps.wire.testing import paused_pair

    pair = paused_pair(RULES)
    host, guest = pair.host.session, pair.guest.session
    chain = host.chain
    assert chain is not None
    msg = m.build_signed(chain.game_id, 1, 0, chain.game_id, m.ChatMsg("hi"), guest.identity.sign)
    for _ in range(1000):
        host.receive_data(framing.frame(msg.payload))
    assert host.violation is None and not host.finished
    assert len(chain._crossed.stale) == 1 and chain.superseded == 1000


# ----- 9. the AI has a rules policy ----------------------------------------------------------------------


@pytest.mark.parametrize("rules, why", [
    (RuleSet(pack_size=32, deals=1000), "1000 deals is more than --max-deals 50"),
    (RuleSet(pack_size=32, turn_limit=1_000_000), "a turn limit of 1000000 is more than --max-turn-limit 1000"),
    (RuleSet(pack_size=32, turn_limit=0), "no turn limit (this side plays with one of at most --max-turn-limit "
                                          "1000)"),
    (RuleSet(pack_size=32, repetition=0, turn_limit=500), "repetition is off (a position could repeat for ever; "
                                                          "this side plays only with it on)"),
])
async def test_9_the_ai_guest_refuses_rules_beyond_its_policy(tmp_path: Path, rules: RuleSet, why: str) -> None:
    cfg = host_cfg(tmp_path, rules=rules)
    got: dict[str, config.NetplayError] = {}

    async def run() -> None:
        async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
            await lobby.host(cfg, "127.0.0.1", 0, task_status=task_status)

        async with trio.open_nursery() as n:
            port = await n.start(run_host)
            try:
                await dial.join(guest_cfg(tmp_path), f"127.0.0.1:{port}")
            except config.NetplayError as exc:
                got["g"] = exc
            await wait_for_text(cfg, "waiting for another guest")
            n.cancel_scope.cancel()

    with trio.fail_after(20):
        await run()
    err = got["g"]
    assert (err.status, str(err)) == (config.EXIT_RULES_REFUSED, f"you refused the rules of Hana: {why}")
    assert "'Gus' refused the rules; waiting for another guest ...\n" in out_of(cfg)


def test_9_the_policy_options() -> None:
    args = build_parser().parse_args(["join", "127.0.0.1:4816", "--max-deals", "5", "--max-turn-limit", "300"])
    assert (args.max_deals, args.max_turn_limit) == (5, 300)
    args = build_parser().parse_args(["join", "127.0.0.1:4816"])
    assert (args.max_deals, args.max_turn_limit) == (config.MAX_DEALS, config.MAX_TURN_LIMIT) == (50, 1000)


# ----- 10. wording -------------------------------------------------------------------------------------


async def test_10_a_turned_away_joiner_reads_that_the_host_is_busy(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)
    held: list[Raw] = []

    async def attack(port: int) -> None:
        raw = await connect_raw(port, GUEST_KEY, "Gus")
        assert await raw.until(lambda s: s.rules is not None)  # the match is Gus's; it thinks (reads nothing)
        held.append(raw)

    got: dict[str, Any] = {}

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        with contextlib.suppress(config.NetplayError):
            await lobby.host(cfg, "127.0.0.1", 0, task_status=task_status)

    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            port = await n.start(run_host)
            await attack(port)
            other = guest_cfg(tmp_path, identity=Identity.from_seed(fixed_bytes("strangers-test/late")), name="Late",
                              data=tmp_path / "late")
            try:
                await dial.join(other, f"127.0.0.1:{port}")
            except config.NetplayError as exc:
                got["late"] = exc
            n.cancel_scope.cancel()
    for raw in held:
        await raw.stream.aclose()
    err = got["late"]
    assert err.status == config.EXIT_REFUSED
    assert str(err) == "the host is busy with another match; try again later"  # its refuse (wire.md §7.3)
    assert files_under(tmp_path / "late") == []


async def test_10_a_guest_that_agreed_and_vanished_is_not_said_to_leave_before_the_rules(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)

    async def attack(port: int) -> None:
        raw = await connect_raw(port)
        # The host's trump comes once the match is the guest's: then the guest vanishes.
        assert await raw.until(lambda s: host_trump(s) is not None, honest=True)
        await raw.stream.aclose()

    got = await hosting(cfg, attack)
    err = got["h"]
    assert isinstance(err, config.NetplayError) and err.status == config.EXIT_PEER_GONE
    assert str(err) == ("the peer is gone: the peer closed the connection before the match ended; you claimed deal 1 "
                        "on time (your log keeps the signed claim)")
    assert "before accepting the rules" not in out_of(cfg)
    v = verify_log(err.result.log_path.read_bytes())  # type: ignore[attr-defined]
    assert (v.status, [(s, w) for s, _, w in v.claims]) == ("unfinished", [(0, [1])])


def test_after_the_match_the_session_drops_junk_without_logging_it() -> None:
    """Sans-IO: in phase done a fault is dropped (an event, nothing logged), a chat is still logged."""
    from p2ptrumps.wire.testing import ConnectionPair

    pair = ConnectionPair(RULES)
    pair.run()
    host = pair.host
    assert host.session.chain is not None and host.session.chain.referee.phase == "done"
    before = len(host.log)
    pair.guest.session.floor.chat("gg")
    pair.deliver(pair.guest, host)
    assert len(host.log) == before + 1  # a chat after the match is logged
    host.session.receive_data(framing.frame(b"\xc1"))
    pair.drain(host)
    assert len(host.log) == before + 1 and host.session.violation is None
    dropped = [e for e in host.events if isinstance(e, wev.DroppedAfterEnd)]
    assert dropped == [wev.DroppedAfterEnd("garbage-frame", dropped[0].reason)]
    assert verify_log(LOG_MAGIC + b"".join(f.frame for f in host.log)).status == "valid"


# ----- the crowd: every kind of stray at once while a real guest plays (bench/net_strangers.py) ---------


BENCH = load_bench("net_strangers")


def _check_crowd(rep: Any, strays: int) -> None:
    """The match completed and verifies (each log and the pair), nothing was written for any stray, and
    every stray ended (the host closed it, or it gave up): none was refused a connection."""
    assert rep.problems == [], rep.text()
    assert (rep.exit_codes, rep.verify_codes) == ({"host": 0, "guest": 0},
                                                  {"host log": 0, "guest log": 0, "both logs": 0})
    rest = [f for f in rep.files["host"] if not f.startswith("logs/")]  # and the lock of the real match only
    assert len(rest) == 3 and rest[:2] == ["identity.key", "known_peers.json"], rest
    assert re.fullmatch(r"resuming/[0-9a-f]{64}-host", rest[2]), rest
    assert sum(sum(c.values()) for c in rep.ends.values()) == strays
    assert {how for c in rep.ends.values() for how in c} <= {"closed", "held"}
    assert set(rep.ends) == set(STRAY_KINDS)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
async def test_a_crowd_of_strays_while_a_real_guest_plays(tmp_path: Path) -> None:
    rep = await BENCH.run(tmp_path, strays=48, spread_s=0.5, hold_s=2.0, guest_after_s=0.3, deals=1, pack=32,
                          guest_ai="random", turn_limit=120)
    _check_crowd(rep, 48)


@pytest.mark.slow
@pytest.mark.timeout(400)
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
async def test_two_hundred_strays_while_a_real_guest_plays(tmp_path: Path) -> None:
    rep = await BENCH.run(tmp_path)  # the bench's defaults: 200 strays over 2 s, 8 deals
    _check_crowd(rep, 200)


def test_the_time_up_question_speaks_the_players_words() -> None:
    """The steps a clock runs for are named as players say them, never as messages."""
    from p2ptrumps.net.clock import step_words

    assert [step_words(w) for w in ("trump", "commit", "reveal", "rules", "deal-end")] == [
        "to choose a trump", "to shuffle the deal", "to shuffle the deal", "to agree the rules",
        "to sign the deal's result"]
