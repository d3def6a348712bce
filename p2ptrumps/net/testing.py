"""For tests and benchmarks only (loopback; nothing here is used by a match):

* :class:`CuttingProxy` -- a TCP proxy for reconnecting (protocol/wire.md §14): it forwards
  127.0.0.1 connections to a port and can cut every open connection (a reset) or freeze them (a
  black hole: both ends stay open and silent);
* :func:`rendezvous_servers` -- a real magic-wormhole mailbox server and transit relay (``twistd
  wormhole-mailbox``, ``twistd transitrelay``) on loopback ports, for meeting by code
  (protocol/rendezvous.md) without the public ones;
* :func:`encrypted` -- a connection through the encrypted layer with a key of one's own;
* :func:`stray` -- one stranger's connection to a host doing one of :data:`STRAY_KINDS`: the
  attacks on a host that need no seat (junk, silence, a trickle, heartbeats only, hellos with
  random keys that never agree, refusing the key or the rules, ping floods, signed messages out of
  turn, a run of crossing messages, two messages for one place, a stranger's resume).  Whatever the
  stray does, the host must shrug it off, write nothing for it and stay within the bounds of
  protocol/wire.md §17.  (The attacks that need the seat -- chat beyond its limits, junk after the
  match, equivocation in the match -- are the match's guest's: ``tests/test_net_strangers.py``.)
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import trio

from .. import events as wev
from ..wire import framing, messages
from ..wire.identity import Identity
from ..wire.session import Session
from ..wire.testing import answer_due
from .secure import SecureStream, secure


def peer_command(*args: str) -> list[str]:
    """The argv of a ``p2ptrumps`` process run by this Python (``peer_command("host", "--headless")``)."""
    return [sys.executable, "-m", "p2ptrumps", *args]


def peer_env(home: Path) -> dict[str, str]:
    """The environment of such a process: its own data directory ``home`` (``XDG_DATA_HOME``), output
    unbuffered so that a watcher sees each line as it is printed."""
    return {**os.environ, "XDG_DATA_HOME": str(home), "PYTHONUNBUFFERED": "1"}


#: What a stray may do (:func:`stray`), one word each.
STRAY_KINDS = (
    "idle",  # connect and say nothing (not even the encrypted handshake)
    "junk",  # an HTTP request inside the encrypted connection
    "oversized",  # a length prefix of 1 MiB
    "reset",  # connect and reset at once
    "hello-leave",  # a valid hello with a random key, then close
    "hello-stall",  # a valid hello, then heartbeats only: the rules never answered
    "refuse-key",  # a valid hello, read the host's, close (as a guest that refused the host's key)
    "refuse-rules",  # a valid hello, then refuse the rules, signed
    "dribble",  # a hello frame, one byte at a time (frame completion)
    "ping-flood",  # a valid hello, then pings without reading the pongs
    "resume-stranger",  # a resume for a made-up game, and a proof that proves nothing
    "garbage-after-hello",  # a valid hello, then a frame that does not decode
    "ping-only",  # heartbeats and nothing else: no hello ever
    "chat-flood",  # a valid hello, then a thousand signed chats before agreeing (out of turn)
    "crossing-flood",  # a valid hello, then signed chats that all cross the host's messages
    "equivocate",  # a valid hello, then two different signed chats for one superseded place
    "tls-junk",  # an HTTP request instead of the encrypted handshake (as "junk" did before it)
    "tls-stall",  # half a TLS ClientHello, then silence (the handshake's deadline, wire.md §18.4)
)
#: The strays that stay below the encrypted layer (plain TCP); the others complete the handshake first.
RAW_STRAYS = ("idle", "reset", "tls-junk", "tls-stall")


class CuttingProxy:
    """Forwards connections to 127.0.0.1:``port`` (``target_port``) on to the host.

    ``await nursery.start(proxy.serve)`` listens on a free loopback port (``proxy.port``);
    :meth:`cut` closes every open connection, :meth:`freeze` stops forwarding on them (each end
    then sees silence), :meth:`strand` ends them for the dialling side only.  ``connections`` counts
    connections taken, ``bytes`` bytes forwarded.
    """

    def __init__(self, target_port: int, *, record: bool = False) -> None:
        self.target_port = target_port
        #: Every byte forwarded, both ways, when ``record`` (a passive observer's view).
        self.recorded: bytearray | None = bytearray() if record else None
        self.scopes: list[trio.CancelScope] = []
        self.port = 0
        self.connections = 0
        self.bytes = 0
        self.frozen: set[int] = set()
        self._downs: dict[int, trio.SocketStream] = {}  # the dialling side of each open connection, by scope

    async def serve(self, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        self.port = listener.socket.getsockname()[1]
        task_status.started(self.port)
        try:
            async with trio.open_nursery() as n:
                while True:
                    down = await listener.accept()
                    self.connections += 1
                    n.start_soon(self._pair, down)
        finally:
            await trio.aclose_forcefully(listener)

    async def _pair(self, down: trio.SocketStream) -> None:
        try:
            up = await trio.open_tcp_stream("127.0.0.1", self.target_port)
        except OSError:
            await down.aclose()
            return
        try:
            await self._forward(down, up)
        finally:
            for s in (down, up):
                s.socket.close()  # at once: a checkpoint here could stop at the first, cancelled

    async def _forward(self, down: trio.SocketStream, up: trio.SocketStream) -> None:
        with trio.CancelScope() as scope:
            self.scopes.append(scope)
            self._downs[id(scope)] = down

            async def pipe(a: trio.SocketStream, b: trio.SocketStream) -> None:
                while data := await a.receive_some(65536):
                    if id(scope) in self.frozen:
                        await trio.sleep_forever()  # swallow it, keep both ends open
                    self.bytes += len(data)
                    if self.recorded is not None:
                        self.recorded += data
                    await b.send_all(data)

            try:
                async with trio.open_nursery() as n:
                    n.start_soon(pipe, down, up)
                    n.start_soon(pipe, up, down)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError, ExceptionGroup):
                pass
            finally:
                self._downs.pop(id(scope), None)

    def cut(self) -> None:
        for scope in self.scopes:
            scope.cancel()
        self.scopes.clear()

    def freeze(self) -> None:
        """Stop forwarding on every open connection but keep them open (a black hole: each side's
        link looks alive until its own timeout)."""
        self.frozen.update(id(s) for s in self.scopes)
        self.scopes.clear()

    def strand(self) -> None:
        """End every open connection for the side that dialled the proxy (it reads the end of the
        stream at once) while the far side's stays open and silent (a change of network: the
        listener's link looks alive until its own timeout)."""
        for scope in self.scopes:
            self.frozen.add(id(scope))  # nothing more is forwarded either way
            down = self._downs.get(id(scope))
            if down is not None:
                with contextlib.suppress(OSError):
                    down.socket.shutdown(socket.SHUT_RDWR)
        self.scopes.clear()


async def scripted_peer(stream: trio.abc.Stream, s: Session, act: Callable[[Session], None], *,
                        secret: Callable[[int], bytes] | None = None,
                        receive: Callable[[], Awaitable[bytes | None]] | None = None,
                        before: Callable[[bytes], Awaitable[None]] | None = None,
                        frame_by_frame: bool = False, reads: int = 10_000) -> None:
    """Play ``s`` over ``stream`` as a scripted peer (a modified client, in tests): send its hello,
    then for each read (at most ``reads``) feed the bytes to ``s``, answer its events
    (:func:`~p2ptrumps.wire.testing.answer_due`, with ``secret(deal)`` as the commit secrets; without
    ``secret`` ``act`` reads the events itself), call ``act(s)`` and send what ``s`` has to send; until
    the match is finished or the stream ends, then close the stream.

    Args:
        receive: how to read (default ``stream.receive_some(65536)``); it may return None: nothing
            read this time (it acted on its own, e.g. a claim when a wait ran out), go on.
        before: called with the bytes just read, before ``s`` reads them (to act as they cross).
        frame_by_frame: feed the whole frames read one at a time, ``act`` after each (so that an
            action can fall between two frames of one read); a partial frame waits for the next read.

    Raises:
        AssertionError: ``s`` saw a protocol violation (see ``answer_due``).
    """
    await stream.send_all(s.data_to_send())
    rest = b""
    for _ in range(reads):
        if s.finished:
            break
        data = await (receive() if receive is not None else stream.receive_some(65536))
        if data is None:
            await stream.send_all(s.data_to_send())
            continue
        if not data:
            break
        if before is not None:
            await before(bytes(data))
        chunks = [bytes(data)]
        if frame_by_frame:
            chunks, rest = _whole_frames(rest + bytes(data))
        for chunk in chunks:
            s.receive_data(chunk)
            if secret is not None:
                answer_due(s, secret)
            act(s)
            if s.finished:
                break
        await stream.send_all(s.data_to_send())
    await stream.aclose()


def _whole_frames(data: bytes) -> tuple[list[bytes], bytes]:
    """The whole frames at the start of ``data`` (length prefixes kept) and the rest."""
    out = []
    while len(data) >= framing.HEADER_BYTES and len(data) >= framing.HEADER_BYTES + int.from_bytes(
            data[:framing.HEADER_BYTES], "big"):
        n = framing.HEADER_BYTES + int.from_bytes(data[:framing.HEADER_BYTES], "big")
        out.append(data[:n])
        data = data[n:]
    return out, data


async def encrypted(port: int, me: Identity | None = None, *, host: str = "127.0.0.1",
                    server: bool = False) -> SecureStream:
    """A connection to ``host``:``port`` through the encrypted layer (protocol/wire.md §18) as a guest
    (or a host, ``server``) with the key ``me`` (None: a fresh random key), its handshake done:
    a stranger that gets past the TLS handshake, to test what the frames inside it do.

    Raises ``OSError`` (no connection) or :class:`~p2ptrumps.net.secure.SecureError`."""
    stream = secure(await trio.open_tcp_stream(host, port), me or Identity.from_seed(os.urandom(32)), server=server)
    try:
        await stream.handshake()
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    return stream


async def stray(kind: str, port: int, *, host: str = "127.0.0.1", source: str | None = None,
                hold_s: float = 3.0, name: str = "stray") -> str:
    """One stranger's connection to ``host``:``port`` (from the local address ``source``, e.g.
    ``127.0.0.7``; None: any) doing ``kind`` (one of :data:`STRAY_KINDS`) for at most ``hold_s``
    seconds (every wait bounded).  Returns how it ended: ``"closed"`` (the host closed it),
    ``"held"`` (it gave up after ``hold_s``), ``"refused"`` (the connection could not be made).
    Each call uses a fresh random key and nonce: nothing it sends is signed by anyone the host knows.
    """
    if kind not in STRAY_KINDS:
        raise ValueError(f"unknown stray kind {kind!r}")
    try:
        stream = await trio.open_tcp_stream(host, port, local_address=source)
    except OSError:
        return "refused"
    me = Identity.from_seed(os.urandom(32))
    # Every stray but the TCP-level ones speaks the encrypted layer with its own key (wire.md §18),
    # so that what it does next reaches the host's frames.
    inner: trio.abc.Stream = stream if kind in RAW_STRAYS else secure(stream, me, server=False)
    try:
        with trio.move_on_after(hold_s):
            await _STRAYS[kind](inner, hold_s, name, me)
            return "closed"
        return "held"
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        return "closed"
    finally:
        with contextlib.suppress(Exception):
            if kind == "reset":
                stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            stream.socket.close()


def _session(name: str, me: Identity) -> Session:
    return Session("guest", me, name, os.urandom(32))


async def _until_closed(stream: trio.abc.Stream) -> None:
    """Read (and drop) until the host closes the connection."""
    while await stream.receive_some(65536):
        pass


async def _idle(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    await _until_closed(stream)


async def _junk(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    await stream.send_all(b"GET / HTTP/1.1\r\nHost: p2ptrumps\r\n\r\n")
    await _until_closed(stream)


async def _oversized(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    await stream.send_all((1 << 20).to_bytes(4, "big") + b"x" * 64)
    await _until_closed(stream)


async def _reset(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    return None


async def _hello_leave(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    await stream.send_all(_session(name, me).data_to_send())


async def _hello_stall(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    await stream.send_all(_session(name, me).data_to_send())
    ping = framing.frame(messages.Ping(1).encode())
    beat_at = trio.current_time() + 1.0
    for _ in range(1_000_000):  # a heartbeat a second, reading (and dropping) what comes, until closed
        with trio.move_on_at(beat_at):
            if not await stream.receive_some(65536):
                return
        if trio.current_time() >= beat_at:
            await stream.send_all(ping)
            beat_at += 1.0


async def _refuse_key(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    s = _session(name, me)
    await stream.send_all(s.data_to_send())
    while s.peer_name is None:
        data = bytes(await stream.receive_some(65536))
        if not data:
            return
        s.receive_data(data)


async def _refuse_rules(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    s = _session(name, me)
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
                s.floor.refuse_rules()
        await stream.send_all(s.data_to_send())
        if s.finished:
            await _until_closed(stream)
            return


async def _dribble(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    for b in _session(name, me).data_to_send():
        await stream.send_all(bytes([b]))
        await trio.sleep(0.5)


async def _ping_flood(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    await stream.send_all(_session(name, me).data_to_send())
    pings = framing.frame(messages.Ping(7).encode()) * 4096
    for _ in range(100_000):  # never reads: the host's pongs pile up until it gives up on us
        await stream.send_all(pings)


async def _resume_stranger(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    resume = messages.Resume(messages.VERSION, 1, os.urandom(32), os.urandom(32))
    await stream.send_all(framing.frame(resume.encode())
                          + framing.frame(messages.Proof(0, os.urandom(64)).encode()))
    await _until_closed(stream)


async def _garbage_after_hello(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    await stream.send_all(_session(name, me).data_to_send() + framing.frame(b"\xc1\xc1"))
    await _until_closed(stream)


async def _ping_only(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    ping = framing.frame(messages.Ping(3).encode())
    for _ in range(1_000_000):  # two a second, reading (and dropping) what comes, until closed
        await stream.send_all(ping)
        with trio.move_on_after(0.5):
            while await stream.receive_some(65536):
                pass
            return


async def _proposed(stream: trio.abc.Stream, name: str, me: Identity) -> Session | None:
    """Say hello with a fresh key and read until the host's ``rules`` proposal is in our chain (the
    key and the rules not answered); None if the host closed first."""
    s = _session(name, me)
    await stream.send_all(s.data_to_send())
    for _ in range(1000):
        data = bytes(await stream.receive_some(65536))
        if not data:
            return None
        s.receive_data(data)
        while (ev := s.next_event()) is not None:
            if isinstance(ev, wev.RulesProposed):
                return s
    return None


def _chat(s: Session, seq: int, prev: bytes, text: str) -> bytes:
    chain = s.chain
    assert chain is not None
    return framing.frame(messages.build_signed(chain.game_id, 1, seq, prev, messages.ChatMsg(text),
                                               s.identity.sign).payload)


async def _chat_flood(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    s = await _proposed(stream, name, me)
    if s is None or s.chain is None:
        return
    head = s.chain.head  # after the host's rules: chats here are out of turn (agree is due)
    await stream.send_all(b"".join(_chat(s, 1, head, f"spam {k}") for k in range(1000)))
    await _until_closed(stream)


async def _crossing_flood(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    s = await _proposed(stream, name, me)
    if s is None or s.chain is None:
        return
    prev, out = s.chain.game_id, []
    for k in range(200):  # a chain of chats from place 0, which the host's rules holds: all superseded
        frame = _chat(s, k, prev, f"crossing {k} " + "x" * 400)
        prev = messages.message_hash(frame[framing.HEADER_BYTES:])
        out.append(frame)
    await stream.send_all(b"".join(out))
    await _until_closed(stream)


async def _equivocate(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    s = await _proposed(stream, name, me)
    if s is None or s.chain is None:
        return
    gid = s.chain.game_id
    await stream.send_all(_chat(s, 0, gid, "I resign") + _chat(s, 0, gid, "I never said that"))
    await _until_closed(stream)


async def _tls_junk(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    await stream.send_all(b"GET / HTTP/1.1\r\nHost: p2ptrumps\r\n\r\n")
    await _until_closed(stream)


async def _tls_stall(stream: trio.abc.Stream, hold_s: float, name: str, me: Identity) -> None:
    await stream.send_all(bytes.fromhex("160301012c010001280303") + os.urandom(32))  # a ClientHello's start
    await _until_closed(stream)


_STRAYS = {
    "tls-junk": _tls_junk,
    "tls-stall": _tls_stall,
    "idle": _idle,
    "junk": _junk,
    "oversized": _oversized,
    "reset": _reset,
    "hello-leave": _hello_leave,
    "hello-stall": _hello_stall,
    "refuse-key": _refuse_key,
    "refuse-rules": _refuse_rules,
    "dribble": _dribble,
    "ping-flood": _ping_flood,
    "resume-stranger": _resume_stranger,
    "garbage-after-hello": _garbage_after_hello,
    "ping-only": _ping_only,
    "chat-flood": _chat_flood,
    "crossing-flood": _crossing_flood,
    "equivocate": _equivocate,
}


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` just now (bound and released; for a server started later)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _twistd(work: Path, name: str, plugin: list[str], port: int, host: str, prefix: list[str]
            ) -> subprocess.Popen[bytes]:
    twistd = str(Path(sys.executable).with_name("twistd"))
    args = [*prefix, twistd, "-n", "--pidfile=", *plugin[:1], "--port", f"tcp:{port}:interface={host}",
            *plugin[1:]]
    with open(work / f"{name}.log", "wb") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, cwd=work)


@contextlib.contextmanager
def rendezvous_servers(work: Path, host: str = "127.0.0.1", prefix: tuple[str, ...] = (),
                       start_timeout_s: float = 60.0) -> Iterator[tuple[str, str]]:
    """Run a magic-wormhole mailbox server and a transit relay (the PyPI packages
    ``magic-wormhole-mailbox-server`` and ``magic-wormhole-transit-relay``, through ``twistd``) on
    free ports of ``host`` (loopback, or an address inside a test's own network namespace with
    ``prefix`` such as ``("ip", "netns", "exec", NS)``), their logs and database in ``work``.

    Yields ``(mailbox_url, relay_url)``: ``ws://HOST:P/v1`` and ``tcp:HOST:Q``.  Both are stopped
    (SIGTERM, then SIGKILL after 5 s) on leaving.  Raises RuntimeError when either does not listen
    within ``start_timeout_s`` seconds (its log's tail in the message).
    """
    mport, rport = free_port(host if not prefix else "127.0.0.1"), free_port(host if not prefix else "127.0.0.1")
    procs = [
        _twistd(work, "mailbox", ["wormhole-mailbox", "--channel-db", str(work / "mailbox.sqlite")], mport, host,
                list(prefix)),
        _twistd(work, "relay", ["transitrelay"], rport, host, list(prefix)),
    ]
    try:
        deadline = time.monotonic() + start_timeout_s
        for name, proc in zip(("mailbox", "relay"), procs, strict=True):
            log = work / f"{name}.log"
            for _ in range(int(start_timeout_s / 0.05) + 1):
                text = log.read_text(errors="replace") if log.exists() else ""
                if "starting on" in text:
                    break
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the {name} server did not start: {text[-500:]}")
                time.sleep(0.05)
        where = f"[{host}]" if ":" in host else host
        yield f"ws://{where}:{mport}/v1", f"tcp:{where}:{rport}"
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
