"""Events a :class:`~p2ptrumps.wire.session.Session` hands out (frozen dataclasses).

Source: ``protocol/wire.md`` §7-§9.  Seats: the host is seat 0, the guest seat 1.
Events describe what the *peer* did (``PeerHello``, ``MoveReceived``, ...) and
what the match reached (``DealReady``, ``DealEnded``, ``MatchEnded``), in chain
order.  Our own messages produce no ``*Received`` event (we know what we sent),
but the derived events (``DealReady``, ``DealEnded``, ...) appear whoever caused them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import Move, Outcome, RuleSet


@dataclass(frozen=True)
class PeerHello:
    """The peer's hello arrived (not yet proven: its first signed message proves the key).

    ``fingerprint`` is the human form (protocol/wire.md §4); ``public_key`` the raw
    32 bytes; ``seat`` the peer's seat (0 host, 1 guest).  Call
    :meth:`Session.accept_key` to go on (or drop the connection).
    """

    name: str
    fingerprint: str
    public_key: bytes
    seat: int


@dataclass(frozen=True)
class RulesProposed:
    """(guest) The host proposes ``rules`` and ``move_time`` (seconds per move, 0 = no clock,
    protocol/wire.md §16); answer with ``accept_rules()`` / ``refuse_rules()``."""

    rules: RuleSet
    move_time: int = 0


@dataclass(frozen=True)
class RulesAgreed:
    """Both sides agreed ``rules`` and ``move_time`` (the guest's signed acceptance is in the chain)."""

    rules: RuleSet
    move_time: int = 0


@dataclass(frozen=True)
class RulesRefused:
    """The guest refused the rules: the session is over (no match)."""


@dataclass(frozen=True)
class TrumpChosen:
    """``seat`` chose ``suit`` (0..3, ♣ ♦ ♥ ♠) as its own trump.  Emitted for both seats."""

    seat: int
    suit: int


@dataclass(frozen=True)
class CommitDue:
    """Deal ``deal`` needs our commitment: call ``commit(secret)`` (if not done already)."""

    deal: int


@dataclass(frozen=True)
class RevealDue:
    """Both commitments of deal ``deal`` are in: call ``reveal()`` (if not done already)."""

    deal: int


@dataclass(frozen=True)
class DealReady:
    """Both reveals are in: deal ``number`` (1-based) is dealt from ``seed`` (32 bytes)
    with ``dealer``; ``hands`` are the card bitmasks of seat 0 and seat 1 (after sixes).
    The elder (``1 - dealer``) moves first."""

    number: int
    dealer: int
    seed: bytes
    hands: tuple[int, int]


@dataclass(frozen=True)
class MoveReceived:
    """The peer (``seat``) played ``move`` in deal ``deal``; it is legal and its position hash checks."""

    deal: int
    seat: int
    move: Move


@dataclass(frozen=True)
class ChatReceived:
    """The peer said ``text`` (signed, in the chain)."""

    seat: int
    text: str


@dataclass(frozen=True)
class DrawOffered:
    """The peer offers a draw in deal ``deal``; answer with ``answer_draw(bool)``."""

    deal: int
    seat: int


@dataclass(frozen=True)
class DrawAnswered:
    """The peer answered our draw offer in deal ``deal``."""

    deal: int
    seat: int
    accepted: bool


@dataclass(frozen=True)
class Resigned:
    """The peer (``seat``) resigned deal ``deal``."""

    deal: int
    seat: int


@dataclass(frozen=True)
class DealEnded:
    """Deal ``number`` ended with ``outcome`` and *both* sides signed the result;
    ``score_halves`` is the match score so far in half-points (seat 0, seat 1)."""

    number: int
    outcome: Outcome
    score_halves: tuple[int, int]


@dataclass(frozen=True)
class MatchEnded:
    """Every deal is played and both sides signed the final score (half-points, seat 0, seat 1)."""

    score_halves: tuple[int, int]


@dataclass(frozen=True)
class Left:
    """``seat`` left the match (protocol/wire.md §15): the deal in play is its resignation, the
    deals not yet dealt are forfeited, and the match goes to its signed end."""

    seat: int


@dataclass(frozen=True)
class Claimed:
    """The peer (``seat``) claimed on time (protocol/wire.md §16) while the match waited for us:
    ``deal`` is the deal at stake; ``deals`` the deals it won -- ``(deal,)`` when it claimed the
    deal in play, every deal not yet dealt when it claimed between deals (then the match goes
    to its signed end)."""

    seat: int
    deal: int
    deals: tuple[int, ...]


@dataclass(frozen=True)
class Disputed:
    """``seat`` disputed the claim of ``claimant`` on ``deal`` (protocol/wire.md §16): its own clock
    had not run out.  The match ended disputed, decided by no one; nothing but chat follows."""

    seat: int
    claimant: int
    deal: int


@dataclass(frozen=True)
class Resumed:
    """The peer proved its key on a new connection and the match goes on (protocol/wire.md §14);
    ``reconnections`` counts them in this session."""

    reconnections: int


@dataclass(frozen=True)
class ResumeRefused:
    """A new connection did not prove the peer's key (a stranger, another game): it is closed and
    the session waits for another.  ``reason`` says why."""

    reason: str


@dataclass(frozen=True)
class RematchOffered:
    """The peer offers a rematch; ``offer_rematch()`` accepts it."""

    seat: int


@dataclass(frozen=True)
class RematchAgreed:
    """Both sides offered a rematch: this session is finished.  Start a new
    :class:`Session` on the same connection (same roles, fresh nonce, new log)
    and feed it ``session.trailing_data`` first (protocol/wire.md §9.4)."""


@dataclass(frozen=True)
class ProtocolViolation:
    """The peer broke the protocol; the session is dead.

    ``code`` is a fault code (:data:`~p2ptrumps.wire.errors.FAULT_CODES`),
    ``reason`` a sentence naming it, ``evidence`` the offending frame's bytes as
    received (length prefix included; may be partial for an oversized frame).
    """

    code: str
    reason: str
    evidence: bytes


@dataclass(frozen=True)
class DroppedAfterEnd:
    """After the match (phase ``done``) the peer sent something that breaks the protocol: it is
    dropped, not logged (protocol/wire.md §12, "After the match"), and the session stops reading;
    the match stays complete.  ``code`` and ``reason`` name what it was."""

    code: str
    reason: str


@dataclass(frozen=True)
class Flooded:
    """The peer went beyond a limit that a log cannot show (protocol/wire.md §17: more superseded
    messages in a row than a host holds, too many bytes after a rematch was agreed); nothing of it
    is logged and the session stops reading.  ``reason`` says which limit."""

    reason: str


@dataclass(frozen=True)
class ConnectionClosed:
    """The peer closed the connection (``receive_data(b"")``).  ``clean`` is True when
    the match had ended (or the rules were refused) and nothing was left half-read."""

    clean: bool


Event = (
    PeerHello
    | RulesProposed
    | RulesAgreed
    | RulesRefused
    | TrumpChosen
    | CommitDue
    | RevealDue
    | DealReady
    | MoveReceived
    | ChatReceived
    | DrawOffered
    | DrawAnswered
    | Resigned
    | DealEnded
    | MatchEnded
    | Left
    | Claimed
    | Disputed
    | Resumed
    | ResumeRefused
    | RematchOffered
    | RematchAgreed
    | ProtocolViolation
    | DroppedAfterEnd
    | Flooded
    | ConnectionClosed
)
