"""One link to the peer under a :class:`~p2ptrumps.net.transport.Connection`, and the ways a
connection stops.

Source: ``protocol/wire.md`` §2 (framing), §10 (heartbeats), §14 (a new link to the same peer),
§17 (the bounds that keep a link alive or end it).

A connection outlives its links: when one is lost and the match can be resumed, the connection
gets a new stream and runs a new :class:`LinkTasks` over it.  Everything that lives and dies with
one stream is here:

* the reader feeds the bytes it receives to the session and hands the session's events to the
  connection;
* the writer sends what the session queued while reading (pongs, automatic statements);
* the heartbeat asks the session for a ping every ``heartbeat_s`` seconds;
* the watchdog ends the link after ``timeout_s`` seconds with no bytes from the peer, when a
  frame has not arrived whole ``frame_time_s`` seconds after its first byte (the partial-frame
  clock), or when a resume exchange has not proven the peer within ``resume_time_s`` seconds;
* the state they share: when bytes last came, when the link began, whether we sent our end of
  stream and whether the peer's came.

The tasks end the link through the connection (its ``fail``), which decides whether the match
reconnects or stops.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable
from typing import NamedTuple, Protocol

import trio

from .secure import SecureError, key_mismatch

RECEIVE_SIZE_BYTES = 65536
CLOSE_WAIT_S = 5.0


class TransportError(Exception):
    """The connection stopped before the match ended; the message names why.

    ``kind`` is a short word for tests and exit statuses: ``"fault"``,
    ``"timeout"``, ``"gone"``, ``"refused"``.
    """

    kind = "error"


class PeerFault(TransportError):
    """The peer broke the protocol (bad signature, broken chain, garbage frame, ...)."""

    kind = "fault"


class PeerTimeout(TransportError):
    """Nothing arrived from the peer for ``timeout_s`` seconds (not even a heartbeat)."""

    kind = "timeout"


class PeerGone(TransportError):
    """The peer closed or reset the connection before the match ended."""

    kind = "gone"


class PeerRefused(TransportError):
    """(guest) The host refused the connection before its hello (protocol/wire.md §7.3); the message
    says why in the user's words.  ``reason`` is the host's word (``"ticket"``, ``"key"``, ``"blocked"``,
    ``"busy"``)."""

    kind = "refused"

    def __init__(self, reason: str) -> None:
        super().__init__(refusal_text(reason))
        self.reason = reason


def refusal_text(reason: str) -> str:
    """What a host's ``["refuse", reason]`` means, in one line (protocol/wire.md §7.3)."""
    known = {
        "ticket": ("the host admits only guests with its join ticket, and refused ours (none, or a wrong one): "
                   "use the whole HOST:PORT/TICKET it shows"),
        "key": "the host expects another guest (it admits one key only, and yours is not it)",
        "blocked": "the host blocked your key: it plays no match with you",
        "busy": "the host is busy with another match; try again later",
    }
    return known.get(reason, f"the host refused the connection ({reason!r})")


class PeerFlood(TransportError):
    """The peer went beyond a limit that no log can show (protocol/wire.md §17); nothing of it was
    logged.  The match does not wait for a reconnection."""

    kind = "flood"


class SessionLike(Protocol):
    """What the transport needs of a session (``p2ptrumps.wire.session.Session`` has it)."""

    def receive_data(self, data: bytes) -> None: ...

    def next_event(self) -> object | None: ...

    def data_to_send(self) -> bytes: ...

    def ping(self) -> None: ...


class Link(NamedTuple):
    """A new connection to the same peer (protocol/wire.md §14): the ``stream``, the bytes already
    read from it (``first``), and ``nonce`` -- not None when our ``resume`` frame with that nonce
    has already been sent on it (the host's lobby does that while the guest proves its key)."""

    stream: trio.abc.Stream
    first: bytes = b""
    nonce: bytes | None = None


FaultCheck = Callable[[object], "str | None"]


class Fail(Protocol):
    """How a link's tasks end the link or the run (``Connection._fail``)."""

    def __call__(self, error: TransportError, final: bool = False) -> None: ...


class LinkOwner(Protocol):
    """What the tasks of a link read of their connection (:class:`~p2ptrumps.net.transport.Connection`
    has it): its session (which may change between reads, at a rematch), its limits in seconds and
    bytes, whether the run already failed or the match is over, and its writing."""

    session: SessionLike
    error: TransportError | None
    timeout_s: float
    heartbeat_s: float
    frame_time_s: float
    resume_time_s: float
    max_pending_bytes: int
    bytes_received: int
    bytes_sent: int
    fault_event: object | None
    stream: trio.abc.Stream | None

    @property
    def closing_ok(self) -> bool: ...

    @property
    def reconnecting(self) -> bool: ...

    async def send_pending(self) -> None: ...


class LinkTasks:
    """The reader, writer, heartbeat and watchdog of one stream, and the state they share.

    Args:
        owner: the connection (see :class:`LinkOwner`).
        stream: the link's stream; None for a connection that starts down (no tasks run then).
        since: ``trio.current_time()`` when the link began (the resume exchange's deadline counts
            from it); also taken as the last time bytes came.
        fail: ends the link with a :class:`TransportError`: the connection reconnects, or stops
            (with ``final``, or when the match cannot be resumed).
        queue: hands one session event to the connection (for ``next_event``).
        fault_of: the fault text if a session event is a protocol violation by the peer, else None.
        resumed: called when the peer proved itself on this link (the session's ``Resumed``).
        remote_errors: the exception classes ``receive_data`` raises for a peer fault.
    """

    def __init__(self, owner: LinkOwner, stream: trio.abc.Stream | None, since: float, *,
                 fail: Fail, queue: Callable[[object], None], fault_of: FaultCheck,
                 remote_errors: tuple[type[BaseException], ...] = (),
                 resumed: Callable[[], None] = lambda: None) -> None:
        self.owner = owner
        self._resumed = resumed
        self._queue = queue
        self._fault_of = fault_of
        self._remote_errors = remote_errors
        self.stream = stream
        self.last_rx = self.since = since
        self._fail = fail
        self.eof_seen = trio.Event()  # the peer's end of stream came (or the match stopped reading)
        self.sent_eof = False  # we half-closed this link
        self.partial: tuple[int, float] | None = None  # (stream offset, since) of a frame arriving
        self.stop_reading = False  # the session reads nothing more on this link (junk after the match)
        self.wake_writer = trio.Event()
        self._write_scope: trio.CancelScope | None = None  # the write in progress

    async def write(self, data: bytes) -> None:
        """Write ``data`` whole, shielded from the caller's cancellation; only :meth:`stop_write` (the
        link dropped, the run ended) stops it.  A link that broke is reconnected when the match can be
        resumed (the bytes go again after the resume); then this returns quietly.

        Raises:
            PeerTimeout: the write took longer than ``timeout_s`` (the peer stopped reading).
            PeerGone: the stream broke and the match is not resumed.
        """
        owner = self.owner
        if self.sent_eof or self.stream is None:
            return
        self._write_scope = write = trio.CancelScope(shield=True)
        try:
            with write, trio.fail_after(owner.timeout_s):
                await self.stream.send_all(data)
            if write.cancelled_caught:  # the link was dropped or the run ended
                await trio.lowlevel.checkpoint_if_cancelled()  # the caller's cancellation, if any, goes on
                return
        except trio.TooSlowError:
            self._fail(PeerTimeout(f"the peer stopped reading: a write was stuck for {owner.timeout_s:g} s"))
            raise owner.error or PeerTimeout("write timed out") from None
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            self._fail(PeerGone(str(exc) if isinstance(exc, SecureError)
                                else f"the connection broke while sending ({broken_why(exc)})"))
            if owner.reconnecting:
                return
            raise owner.error or PeerGone("send failed") from None
        finally:
            self._write_scope = None
        owner.bytes_sent += len(data)

    def stop_write(self) -> None:
        """Cancel the write in progress, if any (see :meth:`write`)."""
        if self._write_scope is not None:
            self._write_scope.cancel()

    async def half_close(self) -> None:
        """Send our end of stream (when the stream can), waiting at most ``timeout_s``; once per link."""
        self.sent_eof = True
        send_eof = getattr(self.stream, "send_eof", None)
        if send_eof is not None:
            with contextlib.suppress(Exception), trio.move_on_after(self.owner.timeout_s):
                await send_eof()

    def begin_resume(self, first: bytes, nonce: bytes | None) -> bool:
        """Start the resume exchange on this new link (protocol/wire.md §14.2): our ``resume`` with a fresh
        nonce, or with ``nonce`` when it was already sent; then the bytes already read from the link
        (``first``) go to the session.  Returns False when the link failed (the session cannot resume, or
        ``first`` is a protocol fault)."""
        session = self.owner.session
        begin = getattr(session, "begin_resume", None)
        if begin is None:
            self._fail(PeerGone("the session cannot resume"))
            return False
        if nonce is not None:
            begin(nonce, resume_sent=True)
        else:
            begin(os.urandom(32))
        if first:
            try:
                session.receive_data(first)
            except self._remote_errors as exc:
                self._fail(PeerFault(str(exc)))
                return False
            self.drain()
        return True

    def drain(self) -> None:
        """Hand the session's queued events to the connection, until the run fails."""
        for _ in range(1_000_000):
            event = self.owner.session.next_event()
            if event is None:
                return
            self._deliver(event)
            if self.owner.error is not None:
                return

    def _deliver(self, event: object) -> None:
        """What one session event means for the link (a key that does not match, a refusal, the resume
        proven, a flood, junk after the match, a fault), then hand it to the connection."""
        owner, kind = self.owner, type(event).__name__
        if kind == "PeerHello":  # the hello's key must be the key its connection proved (wire.md §18.3)
            refused = key_mismatch(self.stream, getattr(event, "public_key", b""), "the key of its hello")
            if refused is not None:
                self._fail(PeerFault(refused), final=True)
                return
        if kind == "ResumeRefused":  # the new connection is not the peer: drop it, wait for another
            self._fail(PeerGone(f"a connection that did not prove the peer's key was dropped "
                                f"({getattr(event, 'reason', '')})"))
            return
        if kind == "HostRefused":  # the host will not play with us (protocol/wire.md §7.3): no reconnecting
            self._fail(PeerRefused(str(getattr(event, "reason", ""))), final=True)
            return
        if kind == "Resumed":
            self._resumed()
        if kind == "Flooded":  # a limit no log shows (protocol/wire.md §17): the match does not wait on
            self._queue(event)
            self._fail(PeerFlood(getattr(event, "reason", "")), final=True)
            return
        if kind == "DroppedAfterEnd":  # junk after the match: dropped, not logged (wire.md §12)
            self._queue(event)
            if owner.closing_ok:  # like the peer's close: the match goes to its end, nothing more is read
                self.stop_reading = True
                self.eof_seen.set()
            else:  # our last statement is not acknowledged yet, and the peer sends junk: no point waiting on
                self._fail(PeerGone(f"the peer sent something after the match's end "
                                    f"({getattr(event, 'reason', '')}); dropped, not logged"), final=True)
            return
        fault = self._fault_of(event)
        if fault is not None:
            owner.fault_event = event
            self._queue(event)
            self._fail(PeerFault(fault))
            return
        self._queue(event)

    async def close(self, close_first: bool, send_lock: trio.Lock) -> None:
        """End the link after the match: send what is pending; unless ``close_first``, let the peer close
        first, answering its pings (protocol/wire.md §14.5); then send our end of stream (under
        ``send_lock``) and wait for the peer's.  Each wait is at most :data:`CLOSE_WAIT_S` seconds."""
        with contextlib.suppress(TransportError):
            await self.owner.send_pending()
        if not close_first:
            with trio.move_on_after(CLOSE_WAIT_S):
                await self.eof_seen.wait()
            with contextlib.suppress(TransportError):
                await self.owner.send_pending()
        if not self.sent_eof:
            async with send_lock:
                await self.half_close()
        with trio.move_on_after(CLOSE_WAIT_S):
            await self.eof_seen.wait()

    def restart_clock(self, now: float) -> None:
        """The link (the run) begins at ``now`` seconds of trio's clock."""
        self.last_rx = self.since = now

    async def run(self) -> None:
        """Run the four tasks until the link ends (its owner cancels them, or the reader stops)."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._reader)
            nursery.start_soon(self._heartbeat)
            nursery.start_soon(self._watchdog)
            nursery.start_soon(self._writer)

    async def _reader(self) -> None:
        stream, owner = self.stream, self.owner
        assert stream is not None
        while True:
            try:
                data = bytes(await stream.receive_some(RECEIVE_SIZE_BYTES))
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                if owner.closing_ok:
                    self.eof_seen.set()
                    return
                self._fail(PeerGone(str(exc) if isinstance(exc, SecureError)
                                    else f"the connection broke ({broken_why(exc)})"))
                return
            self.last_rx = trio.current_time()
            owner.bytes_received += len(data)
            if not data and not owner.closing_ok:
                self.eof_seen.set()
                self._fail(PeerGone("the peer closed the connection before the match ended"))
                if not owner.reconnecting:
                    with contextlib.suppress(Exception):
                        owner.session.receive_data(data)  # let the session see the close (its state, not ours)
                return
            try:
                owner.session.receive_data(data)
            except self._remote_errors as exc:
                self.drain()
                self._fail(PeerFault(str(exc)))
                return
            self.drain()
            if owner.error is not None or self.stop_reading:
                return
            if not data:
                self.eof_seen.set()
                return
            self._note_partial()
            pending = int(getattr(owner.session, "pending_bytes", 0))  # queued, not yet sent
            if pending > owner.max_pending_bytes:
                self._fail(PeerTimeout(f"the peer stopped reading: {pending} bytes of ours wait to be sent "
                                       f"(more than {owner.max_pending_bytes}); it floods us without reading"))
                return
            if pending:
                self.wake_writer.set()  # answer (pongs, ...) without blocking the reading

    async def _writer(self) -> None:
        """Sends what the session queued while reading (pongs, automatic statements), so
        that a peer which does not read never stops us reading."""
        while True:
            await self.wake_writer.wait()
            self.wake_writer = trio.Event()
            with contextlib.suppress(TransportError):
                await self.owner.send_pending()

    async def _heartbeat(self) -> None:
        while True:
            await trio.sleep(self.owner.heartbeat_s)
            if self.sent_eof:
                return
            try:
                self.owner.session.ping()
            except Exception:  # not allowed now (e.g. before the handshake): skip this beat
                continue
            with contextlib.suppress(TransportError):
                await self.owner.send_pending()

    def _note_partial(self) -> None:
        """Start (or stop) the clock of a frame of the peer that is arriving in pieces."""
        partial = getattr(self.owner.session, "partial_frame", None)
        if partial is None:
            self.partial = None
        elif self.partial is None or self.partial[0] != partial[0]:
            self.partial = (partial[0], trio.current_time())

    async def _watchdog(self) -> None:
        """Silence, a frame that does not arrive whole, a resume exchange that does not finish."""
        owner = self.owner
        while True:
            now = trio.current_time()
            deadline = self.last_rx + owner.timeout_s
            if now >= deadline:
                if owner.closing_ok:
                    self.eof_seen.set()
                    return
                self._fail(PeerTimeout(f"no word from the peer for {owner.timeout_s:g} s (timeout)"))
                return
            partial = self.partial
            if partial is not None and not owner.closing_ok:
                if now >= partial[1] + owner.frame_time_s:
                    got = getattr(owner.session, "partial_frame", None)
                    have = f" ({got[1]} bytes of it came)" if got else ""
                    self._fail(PeerTimeout(f"a frame of the peer did not arrive whole within "
                                           f"{owner.frame_time_s:g} s of its first byte{have}"))
                    return
                deadline = min(deadline, partial[1] + owner.frame_time_s)
            if getattr(owner.session, "resuming", False):
                if now >= self.since + owner.resume_time_s:
                    self._fail(PeerGone(f"the new connection did not prove the peer within "
                                        f"{owner.resume_time_s:g} s"))
                    return
                deadline = min(deadline, self.since + owner.resume_time_s)
            await trio.sleep(min(deadline - now, 1.0))


#: ``await reconnect(why)`` -> a new :class:`Link` to the same peer; raises :class:`TransportError`
#: when it gives up (protocol/wire.md §14).
NextLink = Callable[[TransportError], Awaitable[Link]]


class Links:
    """The links of one connection, one after another (protocol/wire.md §14): the current link's tasks,
    whether a lost link is reconnected, when the link went down, how often the peer came back.

    Args:
        owner: the connection (see :class:`LinkOwner`).
        stream: the first link's stream; None with ``down``.
        down: the connection starts with no link (a side that restarted, §14.4); ``down`` says why.
        reconnect: a new link to the same peer (None: a lost link ends the run).
        can_resume: whether the match can be resumed now.
        fail, queue, fault_of, remote_errors: for each link's tasks (see :class:`LinkTasks`).
    """

    def __init__(self, owner: LinkOwner, stream: trio.abc.Stream | None, *, down: TransportError | None,
                 reconnect: NextLink | None, can_resume: Callable[[], bool], fail: Fail,
                 queue: Callable[[object], None], fault_of: FaultCheck,
                 remote_errors: tuple[type[BaseException], ...]) -> None:
        self.owner = owner
        self.reconnect = reconnect
        self._can_resume = can_resume
        self._fail = fail
        self._tasks_args = (fail, queue, fault_of, remote_errors)
        self.lost: TransportError | None = down  # the link is down, a reconnection is under way
        #: ``trio.current_time()`` when the link went down (cleared when the peer proved itself again).
        self.down_since: float | None = None
        self.starts_down = down is not None
        self.reconnections = 0
        self._scope: trio.CancelScope | None = None  # the current link's tasks
        self.current = self._new(stream, 0.0)

    def _new(self, stream: trio.abc.Stream | None, since: float) -> LinkTasks:
        fail, queue, fault_of, remote_errors = self._tasks_args
        return LinkTasks(self.owner, stream, since, fail=fail, queue=queue, fault_of=fault_of,
                         remote_errors=remote_errors, resumed=self._resumed)

    def _resumed(self) -> None:
        self.down_since = None
        self.reconnections += 1

    @property
    def resumable(self) -> bool:
        """True while a lost link would be reconnected (a way to reconnect, the match not over)."""
        owner = self.owner
        return self.reconnect is not None and owner.error is None and not owner.closing_ok and self._can_resume()

    def lose(self, error: TransportError) -> None:
        """The current link is lost (``error`` says why), not the match: stop its tasks and its write; the
        run reconnects.  Call only while :attr:`resumable`."""
        if self.lost is None:
            self.lost = error
            if self.down_since is None:
                self.down_since = trio.current_time()
        self.current.stop_write()
        if self._scope is not None:
            self._scope.cancel()

    async def run(self) -> None:
        """Run the current link's tasks; when the link is lost and the match can be resumed, get a new
        stream (``reconnect``), start the resume exchange on the session and go on (§14)."""
        owner = self.owner
        if self.starts_down:
            self.down_since = trio.current_time()
        for _ in range(1 << 30):  # one pass per link
            if self.lost is None:
                with trio.CancelScope() as self._scope:
                    await self.current.run()
            lost = self.lost
            if lost is None or self.reconnect is None:
                return
            if owner.stream is not None:
                with contextlib.suppress(Exception):
                    await trio.aclose_forcefully(owner.stream)
            try:
                stream, first, nonce = await self.reconnect(lost)
            except TransportError as exc:  # the reconnect wait ran out: the match stops here
                self.lost = None
                self._fail(exc, final=True)
                return
            owner.stream = stream
            refused = key_refused(stream, owner.session)
            if refused is not None:  # not the peer of this match (protocol/wire.md §18.3): try again
                self.lost = PeerGone(refused)
                continue
            self.current = self._new(stream, trio.current_time())
            self.lost = None
            if not self.current.begin_resume(first, nonce):
                return
            await owner.send_pending()


def broken_why(exc: BaseException) -> str:
    """Why a stream broke, in the operating system's words when it gave any (else the exception's)."""
    cause = exc.__cause__ or exc.__context__
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror
    return str(exc) or type(exc).__name__


def key_refused(stream: trio.abc.Stream, session: object) -> str | None:
    """Why a new link to the peer of ``session``'s match is refused: its encrypted connection
    proved another key than the peer's of the match (protocol/wire.md §18.3); else None (also
    before the match has keys)."""
    chain = getattr(session, "chain", None)
    seat = getattr(session, "seat", None)
    if chain is None or seat not in (0, 1):
        return None
    return key_mismatch(stream, chain.keys[1 - seat].raw, "the peer's key of the match")
