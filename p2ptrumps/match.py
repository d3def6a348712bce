"""A match: several deals, the score, the loser deals next; players fill the seats.

Source: RULES.md §2, §3, §8.

The match loop asks the player of the seat to move and does not care what kind
of player it is: a person through the UI, the AI, or the remote peer.  It is
plain ``async`` code that awaits only its players and its seed source, so it
runs under trio (the live game) or synchronously-driven coroutines alike.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from .events import DealEnded, DealStarted, MatchEnded, MovePlayed, MovesTakenBack
from .events import MatchEvent as Event
from .machine import Action, OfferDraw, Resign, Undo
from .notation import position_text
from .record import DealRecord, MatchRecord, PlayerInfo
from .rules import Move, Outcome, Position, RuleSet, next_dealer
from .shuffle import deal_hands, first_dealer


class Player(Protocol):
    """Who plays a seat.

    ``choose_move`` gets a copy of the position (the player may search it) and
    the player's seat, and returns a legal :class:`Move` or an intent
    (:class:`Resign`, :class:`Undo`, :class:`OfferDraw`).  ``observe`` sees every
    event of the match, including its own moves.  ``accept_draw`` answers the
    opponent's draw offer.
    """

    info: PlayerInfo

    async def choose_move(self, position: Position, seat: int) -> Action: ...

    async def observe(self, event: Event) -> None: ...

    async def accept_draw(self, position: Position, seat: int) -> bool: ...


SeedSource = Callable[[int], Awaitable[bytes]]

#: ``await settle_deal(number, moves, outcome)`` -> ``(moves, outcome)`` as they stand (see MatchRunner).
DealSettler = Callable[[int, list[Move], Outcome], Awaitable[tuple[list[Move], Outcome]]]


async def urandom_seed(deal_number: int) -> bytes:
    """Seed source for offline play: 32 bytes from ``os.urandom``."""
    return os.urandom(32)


class DealInterrupted(Exception):
    """Raised by a player (from ``choose_move`` or ``accept_draw``) when the deal
    ended outside the match loop: the remote peer resigned, a draw was agreed
    over the network, or a seat claimed the deal on time (protocol/wire.md §16),
    while another seat was to act.  The match loop ends the deal with ``outcome``
    (reason ``"resign"``, ``"agreed-draw"`` or ``"time"``) and goes on.
    """

    def __init__(self, outcome: Outcome) -> None:
        if outcome.reason not in ("resign", "agreed-draw", "time"):
            raise ValueError(f"a deal is interrupted only by resignation, agreed draw or a claim on time, "
                             f"not {outcome.reason!r}")
        super().__init__(outcome.describe())
        self.outcome = outcome


class IllegalActionError(RuntimeError):
    """A player returned an illegal move or an intent that is not allowed; names the seat."""


@dataclass
class MatchRunner:
    """Runs a match between two players and keeps its record.

    Args:
        rules: the agreed rule set (``rules.deals`` deals).
        trumps: own trump of seat 0 and seat 1.
        players: the player of seat 0 and seat 1.
        seed_source: ``await seed_source(deal_number)`` gives each deal's seed bytes.
        on_record: called with the record after every change (to save it).
        allow_undo: accept :class:`Undo` intents (offline against the AI).
        dealer: the first deal's dealer; None draws it from the first seed.
        settle_deal: called when a deal has ended locally, with its moves and outcome;
            returns the moves and outcome that stand (a networked match: the signed
            chain, where a move of ours may have been dropped because the peer's
            resignation crossed it).  If they differ, the deal is rewound to the
            common prefix of moves (:class:`MovesTakenBack`), the further moves are
            played (:class:`MovePlayed`), the outcome replaced, and only then is
            :class:`DealEnded` broadcast.  ``IllegalActionError`` if the returned
            moves and outcome do not fit the rules.  None: no settling (offline).
        start: the first deal starts from this position instead of a dealt one (``play
            --position``; its record gets ``start``, protocol/record.md §3); its trumps must be
            ``trumps``.  None: every deal is dealt.
        resume: a saved, unfinished record of this match (``play --continue``): its finished
            deals stand, its unfinished last deal goes on from its last move (the deal's
            :class:`DealStarted` and one :class:`MovePlayed` per recorded move are broadcast
            first), and the further deals follow; the record grows in place.  Its rules and
            trumps must be ``rules`` and ``trumps``.  ``RecordError`` (from
            :meth:`MatchRecord.start_of`) or ``IllegalActionError`` if its moves do not replay.
    """

    rules: RuleSet
    trumps: tuple[int, int]
    players: tuple[Player, Player]
    seed_source: SeedSource = urandom_seed
    on_record: Callable[[MatchRecord], None] | None = None
    allow_undo: bool = False
    dealer: int | None = None
    settle_deal: DealSettler | None = None
    start: Position | None = None
    resume: MatchRecord | None = None
    record: MatchRecord = field(init=False)
    _draw_offers: set[tuple[int, int, int]] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        if self.resume is not None:
            self.record = self.resume
            return
        self.record = MatchRecord(
            rules=self.rules,
            trumps=self.trumps,
            players=(self.players[0].info, self.players[1].info),
            started=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        )

    def _save(self) -> None:
        if self.on_record is not None:
            self.on_record(self.record)

    async def _broadcast(self, event: Event) -> None:
        for p in self.players:
            await p.observe(event)

    async def run(self) -> MatchRecord:
        """Play every deal; return the record.  Exceptions from players propagate
        after the record (with the unfinished deal) has been saved."""
        dealer = self.dealer
        first = 1
        if self.resume is not None and self.record.deals:
            last = self.record.deals[-1]
            outcome = last.outcome or await self._go_on(last)
            dealer = next_dealer(last.dealer, outcome)
            first = last.number + 1
        for number in range(first, self.rules.deals + 1):
            seed = await self.seed_source(number)
            if self.start is not None and number == 1:
                dealer = 1 - self.start.to_move
            if dealer is None:
                dealer = first_dealer(seed)
            outcome = await self.play_deal(number, seed, dealer)
            dealer = next_dealer(dealer, outcome)
        self._save()
        await self._broadcast(MatchEnded(self.record.score_halves(), self.record))
        return self.record

    async def _go_on(self, deal: DealRecord) -> Outcome:
        """Play on the unfinished ``deal`` of a resumed record from its last move."""
        pos = self.record.start_of(deal)
        await self._broadcast(DealStarted(deal.number, deal.dealer, pos.copy()))
        for move in deal.moves:
            seat = pos.to_move
            try:
                pos.push(move)
            except ValueError as exc:
                raise IllegalActionError(f"deal {deal.number}: recorded move {move.code} is illegal: {exc}") from exc
            await self._broadcast(MovePlayed(seat, move, pos.copy()))
        return await self._finish_deal(pos, deal)

    async def play_deal(self, number: int, seed: bytes, dealer: int) -> Outcome:
        if self.start is not None and number == 1:
            s = self.start
            pos = Position(self.rules, self.trumps, list(s.hands), s.pile, s.to_move, s.turn)
            deal = DealRecord(number=number, dealer=1 - s.to_move, seed=b"", hands=(s.hands[0], s.hands[1]),
                              start=position_text(pos))
        else:
            hands = deal_hands(seed, self.rules, self.trumps, dealer)
            deal = DealRecord(number=number, dealer=dealer, seed=seed, hands=hands)
            pos = Position.start(self.rules, self.trumps, hands, dealer)
        self.record.deals.append(deal)
        self._save()
        await self._broadcast(DealStarted(number, dealer, pos.copy()))
        return await self._finish_deal(pos, deal)

    async def _finish_deal(self, pos: Position, deal: DealRecord) -> Outcome:
        """Play ``deal`` on from ``pos`` to its end; settle, record and broadcast its outcome."""
        number = deal.number
        while pos.outcome is None:
            seat = pos.to_move
            try:
                await self._turn(pos, deal, seat)
            except DealInterrupted as exc:
                _end_as(pos, exc.outcome)
        assert pos.outcome is not None
        if self.settle_deal is not None:
            moves, outcome = await self.settle_deal(number, list(deal.moves), pos.outcome)
            if moves != deal.moves or outcome != pos.outcome:
                pos = await self._rewind(pos, deal, moves, outcome)
        assert pos.outcome is not None
        deal.outcome = pos.outcome
        self._save()
        await self._broadcast(DealEnded(number, pos.outcome, pos.copy(), self.record.score_halves()))
        return pos.outcome

    async def _turn(self, pos: Position, deal: DealRecord, seat: int) -> None:
        """Ask ``seat`` to act once and apply the action (a move, resignation, draw offer or undo)."""
        action = await self.players[seat].choose_move(pos.copy(), seat)
        if isinstance(action, Move):
            try:
                pos.push(action)
            except ValueError as exc:
                raise IllegalActionError(f"seat {seat} ({self.players[seat].info.name}): {exc}") from exc
            deal.moves.append(action)
            self._save()
            await self._broadcast(MovePlayed(seat, action, pos.copy()))
        elif isinstance(action, Resign):
            pos.resign(seat)
        elif isinstance(action, OfferDraw):
            # One offer per seat per turn: a refused offer is not put again until the seat has moved.
            if (deal.number, seat, pos.turn) not in self._draw_offers:
                self._draw_offers.add((deal.number, seat, pos.turn))
                if await self.players[1 - seat].accept_draw(pos.copy(), 1 - seat):
                    pos.agree_draw()
        elif isinstance(action, Undo):
            if not self.allow_undo:
                raise IllegalActionError(f"seat {seat}: undo is not allowed in this match")
            n = self._undo(pos, deal, seat)
            self._save()
            await self._broadcast(MovesTakenBack(n, pos.copy()))
        else:
            raise IllegalActionError(f"seat {seat}: {action!r} is not a move or an intent")

    async def _rewind(self, pos: Position, deal: DealRecord, moves: list[Move], outcome: Outcome) -> Position:
        """Make ``deal`` hold ``moves`` ending in ``outcome`` (see ``settle_deal``); returns the new position."""
        keep = 0
        while keep < min(len(moves), len(deal.moves)) and moves[keep] == deal.moves[keep]:
            keep += 1
        new = Position.start(self.rules, self.trumps, deal.hands, deal.dealer)
        for m in deal.moves[:keep]:
            new.push_unchecked(m)
        dropped = len(deal.moves) - keep
        del deal.moves[keep:]
        if dropped:
            self._save()
            await self._broadcast(MovesTakenBack(dropped, new.copy()))
        for m in moves[keep:]:
            seat = new.to_move
            try:
                new.push(m)
            except ValueError as exc:
                raise IllegalActionError(f"deal {deal.number}: settled move {m.code} is illegal: {exc}") from exc
            deal.moves.append(m)
            self._save()
            await self._broadcast(MovePlayed(seat, m, new.copy()))
        if new.outcome is None and outcome.reason in ("resign", "agreed-draw", "time"):
            _end_as(new, outcome)
        if new.outcome != outcome:
            raise IllegalActionError(
                f"deal {deal.number}: settled outcome {outcome.describe()} does not follow from its moves"
            )
        return new

    def _undo(self, pos: Position, deal: DealRecord, seat: int) -> int:
        """Take back moves until ``seat`` is to move again before its own last move; return how many."""
        # Positions before each move: find the last move made by `seat`.
        replay = self.record.start_of(deal)
        movers = []
        for m in deal.moves:
            movers.append(replay.to_move)
            replay.push_unchecked(m)
        if seat not in movers:
            return 0
        last = len(movers) - 1 - movers[::-1].index(seat)
        n = len(deal.moves) - last
        for _ in range(n):
            pos.pop()
            deal.moves.pop()
        return n


def _end_as(pos: Position, outcome: Outcome) -> None:
    """End the deal in ``pos`` by ``outcome``: a resignation, an agreed draw or a claim on time."""
    if outcome.reason == "agreed-draw":
        pos.agree_draw()
    elif outcome.reason == "time":
        assert outcome.winner is not None
        pos.lose_on_time(1 - outcome.winner)
    else:
        assert outcome.winner is not None
        pos.resign(1 - outcome.winner)
