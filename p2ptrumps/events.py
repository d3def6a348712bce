"""The events of the package: what the match machine (:class:`~p2ptrumps.match.Match`) says
happened, and what a networked session (:class:`~p2ptrumps.wire.session.Session`) says besides.

Source: RULES.md §2-§8 (the match), protocol/wire.md §7-§17 (the connection: hellos, rules, the
signed statements, reconnecting, faults), §9.6 (draw offers), §15 (leaving) and §16 (claims on
time).  Frozen dataclasses, one vocabulary for the whole package: the table, the AI, the headless
progress, the network driver and ``verify`` all read these.  Seats are 0 and 1 (over the
network the host is seat 0, the guest seat 1).  An event describes something that happened in the
match, whoever caused it: a seat's own move comes back to it as :class:`MovePlayed` like the
opponent's.

Positions carried by events are copies: a reader may keep or search them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .record import MatchRecord
from .rules import Move, Outcome, Position, RuleSet


@dataclass(frozen=True)
class TrumpChosen:
    """``seat`` chose ``suit`` (0..3, ♣ ♦ ♥ ♠) as its own trump for the whole match (RULES.md §2)."""

    seat: int
    suit: int


@dataclass(frozen=True)
class DealStarted:
    """Deal ``number`` (1-based) begins: ``dealer`` dealt, ``position`` is its start (the elder,
    ``1 - dealer``, to move; or a set-up position, ``play --position``), dealt from ``seed`` (32 bytes;
    empty for a set-up position)."""

    number: int
    dealer: int
    position: Position
    seed: bytes = b""


@dataclass(frozen=True)
class MovePlayed:
    """``seat`` played ``move``; ``position`` is the position after it."""

    seat: int
    move: Move
    position: Position


@dataclass(frozen=True)
class MovesTakenBack:
    """``count`` moves of the deal in play were taken back (an undo offline; over the network, our own
    moves the host's crossing message withdrew, protocol/wire.md §8.3); ``position`` is the position
    now."""

    count: int
    position: Position


@dataclass(frozen=True)
class Withdrawn:
    """The match went back to where it was before some of our own messages: the host's message took
    their place in the chain (protocol/wire.md §8.3).  ``count`` moves of the deal in play went with
    them; ``position`` is the position now (None before the first deal).  What still stands of them
    comes again as events, re-signed after the host's message."""

    count: int
    position: Position | None


@dataclass(frozen=True)
class DrawOffered:
    """``seat`` offers a draw in deal ``deal`` (RULES.md §7; protocol/wire.md §9.6): the other seat answers."""

    deal: int
    seat: int


@dataclass(frozen=True)
class DrawAnswered:
    """``seat`` answered the other seat's draw offer in deal ``deal``; ``accepted`` ends the deal drawn."""

    deal: int
    seat: int
    accepted: bool


@dataclass(frozen=True)
class Resigned:
    """``seat`` resigned deal ``deal`` (RULES.md §7): the other seat wins it."""

    deal: int
    seat: int


@dataclass(frozen=True)
class Claimed:
    """``seat`` claimed on time (protocol/wire.md §16) while the match waited for the other seat:
    ``deal`` is the deal at stake; ``deals`` the deals it won -- ``(deal,)`` when it claimed the deal
    in play, every deal not yet dealt when it claimed between deals (the match is then decided)."""

    seat: int
    deal: int
    deals: tuple[int, ...]


@dataclass(frozen=True)
class Left:
    """``seat`` left the match (protocol/wire.md §15): the deal in play is its resignation, and the
    deals not yet dealt are forfeited to the other seat."""

    seat: int


@dataclass(frozen=True)
class Disputed:
    """``seat`` disputed the claim of ``claimant`` on ``deal`` (protocol/wire.md §16): its own clock had
    not run out.  The claim won nothing; the match ended decided by no one."""

    seat: int
    claimant: int
    deal: int


@dataclass(frozen=True)
class DealEnded:
    """Deal ``number`` ended with ``outcome`` in ``position``; ``score_halves`` is the match score after
    it in half-points (seat 0, seat 1; deals forfeited by a seat that left are not in it yet)."""

    number: int
    outcome: Outcome
    position: Position
    score_halves: tuple[int, int]


@dataclass(frozen=True)
class MatchEnded:
    """Every deal of the match is decided: ``score_halves`` is the final score (seat 0, seat 1; forfeited
    deals and deals won by a claim between deals included); ``record`` the match's record (None when
    the match was decided before the trumps were chosen)."""

    score_halves: tuple[int, int]
    record: MatchRecord | None


#: Everything the match machine says.
MatchEvent = (
    TrumpChosen | DealStarted | MovePlayed | MovesTakenBack | Withdrawn | DrawOffered | DrawAnswered | Resigned
    | Claimed | Left | Disputed | DealEnded | MatchEnded
)


# ----- the connection: what a networked session says besides the match (protocol/wire.md) -----------


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
class CommitDue:
    """Deal ``deal`` needs our commitment: call ``commit(secret)`` (if not done already)."""

    deal: int


@dataclass(frozen=True)
class RevealDue:
    """Both commitments of deal ``deal`` are in: call ``reveal()`` (if not done already)."""

    deal: int


@dataclass(frozen=True)
class ChatReceived:
    """The peer (``seat``) said ``text`` (signed, in the chain, protocol/wire.md §9.7)."""

    seat: int
    text: str


@dataclass(frozen=True)
class DealSigned:
    """Both seats signed the result of deal ``number`` (protocol/wire.md §9.3: the deal-end statements):
    ``outcome``, and ``score_halves``, the match score after it in half-points (seat 0, seat 1)."""

    number: int
    outcome: Outcome
    score_halves: tuple[int, int]


@dataclass(frozen=True)
class MatchSigned:
    """Both seats signed the final score (protocol/wire.md §9.3: the match-end statements; half-points,
    seat 0, seat 1)."""

    score_halves: tuple[int, int]


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
class HostRefused:
    """(guest) The host refused this connection before its hello (protocol/wire.md §7.3): ``reason``
    is ``"ticket"``, ``"key"``, ``"busy"`` or one this program does not know.  Nothing is logged;
    the session reads nothing more."""

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


#: Everything a :class:`~p2ptrumps.wire.session.Session` says besides the match machine's events.
SessionEvent = (
    PeerHello | RulesProposed | RulesAgreed | RulesRefused | CommitDue | RevealDue | ChatReceived | DealSigned
    | MatchSigned | Resumed | ResumeRefused | HostRefused | RematchOffered | RematchAgreed | ProtocolViolation
    | DroppedAfterEnd | Flooded | ConnectionClosed
)

#: Every event of the package: the match's and the connection's.
Event = MatchEvent | SessionEvent
