"""The peer session: one side of a networked match as a sans-IO state machine.

Source: ``protocol/wire.md`` (all of it; §7 the handshake, §8 the joint hash
chain and the ordering of concurrent sends, §9 the match, §10 heartbeats).

Bytes and events in, bytes and events out (the h11 / wsproto model).  The
session reads no clock and no OS randomness: the handshake nonce and the
commit secrets are passed in; timeouts and heartbeat timing belong to the
transport.  Every rule of the match (whose turn, legal moves, commitments,
results) is checked by the same :class:`~p2ptrumps.wire.chain.JointChain` that
``verify`` runs over a log.

Use (the transport's loop)::

    def to_log(frame, direction):         # append + flush + fsync (protocol/wire.md §12)
        logfile.append(frame)             # the frame as it is (wire/log.py)
    s = Session("guest", identity, "Ann", nonce=os.urandom(32), on_message=to_log)
    sock.send(s.data_to_send())           # our hello
    while True:
        s.receive_data(sock.recv(65536))  # b"" when the peer closed
        while (ev := s.next_event()) is not None:
            ...                           # PeerHello -> s.accept_key(); MoveReceived -> ...
        sock.send(s.data_to_send())

Seats: the host is seat 0, the guest seat 1 (``session.seat``).

Log hook: ``on_message(frame, direction)`` gets every hello and every chained
message -- ``frame`` exactly as on the wire (4-byte length prefix included),
``direction`` ``"sent"`` or ``"received"`` -- for a sent one *before* its bytes
appear in :meth:`data_to_send`, for a received one as soon as it checks out
(before its events are handed out).  Pings and pongs are never logged.  If the
hook raises, the exception propagates out of the intent / ``receive_data`` call
and the message is not sent (the transport should then stop).

Intents (raise :class:`LocalProtocolError` when not allowed now; nothing is sent then):
``accept_key``, ``accept_rules`` / ``refuse_rules``, ``choose_trump``,
``commit`` / ``reveal``, ``play``, ``resign``, ``offer_draw`` / ``answer_draw``,
``chat``, ``offer_rematch``, ``ping``.  ``commit`` and ``reveal`` may be given
early: the session holds them and sends each when it is our place to (see
:class:`~p2ptrumps.events.CommitDue`).  Our deal-end and match-end
statements are sent automatically when due.

Parts (each a class of its own, along the protocol's seams): :class:`~p2ptrumps.wire.handshake.Handshake`
(the hellos and admission, §7), :class:`~p2ptrumps.wire.floor.Floor` (our side of the chain: the intents,
what falls due, §8-§9), :class:`~p2ptrumps.wire.resume.Resumption` (reconnecting, §14),
:class:`~p2ptrumps.wire.outbox.Outbox` and :class:`~p2ptrumps.wire.outbox.EventQueue` (the bytes and
events handed out), :class:`Gate` (when the session may still read and sign).  Reading frames is the
module's functions below the class.

Concurrent sends (protocol/wire.md §8.3): the host's message always takes a
contested place in the chain; a guest message that crossed it is withdrawn and
re-signed on top by this class automatically (if it is still allowed -- a move
crossing the host's resignation is dropped).  Nothing to do for the caller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from ..events import (
    CommitDue,
    ConnectionClosed,
    DroppedAfterEnd,
    Event,
    Flooded,
    ProtocolViolation,
    Resumed,
    ResumeRefused,
    RevealDue,
)
from ..rules import Position, RuleSet
from . import framing
from . import messages as m
from .chain import JointChain
from .errors import LocalProtocolError, PeerFlood, RemoteProtocolError
from .floor import Floor
from .handshake import Handshake
from .identity import Identity
from .outbox import Direction, EventQueue, LogHook, Outbox
from .referee import DISPUTED, DONE, REFUSED, REMATCHED, REVEAL, Referee
from .resume import Resumption

Role = Literal["host", "guest"]
#: Most bytes kept for the next session once a rematch is agreed, until the transport switches to it
#: (protocol/wire.md §9.4); more is a flood (§17).
MAX_TRAILING_BYTES = 1 << 20

__all__ = ["Direction", "LocalProtocolError", "LogHook", "RemoteProtocolError", "Role", "Session"]


class Gate:
    """Whether the session may still read, and sign now: alive (no violation, not closed, no rematch
    agreed), the peer's key accepted, and not catching up after a resume (protocol/wire.md §7, §14.2
    step 5).  Its ``LocalProtocolError`` says which is missing.

    Args:
        handshake: the hellos and the key accepted; ``resumption``: the resume exchange;
        ``events``: the event queue (a rematch agreed there ends the session).
    """

    def __init__(self, handshake: Handshake, resumption: Resumption, events: EventQueue) -> None:
        self.handshake, self.resumption, self.events = handshake, resumption, events
        #: The joint chain, once both hellos are in.
        self.chain: JointChain | None = None
        self.dead = False  # violation or closed
        self.closed = False
        self.violation: ProtocolViolation | None = None

    @property
    def finished(self) -> bool:
        """A rematch was agreed: this session reads no more (the next one takes the bytes)."""
        return self.events.rematched

    @property
    def catching_up(self) -> bool:
        """See :attr:`Session.catching_up`."""
        return self.chain is not None and self.resumption.catching_up(len(self.chain))

    def check_alive(self) -> None:
        """``LocalProtocolError`` once the session is over (a violation, closed, or a rematch agreed)."""
        if self.dead:
            raise LocalProtocolError(
                "the session is over" + (f" ({self.violation.reason})" if self.violation else " (connection closed)"))
        if self.finished:
            raise LocalProtocolError("the session is over (rematch agreed: start a new session)")

    def current(self) -> Referee | None:
        """The referee once the peer's key is accepted, else None (``LocalProtocolError`` when over)."""
        self.check_alive()
        return None if self.chain is None or not self.handshake.key_accepted else self.chain.referee

    def peer_gone(self) -> bool:
        """Whether the peer closed the connection once the match began (a claim is then only logged)."""
        if self.closed and self.violation is None and not self.finished and self.handshake.key_accepted:
            self.signing()
            return True
        return False

    def ready(self) -> Referee:
        """The referee, when we may sign now; else ``LocalProtocolError`` says why."""
        self.check_alive()
        return self.signing()

    def signing(self) -> Referee:
        """The referee, once the handshake is done and we are not catching up (``LocalProtocolError``)."""
        if self.chain is None or not self.handshake.key_accepted:
            raise LocalProtocolError("the handshake is not done (no peer key accepted yet)")
        if self.catching_up:
            held = "an unknown number of" if self.resumption.catch_up is None else str(self.resumption.catch_up)
            raise LocalProtocolError(
                f"catching up after a resume: the peer holds {held} messages, we {len(self.chain)}; nothing "
                "is signed until the messages our log lost come back (protocol/wire.md §14.2)")
        return self.chain.referee


class Session:
    """One side of a networked match (protocol/wire.md), made of the parts of the module docstring.

    Args:
        role: ``"host"`` (seat 0, proposes the rules, speaks first) or ``"guest"`` (seat 1).
        identity: our long-term Ed25519 key (:class:`~p2ptrumps.wire.identity.Identity`).
        name: our display name, 1..64 characters, no control characters.
        nonce: 32 fresh random bytes for this session's handshake (``os.urandom(32)``).
        rules: the rule set the host proposes; must be None for the guest.
        move_time: the move clock the host proposes with the rules, seconds per move (0: none;
            else 5..3600; protocol/wire.md §9.2, §16); 0 for the guest.
        on_message: the log hook (see the module docstring), or None.
        max_frame_bytes: the largest frame payload accepted, bytes (default
            :data:`~p2ptrumps.wire.framing.MAX_FRAME_BYTES`).

    Raises:
        ValueError: bad role / nonce length / name / move time, rules given to a guest or missing
            for a host.

    The hello is queued at once: :meth:`data_to_send` returns it right away.
    """

    def __init__(self, role: Role, identity: Identity, name: str, nonce: bytes, rules: RuleSet | None = None,
                 on_message: LogHook | None = None, max_frame_bytes: int = framing.MAX_FRAME_BYTES,
                 move_time: int = 0) -> None:
        if role not in ("host", "guest"):
            raise ValueError(f"role must be 'host' or 'guest', not {role!r}")
        if not isinstance(nonce, bytes) or len(nonce) != 32:
            raise ValueError("nonce must be 32 bytes")
        if (role == "host") != (rules is not None):
            raise ValueError("the host proposes rules; the guest passes rules=None")
        if move_time and role != "host":
            raise ValueError("the host proposes the move clock; the guest passes move_time=0")
        self.role: Role = role
        self.seat: int = 0 if role == "host" else 1
        self.identity, self.name, self.nonce = identity, name, nonce
        #: The 32-byte game id (protocol/wire.md §7.2), the peer's display name and key fingerprint:
        #: None until the peer's hello.
        self.game_id: bytes | None = None
        self.peer_name: str | None = None
        self.peer_fingerprint: str | None = None
        self._handshake = Handshake(self.seat, identity, name, nonce, rules, move_time)
        self._resumption = Resumption(self.seat, identity)
        self._decoder = framing.FrameDecoder(max_frame_bytes)
        self._outbox = Outbox(on_message, self._resumption)
        self._events = EventQueue(self.seat, self._resumption)
        self._gate = Gate(self._handshake, self._resumption, self._events)
        self.floor = Floor(self.seat, identity, self._outbox.signed, self._gate.ready, self._gate.current,
                           self._publish, self._gate.peer_gone)
        self._ping_counter = 0
        self.trailing_data: bytes = b""
        self._outbox.frame(self._handshake.payload, log=True)

    @classmethod
    def restore(cls, identity: Identity, frames: Sequence[bytes], secrets: Mapping[int, bytes], *,
                on_message: LogHook | None = None, max_frame_bytes: int = framing.MAX_FRAME_BYTES) -> Session:
        """The session that wrote a match log, rebuilt after its process died (protocol/wire.md §14.4).

        Args:
            identity: our key; it must be the key of the log's first hello (the owner's).
            frames: the log's whole frames (length prefixes included), in file order, as
                :func:`~p2ptrumps.wire.log.read_log` gives them (an incomplete last frame left out).
            secrets: deal number -> our 32-byte commit secret of that deal (the resume file,
                ``protocol/files.md``); the one of a deal whose commitment we sent but whose reveal
                we did not must be there.
            on_message: the log hook for what comes next (frames appended to the same log).

        Returns a session holding the chain of the log, the peer's key accepted, no events
        queued and nothing to send; call :meth:`begin_resume` on a new connection.  It signs
        nothing (:attr:`catching_up`) until the peer's ``proof`` has checked out and the chain
        holds every message the peer said it holds: our own messages that the log lost come back
        from the peer and are adopted, never signed again (protocol/wire.md §14.2 step 5).  The chain
        goes through the same checks as :func:`~p2ptrumps.wire.verify.verify_log`.  A complete match
        (phase done) is restored too (protocol/wire.md §14.5): :attr:`delivered` tells whether the peer
        holds our last statement.

        Raises:
            ValueError: the log does not start with our hello and the peer's, holds another
                key's hello first, breaks the protocol somewhere (the message names the frame),
                has rules refused, a rematch agreed (or no rules yet), or a needed secret is
                missing or does not open our commitment.
        """
        return _restore(cls, identity, frames, secrets, on_message=on_message, max_frame_bytes=max_frame_bytes)

    # ----- bytes in / bytes and events out -------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Feed raw bytes from the socket (any split); ``b""`` means the peer closed.

        Never raises for bad peer input: a fault becomes a :class:`~p2ptrumps.events.ProtocolViolation`
        event (the offending frame is handed to the log hook as ``"received"`` evidence) and the
        session stops reading.  Raises only what the log hook raises.
        """
        _receive(self, data)

    def next_event(self) -> Event | None:
        """The next event, or None when there is none until more data arrives."""
        return self._events.next()

    def data_to_send(self) -> bytes:
        """All bytes queued for the socket since the last call (may be ``b""``)."""
        return self._outbox.take()

    @property
    def pending_bytes(self) -> int:
        """How many bytes are queued for the socket (not yet taken by :meth:`data_to_send`)."""
        return len(self._outbox.buffer)

    @property
    def partial_frame(self) -> tuple[int, int] | None:
        """The peer's frame being received, incomplete: ``(stream offset of its first byte, bytes
        buffered)``, or None (the transport gives a frame a limited time to arrive whole,
        protocol/wire.md §2, §17)."""
        return None if self._gate.dead or self._gate.finished else self._decoder.partial

    def ping(self) -> None:
        """Queue a heartbeat ``ping`` (outside the chain, unsigned, not logged); its ``pong`` may
        acknowledge our last message (protocol/wire.md §10, §14.5).  Nothing once the session is dead."""
        if self._gate.dead:
            return
        self._ping_counter = (self._ping_counter + 1) & 0xFFFFFFFF
        self._resumption.pinging(self._ping_counter)
        self._outbox.buffer += framing.frame(m.Ping(self._ping_counter).encode())

    # ----- intents -------------------------------------------------------------

    def accept_key(self) -> None:
        """Go on with the peer whose hello we got (after pinning / the user's confirmation); the host
        then sends its rule proposal.  ``LocalProtocolError`` before the peer's hello or when already
        accepted."""
        self._gate.check_alive()
        proposal = self._handshake.accept(self._gate.chain is not None)
        self._publish(self.floor.sign(proposal) if proposal is not None else [])

    def begin_resume(self, nonce: bytes, resume_sent: bool = False) -> None:
        """Start again on a new connection (protocol/wire.md §14): forget the old connection's bytes
        (half-read frames, unsent output: every chained message is sent again from the chain), and, as
        the guest, queue our ``resume`` frame (unless ``resume_sent``: the host's lobby sent it already,
        §14.2 step 3).  Until the peer's ``proof`` checks out only ``resume``, ``proof`` and heartbeats are
        taken; then the missing messages are sent and :class:`~p2ptrumps.events.Resumed` is emitted.

        Raises :class:`LocalProtocolError` when there is no match to resume (no handshake yet, a
        protocol violation, or the match has ended); ``ValueError`` for a bad nonce.
        """
        if not isinstance(nonce, bytes) or len(nonce) != 32:
            raise ValueError("nonce must be 32 bytes")
        gate = self._gate
        chain = gate.chain
        if chain is None or not self._handshake.key_accepted or gate.violation is not None or gate.finished:
            raise LocalProtocolError("there is no match in progress to resume")
        gate.dead = gate.closed = False
        self._decoder = framing.FrameDecoder(self._decoder.max_frame_bytes)
        self._outbox.buffer.clear()
        self._resumption.begin(nonce, resume_sent)
        if self.role == "guest" and not resume_sent:
            self._outbox.buffer += self._resumption.resume_frame(chain.game_id)

    def end_replay(self) -> None:
        """(a session made by :meth:`restore`) From now on, queue the events of what the chain takes;
        until then -- typically while it catches up after the resume -- a restored session queues none
        for chain messages, so a caller that reads the chain once (when caught up) and then follows the
        events sees every message exactly once."""
        self._resumption.replaying = False

    # ----- queries -------------------------------------------------------------

    @property
    def chain(self) -> JointChain | None:
        """The joint chain (read only), once both hellos are in: its referee and match machine
        (``chain.referee.match``) hold the whole state of the match."""
        return self._gate.chain

    @property
    def violation(self) -> ProtocolViolation | None:
        """The peer's breach of the protocol that ended the session (the frame as evidence), or None."""
        return self._gate.violation

    @property
    def rules(self) -> RuleSet | None:
        """The agreed rules (None until the guest accepted)."""
        return None if self._gate.chain is None else self._gate.chain.referee.rules

    @property
    def move_time(self) -> int:
        """The agreed move clock, seconds per move (0: none, or not agreed yet; protocol/wire.md §16)."""
        return 0 if self._gate.chain is None else self._gate.chain.referee.move_time

    @property
    def trumps(self) -> tuple[int, int] | None:
        """Own trump of seat 0 and seat 1, once both are chosen."""
        return None if self._gate.chain is None else self._gate.chain.referee.trumps_pair

    @property
    def position(self) -> Position | None:
        """A copy of the current deal's position (None before the first deal is dealt)."""
        match = None if self._gate.chain is None else self._gate.chain.referee.match
        return None if match is None or match.position is None else match.position.copy()

    @property
    def deal_number(self) -> int:
        """The current (or last) deal number, 0 before the first deal."""
        return 0 if self._gate.chain is None else self._gate.chain.referee.deal

    @property
    def score_halves(self) -> tuple[int, int]:
        """Match score in half-points (seat 0, seat 1)."""
        return (0, 0) if self._gate.chain is None else self._gate.chain.referee.score()

    def waiting_for(self) -> tuple[int | None, str]:
        """Who the match waits for, and what: ``(seat, what)`` with ``what`` one of ``"hello"``,
        ``"key"``, ``"rules"``, ``"agree"``, ``"trump"``, ``"commit"``, ``"reveal"``, ``"move"``,
        ``"deal-end"``, ``"match-end"``, ``"rematch"`` (seat None: either side), ``"nothing"``
        (finished / dead)."""
        chain = self._gate.chain
        if self._gate.dead:
            return None, "nothing"
        if chain is None:
            return 1 - self.seat, "hello"
        if not self._handshake.key_accepted:
            return self.seat, "key"
        return chain.referee.waiting_for()

    @property
    def finished(self) -> bool:
        """Match ended (both signed), rules refused, rematch agreed, violation or closed."""
        chain = self._gate.chain
        if self._gate.dead or self._gate.finished:
            return True
        return chain is not None and chain.referee.phase in (DONE, REFUSED, REMATCHED, DISPUTED)

    @property
    def delivered(self) -> bool:
        """True when the peer holds every message we sent up to the match's end for sure: a message of
        the peer came after it, or a pong answered a ping sent after it (protocol/wire.md §14.5).
        Messages after the match's end (chat, rematch) do not count."""
        return self._resumption.delivered

    @property
    def catching_up(self) -> bool:
        """True while we may not sign (protocol/wire.md §14.2 step 5): a session restored from its log
        before its first resume is proven, or after a proven resume while our chain is shorter than the
        peer's ``confirmed`` count (our log lost messages the peer holds; they are coming back)."""
        return self._gate.catching_up

    @property
    def reconnections(self) -> int:
        """How many times the peer proved its key on a new connection (protocol/wire.md §14)."""
        return self._resumption.reconnections

    # ----- internals -----------------------------------------------------------

    def _publish(self, events: list[Event]) -> None:
        """The events of what we (or the peer) placed; then we send what is due from us by itself
        (statements, a given commitment or reveal) and say what is due."""
        self._events.push(events)
        gate = self._gate
        if gate.chain is None or not self._handshake.key_accepted or gate.dead or gate.finished \
                or gate.catching_up:
            return
        due = self.floor.due()
        self._events.queue.extend(e for e in due if isinstance(e, (CommitDue, RevealDue)))
        self._events.push([e for e in due if not isinstance(e, (CommitDue, RevealDue))])


# ----- receiving: frames in, handed to the session's parts ------------------------------------


def _receive(s: Session, data: bytes) -> None:
    """:meth:`Session.receive_data`."""
    if s._gate.finished:
        if not s._gate.dead:  # after the rematch was agreed: kept for the next session, up to a bound
            s.trailing_data += data
            if len(s.trailing_data) > MAX_TRAILING_BYTES:
                _flooded(s, f"more than {MAX_TRAILING_BYTES} bytes arrived after the rematch was agreed, "
                              "before the new match began")
        return
    if s._gate.dead:
        return
    if not data:
        s._gate.dead = s._gate.closed = True
        s._events.queue.append(ConnectionClosed(s.finished and not s._decoder.buffered))
        return
    s._decoder.feed(data)
    for _ in range(1 << 20):  # bounded: each pass consumes a frame
        if s._gate.dead or s._gate.finished:
            break
        try:
            got = s._decoder.next_frame()
        except RemoteProtocolError as exc:
            _violate(s, exc, s._decoder.buffered)
            return
        if got is None:
            break
        frame, payload = got
        try:
            _handle(s, frame, payload)
        except RemoteProtocolError as exc:
            _violate(s, exc, frame)
            return
        except PeerFlood as exc:
            _flooded(s, str(exc))
            return
    if s._gate.finished:
        s.trailing_data += s._decoder.buffered


def _violate(s: Session, exc: RemoteProtocolError, evidence: bytes) -> None:
    s._gate.dead = True
    if s._gate.chain is not None and s._gate.chain.referee.phase == DONE:
        # After the match nothing but chat and rematch is logged: junk is dropped, not evidence
        # (protocol/wire.md §12, "After the match"); the match stays complete.
        s._gate.closed = True
        s._events.queue.append(DroppedAfterEnd(exc.code, exc.reason))
        s._events.queue.append(ConnectionClosed(False))  # the session reads nothing more
        return
    violation = s._gate.violation = ProtocolViolation(exc.code, exc.reason, evidence)
    if evidence:
        for payload in exc.evidence:  # superseded messages the offending one equivocates against (§12)
            s._outbox.received(framing.frame(payload))
        s._outbox.received(evidence)
    s._events.queue.append(violation)

def _flooded(s: Session, reason: str) -> None:
    """The peer went beyond a limit no log can show (protocol/wire.md §17): stop reading, log nothing."""
    s._gate.dead = s._gate.closed = True
    s.trailing_data = b""
    s._events.queue.append(Flooded(reason))

def _handle(s: Session, frame: bytes, payload: bytes) -> None:
    msg = m.decode_frame(payload)
    if isinstance(msg, m.Ping):
        s._outbox.buffer += framing.frame(m.Pong(msg.n).encode())
    elif isinstance(msg, m.Pong):
        s._resumption.pong(msg.n)
    elif isinstance(msg, (m.Resume, m.Proof)) or s._resumption.resuming:
        _on_resume_frame(s, frame, msg)
    elif isinstance(msg, (m.Ticket, m.Refuse)):
        refused = s._handshake.admission(msg, s._gate.chain is None)
        if refused is not None:
            s._gate.dead = s._gate.closed = True
            s._events.queue.append(refused)
    elif isinstance(msg, m.Hello):
        _take_hello(s, frame, payload, msg)
    elif s._gate.chain is None:
        raise RemoteProtocolError("out-of-turn", f"a {msg.kind} message arrived before the peer's hello")
    else:
        _place_received(s, frame, msg)

def _take_hello(s: Session, frame: bytes, payload: bytes, hello: m.Hello) -> None:
    """The peer's hello: checked (protocol/wire.md §7.1), logged, and the game's chain built."""
    key = s._handshake.check_hello(hello)
    s._outbox.received(frame)
    chain, event = s._handshake.take_hello(payload, hello, key)
    s._gate.chain = chain
    s.game_id, s.peer_name, s.peer_fingerprint = chain.game_id, hello.name, key.fingerprint
    s.floor.attach(chain)
    s._events.queue.append(event)

def _place_received(s: Session, frame: bytes, msg: m.Signed | m.Envelope) -> None:
    """A ``msg`` of the chain from the peer (protocol/wire.md §8.2, §14.2 step 5)."""
    chain, floor, resumption = s._gate.chain, s.floor, s._resumption
    assert chain is not None
    if resumption.reconnections and msg.seq < len(chain) and chain.entries[msg.seq].hash == msg.hash:
        return  # sent again after a reconnection and already held (§14.2 step 5)
    if msg.seat == s.seat and resumption.replaying and s.catching_up and resumption.catch_up is not None \
            and msg.seq == len(chain) and msg.prev == chain.head:
        # Only a restored session, before its user read the chain (end_replay): later, a message of
        # ours we never held was signed by another copy of us (§8.2), not lost from our log.
        _adopt_own(s, frame, msg)  # ours, lost from our log, sent back by the peer (§14.2 step 5)
        return
    result = chain.receive(msg)
    if result.superseded:
        return
    resumption.heard()  # placed after ours: it acknowledges them (§14.5)
    s._outbox.received(frame)
    s._events.push(result.events)
    if result.withdrawn:
        s._events.push(floor.resign_withdrawn(result.withdrawn, chain.entries[msg.seq], s.catching_up))
    s._publish([])

def _adopt_own(s: Session, frame: bytes, msg: m.Signed | m.Envelope) -> None:
    """Place one of our own messages that the peer sent back after a resume while we catch up (our
    log had lost it, protocol/wire.md §14.2 step 5): it must carry our good signature and fit the end
    of our chain (else ``RemoteProtocolError``, as ``place_own``); it is logged, and a commitment of
    ours takes its secret from the resume file."""
    chain, floor = s._gate.chain, s.floor
    assert chain is not None
    chain.check_signature(msg)
    signed = msg if isinstance(msg, m.Signed) else msg.open()
    events = chain.place_own(signed)
    s._outbox.received(frame)
    if isinstance(signed.body, m.CommitMsg):
        floor.commitments.came_back(signed.body, chain.game_id)
    s._events.push(events)
    if not s.catching_up:
        s._publish([])

def _on_resume_frame(s: Session, frame: bytes, msg: m.RawFrame) -> None:
    chain = s._gate.chain
    if chain is None or s._gate.finished:
        raise RemoteProtocolError("out-of-turn", f"a {type(msg).__name__.lower()} frame outside a reconnection")
    step = s._resumption.on_frame(frame, msg, chain)
    s._outbox.buffer += step.out
    if step.refused is not None:  # the new connection is not the peer: the match is untouched
        s._gate.dead = s._gate.closed = True
        s._events.queue.append(ResumeRefused(step.refused))
    if not step.proven:
        return
    s._outbox.received(step.log)
    for e in chain.entries[step.resend:]:
        s._outbox.buffer += framing.frame(e.payload)
    s._events.queue.append(Resumed(s._resumption.reconnections))
    s._publish([])


def _restore(cls: type[Session], identity: Identity, frames: Sequence[bytes], secrets: Mapping[int, bytes], *,
             on_message: LogHook | None = None, max_frame_bytes: int = framing.MAX_FRAME_BYTES) -> Session:
    """The session that wrote a match log, rebuilt after its process died (§14.4); see
    :meth:`Session.restore <p2ptrumps.wire.session.Session.restore>`."""
    decoded: list[m.Frame] = []
    for i, frame in enumerate(frames):
        try:
            decoded.append(m.decode(frame[framing.HEADER_BYTES:]))
        except RemoteProtocolError as exc:
            raise ValueError(f"log frame #{i}: {exc.reason} [{exc.code}]") from None
    if len(decoded) < 2 or not isinstance(decoded[0], m.Hello) or not isinstance(decoded[1], m.Hello):
        raise ValueError("the log does not start with two hellos")
    own, peer_hello = decoded[0], decoded[1]
    if own.public_key != identity.public_bytes:
        raise ValueError("the log was written with another identity key than ours")
    role: Role = "host" if own.seat == 0 else "guest"
    placeholder = RuleSet() if role == "host" else None  # never sent: the key is accepted already
    s = cls(role, identity, own.name, own.nonce, rules=placeholder, max_frame_bytes=max_frame_bytes)
    if s.data_to_send() != frames[0]:
        raise ValueError("the log's first hello is not the hello this program would send (not canonical)")
    try:
        _take_hello(s, frames[1], frames[1][framing.HEADER_BYTES:], peer_hello)
    except RemoteProtocolError as exc:
        raise ValueError(f"log frame #1: {exc.reason} [{exc.code}]") from None
    s._handshake.key_accepted = True
    chain, floor = s._gate.chain, s.floor
    assert chain is not None
    resumption = s._resumption
    for i, msg in enumerate(decoded[2:], start=2):
        try:
            if isinstance(msg, m.Resume):
                if msg.game_id != chain.game_id or msg.seat != 1 - s.seat:
                    raise RemoteProtocolError("malformed", "a resume frame for another game or seat")
                resumption.reconnections += 1
                continue
            if not isinstance(msg, m.Signed):
                raise RemoteProtocolError("malformed", f"a {type(msg).__name__.lower()} frame in a log")
            events = chain.place_own(msg) if msg.seat == s.seat else chain.receive(msg).events
        except RemoteProtocolError as exc:
            raise ValueError(f"log frame #{i}: {exc.reason} [{exc.code}]") from None
        if msg.seat == s.seat and isinstance(msg.body, m.CommitMsg):
            floor.commitments.came_back(msg.body, chain.game_id, dict(secrets))
        s._events.push(events)
    ref = chain.referee
    ends = [i for i, e in enumerate(chain.entries) if isinstance(e.body, m.MatchEndMsg)]
    if ref.phase == DONE:  # our last statement may never have reached the peer (§14.5)
        resumption.unacked = chain.entries[ends[-1]].seat == s.seat and all(
            e.seat == s.seat for e in chain.entries[ends[-1]:])
    else:
        resumption.unacked = bool(chain.entries) and chain.entries[-1].seat == s.seat
    if ref.rules is None or ref.phase in (REFUSED, REMATCHED):
        raise ValueError(f"the match in the log is not in progress (phase {ref.phase})")
    if ref.phase == REVEAL and s.seat in ref.commits and s.seat not in ref.secrets \
            and ref.deal not in floor.commitments.secrets:
        raise ValueError(f"the secret of our commitment for deal {ref.deal} is missing from the resume file "
                         "(or does not open it): we cannot reveal, which forfeits the match")
    s._events.queue.clear()
    s._outbox.on_message = on_message
    resumption.catch_up = None  # nothing is signed before the peer said what it holds (§14.2 step 5)
    resumption.replaying = True
    floor.commitments.stored = {d: v for d, v in secrets.items() if isinstance(v, bytes) and len(v) == 32}
    return s
