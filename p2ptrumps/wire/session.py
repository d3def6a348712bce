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
        logfile.append(log_entry(frame))
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

Concurrent sends (protocol/wire.md §8.3): the host's message always takes a
contested place in the chain; a guest message that crossed it is withdrawn and
re-signed on top by this class automatically (if it is still allowed -- a move
crossing the host's resignation is dropped).  Nothing to do for the caller.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from ..events import (
    ChatReceived,
    CommitDue,
    ConnectionClosed,
    DealSigned,
    DroppedAfterEnd,
    Event,
    Flooded,
    HostRefused,
    MatchSigned,
    PeerHello,
    ProtocolViolation,
    RematchAgreed,
    RematchOffered,
    Resumed,
    ResumeRefused,
    RevealDue,
    RulesAgreed,
    RulesProposed,
    RulesRefused,
)
from ..rules import Move, Position, RuleSet
from . import framing, messages
from . import messages as m
from .chain import JointChain
from .errors import LocalProtocolError, PeerFlood, RemoteProtocolError
from .identity import Identity, PublicKey
from .referee import DISPUTED, DONE, MATCH_END, PLAY, REFUSED, REMATCHED, TRANSITIONS, Referee

Role = Literal["host", "guest"]
#: Events that report a peer's own message: never emitted for our own (the match machine's events are,
#: for both seats: our own move comes back as a ``MovePlayed`` like the peer's).
_PEER_ONLY = (ChatReceived, RematchOffered)
#: Session events that happen once per match (emitted once even if a withdrawn message is re-signed).
_MILESTONES = (RulesAgreed, RulesRefused, DealSigned, MatchSigned, RematchAgreed)
Direction = Literal["sent", "received"]
#: Most bytes kept for the next session once a rematch is agreed, until the transport switches to it
#: (protocol/wire.md §9.4); more is a flood (§17).
MAX_TRAILING_BYTES = 1 << 20
LogHook = Callable[[bytes, Direction], None]

__all__ = ["Direction", "LocalProtocolError", "LogHook", "RemoteProtocolError", "Role", "Session"]


class Session:
    """One side of a networked match (protocol/wire.md).

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

    def __init__(
        self,
        role: Role,
        identity: Identity,
        name: str,
        nonce: bytes,
        rules: RuleSet | None = None,
        on_message: LogHook | None = None,
        max_frame_bytes: int = framing.MAX_FRAME_BYTES,
        move_time: int = 0,
    ) -> None:
        if role not in ("host", "guest"):
            raise ValueError(f"role must be 'host' or 'guest', not {role!r}")
        if not isinstance(nonce, bytes) or len(nonce) != 32:
            raise ValueError("nonce must be 32 bytes")
        if (role == "host") != (rules is not None):
            raise ValueError("the host proposes rules; the guest passes rules=None")
        messages.check_name(name)
        messages.check_move_time(move_time)
        if move_time and role != "host":
            raise ValueError("the host proposes the move clock; the guest passes move_time=0")
        self._proposed_move_time = move_time
        self.role: Role = role
        self.seat: int = 0 if role == "host" else 1
        self.identity = identity
        self.name = name
        self.nonce = nonce
        self._proposed_rules = rules
        self._on_message = on_message
        self._decoder = framing.FrameDecoder(max_frame_bytes)
        self._out = bytearray()
        self._events: deque[Event] = deque()
        self._hellos: list[messages.Hello | None] = [None, None]
        self._hello_frames: list[bytes | None] = [None, None]
        self._peer_key: PublicKey | None = None
        self._key_accepted = False
        self._chain: JointChain | None = None
        self._dead = False  # violation or closed
        self._closed = False
        self.violation: ProtocolViolation | None = None
        self._ping_counter = 0
        #: Our last message (up to the match's end) may not be held by the peer yet; the ping whose
        #: pong will say it is (protocol/wire.md §14.5).
        self._unacked = False
        self._ack_ping: int | None = None
        self._pending_commit: tuple[int, bytes] | None = None  # (deal, secret) not yet sent
        self._secrets: dict[int, bytes] = {}  # deal -> our secret (sent commitment)
        self._reveal_wanted: set[int] = set()
        self._announced: set[tuple[str, int]] = set()  # CommitDue/RevealDue already emitted
        self._finished = False  # rematch agreed: stop reading
        #: ``claim_check(step)``: whether our own clock ran out on ``step`` (``(step, deal, turn, seat)``,
        #: protocol/wire.md §16) -- called when a claim against us falls due for our statement; False
        #: sends a ``dispute`` instead.  None accepts every claim (a side without a clock of its own).
        self.claim_check: Callable[[tuple[str, int, int, int]], bool] | None = None
        self._milestones: set[Event] = set()
        self.dropped: list[tuple[m.Body, str]] = []  # withdrawn messages no longer allowed (with why)
        #: Deals whose commitment of ours came back from the peer after a resume with its secret lost
        #: (neither log nor resume file kept it): we cannot reveal (protocol/wire.md §14.4).
        self.lost_secrets: set[int] = set()
        self.trailing_data: bytes = b""
        #: A resume in progress (protocol/wire.md §14): our nonce, the peer's resume, proven yet.
        self._resume_nonce: bytes | None = None
        self._peer_resume: m.Resume | None = None
        self._peer_resume_frame: bytes = b""
        self._resume_sent = False
        self.reconnections = 0
        #: How many messages the peer's last proof says it holds (protocol/wire.md §14.2 step 5): while our
        #: chain is shorter -- our log lost messages we had sent -- we sign nothing and take our own
        #: messages back from the peer.  None: a session restored from its log whose first resume has not
        #: been proven yet (it cannot know what it lost).
        self._catch_up: int | None = 0
        #: Deal secrets of the resume file (a restored session): the secret of a commitment of ours that
        #: comes back from the peer (deal -> 32 bytes).
        self._stored_secrets: dict[int, bytes] = {}
        #: A restored session until :meth:`end_replay`: the events of what it places meanwhile are not
        #: queued (like those of the log it was rebuilt from: its user reads the chain instead).
        self._replaying = False
        hello = messages.Hello(
            version=messages.VERSION,
            seat=self.seat,
            name=name,
            public_key=identity.public_bytes,
            nonce=nonce,
        )
        payload = hello.encode()
        self._hellos[self.seat] = hello
        self._hello_frames[self.seat] = payload
        self._emit_frame(payload, log=True)

    @classmethod
    def restore(
        cls,
        identity: Identity,
        frames: Sequence[bytes],
        secrets: Mapping[int, bytes],
        *,
        on_message: LogHook | None = None,
        max_frame_bytes: int = framing.MAX_FRAME_BYTES,
    ) -> Session:
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
        holds every message the peer said it holds: our own messages that the log lost (a
        restored backup, a disk that dropped written data) come back from the peer and are
        adopted, never signed again (protocol/wire.md §14.2 step 5).  The chain
        goes through the same checks as :func:`~p2ptrumps.wire.verify.verify_log` (both seats'
        messages, withdrawals, ``resume`` frames counted in :attr:`reconnections`).

        A complete match (phase done) is restored too: its last statement may not have reached
        the peer, or the peer may wait for the acknowledgement of its own (protocol/wire.md §14.5);
        :attr:`delivered` tells which.

        Raises:
            ValueError: the log does not start with our hello and the peer's, holds another
                key's hello first, breaks the protocol somewhere (the message names the frame),
                has rules refused, a rematch agreed (or no rules yet), or a needed secret is
                missing or does not open our commitment.
        """
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
            s._on_hello(frames[1], frames[1][framing.HEADER_BYTES:], peer_hello)
        except RemoteProtocolError as exc:
            raise ValueError(f"log frame #1: {exc.reason} [{exc.code}]") from None
        s._key_accepted = True
        chain = s._chain
        assert chain is not None
        for i, msg in enumerate(decoded[2:], start=2):
            try:
                if isinstance(msg, m.Resume):
                    if msg.game_id != chain.game_id or msg.seat != 1 - s.seat:
                        raise RemoteProtocolError("malformed", "a resume frame for another game or seat")
                    s.reconnections += 1
                    continue
                if not isinstance(msg, m.Signed):
                    raise RemoteProtocolError("malformed", f"a {type(msg).__name__.lower()} frame in a log")
                events = chain.place_own(msg) if msg.seat == s.seat else chain.receive(msg).events
            except RemoteProtocolError as exc:
                raise ValueError(f"log frame #{i}: {exc.reason} [{exc.code}]") from None
            if msg.seat == s.seat and isinstance(msg.body, m.CommitMsg):
                secret = secrets.get(msg.body.deal)
                if secret is not None and m.commitment(chain.game_id, msg.body.deal, s.seat,
                                                       identity.public_bytes, secret) == msg.body.commitment:
                    s._secrets[msg.body.deal] = secret
            s._push_events(events)
        ref = chain.referee
        ends = [i for i, e in enumerate(chain.entries) if isinstance(e.body, m.MatchEndMsg)]
        if ref.phase == DONE:  # our last statement may never have reached the peer (§14.5)
            s._unacked = chain.entries[ends[-1]].seat == s.seat and all(
                e.seat == s.seat for e in chain.entries[ends[-1]:])
        else:
            s._unacked = bool(chain.entries) and chain.entries[-1].seat == s.seat
        if ref.rules is None or ref.phase in (REFUSED, REMATCHED):
            raise ValueError(f"the match in the log is not in progress (phase {ref.phase})")
        if ref.phase == "reveal" and s.seat in ref.commits and s.seat not in ref.secrets \
                and ref.deal not in s._secrets:
            raise ValueError(f"the secret of our commitment for deal {ref.deal} is missing from the resume file "
                             "(or does not open it): we cannot reveal, which forfeits the match")
        s._events.clear()
        s._on_message = on_message
        s._catch_up = None  # nothing is signed before the peer said what it holds (wire.md §14.2 step 5)
        s._replaying = True
        s._stored_secrets = {d: v for d, v in secrets.items() if isinstance(v, bytes) and len(v) == 32}
        return s

    # ----- bytes in / bytes and events out -------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Feed raw bytes from the socket (any split); ``b""`` means the peer closed.

        Never raises for bad peer input: a fault becomes a
        :class:`~p2ptrumps.events.ProtocolViolation` event (the offending
        frame is handed to the log hook as ``"received"`` evidence) and the
        session stops reading.  Raises only what the log hook raises.
        """
        if self._finished:
            if self._dead:
                return  # flooded after the rematch was agreed: nothing more is kept
            self.trailing_data += data
            if len(self.trailing_data) > MAX_TRAILING_BYTES:
                self._flooded(f"more than {MAX_TRAILING_BYTES} bytes arrived after the rematch was agreed, "
                              "before the new match began")
            return
        if self._dead:
            return
        if not data:
            clean = self.finished and not self._decoder.buffered
            self._dead = True
            self._closed = True
            self._events.append(ConnectionClosed(clean))
            return
        self._decoder.feed(data)
        for _ in range(1 << 20):  # bounded: each pass consumes a frame
            if self._dead or self._finished:
                break
            try:
                got = self._decoder.next_frame()
            except RemoteProtocolError as exc:
                self._violate(exc, self._decoder.buffered)
                return
            if got is None:
                break
            frame, payload = got
            try:
                self._handle(frame, payload)
            except RemoteProtocolError as exc:
                self._violate(exc, frame)
                return
            except PeerFlood as exc:
                self._flooded(str(exc))
                return
        if self._finished:
            self.trailing_data += self._decoder.buffered

    def next_event(self) -> Event | None:
        """The next event, or None when there is none until more data arrives."""
        return self._events.popleft() if self._events else None

    def data_to_send(self) -> bytes:
        """All bytes queued for the socket since the last call (may be ``b""``)."""
        out = bytes(self._out)
        self._out.clear()
        return out

    @property
    def partial_frame(self) -> tuple[int, int] | None:
        """The peer's frame being received, incomplete: ``(stream offset of its first byte, bytes
        buffered)``, or None (the transport gives a frame a limited time to arrive whole,
        protocol/wire.md §2, §17)."""
        if self._dead or self._finished:
            return None
        return self._decoder.partial

    @property
    def pending_bytes(self) -> int:
        """How many bytes are queued for the socket (not yet taken by :meth:`data_to_send`)."""
        return len(self._out)

    def ping(self) -> None:
        """Queue a heartbeat ``ping`` (outside the chain, unsigned, not logged).  The peer
        answers with ``pong`` automatically; any bytes received count as a sign of life.
        Does nothing once the session is dead."""
        if self._dead:
            return
        self._ping_counter = (self._ping_counter + 1) & 0xFFFFFFFF
        if self._unacked and self._ack_ping is None and self._resume_nonce is None:
            self._ack_ping = self._ping_counter  # its pong acknowledges our last message (§10, §14.5)
        self._out += framing.frame(m.Ping(self._ping_counter).encode())

    @property
    def delivered(self) -> bool:
        """True when the peer holds every message we sent up to the match's end for sure: a message of
        the peer came after it, or a pong answered a ping sent after it (protocol/wire.md §14.5).
        Messages after the match's end (chat, rematch) do not count."""
        return not self._unacked

    # ----- intents -------------------------------------------------------------

    def accept_key(self) -> None:
        """Go on with the peer whose hello we got (after pinning / the user's confirmation).

        The host then sends its rule proposal.  Raises :class:`LocalProtocolError`
        before the peer's hello or when already accepted.
        """
        self._check_alive()
        if self._chain is None:
            raise LocalProtocolError("no hello from the peer yet: there is no key to accept")
        if self._key_accepted:
            raise LocalProtocolError("the peer's key is already accepted")
        self._key_accepted = True
        if self.role == "host":
            assert self._proposed_rules is not None
            self._send(m.RulesMsg(self._proposed_rules, self._proposed_move_time))
        self._after_change()

    def accept_rules(self) -> None:
        """(guest) Accept the proposed rules.  ``LocalProtocolError`` unless a proposal waits."""
        self._send(m.AgreeMsg(True))

    def refuse_rules(self) -> None:
        """(guest) Refuse the proposed rules: the session ends with no match."""
        self._send(m.AgreeMsg(False))

    def choose_trump(self, suit: int) -> None:
        """Choose our own trump ``suit`` (0..3).  The host chooses first, the guest a
        different suit.  ``LocalProtocolError`` out of turn or for a taken suit."""
        if not isinstance(suit, int) or not 0 <= suit <= 3:
            raise LocalProtocolError(f"{suit!r} is not a suit 0..3")
        self._send(m.TrumpMsg(int(suit)))

    def commit(self, secret: bytes) -> None:
        """Give our 32-byte commit ``secret`` for the next deal (``os.urandom(32)``).

        May be called any time after the trumps are chosen and before our
        commitment for that deal is due (e.g. on :class:`CommitDue`); it is sent
        when due.  Raises :class:`LocalProtocolError` when we already gave one for
        that deal or no deal is coming; ``ValueError`` if ``secret`` is not 32 bytes.
        """
        if not isinstance(secret, bytes) or len(secret) != 32:
            raise ValueError("a commit secret is 32 bytes")
        self._check_alive()
        deal = self._next_commit_deal()
        if deal is None:
            raise LocalProtocolError("no deal waits for our commitment now")
        self._pending_commit = (deal, secret)
        self._after_change()

    def reveal(self) -> None:
        """Reveal our secret of the current (or coming) deal when due; may be called
        right after :meth:`commit`.  ``LocalProtocolError`` without a commitment to open."""
        self._check_alive()
        deal = None
        if self._pending_commit is not None:
            deal = self._pending_commit[0]
        elif self._chain is not None:
            ref = self._chain.referee
            if ref.deal in self._secrets and self.seat not in ref.secrets:
                deal = ref.deal
        if deal is None and self._chain is not None and self._chain.referee.deal in self.lost_secrets:
            raise LocalProtocolError(
                f"our commitment for deal {self._chain.referee.deal} came back from the peer, but its secret is lost "
                "(neither our log nor the resume file kept it): we cannot reveal")
        if deal is None or deal in self._reveal_wanted:
            raise LocalProtocolError("there is no commitment of ours waiting to be revealed")
        self._reveal_wanted.add(deal)
        self._after_change()

    def revealing(self, deal: int) -> bool:
        """Whether our reveal of ``deal`` is given already (sent, or held until it is due)."""
        return deal in self._reveal_wanted

    def play(self, move: Move) -> None:
        """Play ``move`` (it must be our turn and legal in :attr:`position`); signs it
        with the hash of the position it leads to.  ``LocalProtocolError`` otherwise
        (the message says why, e.g. the engine's reason)."""
        ref = self._ready()
        pos = None if ref.match is None else ref.match.position
        if ref.phase != PLAY or pos is None:
            raise LocalProtocolError("no deal is being played")
        if pos.to_move != self.seat:
            raise LocalProtocolError("it is not our turn to move")
        self._send(m.MoveMsg(ref.deal, move, b""))  # its position hash is the one the move reaches

    def resign(self) -> None:
        """Resign the current deal (allowed at any time during play, in turn or not)."""
        self._send(m.ResignMsg(self._ready().deal))

    def offer_draw(self) -> None:
        """Offer a draw in the current deal (one open offer at a time; any time during play)."""
        self._send(m.OfferDrawMsg(self._ready().deal))

    def answer_draw(self, accept: bool) -> None:
        """Answer the peer's open draw offer; accepting ends the deal as an agreed draw."""
        self._send(m.AnswerDrawMsg(self._ready().deal, bool(accept)))

    def chat(self, text: str) -> None:
        """Send a chat line (1..500 characters, no control characters), signed and in the
        chain.  Allowed from the trump choice (after the rules are agreed) until the session ends,
        within the chat limits (protocol/wire.md §9.7: 10 a turn, 200 and 32768 bytes a match);
        :class:`LocalProtocolError` names the limit reached."""
        try:
            m.check_chat(text)
        except ValueError as exc:
            raise LocalProtocolError(str(exc)) from None
        why = self._ready().chat_refusal(self.seat, text)
        if why is not None:
            raise LocalProtocolError(why + (" (wait for the next move)" if "one turn" in why else ""))
        self._send(m.ChatMsg(text))

    def offer_rematch(self) -> None:
        """Offer (or accept the peer's offer of) a rematch once the match has ended."""
        self._send(m.RematchMsg())

    def leave(self) -> None:
        """Leave the match (protocol/wire.md §15): the deal in play is resigned, the deals not yet
        dealt are forfeited, and both sides then sign the final score.  ``LocalProtocolError``
        when leaving is not allowed now (before the trumps, at or after the match's end)."""
        self._send(m.LeaveMsg())

    def claim(self) -> None:
        """Claim on time (protocol/wire.md §16): the match waits for the peer, whose move clock ran
        out or who stayed away.  In phase play the deal ends won by us (reason ``"time"``);
        between deals (trump, commit, reveal) every deal not yet dealt is ours and the match goes
        to its signed end.  Also allowed once the peer closed the connection (the claim is then
        only logged: the peer stayed away).  ``LocalProtocolError`` when the match does not wait
        for the peer in one of those phases, or the session ended otherwise."""
        if self._closed and self.violation is None and not self._finished and self._chain is not None \
                and self._key_accepted:
            self._check_caught_up()
            self._send_now(m.ClaimMsg(max(self._chain.referee.deal, 1)))
            for _ in range(2):  # our statements that fall due at once, as _after_change would send them
                ref = self._chain.referee
                seat, what = ref.waiting_for()
                if seat != self.seat or what not in ("deal-end", MATCH_END):
                    break
                self._send_now(ref.expected_deal_end() if what == "deal-end" else ref.expected_match_end())
            return
        ref = self._ready()
        self._send(m.ClaimMsg(max(ref.deal, 1)))

    def begin_resume(self, nonce: bytes, resume_sent: bool = False) -> None:
        """Start again on a new connection (protocol/wire.md §14): forget the old connection's
        bytes (half-read frames, unsent output: every chained message is sent again from the
        chain), and, as the guest, queue our ``resume`` frame.  The host queues its own when
        the guest's ``resume`` arrives.  Until the peer's ``proof`` checks out only ``resume``,
        ``proof`` and heartbeats are taken; then the missing messages are sent and
        :class:`~p2ptrumps.events.Resumed` is emitted.

        ``resume_sent``: our ``resume`` frame with this ``nonce`` has already gone out on the new
        connection (the host's lobby sent it while the guest proved its key, §14.2 step 3); it
        is not queued again.

        Raises :class:`LocalProtocolError` when there is no match to resume (no handshake yet,
        a protocol violation, or the match has ended); ``ValueError`` for a bad nonce.
        """
        if not isinstance(nonce, bytes) or len(nonce) != 32:
            raise ValueError("nonce must be 32 bytes")
        if self._chain is None or not self._key_accepted or self.violation is not None or self._finished:
            raise LocalProtocolError("there is no match in progress to resume")
        self._dead = False
        self._closed = False
        self._decoder = framing.FrameDecoder(self._decoder.max_frame_bytes)
        self._out.clear()
        self._resume_nonce = nonce
        self._peer_resume = None
        self._peer_resume_frame = b""
        self._resume_sent = resume_sent
        self._ack_ping = None  # a pong on the old connection acknowledges nothing any more
        if self.role == "guest" and not resume_sent:
            self._send_resume()

    def end_replay(self) -> None:
        """(a session made by :meth:`restore`) From now on, queue the events of what the chain takes.  Until
        then -- typically while it catches up after the resume (:attr:`catching_up`) -- a restored session
        queues none for chain messages, so a caller that reads the chain once (when caught up) and then
        follows the events sees every message exactly once."""
        self._replaying = False

    @property
    def resuming(self) -> bool:
        """True from :meth:`begin_resume` until the peer's proof checks out."""
        return self._resume_nonce is not None

    # ----- queries -------------------------------------------------------------

    @property
    def game_id(self) -> bytes | None:
        """The 32-byte game id (protocol/wire.md §7.2), once both hellos are known."""
        return None if self._chain is None else self._chain.game_id

    @property
    def peer_name(self) -> str | None:
        hello = self._hellos[1 - self.seat]
        return None if hello is None else hello.name

    @property
    def peer_fingerprint(self) -> str | None:
        return None if self._peer_key is None else self._peer_key.fingerprint

    @property
    def chain(self) -> JointChain | None:
        """The joint chain (read only, for status displays and tests)."""
        return self._chain

    @property
    def rules(self) -> RuleSet | None:
        """The agreed rules (None until the guest accepted)."""
        return None if self._chain is None else self._chain.referee.rules

    @property
    def move_time(self) -> int:
        """The agreed move clock, seconds per move (0: none, or not agreed yet; protocol/wire.md §16)."""
        return 0 if self._chain is None else self._chain.referee.move_time

    @property
    def trumps(self) -> tuple[int, int] | None:
        """Own trump of seat 0 and seat 1, once both are chosen."""
        return None if self._chain is None else self._chain.referee.trumps_pair

    @property
    def position(self) -> Position | None:
        """A copy of the current deal's position (None before the first deal is dealt)."""
        match = None if self._chain is None else self._chain.referee.match
        if match is None or match.position is None:
            return None
        return match.position.copy()

    @property
    def deal_number(self) -> int:
        """The current (or last) deal number, 0 before the first deal."""
        return 0 if self._chain is None else self._chain.referee.deal

    @property
    def score_halves(self) -> tuple[int, int]:
        """Match score in half-points (seat 0, seat 1)."""
        if self._chain is None:
            return (0, 0)
        return self._chain.referee.score()

    def waiting_for(self) -> tuple[int | None, str]:
        """Who the match waits for, and what: ``(seat, what)`` with ``what`` one of
        ``"hello"``, ``"key"``, ``"rules"``, ``"agree"``, ``"trump"``, ``"commit"``,
        ``"reveal"``, ``"move"``, ``"deal-end"``, ``"match-end"``, ``"rematch"``
        (seat None: either side), ``"nothing"`` (finished / dead)."""
        if self._dead:
            return None, "nothing"
        if self._chain is None:
            return 1 - self.seat, "hello"
        if not self._key_accepted:
            return self.seat, "key"
        return self._chain.referee.waiting_for()

    @property
    def our_turn(self) -> bool:
        """True when the match waits for us."""
        return self.waiting_for()[0] == self.seat

    @property
    def finished(self) -> bool:
        """Match ended (both signed), rules refused, rematch agreed, violation or closed."""
        if self._dead or self._finished:
            return True
        return self._chain is not None and self._chain.referee.phase in (DONE, REFUSED, REMATCHED, DISPUTED)

    # ----- internals -----------------------------------------------------------

    def _emit_frame(self, payload: bytes, log: bool) -> None:
        frame = framing.frame(payload)
        if log and self._on_message is not None:
            self._on_message(frame, "sent")
        if self._resume_nonce is not None and log:
            return  # a chained message made while resuming goes out from the chain once the peer proved itself
        self._out += frame

    def _check_alive(self) -> None:
        if self._dead:
            raise LocalProtocolError(
                "the session is over" + (f" ({self.violation.reason})" if self.violation else " (connection closed)")
            )
        if self._finished:
            raise LocalProtocolError("the session is over (rematch agreed: start a new session)")

    def _ready(self) -> Referee:
        self._check_alive()
        if self._chain is None or not self._key_accepted:
            raise LocalProtocolError("the handshake is not done (no peer key accepted yet)")
        self._check_caught_up()
        return self._chain.referee

    def _check_caught_up(self) -> None:
        if self.catching_up:
            held = "an unknown number of" if self._catch_up is None else str(self._catch_up)
            raise LocalProtocolError(
                f"catching up after a resume: the peer holds {held} messages, we {len(self._chain or ())}; nothing "
                "is signed until the messages our log lost come back (protocol/wire.md §14.2)")

    @property
    def catching_up(self) -> bool:
        """True while we may not sign (protocol/wire.md §14.2 step 5): a session restored from its log
        before its first resume is proven, or after a proven resume while our chain is shorter than the
        peer's ``confirmed`` count (our log lost messages the peer holds; they are coming back)."""
        if self._chain is None:
            return False
        return self._catch_up is None or len(self._chain) < self._catch_up

    def _send(self, body: m.Body) -> None:
        """Sign, apply, log and queue one message of ours; LocalProtocolError if not allowed."""
        self._ready()
        self._send_now(body)
        self._after_change()

    def _send_now(self, body: m.Body) -> None:
        assert self._chain is not None
        before = self._chain.referee.phase
        if isinstance(body, m.MoveMsg):
            msg, events = self._chain.play_local(self.identity, self.seat, body.deal, body.move)
        else:
            msg, events = self._chain.append_local(self.identity, self.seat, body)
        if before != DONE:
            self._unacked, self._ack_ping = True, None
        self._emit_frame(msg.payload, log=True)
        self._push_events(events)
        if isinstance(body, m.CommitMsg):
            assert self._pending_commit is not None
            self._secrets[body.deal] = self._pending_commit[1]
            self._pending_commit = None

    def _push_events(self, events: list[Event]) -> None:
        quiet = self._replaying
        for ev in events:
            if isinstance(ev, _PEER_ONLY) and ev.seat == self.seat:
                continue
            if isinstance(ev, RulesProposed) and self.role == "host":
                continue
            if isinstance(ev, _MILESTONES):
                if ev in self._milestones:
                    continue
                self._milestones.add(ev)
            if quiet:
                continue  # part of what the restored chain holds once caught up (see _replaying)
            self._events.append(ev)
            if isinstance(ev, RematchAgreed):
                self._finished = True

    def _next_commit_deal(self) -> int | None:
        if self._chain is None or not self._key_accepted:
            return None
        ref = self._chain.referee
        if ref.rules is None or ref.trumps_pair is None:
            return None
        if self._pending_commit is not None:
            return None
        if ref.phase == "commit" and self.seat not in ref.commits:
            target = ref.deal
        elif ref.phase in ("commit", "reveal", "play", "deal-end") and ref.deal < ref.rules.deals:
            target = ref.deal + 1
        else:
            return None
        return None if target in self._secrets else target

    def _after_change(self) -> None:
        """Send what is due from us automatically (statements, held commit/reveal); announce what is due."""
        if self._chain is None or not self._key_accepted or self._dead or self._finished or self.catching_up:
            return
        ref = self._chain.referee
        for _ in range(8):  # at most a few automatic messages in a row
            seat, what = ref.waiting_for()
            if seat != self.seat:
                break
            claimed = ref.claim_against(self.seat) if what in ("deal-end", MATCH_END) else None
            if claimed is not None and self.claim_check is not None \
                    and not self.claim_check(ref.claim_steps[ref.open_claim or 0]):
                self._send_now(m.DisputeMsg(claimed))  # our clock had not run out (§16)
            elif what == "deal-end":
                self._send_now(ref.expected_deal_end())
            elif what == MATCH_END:
                self._send_now(ref.expected_match_end())
            elif what == "commit" and self._pending_commit is not None and self._pending_commit[0] == ref.deal:
                deal, secret = self._pending_commit
                self._send_now(
                    m.CommitMsg(deal, m.commitment(ref.game_id, deal, self.seat, self.identity.public_bytes, secret))
                )
            elif what == "reveal" and ref.deal in self._reveal_wanted and ref.deal in self._secrets:
                self._send_now(m.RevealMsg(ref.deal, self._secrets[ref.deal]))
            else:
                break
            ref = self._chain.referee
        seat, what = ref.waiting_for()
        if what in ("commit", "reveal") and (what, ref.deal) not in self._announced:
            if what == "commit":
                mine = self.seat not in ref.commits and self._pending_commit is None and ref.deal not in self._secrets
            else:
                mine = self.seat not in ref.secrets and ref.deal not in self._reveal_wanted
            if mine:
                self._announced.add((what, ref.deal))
                self._events.append(CommitDue(ref.deal) if what == "commit" else RevealDue(ref.deal))

    def _violate(self, exc: RemoteProtocolError, evidence: bytes) -> None:
        self._dead = True
        if self._chain is not None and self._chain.referee.phase == DONE:
            # After the match nothing but chat and rematch is logged: junk is dropped, not evidence
            # (protocol/wire.md §12, "After the match"); the match stays complete.
            self._closed = True
            self._events.append(DroppedAfterEnd(exc.code, exc.reason))
            self._events.append(ConnectionClosed(False))  # the session reads nothing more
            return
        self.violation = ProtocolViolation(exc.code, exc.reason, evidence)
        if evidence and self._on_message is not None:
            for payload in exc.evidence:  # superseded messages the offending one equivocates against (§12)
                self._on_message(framing.frame(payload), "received")
            self._on_message(evidence, "received")
        self._events.append(self.violation)

    def _flooded(self, reason: str) -> None:
        """The peer went beyond a limit no log can show (protocol/wire.md §17): stop reading, log nothing."""
        self._dead = True
        self._closed = True
        self.trailing_data = b""
        self._events.append(Flooded(reason))

    def _handle(self, frame: bytes, payload: bytes) -> None:
        msg = m.decode_frame(payload)
        if isinstance(msg, m.Ping):
            self._out += framing.frame(m.Pong(msg.n).encode())
            return
        if isinstance(msg, m.Pong):
            if self._ack_ping is not None and (msg.n - self._ack_ping) & 0xFFFFFFFF < (1 << 31):
                self._unacked, self._ack_ping = False, None  # the peer holds all we sent (§14.5)
            return
        if isinstance(msg, (m.Resume, m.Proof)) or self._resume_nonce is not None:
            self._on_resume_frame(frame, msg)
            return
        if isinstance(msg, (m.Ticket, m.Refuse)):
            self._on_admission(msg)
            return
        if isinstance(msg, m.Hello):
            self._on_hello(frame, payload, msg)
            return
        if self._chain is None:
            raise RemoteProtocolError("out-of-turn", f"a {msg.kind} message arrived before the peer's hello")
        self._place_received(frame, msg)

    def _place_received(self, frame: bytes, msg: m.Signed | m.Envelope) -> None:
        """A ``msg`` of the chain from the peer (protocol/wire.md §8.2, §14.2 step 5)."""
        assert self._chain is not None
        if (self.reconnections and msg.seq < len(self._chain)
                and self._chain.entries[msg.seq].hash == msg.hash):
            return  # sent again after a reconnection and already held (§14.2 step 5)
        if msg.seat == self.seat and self._replaying and self.catching_up and self._catch_up is not None \
                and msg.seq == len(self._chain) and msg.prev == self._chain.head:
            # Only a restored session, before its user read the chain (end_replay): later, a message of
            # ours we never held was signed by another copy of us (§8.2), not lost from our log.
            self._adopt_own(frame, msg)  # ours, lost from our log, sent back by the peer (§14.2 step 5)
            return
        result = self._chain.receive(msg)
        if result.superseded:
            return
        self._unacked, self._ack_ping = False, None  # placed after ours: it acknowledges them (§14.5)
        if self._on_message is not None:
            self._on_message(frame, "received")
        self._push_events(result.events)
        for old in result.withdrawn:
            # Our message crossed the host's: re-sign it on top if it is still allowed.
            if self.catching_up:  # never while behind: the peer's re-signed copy, if it holds one, comes back
                self.dropped.append((old.body, "withdrawn while catching up after a resume (wire.md §14.2 step 5)"))
                continue
            if isinstance(old.body, m.ClaimMsg) and TRANSITIONS[msg.kind][1] == "floor":
                # The host made a step in time as the chain now shows: the claim is dropped (wire.md §16).
                self.dropped.append((old.body, f"the host's {msg.kind} came first: its step was in time"))
                continue
            try:
                self._send_now(self._refresh(old.body))
            except LocalProtocolError as exc:
                self.dropped.append((old.body, str(exc)))
        self._after_change()

    def _on_admission(self, msg: m.Ticket | m.Refuse) -> None:
        """A ``ticket`` or ``refuse`` frame (protocol/wire.md §7.3): before the peer's hello, an open
        host reads past a ticket, and a guest stops on the host's refusal (:class:`HostRefused`,
        nothing logged); anywhere else either is ``malformed``."""
        before_hello = self._chain is None
        if isinstance(msg, m.Ticket) and before_hello and self.seat == 0:
            return
        if isinstance(msg, m.Refuse) and before_hello and self.seat == 1:
            self._dead = True
            self._closed = True
            self._events.append(HostRefused(msg.reason))
            return
        kind = type(msg).__name__.lower()
        raise RemoteProtocolError("malformed", f"a {kind} frame after the hellos, or from the wrong side "
                                  "(wire.md §7.3)")

    def _adopt_own(self, frame: bytes, msg: m.Signed | m.Envelope) -> None:
        """Place one of our own messages that the peer sent back after a resume while we catch up (our
        log had lost it, protocol/wire.md §14.2 step 5): it must carry our good signature and fit the end
        of our chain (else ``RemoteProtocolError``, as ``place_own``); it is logged, and a commitment of
        ours takes its secret from the resume file."""
        assert self._chain is not None
        self._chain.check_signature(msg)
        signed = msg if isinstance(msg, m.Signed) else msg.open()
        events = self._chain.place_own(signed)
        if self._on_message is not None:
            self._on_message(frame, "received")
        if isinstance(signed.body, m.CommitMsg):
            deal = signed.body.deal
            if self._pending_commit is not None and self._pending_commit[0] == deal:
                self._pending_commit = None  # the commitment we had signed stands; a new secret is never used
            secret = self._stored_secrets.get(deal)
            if secret is not None and m.commitment(self._chain.game_id, deal, self.seat, self.identity.public_bytes,
                                                   secret) == signed.body.commitment:
                self._secrets[deal] = secret
            else:
                self.lost_secrets.add(deal)
        self._push_events(events)
        if not self.catching_up:
            self._after_change()

    def _send_resume(self) -> None:
        assert self._chain is not None and self._resume_nonce is not None
        self._out += framing.frame(m.Resume(m.VERSION, self.seat, self._chain.game_id, self._resume_nonce).encode())
        self._resume_sent = True

    def _confirmed(self) -> int:
        """Our ``confirmed`` count (§14.1): the host's chain length; the guest's chain up to its last host message."""
        assert self._chain is not None
        entries = self._chain.entries
        if self.seat == 0:
            return len(entries)
        return max((i + 1 for i, e in enumerate(entries) if e.seat == 0), default=0)

    def _refuse_resume(self, why: str) -> None:
        """The new connection is not the peer: tell the transport (it closes this connection and
        waits for another); the match and the chain are untouched."""
        self._dead = True
        self._closed = True
        self._events.append(ResumeRefused(why))

    def _on_resume_frame(self, frame: bytes, msg: m.RawFrame) -> None:
        chain, nonce = self._chain, self._resume_nonce
        if chain is None or nonce is None or self._finished:
            raise RemoteProtocolError("out-of-turn", f"a {type(msg).__name__.lower()} frame outside a reconnection")
        peer = 1 - self.seat
        if isinstance(msg, m.Resume):
            if self._peer_resume is not None:
                self._refuse_resume("a second resume frame on one connection")
            elif msg.game_id != chain.game_id or msg.seat != peer:
                self._refuse_resume("the connection resumes another match (other game id or seat)")
            elif msg.nonce == nonce:
                self._refuse_resume("the peer's resume nonce repeats ours")
            else:
                self._peer_resume, self._peer_resume_frame = msg, frame
                if not self._resume_sent:
                    self._send_resume()
                confirmed = self._confirmed()
                sig = self.identity.sign(m.proof_input(chain.game_id, self.seat, confirmed, nonce, msg.nonce))
                self._out += framing.frame(m.Proof(confirmed, sig).encode())
            return
        if not isinstance(msg, m.Proof) or self._peer_resume is None:
            self._refuse_resume("the new connection sent something else than resume and proof first")
            return
        signed = m.proof_input(chain.game_id, peer, msg.confirmed, self._peer_resume.nonce, nonce)
        if not chain.keys[peer].verify(msg.sig, signed):
            self._refuse_resume("the proof does not verify with the key of this match's peer (a stranger?)")
            return
        # Proven: log the peer's resume (it marks the reconnection, §14.2), send what the peer may lack.
        self._resume_nonce = None
        self.reconnections += 1
        self._catch_up = msg.confirmed  # we sign nothing until our chain holds as many (§14.2 step 5)
        if self._on_message is not None:
            self._on_message(self._peer_resume_frame, "received")
        entries = chain.entries
        # From the peer's count when that is lower: its log lost its tail, and its messages come back.
        start = min(msg.confirmed, len(entries) if self.seat == 0 else self._confirmed())
        for e in entries[start:]:
            self._out += framing.frame(e.payload)
        self._events.append(Resumed(self.reconnections))
        self._after_change()

    def _refresh(self, body: m.Body) -> m.Body:
        """A withdrawn body made current (a move gets the position hash of now)."""
        if isinstance(body, m.MoveMsg):
            ref = self._ready()
            if ref.match is None or ref.match.position is None or ref.phase != PLAY:
                raise LocalProtocolError("the deal ended before our move could be placed")
        return body

    def _on_hello(self, frame: bytes, payload: bytes, hello: m.Hello) -> None:
        """The peer's hello: checks 8-11 of protocol/wire.md §7.1 (1-7 are in ``decode_frame``)."""
        peer = 1 - self.seat
        if self._hellos[peer] is not None:
            raise RemoteProtocolError("out-of-turn", "the peer sent a second hello")
        m.check_peer_hello(hello, self._hellos[self.seat])
        key = PublicKey.from_bytes(hello.public_key)
        self._hellos[peer] = hello
        self._hello_frames[peer] = payload
        if self._on_message is not None:
            self._on_message(frame, "received")
        self._peer_key = key
        host_p, guest_p = self._hello_frames
        assert host_p is not None and guest_p is not None
        gid = m.game_id(host_p, guest_p)
        mine = self.identity.public_key
        keys = (mine, key) if self.seat == 0 else (key, mine)
        self._chain = JointChain(gid, keys, self.seat)
        self._events.append(PeerHello(hello.name, key.fingerprint, hello.public_key, peer))

