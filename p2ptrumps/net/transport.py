"""Runs a sans-IO peer :class:`~p2ptrumps.wire.session.Session` over a trio stream.

Source: ``protocol/wire.md`` §2 (framing), §10 (heartbeats).

The session holds every protocol rule; this module only moves bytes and keeps
time (the session reads no clock):

* a reader task feeds the bytes it receives to ``session.receive_data`` and
  queues the session's events for :meth:`Connection.next_event`;
* :meth:`Connection.send_pending` writes ``session.data_to_send()`` to the
  stream.  The session hands each message to the match log (see
  :class:`MatchLogFile`, flushed and fsynced) *before* its bytes show up in
  ``data_to_send``, so nothing is sent that the log does not hold;
* a heartbeat task asks the session for a ping frame (outside the hash chain,
  not logged) every ``heartbeat_s`` seconds, so a person may think for as long
  as they like while the line stays provably alive;
* a watchdog declares the peer gone after ``timeout_s`` seconds with no bytes
  from it, when a frame has not arrived whole ``frame_time_s`` seconds after its
  first byte, or when a resume exchange has not proven the peer within
  ``resume_time_s`` seconds (protocol/wire.md §17: heartbeats and trickled bytes
  keep a link alive, they do not make a stalled frame or proof arrive).

A peer fault (the session raises ``RemoteProtocolError`` or emits a
``ProtocolViolation`` event), a timeout or a dropped connection stops
:meth:`Connection.run`: the body is cancelled and the fault is raised as a
:class:`TransportError` subclass whose message names it.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Awaitable, Callable
from typing import NamedTuple, Protocol, TypeVar

import trio

from .config import FRAME_TIME_S, RESUME_TIME_S
from .race import single_errors
from .secure import SecureError, key_mismatch

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 30.0
RECEIVE_SIZE_BYTES = 65536
CLOSE_WAIT_S = 5.0
#: Most bytes we queue for a peer that does not read them (e.g. pongs for a ping flood):
#: beyond this the peer is declared gone (it stopped reading).  (protocol/wire.md §17)
MAX_PENDING_BYTES = 1 << 20


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


FaultCheck = Callable[[object], "str | None"]


class Link(NamedTuple):
    """A new connection to the same peer (protocol/wire.md §14): the ``stream``, the bytes already
    read from it (``first``), and ``nonce`` -- not None when our ``resume`` frame with that nonce
    has already been sent on it (the host's lobby does that while the guest proves its key)."""

    stream: trio.abc.Stream
    first: bytes = b""
    nonce: bytes | None = None


#: ``await reconnect(connection, why)`` -> a new :class:`Link` to the same peer; raises
#: :class:`TransportError` when it gives up (protocol/wire.md §14).
Reconnect = Callable[["Connection", "TransportError"], Awaitable[Link]]


class Connection:
    """One session over one stream.

    Args:
        stream: a connected ``trio.abc.Stream`` (``trio.SocketStream`` in the game,
            a memory stream in tests); None with ``down``.
        session: the sans-IO session (see :class:`SessionLike`).
        timeout_s: seconds of silence from the peer before :class:`PeerTimeout`;
            also the limit on one write.
        heartbeat_s: seconds between our pings; default ``min(2, timeout_s / 3)``
            (the peer's timeout is unknown to us: beat often).
        fault_of: returns the fault text if a session event is a protocol
            violation by the peer, else None.
        remote_errors: exception classes that ``receive_data`` raises for a peer
            fault (the session's ``RemoteProtocolError``).
        is_finished: True once the session has ended properly (``session.finished``):
            a peer EOF or silence is then no error.
        reconnect: how to get a new :class:`Link` when the link is lost (None: a lost link ends
            the run); ``can_resume``: whether the match can be resumed now.
        down: the connection starts with no link, as after a loss (``down`` says why): the first
            link comes from ``reconnect`` (a side that restarted, protocol/wire.md §14.4).
        close_first: when the body returns, close our side at once (True) or first wait up to
            a few seconds for the peer to close (False: the side whose last message is
            acknowledged answers the other's pings until it is gone, protocol/wire.md §14.5).
        frame_time_s: seconds a frame of the peer has to arrive whole from its first byte; then
            the link is lost (:class:`PeerTimeout`; protocol/wire.md §17).
        resume_time_s: seconds a new link has to prove the peer (the resume exchange); then it is
            dropped and the reconnection goes on.
        max_pending_bytes: most bytes queued for the peer before it is declared gone (it does not
            read them); :attr:`max_pending_bytes` may be raised later (the host's lobby keeps it
            small for a connection that has not signed).
    """

    def __init__(
        self,
        stream: trio.abc.Stream | None,
        session: SessionLike,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        heartbeat_s: float | None = None,
        fault_of: FaultCheck | None = None,
        remote_errors: tuple[type[BaseException], ...] = (),
        is_finished: Callable[[], bool] | None = None,
        reconnect: Reconnect | None = None,
        can_resume: Callable[[], bool] | None = None,
        down: TransportError | None = None,
        close_first: bool = True,
        frame_time_s: float = FRAME_TIME_S,
        resume_time_s: float = RESUME_TIME_S,
        max_pending_bytes: int = MAX_PENDING_BYTES,
    ) -> None:
        if (stream is None) != (down is not None) or (down is not None and reconnect is None):
            raise ValueError("a connection starts with a stream, or down (no stream) with a way to reconnect")
        self.stream: trio.abc.Stream | None = stream
        self.close_first = close_first
        self.session = session
        self.timeout_s = timeout_s
        self.heartbeat_s = heartbeat_s if heartbeat_s is not None else min(2.0, timeout_s / 3)
        self._fault_of = fault_of or (lambda ev: None)
        self._remote_errors = remote_errors
        self._send_events, self._recv_events = trio.open_memory_channel[object](math.inf)
        self._send_lock = trio.Lock()
        self._last_rx = 0.0
        self._eof = False
        self._eof_seen = trio.Event()
        self._sent_eof = False
        self.error: TransportError | None = None
        self.fault_event: object | None = None  # the session event that named a peer fault
        self._closing_ok = False
        self._is_finished = is_finished or (lambda: False)
        self._reconnect = reconnect
        self._can_resume = can_resume or (lambda: False)
        self._link_scope: trio.CancelScope | None = None
        self._lost: TransportError | None = down  # the link is down, a reconnection is under way
        #: ``trio.current_time()`` when the link went down (cleared when the peer proved itself again).
        self.down_since: float | None = None
        self._start_down = down is not None
        self.reconnections = 0
        self._scope: trio.CancelScope | None = None
        self._wake_writer = trio.Event()
        self._write_scope: trio.CancelScope | None = None  # the write in progress (send_pending)
        self.bytes_sent = 0
        self.bytes_received = 0
        self.frame_time_s = frame_time_s
        self.resume_time_s = resume_time_s
        self.max_pending_bytes = max_pending_bytes
        self._partial: tuple[int, float] | None = None  # (stream offset, since) of a frame arriving
        self._stop_reading = False  # the session reads nothing more on this link (junk after the match)
        self._link_since = 0.0  # when the current link began (the resume exchange's deadline)

    @property
    def closing_ok(self) -> bool:
        """True once the match is over (the session finished, or the body returned):
        a peer EOF is then the normal end, not :class:`PeerGone`."""
        return self._closing_ok or self._is_finished()

    @closing_ok.setter
    def closing_ok(self, value: bool) -> None:
        self._closing_ok = value

    @property
    def link_up(self) -> bool:
        """True while a link to the peer is up and the peer has proven itself on it (not
        reconnecting, not failed)."""
        return self._lost is None and self.down_since is None and self.error is None

    @property
    def resumable(self) -> bool:
        """True while a lost link would be reconnected (a way to reconnect, the match not over)."""
        return self._reconnect is not None and self.error is None and not self.closing_ok and self._can_resume()

    def drop_link(self, why: str) -> None:
        """Treat the current link as lost (the peer came back on a new connection that proved its
        key while this one still looked alive, protocol/wire.md §14.2): reconnect at once.  Only
        while :attr:`resumable`; otherwise nothing happens."""
        if self.resumable:
            self._fail(PeerGone(why))

    def stop(self, error: TransportError) -> None:
        """End the run with ``error``, without reconnecting (a deadline of protocol/wire.md §17 ran out
        while the link was up: the peer is there but does not do what is due)."""
        self._fail(error, final=True)

    @property
    def silent_s(self) -> float:
        """Seconds since the last bytes from the peer (heartbeats included); call inside the trio run."""
        return max(0.0, trio.current_time() - self._last_rx)

    # ----- for the game --------------------------------------------------------

    async def next_event(self, timeout_s: float | None = None) -> object:
        """The next event from the session.

        Args:
            timeout_s: give up after this many seconds (None: wait as long as
                the connection lives; the watchdog bounds silence anyway).
        Raises:
            TransportError: the connection failed (the fault that stopped it).
            trio.TooSlowError: ``timeout_s`` passed.
        """
        try:
            if timeout_s is None:
                return await self._recv_events.receive()
            with trio.fail_after(timeout_s):
                return await self._recv_events.receive()
        except trio.EndOfChannel:
            raise self.error or PeerGone("the connection is closed") from None

    def next_event_nowait(self) -> object | None:
        """An already queued event, or None."""
        try:
            return self._recv_events.receive_nowait()
        except trio.WouldBlock:
            return None
        except trio.EndOfChannel:
            raise self.error or PeerGone("the connection is closed") from None

    async def send_pending(self) -> None:
        """Write whatever the session has to send.  Call after every local intent: the events it caused
        (our own move comes back as an event of the match) are delivered first, in order.

        The bytes taken from the session are written whole even when the caller is cancelled
        meanwhile (the write is shielded): bytes taken and never written would be lost without a
        trace, and a ``pong`` for a later ``ping`` would then acknowledge messages the peer never got
        (protocol/wire.md §10, §14.5).  Only the connection itself stops a write: when its link is
        lost (every chained message is sent again after the reconnection, §14) or its run ends.

        Raises:
            PeerGone: the stream broke.
            PeerTimeout: one write took longer than ``timeout_s`` (the peer stopped reading).
        """
        if self.error is None:
            self._drain_events()
        async with self._send_lock:
            data = self.session.data_to_send()
            if not data:
                return
            if self._sent_eof or self._lost is not None or self.stream is None:
                return  # link down: every chained message is sent again after the reconnection
            self._write_scope = write = trio.CancelScope(shield=True)
            try:
                with write, trio.fail_after(self.timeout_s):
                    await self.stream.send_all(data)
                if write.cancelled_caught:  # the link was dropped or the run ended (see _fail, _cancel)
                    await trio.lowlevel.checkpoint_if_cancelled()  # the caller's cancellation, if any, goes on
                    return
            except trio.TooSlowError:
                self._fail(PeerTimeout(f"the peer stopped reading: a write was stuck for {self.timeout_s:g} s"))
                raise self.error or PeerTimeout("write timed out") from None
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                self._fail(PeerGone(str(exc) if isinstance(exc, SecureError)
                                    else f"the connection broke while sending ({_why(exc)})"))
                if self._lost is not None:
                    return
                raise self.error or PeerGone("send failed") from None
            finally:
                self._write_scope = None
            self.bytes_sent += len(data)

    def switch_session(self, session: SessionLike, trailing_data: bytes) -> None:
        """Go on with a new ``session`` on the same stream (a rematch, protocol/wire.md §9.4).

        ``trailing_data`` -- the bytes that followed the old session's last message
        (its ``trailing_data``) -- is fed to the new session first; its events are
        queued as usual and the match is no longer over (:attr:`closing_ok` False).
        Call :meth:`send_pending` afterwards to send the new hello.  Raises
        :class:`PeerFault` if the trailing bytes are a protocol fault.
        """
        self.session = session
        self._closing_ok = False
        self._partial = None
        if trailing_data:
            try:
                session.receive_data(trailing_data)
            except self._remote_errors as exc:
                self._fail(PeerFault(str(exc)))
                raise self.error or PeerFault(str(exc)) from None
            self._drain_events()
            if self.error is not None:
                raise self.error

    async def run(self, body: Callable[[Connection], Awaitable[T]]) -> T:
        """Run ``await body(self)`` with the reader, heartbeat and watchdog beside it.

        When ``body`` returns, pending bytes are sent, our side is half-closed
        (EOF) and the peer's EOF is awaited for up to a few seconds, so that
        neither side's last message is lost to a reset.

        Returns:
            what ``body`` returned.
        Raises:
            TransportError: the peer faulted, timed out or vanished (``body`` is
                cancelled at its next checkpoint).  Exceptions from ``body``
                itself propagate unchanged.
        """
        result: list[T] = []
        body_error: list[BaseException] = []
        self._last_rx = self._link_since = trio.current_time()

        async def run_body() -> None:
            try:
                result.append(await body(self))
            except TransportError as exc:
                self._fail(exc)
                return
            except trio.Cancelled:
                raise
            except Exception as exc:
                body_error.append(exc)
                self._cancel()
                return
            self.closing_ok = True
            with contextlib.suppress(TransportError):
                await self.send_pending()
            if not self.close_first:  # let the peer close first, answering its pings (wire.md §14.5)
                with trio.move_on_after(CLOSE_WAIT_S):
                    await self._eof_seen.wait()
                with contextlib.suppress(TransportError):
                    await self.send_pending()
            await self._half_close()
            with trio.move_on_after(CLOSE_WAIT_S):
                await self._eof_seen.wait()
            self._cancel()

        try:
            with single_errors():
                await self._run_tasks(run_body)
        finally:
            self._send_events.close()
            if self.stream is not None:
                with contextlib.suppress(Exception):
                    await trio.aclose_forcefully(self.stream)
        if body_error:
            raise body_error[0]
        if result:
            return result[0]
        raise self.error or PeerGone("the connection stopped")

    async def _run_tasks(self, run_body: Callable[[], Awaitable[None]]) -> None:
        async with trio.open_nursery() as nursery:
            self._scope = nursery.cancel_scope
            if self._start_down:
                self.down_since = trio.current_time()
            nursery.start_soon(self._guard_writes)
            nursery.start_soon(self._links)
            nursery.start_soon(run_body)

    async def _guard_writes(self) -> None:
        """Cancel the write in progress when the run itself is cancelled (from outside, e.g. a second
        Ctrl-C, or by :meth:`_cancel`): a write is shielded only from its own caller (see
        :meth:`send_pending`), never from the end of the run."""
        try:
            await trio.sleep_forever()
        finally:
            self._stop_write()

    async def _links(self) -> None:
        """Run the reader, heartbeat, watchdog and writer over the current stream; when the link
        is lost and the match can be resumed, get a new stream (``reconnect``), start the resume
        exchange on the session and go on (protocol/wire.md §14)."""
        for _ in range(1 << 30):  # one pass per link
            if self._lost is None:
                with trio.CancelScope() as scope:
                    self._link_scope = scope
                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(self._reader)
                        nursery.start_soon(self._heartbeat)
                        nursery.start_soon(self._watchdog)
                        nursery.start_soon(self._writer)
            lost = self._lost
            if lost is None or self._reconnect is None:
                return
            if self.stream is not None:
                with contextlib.suppress(Exception):
                    await trio.aclose_forcefully(self.stream)
            try:
                stream, first, nonce = await self._reconnect(self, lost)
            except TransportError as exc:  # the reconnect wait ran out: the match stops here
                self._lost = None
                self._fail(exc, final=True)
                return
            self.stream = stream
            refused = self._key_refused(stream)
            if refused is not None:  # not the peer of this match (protocol/wire.md §18.3): try again
                self._lost = PeerGone(refused)
                continue
            self._sent_eof = False
            self._eof_seen = trio.Event()
            self._last_rx = self._link_since = trio.current_time()
            self._partial = None
            self._stop_reading = False
            self._lost = None
            begin = getattr(self.session, "begin_resume", None)
            if begin is None:
                self._fail(PeerGone("the session cannot resume"))
                return
            if nonce is not None:
                begin(nonce, resume_sent=True)
            else:
                begin(os.urandom(32))
            if first:
                try:
                    self.session.receive_data(first)
                except self._remote_errors as exc:
                    self._fail(PeerFault(str(exc)))
                    return
                self._drain_events()
            await self.send_pending()

    # ----- internals -------------------------------------------------------------------

    def _cancel(self) -> None:
        self._stop_write()
        if self._scope is not None:
            self._scope.cancel()

    def _stop_write(self) -> None:
        """Cancel the write in progress (shielded from its caller, see :meth:`send_pending`): the link
        it writes to is being dropped."""
        if self._write_scope is not None:
            self._write_scope.cancel()

    def _fail(self, error: TransportError, final: bool = False) -> None:
        """Record why the link or the run stopped: a lost link is reconnected (when it can be and
        ``final`` is False); anything else ends the run with ``error``."""
        if (not final and isinstance(error, (PeerGone, PeerTimeout)) and self._reconnect is not None
                and self.error is None
                and not self.closing_ok and self._can_resume()):
            # The link is lost, not the match: reconnect (protocol/wire.md §14).
            if self._lost is None:
                self._lost = error
                if self.down_since is None:
                    self.down_since = trio.current_time()
            self._stop_write()
            if self._link_scope is not None:
                self._link_scope.cancel()
            return
        if self.error is None:
            self.error = error
        self._cancel()

    async def _half_close(self) -> None:
        if self._sent_eof:
            return
        async with self._send_lock:
            self._sent_eof = True
            send_eof = getattr(self.stream, "send_eof", None)
            if send_eof is not None:
                with contextlib.suppress(Exception), trio.move_on_after(self.timeout_s):
                    await send_eof()

    def _key_refused(self, stream: trio.abc.Stream) -> str | None:
        """Why a new link to the peer of the session's match is refused: its encrypted connection
        proved another key than the peer's of the match (protocol/wire.md §18.3); else None."""
        chain = getattr(self.session, "chain", None)
        seat = getattr(self.session, "seat", None)
        if chain is None or seat not in (0, 1):
            return None
        return key_mismatch(stream, chain.keys[1 - seat].raw, "the peer's key of the match")

    def _deliver(self, event: object) -> None:
        kind = type(event).__name__
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
            self.down_since = None
            self.reconnections += 1
        if kind == "Flooded":  # a limit no log shows (protocol/wire.md §17): the match does not wait on
            self._send_events.send_nowait(event)
            self._fail(PeerFlood(getattr(event, "reason", "")), final=True)
            return
        if kind == "DroppedAfterEnd":  # junk after the match: dropped, not logged (wire.md §12)
            self._send_events.send_nowait(event)
            if self.closing_ok:  # like the peer's close: the match goes to its end, nothing more is read
                self._stop_reading = True
                self._eof_seen.set()
            else:  # our last statement is not acknowledged yet, and the peer sends junk: no point waiting on
                self._fail(PeerGone(f"the peer sent something after the match's end "
                                    f"({getattr(event, 'reason', '')}); dropped, not logged"), final=True)
            return
        fault = self._fault_of(event)
        if fault is not None:
            self.fault_event = event
            self._send_events.send_nowait(event)
            self._fail(PeerFault(fault))
            return
        self._send_events.send_nowait(event)

    async def _reader(self) -> None:
        stream = self.stream
        assert stream is not None
        while True:
            try:
                data = bytes(await stream.receive_some(RECEIVE_SIZE_BYTES))
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                if self.closing_ok:
                    self._eof_seen.set()
                    return
                self._fail(PeerGone(str(exc) if isinstance(exc, SecureError)
                                    else f"the connection broke ({_why(exc)})"))
                return
            self._last_rx = trio.current_time()
            self.bytes_received += len(data)
            if not data and not self.closing_ok:
                self._eof_seen.set()
                self._fail(PeerGone("the peer closed the connection before the match ended"))
                if self._lost is None:
                    with contextlib.suppress(Exception):
                        self.session.receive_data(data)  # let the session see the close (its state, not ours)
                return
            try:
                self.session.receive_data(data)
            except self._remote_errors as exc:
                self._drain_events()
                self._fail(PeerFault(str(exc)))
                return
            self._drain_events()
            if self.error is not None or self._stop_reading:
                return
            if not data:
                self._eof_seen.set()
                return
            self._note_partial()
            pending = int(getattr(self.session, "pending_bytes", 0))  # queued, not yet sent
            if pending > self.max_pending_bytes:
                self._fail(PeerTimeout(f"the peer stopped reading: {pending} bytes of ours wait to be sent "
                                    f"(more than {self.max_pending_bytes}); it floods us without reading"))
                return
            if pending:
                self._wake_writer.set()  # answer (pongs, ...) without blocking the reading

    async def _writer(self) -> None:
        """Sends what the session queued while reading (pongs, automatic statements), so
        that a peer which does not read never stops us reading."""
        while True:
            await self._wake_writer.wait()
            self._wake_writer = trio.Event()
            with contextlib.suppress(TransportError):
                await self.send_pending()

    def _drain_events(self) -> None:
        for _ in range(1_000_000):
            event = self.session.next_event()
            if event is None:
                return
            self._deliver(event)
            if self.error is not None:
                return

    async def _heartbeat(self) -> None:
        while True:
            await trio.sleep(self.heartbeat_s)
            if self._sent_eof:
                return
            try:
                self.session.ping()
            except Exception:  # not allowed now (e.g. before the handshake): skip this beat
                continue
            with contextlib.suppress(TransportError):
                await self.send_pending()

    def _note_partial(self) -> None:
        """Start (or stop) the clock of a frame of the peer that is arriving in pieces."""
        partial = getattr(self.session, "partial_frame", None)
        if partial is None:
            self._partial = None
        elif self._partial is None or self._partial[0] != partial[0]:
            self._partial = (partial[0], trio.current_time())

    async def _watchdog(self) -> None:
        """Silence, a frame that does not arrive whole, a resume exchange that does not finish."""
        while True:
            now = trio.current_time()
            deadline = self._last_rx + self.timeout_s
            if now >= deadline:
                if self.closing_ok:
                    self._eof_seen.set()
                    return
                self._fail(PeerTimeout(f"no word from the peer for {self.timeout_s:g} s (timeout)"))
                return
            partial = self._partial
            if partial is not None and not self.closing_ok:
                if now >= partial[1] + self.frame_time_s:
                    got = getattr(self.session, "partial_frame", None)
                    have = f" ({got[1]} bytes of it came)" if got else ""
                    self._fail(PeerTimeout(f"a frame of the peer did not arrive whole within "
                                           f"{self.frame_time_s:g} s of its first byte{have}"))
                    return
                deadline = min(deadline, partial[1] + self.frame_time_s)
            if getattr(self.session, "resuming", False):
                if now >= self._link_since + self.resume_time_s:
                    self._fail(PeerGone(f"the new connection did not prove the peer within {self.resume_time_s:g} s"))
                    return
                deadline = min(deadline, self._link_since + self.resume_time_s)
            await trio.sleep(min(deadline - now, 1.0))


def _why(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror
    return str(exc) or type(exc).__name__
