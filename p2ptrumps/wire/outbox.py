"""What a session hands out: the bytes for the socket (with the log hook) and the events.

Source: ``protocol/wire.md`` §2 (frames), §12 (what is logged, and when: a sent message before its bytes
go out), §14.2 (a chained message made while resuming goes out from the chain once the peer proved
itself, not at once).  The :class:`~p2ptrumps.wire.session.Session` reads and decides; these two parts
only hold what it produced until the transport takes it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Literal

from ..events import (
    ChatReceived,
    DealSigned,
    Event,
    MatchSigned,
    RematchAgreed,
    RematchOffered,
    RulesAgreed,
    RulesProposed,
    RulesRefused,
)
from . import framing
from . import messages as m
from .resume import Resumption

Direction = Literal["sent", "received"]
LogHook = Callable[[bytes, Direction], None]
#: Events that report a peer's own message: never emitted for our own (the match machine's events are,
#: for both seats: our own move comes back as a ``MovePlayed`` like the peer's).
_PEER_ONLY = (ChatReceived, RematchOffered)
#: Session events that happen once per match (emitted once even if a withdrawn message is re-signed).
_MILESTONES = (RulesAgreed, RulesRefused, DealSigned, MatchSigned, RematchAgreed)


class Outbox:
    """The bytes queued for the socket, and the log hook every hello and chained message goes through.

    Args:
        on_message: the log hook ``on_message(frame, direction)`` (see the session's module docstring),
            or None; it may be replaced later (:attr:`on_message`).
        resumption: the resume exchange: while it runs, a chained message we make is logged but not
            queued (it goes out from the chain once the peer proved itself, protocol/wire.md §14.2).
    """

    def __init__(self, on_message: LogHook | None, resumption: Resumption) -> None:
        self.on_message = on_message
        self.resumption = resumption
        #: The bytes not yet taken by :meth:`take` (frames, length prefixes included).
        self.buffer = bytearray()

    def frame(self, payload: bytes, log: bool) -> None:
        """Frame ``payload`` and queue it; a ``log`` one (a hello, a chained message) goes to the log
        hook first (protocol/wire.md §12).  What the hook raises propagates, and nothing is queued."""
        frame = framing.frame(payload)
        if log and self.on_message is not None:
            self.on_message(frame, "sent")
        if self.resumption.resuming and log:
            return  # a chained message made while resuming goes out from the chain once the peer proved itself
        self.buffer += frame

    def signed(self, msg: m.Signed, acked: bool) -> None:
        """Our chained message ``msg``, logged and queued; ``acked``: it acknowledges the peer's last
        (protocol/wire.md §14.5)."""
        self.resumption.sent(acked)
        self.frame(msg.payload, log=True)

    def received(self, frame: bytes) -> None:
        """Hand the peer's ``frame`` (as on the wire) to the log hook as ``"received"``."""
        if self.on_message is not None:
            self.on_message(frame, "received")

    def take(self) -> bytes:
        """All bytes queued since the last call (may be ``b""``)."""
        out = bytes(self.buffer)
        self.buffer.clear()
        return out


class EventQueue:
    """The session's events until the caller reads them, each said once and to the right side.

    Args:
        seat: ours (0 host, 1 guest): the peer-only events of our own messages are not queued, nor the
            host's own rule proposal.
        resumption: the resume exchange: while a restored session replays its chain
            (``resumption.replaying``), the milestones are noted and nothing is queued.

    :attr:`rematched` turns True once a :class:`~p2ptrumps.events.RematchAgreed` is queued.
    """

    def __init__(self, seat: int, resumption: Resumption) -> None:
        self.seat = seat
        self.resumption = resumption
        self.queue: deque[Event] = deque()
        self.rematched = False
        self._milestones: set[Event] = set()

    def push(self, events: Iterable[Event]) -> None:
        """Queue ``events`` (the match machine's and the session's, in order), leaving out our own
        peer-only events and a milestone said before (while replaying: only note the milestones)."""
        quiet = self.resumption.replaying
        for ev in events:
            if isinstance(ev, _PEER_ONLY) and ev.seat == self.seat:
                continue
            if isinstance(ev, RulesProposed) and self.seat == 0:
                continue
            if isinstance(ev, _MILESTONES):
                if ev in self._milestones:
                    continue
                self._milestones.add(ev)
            if quiet:
                continue  # part of what the restored chain holds once caught up (Session.end_replay)
            self.queue.append(ev)
            if isinstance(ev, RematchAgreed):
                self.rematched = True

    def next(self) -> Event | None:
        """The oldest event not yet read, or None."""
        return self.queue.popleft() if self.queue else None
