"""The events of a match: what the match machine (:class:`~p2ptrumps.machine.Match`) says happened.

Source: RULES.md §2-§8 (the match), protocol/wire.md §9.6 (draw offers), §15 (leaving) and §16
(claims on time).  Frozen dataclasses, one vocabulary for the whole package: the table, the AI, the
headless progress, the network driver and ``verify`` all read these.  Seats are 0 and 1 (over the
network the host is seat 0, the guest seat 1).  An event describes something that happened in the
match, whoever caused it: a seat's own move comes back to it as :class:`MovePlayed` like the
opponent's.

Positions carried by events are copies: a reader may keep or search them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .record import MatchRecord
from .rules import Move, Outcome, Position


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
