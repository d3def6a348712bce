"""The host's doorway, one connection at a time: its first frames read before the connection has a
session (bounded: a frame deadline, pings read past), a refusal sent, the connection handed on with
the bytes already read, and a connection that resumes the match being played (:class:`ResumeDoor`).

Source: ``protocol/wire.md`` §7.1 (the first frame; pings before the hello), §7.3 (the doorway:
nothing sent before the first frame is read; ``refuse``), §14.2 (a resume of the match, proven
with the guest's key before it is handed to the match), §17 (the bounds).  The rooms themselves,
and who gets the match, are :mod:`.lobby`'s.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable

import trio

from ..message import N_
from ..wire import framing, messages
from ..wire.errors import RemoteProtocolError
from .secure import key_mismatch
from .transport import Connection, Link

#: Connections that resumed the match (its game id and seat) and owe their proof (more are closed at once).
MAX_RESUME_CANDIDATES = 8
#: Heartbeats a resuming connection may send before its proof (protocol/wire.md §17); then it is dropped.
MAX_HEARTBEATS_BEFORE_PROOF = 8
#: Pings read past before a connection's first other frame (protocol/wire.md §7.1).
MAX_PINGS_BEFORE_HELLO = 8
#: Reads one frame may take (each reads more bytes; a frame is at most 16 KiB).
MAX_FRAME_READS = 4200
#: Seconds the host tries to deliver a refusal (protocol/wire.md §7.3) before it closes anyway.
REFUSE_SEND_S = 1.0


class Prefixed(trio.abc.HalfCloseableStream):
    """A stream whose first bytes were already read (by the doorway): they are received first."""

    def __init__(self, stream: trio.abc.Stream, first: bytes) -> None:
        self.stream = stream
        self.first = first

    @property
    def peer_key(self) -> object:
        """The key the encrypted connection proved (:func:`~p2ptrumps.net.secure.key_mismatch`), if any."""
        return getattr(self.stream, "peer_key", None)

    @property
    def transport(self) -> object:
        """The TCP stream below the encryption, if any."""
        return getattr(self.stream, "transport", None)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self.first:
            data, self.first = self.first, b""
            await trio.lowlevel.checkpoint()
            return data
        return bytes(await self.stream.receive_some(max_bytes))

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        send_eof = getattr(self.stream, "send_eof", None)
        if send_eof is not None:
            await send_eof()

    async def aclose(self) -> None:
        await self.stream.aclose()


class Heard(trio.abc.Stream):
    """A connection's TCP stream that notes whether the peer has sent a byte yet (:attr:`heard`): in the
    doorway, a connection that sent nothing is replaced before one that did (protocol/wire.md §7.3) --
    a guest starts its encrypted handshake at once, an idle crowd never does.  Other attributes
    (``socket``) are the stream's."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.heard = False

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data = bytes(await self.stream.receive_some(max_bytes))
        self.heard = self.heard or bool(data)
        return data

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.stream.aclose()


class ResumeDoor:
    """The connections that resume the match being played (protocol/wire.md §14.2): at most
    :data:`MAX_RESUME_CANDIDATES` owe their proof at once; each proven one waits in :attr:`inbox` for
    the match to take it (:meth:`redial`).  ``note`` says a dropped candidate in one line."""

    def __init__(self, note: Callable[[str], None]) -> None:
        self.note = note
        self._send, self.inbox = trio.open_memory_channel[Link](MAX_RESUME_CANDIDATES)
        self.resuming = 0  # candidates owing their proof now

    async def redial(self, seconds_left: float) -> Link | None:
        """(for the match) The next connection that proved the guest's key (see :meth:`candidate`)."""
        return await self.inbox.receive()

    async def candidate(self, conn: Connection | None, stream: trio.abc.Stream, first: messages.Frame,
                        buf: bytearray, at: int) -> None:
        """A connection while a guest holds the match (protocol/wire.md §14.2), whose first frame
        ``first`` (ending at ``at`` in ``buf``) is a ``resume``, ``conn`` the match's connection (None: no
        match holds one yet): it must be the guest's for the match's
        game id; the host answers with its own ``resume`` (a fresh nonce) and the guest's ``proof``
        must verify with the guest's key of the match.  Only then is the connection handed to the
        match -- which drops its old link if that still looked alive -- and only then does the host
        sign its own proof.  Anything else is closed; nothing is written to disk."""
        handed = False
        if self.resuming >= MAX_RESUME_CANDIDATES:
            await trio.aclose_forcefully(stream)
            return
        self.resuming += 1
        try:
            session = None if conn is None else conn.session
            chain = getattr(session, "chain", None)
            if (not isinstance(first, messages.Resume) or first.seat != 1 or chain is None
                    or first.game_id != chain.game_id or conn is None or not conn.resumable):
                return
            refused = key_mismatch(stream, chain.keys[1].raw, "the guest's key of the match")
            if refused is not None:
                self.note(N_("dropped a connection that offered to resume the match: %(why)s", why=refused))
                return
            nonce = os.urandom(32)
            if nonce == first.nonce:
                return
            await stream.send_all(framing.frame(
                messages.Resume(messages.VERSION, 0, chain.game_id, nonce).encode()))
            proof = None
            for _ in range(MAX_HEARTBEATS_BEFORE_PROOF):  # heartbeats may come before the proof
                proof, at = await read_frame(stream, buf, at)
                if not isinstance(proof, (messages.Ping, messages.Pong)):
                    break
            if not isinstance(proof, messages.Proof) or not chain.keys[1].verify(
                    proof.sig, messages.proof_input(chain.game_id, 1, proof.confirmed, first.nonce, nonce)):
                self.note(N_("dropped a connection that offered to resume the match without the guest's key"))
                return
            try:
                self._send.send_nowait(Link(stream, bytes(buf), nonce))
                handed = True
            except trio.WouldBlock:
                return
            if conn.link_up:
                conn.drop_link("the guest came back on a new connection")
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError, RemoteProtocolError):
            return
        finally:
            self.resuming -= 1
            if not handed:
                with contextlib.suppress(Exception):
                    await trio.aclose_forcefully(stream)


async def refuse(stream: trio.abc.Stream, reason: str) -> None:
    """Send ``["refuse", reason]`` (protocol/wire.md §7.3), for at most :data:`REFUSE_SEND_S` seconds;
    the caller closes the connection."""
    with trio.move_on_after(REFUSE_SEND_S), contextlib.suppress(trio.BrokenResourceError, OSError):
        await stream.send_all(framing.frame(messages.Refuse(reason).encode()))


async def read_past_pings(stream: trio.abc.Stream, buf: bytearray, offset: int,
                           frame_time_s: float) -> tuple[messages.Frame, int]:
    """The first frame from ``offset`` that is not a ping or pong (at most :data:`MAX_PINGS_BEFORE_HELLO`
    of them; protocol/wire.md §7.1), and the offset after it; see :func:`read_frame`."""
    for _ in range(MAX_PINGS_BEFORE_HELLO + 1):
        frame, offset = await read_frame(stream, buf, offset, frame_time_s)
        if not isinstance(frame, (messages.Ping, messages.Pong)):
            return frame, offset
    raise RemoteProtocolError("malformed", f"more than {MAX_PINGS_BEFORE_HELLO} heartbeats before the hello")


class SlowFrame(Exception):
    """A frame did not arrive whole within the frame deadline of its first byte (protocol/wire.md §17)."""


async def read_frame(stream: trio.abc.Stream, buf: bytearray, offset: int,
                      frame_time_s: float = math.inf) -> tuple[messages.Frame, int]:
    """Read from ``stream`` into ``buf`` (everything read is kept) until a whole frame starts at
    ``offset``; return it decoded and the offset after it.  Raises RemoteProtocolError (a bad
    length or frame), ``trio.BrokenResourceError`` (the connection closed first) or
    :class:`SlowFrame` (the frame is not whole ``frame_time_s`` seconds after its first byte)."""
    started = trio.current_time() if len(buf) > offset else None
    for _ in range(MAX_FRAME_READS):  # bounded: each pass reads more bytes
        have = len(buf) - offset
        if have >= framing.HEADER_BYTES:
            n = int.from_bytes(buf[offset:offset + framing.HEADER_BYTES], "big")
            if n == 0:
                raise RemoteProtocolError("garbage-frame", f"frame at stream byte {offset} has length 0")
            if n > framing.MAX_FRAME_BYTES:
                raise RemoteProtocolError("oversized-frame", f"frame at stream byte {offset} announces {n} bytes, "
                                          f"more than the maximum {framing.MAX_FRAME_BYTES}")
            end = offset + framing.HEADER_BYTES + n
            if len(buf) >= end:
                return messages.decode(bytes(buf[offset + framing.HEADER_BYTES:end])), end
        chunk: bytes | bytearray = b""
        with trio.move_on_at(math.inf if started is None else started + frame_time_s):
            chunk = await stream.receive_some(4096)
            if not chunk:
                raise trio.BrokenResourceError("closed")
        if not chunk:
            raise SlowFrame(f"a frame of the peer did not arrive whole within {frame_time_s:g} s of its first "
                             f"byte ({len(buf) - offset} bytes of it came)")
        if started is None:
            started = trio.current_time()
        buf += chunk
    raise RemoteProtocolError("garbage-frame", "a frame that does not end")
