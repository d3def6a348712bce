"""The joint hash chain of a match: places, signatures, and the host-wins rule for crossing messages.

Source: ``protocol/wire.md`` §8 (the chain and concurrent sends), §12 (evidence), §17 (limits).

:class:`JointChain` puts messages into the one hash chain (sequence numbers, prev hashes,
signatures, the host-wins rule for crossing messages) and feeds each placed message to the
:class:`~p2ptrumps.wire.referee.Referee`, which decides whether its sender may send it now.  The
live :class:`~p2ptrumps.wire.session.Session` runs it for both sides' messages and ``verify`` runs
it over a log.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ..events import Event
from ..message import N_, Message, message_of
from ..rules import IllegalMoveError, Move
from . import messages as m
from .errors import LocalProtocolError, PeerFlood, RemoteProtocolError
from .identity import Identity, PublicKey
from .referee import Referee, RefereeMark

_T = TypeVar("_T")

#: The seats' names in a reason (protocol/wire.md §3): lazy words.
ROLES = (N_("host"), N_("guest"))

#: Guest messages a live host holds as superseded (protocol/wire.md §8.3 row a) since the guest's last
#: message placed; one more is a flood (protocol/wire.md §17).  An honest guest's crossing run is far
#: shorter: at most two floor messages in a row, 10 chats a turn and a few other interjections.
MAX_SUPERSEDED = 64

#: How a live session names a message in its own seat signed by its own key: the peer
#: only relayed it; another process with this identity and this match signed it.
OTHER_COPY = N_("another copy of this side is running (the same match resumed twice, or two processes sharing "
                "one identity key)")


@dataclass
class Received:
    """Result of :meth:`JointChain.receive`.

    ``events``: what the message caused.  ``superseded``: the message crossed a
    host message and was ignored (host side only; not logged).  ``withdrawn``:
    our own tentative (guest) messages the host's message displaced, oldest
    first -- re-sign them on top if still allowed.
    """

    events: list[Event] = field(default_factory=list)
    superseded: bool = False
    withdrawn: list[m.Signed] = field(default_factory=list)


class Crossed:
    """The guest messages that crossed a host message (protocol/wire.md §8.3): a live host's superseded
    ones, kept as possible evidence (§12) and bounded (§17); in ``verify``, the places of those found
    superseded or withdrawn (verify.md §3 step 4).  Another message for one of those places is
    equivocation."""

    def __init__(self) -> None:
        #: Hash of each guest message found superseded -> the message (a live host keeps it as possible
        #: evidence, at most :data:`MAX_SUPERSEDED` since the guest's last message placed; verify: None).
        self.stale: dict[bytes, m.Signed | None] = {}
        #: (seq, prev) -> hash of each guest message found superseded (and, in verify, withdrawn)
        #: (protocol/verify.md §3 step 4): another message for one of these places is equivocation.
        #: A live host forgets them with the superseded messages, once a guest message is placed.
        self.gone: dict[tuple[int, bytes], bytes] = {}

    def superseded(self, msg: m.Signed, entries: list[m.Signed], hash_before: Callable[[int], bytes]) -> bool:
        """(host view) a guest message that crossed a host message: ignore it, the guest re-sends."""
        if msg.prev in self.stale:
            return True
        n = len(entries)
        return msg.seq < n and msg.prev == hash_before(msg.seq) and entries[msg.seq].seat == 0

    def note(self, msg: m.Signed) -> None:
        """(verify) ``msg`` was found superseded: its place is remembered."""
        self.gone.setdefault((msg.seq, msg.prev), msg.hash)
        self.stale[msg.hash] = None

    def hold(self, msg: m.Signed) -> None:
        """(live host) Keep a superseded guest message: a different one for its place (seq and prev) is
        equivocation, proven with the kept one (and those it builds on) logged first as evidence
        (protocol/wire.md §12); the same bytes again change nothing.  :class:`PeerFlood` beyond
        :data:`MAX_SUPERSEDED` (protocol/wire.md §17)."""
        other = self.gone.get((msg.seq, msg.prev))
        if other is not None and other != msg.hash:
            exc = RemoteProtocolError(
                "equivocation",
                N_("the guest signed two different messages for place %(seq)d on one history (%(kind)s %(hash)s…, "
                   "after a superseded one, %(other)s…)", seq=msg.seq, kind=msg.kind, hash=msg.hash.hex()[:16],
                   other=other.hex()[:16]),
                proven_by=1,
            )
            exc.evidence = self._evidence_of(other)
            raise exc
        if msg.hash in self.stale:
            return
        if len(self.stale) >= MAX_SUPERSEDED:
            raise PeerFlood(N_("the guest sent more than %(most)d messages in a row that crossed ours (superseded): "
                               "it floods us", most=MAX_SUPERSEDED))
        self.gone[(msg.seq, msg.prev)] = msg.hash
        self.stale[msg.hash] = msg

    def forget(self) -> None:
        """(live host) The guest placed a message: nothing it sent before can cross ours any more."""
        self.stale.clear()
        self.gone.clear()

    def _evidence_of(self, digest: bytes) -> tuple[bytes, ...]:
        """The payloads of the kept superseded message ``digest`` and of the superseded ones it builds
        on, oldest first (a verifier needs them all to find it superseded too)."""
        out: list[bytes] = []
        msg = self.stale.get(digest)
        for _ in range(MAX_SUPERSEDED + 1):
            if msg is None:
                break
            out.append(msg.payload)
            msg = self.stale.get(msg.prev)
        return tuple(reversed(out))

    def check(self, msg: m.Signed) -> None:
        """(verify) A guest message for the place (seq and prev) of a guest message found superseded
        or withdrawn, with other bytes, is equivocation proven by the guest's signature, whatever
        placement row would apply to it otherwise (protocol/verify.md §3 step 4)."""
        other = self.gone.get((msg.seq, msg.prev))
        if other is not None and other != msg.hash:
            raise RemoteProtocolError(
                "equivocation",
                N_("the guest signed two different messages for place %(seq)d on one history (the second, %(kind)s "
                   "%(hash)s…, after one withdrawn or superseded, %(other)s…)", seq=msg.seq, kind=msg.kind,
                   hash=msg.hash.hex()[:16], other=other.hex()[:16]),
                proven_by=1,
            )


class JointChain:
    """The one hash chain of a match, over both seats' messages (protocol/wire.md §8).

    Args:
        game_id: 32 bytes.
        keys: the checked public keys of seat 0 and seat 1.
        viewpoint: our seat in a live session (0 host, 1 guest), or None for
            ``verify`` (messages of both seats arrive in log order; no events are made).

    Placement: message ``i`` has ``seq == i`` and ``prev == hash(message i-1)``
    (``prev`` of message 0 is the game id).  When a host message arrives for a
    place already taken by guest messages not yet acknowledged by the host,
    those guest messages are withdrawn (the host's message takes the place).
    The host, for its part, ignores a guest message that crossed one of its own
    (its place is taken by a host message, or it builds on such an ignored one).
    """

    def __init__(self, game_id: bytes, keys: tuple[PublicKey, PublicKey], viewpoint: int | None) -> None:
        self.game_id = game_id
        self.keys = keys
        self.viewpoint = viewpoint
        self.referee = Referee(game_id, (keys[0].raw, keys[1].raw), quiet=viewpoint is None)
        self.entries: list[m.Signed] = []
        self._confirmed = 0  # entries[:_confirmed] can no longer be withdrawn
        self._snapshot: RefereeMark | None = None  # referee at len == _confirmed, while tentative entries exist
        #: The guest messages found superseded (and, in verify, withdrawn).
        self._crossed = Crossed()
        #: How many guest messages were superseded (ignored) and withdrawn (protocol/wire.md §8.3 rows a, g).
        self.superseded = 0
        self.withdrawn = 0
        #: Hashes of the messages this side signed or read back from its log (withdrawn ones too): one of
        #: them sent back by the peer is the peer's doing; any other in our seat with our key is not.
        self._ours: set[bytes] = set()

    @property
    def head(self) -> bytes:
        """Hash of the last message (the game id while the chain is empty)."""
        return self.entries[-1].hash if self.entries else self.game_id

    def hash_before(self, seq: int) -> bytes:
        return self.entries[seq - 1].hash if seq > 0 else self.game_id

    def __len__(self) -> int:
        return len(self.entries)

    # ----- our own messages ------------------------------------------------------------

    def append_local(self, identity: Identity, seat: int, body: m.Body) -> tuple[m.Signed, list[Event]]:
        """Sign ``body`` as ``seat`` at the next place and apply it.

        Raises :class:`LocalProtocolError` (nothing changes) if the referee refuses it.
        """
        msg = m.build_signed(self.game_id, seat, len(self.entries), self.head, body, identity.sign)
        try:
            events = self._apply_and_append(msg)
        except RemoteProtocolError as exc:
            raise LocalProtocolError(str(exc)) from None
        self._ours.add(msg.hash)
        return msg, events

    def play_local(self, identity: Identity, seat: int, deal: int, move: Move) -> tuple[m.Signed, list[Event]]:
        """Play our own ``move`` in ``deal`` as ``seat``: the machine applies it (the rules checked once),
        then it is signed with the hash of the position it reached, at the next place.

        Raises :class:`LocalProtocolError` (nothing changes) if the referee refuses it.
        """
        try:
            body, events = self._applying(seat, lambda: self.referee.play_own(seat, deal, move))
        except IllegalMoveError as exc:
            raise LocalProtocolError(N_("illegal move %(move)s: %(why)s", move=move.code,
                                        why=message_of(exc))) from None
        except RemoteProtocolError as exc:
            raise LocalProtocolError(message_of(exc)) from None
        msg = m.build_signed(self.game_id, seat, len(self.entries), self.head, body, identity.sign)
        self._append(msg)
        self._ours.add(msg.hash)
        return msg, events

    def place_own(self, msg: m.Signed) -> list[Event]:
        """Place one of our own messages, already signed, read back from our log (a restart,
        protocol/wire.md §14.4): it must carry a good signature and fit the end of the chain.

        Raises ``RemoteProtocolError`` (the log is not ours, or is damaged) changing nothing.
        """
        self.check_signature(msg)
        if msg.seq != len(self.entries) or msg.prev != self.head:
            raise RemoteProtocolError(
                "broken-chain", N_("our own message %(seq)d (%(kind)s) does not fit the end of the chain (%(n)d "
                                   "messages)", seq=msg.seq, kind=msg.kind, n=len(self.entries)))
        events = self._apply_and_append(msg)
        self._ours.add(msg.hash)
        return events

    # ----- messages received (or read from a log) ----------------------------------------

    def _signed_by_us(self, msg: m.Signed | m.Envelope) -> bool:
        """Whether ``msg`` (in our own seat) carries a good signature of our own key over this game and
        is not one of the messages this chain holds (those the peer may just send back)."""
        if msg.hash in self._ours:
            return False
        try:
            self.check_signature(msg)
        except RemoteProtocolError:
            return False
        return True

    def check_signature(self, msg: m.Signed | m.Envelope) -> None:
        """``wrong-game`` / ``bad-signature`` checks of one message."""
        if msg.game != self.game_id[:8]:
            raise RemoteProtocolError(
                "wrong-game",
                N_("message %(seq)d (%(kind)s) belongs to game %(game)s…, not this game %(ours)s… (replayed from "
                   "another session)", seq=msg.seq, kind=msg.kind, game=msg.game.hex(), ours=self.game_id[:8].hex()),
            )
        if not self.keys[msg.seat].verify(msg.sig, m.signing_input(self.game_id, msg.unsigned())):
            raise RemoteProtocolError(
                "bad-signature",
                N_("message %(seq)d (%(kind)s): the host's signature does not verify", seq=msg.seq, kind=msg.kind)
                if msg.seat == 0 else
                N_("message %(seq)d (%(kind)s): the guest's signature does not verify", seq=msg.seq, kind=msg.kind),
            )

    def receive(self, msg: m.Signed | m.Envelope, own: bool = False) -> Received:
        """Check and place one received message (protocol/wire.md §8.2 steps 3-8).

        ``msg`` is an :class:`~p2ptrumps.wire.messages.Envelope` (body not yet checked) or a
        whole :class:`~p2ptrumps.wire.messages.Signed`.  Raises ``RemoteProtocolError`` naming
        the fault: malformed (our own seat), wrong-game, bad-signature, then the body's
        malformed / non-canonical, sequence-gap, broken-chain, equivocation and whatever the
        referee refuses.  Faults that the sender's checked signature proves carry
        ``proven_by`` (protocol/verify.md §3.1).

        ``own`` (verify, :attr:`viewpoint` None): ``msg`` has the seat of the log's owner
        (protocol/verify.md §3): a game field or signature that fails, or a place where the
        table says sequence-gap or broken-chain, is ``malformed`` instead -- the owner's
        session places its own messages at the end of its chain, so such a frame is not the
        owner's message as its session logged it (the peer sent it, or the file changed: the
        reason does not guess which, verify.md §3.1).
        """
        if self.viewpoint is not None and msg.seat == self.viewpoint:
            if self._signed_by_us(msg):  # not the peer's doing: it relays what another copy of us signed
                raise RemoteProtocolError(
                    "malformed", N_("message %(seq)d (%(kind)s) in our own seat (%(role)s) is signed by our own key, "
                                    "but this side never signed it: %(why)s", seq=msg.seq, kind=msg.kind,
                                    role=ROLES[msg.seat], why=OTHER_COPY))
            raise RemoteProtocolError(
                "malformed", N_("message %(seq)d claims to come from our own seat (%(role)s)", seq=msg.seq,
                                role=ROLES[msg.seat]))
        who = ROLES[msg.seat]
        try:
            self.check_signature(msg)
        except RemoteProtocolError as exc:
            if not own:
                raise
            raise RemoteProtocolError(
                "malformed", N_("message %(seq)d (%(kind)s) claims to come from seat %(seat)d (%(role)s), the log's "
                                "owner, but is not its message of this game (%(code)s)", seq=msg.seq, kind=msg.kind,
                                seat=msg.seat, role=who, code=exc.code)) from None
        signed = _open(msg)
        crossed = self._crossed
        if signed.seat == 1 and self.viewpoint is None:
            crossed.check(signed)
        if signed.seat == 1 and self.viewpoint != 1 and crossed.superseded(signed, self.entries, self.hash_before):
            if self.viewpoint is None:
                crossed.note(signed)
            else:
                crossed.hold(signed)
            self.superseded += 1
            return Received(superseded=True)
        try:
            return self._place(signed)
        except RemoteProtocolError as exc:
            if not own or exc.proven_by is not None:
                raise
            raise RemoteProtocolError(
                "malformed", N_("message %(seq)d (%(kind)s) of seat %(seat)d (%(role)s), the log's owner, does not "
                                "fit the chain (%(code)s: %(reason)s); a session places its own messages at the end of "
                                "its chain", seq=signed.seq, kind=signed.kind, seat=signed.seat, role=who,
                                code=exc.code, reason=exc.reason)) from None

    def _place(self, msg: m.Signed) -> Received:
        """Placement (protocol/wire.md §8.3, rows b-h) of a checked message of the peer."""
        n = len(self.entries)
        host = msg.seat == 0
        if msg.seq > n:
            raise RemoteProtocolError("sequence-gap", (
                N_("host message %(seq)d (%(kind)s) arrived, but the chain holds %(n)d messages", seq=msg.seq,
                   kind=msg.kind, n=n) if host else
                N_("guest message %(seq)d (%(kind)s) arrived, but the chain holds %(n)d messages", seq=msg.seq,
                   kind=msg.kind, n=n)))
        if msg.prev != self.hash_before(msg.seq):
            raise RemoteProtocolError("broken-chain", (
                (N_("host message %(seq)d (%(kind)s) does not link to message %(before)d", seq=msg.seq, kind=msg.kind,
                    before=msg.seq - 1) if host else
                 N_("guest message %(seq)d (%(kind)s) does not link to message %(before)d", seq=msg.seq, kind=msg.kind,
                    before=msg.seq - 1))
                if msg.seq else
                (N_("host message 0 (%(kind)s) does not start from the game id", kind=msg.kind) if host else
                 N_("guest message 0 (%(kind)s) does not start from the game id", kind=msg.kind))))
        if msg.seq == n:
            received = Received(events=self._proven(msg, lambda: self._apply_and_append(msg)))
            if msg.seat == 1 and self.viewpoint == 0:
                # The guest has seen every host message before this one: nothing it sent earlier can
                # cross them any more (TCP keeps order), so the superseded ones are forgotten.
                self._crossed.forget()
            return received
        # The place is taken.
        taken = self.entries[msg.seq]
        if taken.hash == msg.hash:
            raise RemoteProtocolError("sequence-gap", (
                N_("host message %(seq)d (%(kind)s) is a repeat of one already in the chain", seq=msg.seq,
                   kind=msg.kind) if host else
                N_("guest message %(seq)d (%(kind)s) is a repeat of one already in the chain", seq=msg.seq,
                   kind=msg.kind)))
        later = self.entries[msg.seq :]
        if msg.seat == 0 and msg.seq >= self._confirmed and all(e.seat == 1 for e in later):
            def place() -> Received:
                # A message that fails the match rules changes nothing, not even the withdrawal its
                # placement made (protocol/verify.md §5): keep what the withdrawal replaces.
                # Only the tentative tail, the confirmed count and the memories added are kept for the
                # undo, never a copy of the whole chain or of the match: linear in the log.
                snapshot = self._snapshot
                assert snapshot is not None
                confirmed, withdrawn_before = self._confirmed, self.withdrawn
                tail = self.entries[confirmed:]
                added = [] if self.viewpoint is not None else [
                    (e.seq, e.prev) for e in self.entries[msg.seq:] if (e.seq, e.prev) not in self._crossed.gone]
                withdrawn, events = self._withdraw_from(msg.seq)
                try:
                    events += self._apply_and_append(msg)
                except RemoteProtocolError:
                    self.referee.rewind(snapshot)
                    del self.entries[confirmed:]
                    for e in tail:
                        self.referee.apply(e.seat, e.body)
                        self.entries.append(e)
                    self._confirmed, self._snapshot, self.withdrawn = confirmed, snapshot, withdrawn_before
                    for key in added:
                        self._crossed.gone.pop(key, None)
                    raise
                return Received(events=events, withdrawn=withdrawn)
            return self._proven(msg, place)
        raise RemoteProtocolError(
            "equivocation",
            _two_messages(msg, taken) if taken.seat == msg.seat
            else N_("the host signed message %(seq)d (%(kind)s) on a history it had already built past", seq=msg.seq,
                    kind=msg.kind) if host
            else N_("the guest signed message %(seq)d (%(kind)s) on a history it had already built past",
                    seq=msg.seq, kind=msg.kind),
            proven_by=msg.seat,
        )

    @staticmethod
    def _proven(msg: m.Signed, act: Callable[[], _T]) -> _T:
        """Run ``act``; a fault it raises (the referee's) is proven by ``msg``'s signature."""
        try:
            return act()
        except RemoteProtocolError as exc:
            exc.proven_by = msg.seat
            raise

    def _withdraw_from(self, seq: int) -> tuple[list[m.Signed], list[Event]]:
        """Take the guest's tentative messages from place ``seq`` on out of the chain (protocol/wire.md
        §8.3 row g): the referee goes back to the last confirmed place and takes the ones before ``seq``
        again.  Returns the withdrawn messages and the events that say what changed."""
        assert self._snapshot is not None
        kept = self.entries[self._confirmed : seq]
        withdrawn = self.entries[seq:]
        self.withdrawn += len(withdrawn)
        if self.viewpoint is None:
            for e in withdrawn:
                self._crossed.gone.setdefault((e.seq, e.prev), e.hash)
        events: list[Event] = [*self.referee.rewind(self._snapshot)]
        self._snapshot = None
        del self.entries[self._confirmed :]
        for e in kept:
            events += self._apply_and_append(e)
        return withdrawn, events

    def _apply_and_append(self, msg: m.Signed) -> list[Event]:
        events = self._applying(msg.seat, lambda: self.referee.apply(msg.seat, msg.body))
        self._append(msg)
        return events

    def _applying(self, seat: int, act: Callable[[], _T]) -> _T:
        """Run ``act`` (the referee applies a message of ``seat``), keeping a mark of the referee first
        when it is the first tentative guest message since the last confirmed place."""
        if seat == 1 and self.viewpoint != 0 and self._snapshot is None:
            mark = self.referee.mark()
            result = act()
            self._snapshot = mark
            return result
        return act()

    def _append(self, msg: m.Signed) -> None:
        self.entries.append(msg)
        if not (msg.seat == 1 and self.viewpoint != 0):
            self._confirmed = len(self.entries)
            self._snapshot = None


def _open(msg: m.Signed | m.Envelope) -> m.Signed:
    """The body of a message whose signature checked out (protocol/wire.md §8.2 step 6):
    a bad body is proven by that signature."""
    if isinstance(msg, m.Signed):
        return msg
    try:
        return msg.open()
    except RemoteProtocolError as exc:
        exc.proven_by = msg.seat
        raise


def _two_messages(msg: m.Signed, taken: m.Signed) -> Message:
    """The equivocation of ``msg``'s seat: it signed ``taken`` and ``msg`` for one place (protocol/wire.md §8.3)."""
    args = {"seq": msg.seq, "kind": taken.kind, "hash": taken.hash.hex()[:16], "other_kind": msg.kind,
            "other": msg.hash.hex()[:16]}
    if msg.seat == 0:
        return N_("the host signed two different messages for place %(seq)d (%(kind)s %(hash)s… and %(other_kind)s "
                  "%(other)s…)", **args)
    return N_("the guest signed two different messages for place %(seq)d (%(kind)s %(hash)s… and %(other_kind)s "
              "%(other)s…)", **args)
