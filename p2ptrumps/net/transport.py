"""Runs a sans-IO peer :class:`~p2ptrumps.wire.session.Session` over a trio stream.

Source: ``protocol/wire.md`` §2 (framing), §10 (heartbeats).

The session holds every protocol rule; this module and :mod:`.link` only move bytes
and keep time (the session reads no clock).  :class:`Connection` is the run, what the
game calls and what stops it; the tasks of each stream (a new one after each
reconnection, protocol/wire.md §14) are :mod:`.link`'s:

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
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TypeVar

import trio

from .config import FRAME_TIME_S, RESUME_TIME_S
from .link import (
    CLOSE_WAIT_S,
    FaultCheck,
    Link,
    Links,
    PeerFault,
    PeerFlood,
    PeerGone,
    PeerRefused,
    PeerTimeout,
    SessionLike,
    TransportError,
    refusal_text,
)
from .race import single_errors

__all__ = [
    "CLOSE_WAIT_S", "DEFAULT_TIMEOUT_S", "MAX_PENDING_BYTES", "Connection", "FaultCheck", "Link", "PeerFault",
    "PeerFlood", "PeerGone", "PeerRefused", "PeerTimeout", "Reconnect", "SessionLike", "TransportError",
    "refusal_text",
]

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 30.0
#: Most bytes we queue for a peer that does not read them (e.g. pongs for a ping flood):
#: beyond this the peer is declared gone (it stopped reading).  (protocol/wire.md §17)
MAX_PENDING_BYTES = 1 << 20


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
        self.error: TransportError | None = None
        self.fault_event: object | None = None  # the session event that named a peer fault
        self._closing_ok = False
        self._is_finished = is_finished or (lambda: False)
        self._scope: trio.CancelScope | None = None
        self.bytes_sent = 0
        self.bytes_received = 0
        self.frame_time_s = frame_time_s
        self.resume_time_s = resume_time_s
        self.max_pending_bytes = max_pending_bytes
        self._links = Links(self, stream, down=down, reconnect=None if reconnect is None else partial(reconnect, self),
                            can_resume=can_resume or (lambda: False), fail=self._fail,
                            queue=self._send_events.send_nowait, fault_of=self._fault_of,
                            remote_errors=self._remote_errors)

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
        return self._links.lost is None and self.down_since is None and self.error is None

    @property
    def reconnecting(self) -> bool:
        """True while the link is lost and a reconnection is under way."""
        return self._links.lost is not None

    @property
    def resumable(self) -> bool:
        """True while a lost link would be reconnected (a way to reconnect, the match not over)."""
        return self._links.resumable

    @property
    def down_since(self) -> float | None:
        """``trio.current_time()`` when the link went down; None while the peer is proven on a link."""
        return self._links.down_since

    @property
    def reconnections(self) -> int:
        """How many times the peer came back on a new link and proved itself (protocol/wire.md §14)."""
        return self._links.reconnections

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
        return max(0.0, trio.current_time() - self._links.current.last_rx)

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
            self._links.current.drain()
        async with self._send_lock:
            data = self.session.data_to_send()
            if not data:
                return
            if self._links.lost is None:  # link down: every chained message is sent again after the reconnection
                await self._links.current.write(data)

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
        self._links.current.partial = None
        if trailing_data:
            try:
                session.receive_data(trailing_data)
            except self._remote_errors as exc:
                self._fail(PeerFault(str(exc)))
                raise self.error or PeerFault(str(exc)) from None
            self._links.current.drain()
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
        self._links.current.restart_clock(trio.current_time())

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
            await self._links.current.close(self.close_first, self._send_lock)
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
            nursery.start_soon(self._guard_writes)
            nursery.start_soon(self._links.run)
            nursery.start_soon(run_body)

    async def _guard_writes(self) -> None:
        """Cancel the write in progress when the run itself is cancelled (from outside, e.g. a second
        Ctrl-C, or by :meth:`_cancel`): a write is shielded only from its own caller (see
        :meth:`send_pending`), never from the end of the run."""
        try:
            await trio.sleep_forever()
        finally:
            self._stop_write()

    # ----- internals -------------------------------------------------------------------

    def _cancel(self) -> None:
        self._stop_write()
        if self._scope is not None:
            self._scope.cancel()

    def _stop_write(self) -> None:
        """Cancel the write in progress (shielded from its caller, see :meth:`send_pending`): the link
        it writes to is being dropped."""
        self._links.current.stop_write()

    def _fail(self, error: TransportError, final: bool = False) -> None:
        """Record why the link or the run stopped: a lost link is reconnected (when it can be and
        ``final`` is False); anything else ends the run with ``error``."""
        if not final and isinstance(error, (PeerGone, PeerTimeout)) and self._links.resumable:
            self._links.lose(error)  # the link is lost, not the match: reconnect (protocol/wire.md §14)
            return
        if self.error is None:
            self.error = error
        self._cancel()
