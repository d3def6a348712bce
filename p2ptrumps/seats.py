"""Who fills a seat (:class:`Player`), and the driver of a match played in one process.

Source: RULES.md §2-§8.  A :class:`Player` decides one seat's actions -- the person at the table,
the AI, a line prompt, a test's script -- and sees every event of the match.  It never applies an
action itself: a driver hands the action to the match machine (:class:`~p2ptrumps.match.Match`)
and the machine's events to the players.  :func:`play` is the driver when both seats play in this
process (``play`` against the AI, tests, benches); over the network the driver is
:mod:`p2ptrumps.net.seat`, with our player in one seat and the peer's messages in the other.

:func:`play` is plain ``async`` code that awaits only its players and its seed source, so it runs
under trio (the live game) or any other loop.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Protocol

from .events import DealEnded, DealStarted, MatchEnded, MatchEvent, MovePlayed, MovesTakenBack
from .match import Action, AnswerDraw, Deal, IllegalActionError, Match, NextDeal, OfferDraw
from .record import MatchRecord, PlayerInfo
from .rules import IllegalMoveError, Position

__all__ = ["IllegalActionError", "Player", "SeedSource", "play", "started_now", "urandom_seed"]


class Player(Protocol):
    """Who plays a seat.

    ``choose_move`` gets a copy of the position (the player may search it) and the player's seat,
    and returns a legal :class:`~p2ptrumps.rules.Move` or an intent (:class:`~p2ptrumps.match.Resign`,
    :class:`~p2ptrumps.match.Undo`, :class:`~p2ptrumps.match.OfferDraw`).  ``observe`` sees every
    event of the match, its own moves included.  ``accept_draw`` answers the opponent's draw offer.
    """

    info: PlayerInfo

    async def choose_move(self, position: Position, seat: int) -> Action: ...

    async def observe(self, event: MatchEvent) -> None: ...

    async def accept_draw(self, position: Position, seat: int) -> bool: ...


SeedSource = Callable[[int], Awaitable[bytes]]


def started_now() -> str:
    """Now, as a record's ``started`` (ISO 8601, UTC, to the second: ``"2026-11-29T17:42:05Z"``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def urandom_seed(deal_number: int) -> bytes:
    """Seed source for offline play: 32 bytes from ``os.urandom``."""
    return os.urandom(32)


#: The events after which the record changed (and is saved).
_SAVED = (DealStarted, MovePlayed, MovesTakenBack, DealEnded, MatchEnded)


async def play(match: Match, players: tuple[Player, Player], *, seed_source: SeedSource = urandom_seed,
               on_record: Callable[[MatchRecord], None] | None = None) -> MatchRecord:
    """Play ``match`` to its end with both seats in this process; return its record.

    Args:
        match: a match with its trumps chosen (a resumed one goes on where it stopped: its deal's
            :class:`~p2ptrumps.events.DealStarted` and moves are shown to the players first).
        players: the player of seat 0 and seat 1.
        seed_source: ``await seed_source(deal_number)`` gives each deal's 32 seed bytes.
        on_record: called with the record after every change (a deal dealt, a move, moves taken back, a
            deal's end, the match's end) to save it.

    Raises:
        IllegalActionError: a player chose an illegal move (``"seat 1 (Bob): you must beat ..."``, the
            rules' error as its cause) or an intent that is not allowed (``"seat 0: undo is not allowed
            in this match"``).  Exceptions of the players propagate too; the record was saved before.
    """
    driver = _Driver(match, players, on_record)
    for event in match.replay_events():
        await driver.broadcast(event)
    for _ in range(1 << 62):  # one pass per step of the match; a match has a bounded number of them
        seat, what = match.waiting_for()
        if what == "deal":
            await driver.apply(None, Deal(await seed_source(match.number + 1)))
        elif what == "move":
            assert seat is not None
            await driver.turn(seat)
        elif what == "deal-end":
            await driver.apply(None, NextDeal())
        else:
            break
    if match.record is None:
        raise IllegalActionError("the match ended before the trumps were chosen")
    return match.record


class _Driver:
    """What :func:`play` does at each step: ask a player, hand the action to the machine, save the
    record and show the events to both players."""

    def __init__(self, match: Match, players: tuple[Player, Player],
                 on_record: Callable[[MatchRecord], None] | None) -> None:
        if match.record is None:
            raise IllegalActionError("the trumps are not chosen yet")
        self.match = match
        self.players = players
        self.on_record = on_record

    async def broadcast(self, event: MatchEvent) -> None:
        for p in self.players:
            await p.observe(event)

    async def apply(self, seat: int | None, action: Action | Deal | NextDeal) -> None:
        await self.show(self.match.send(seat, action))

    async def show(self, events: list[MatchEvent]) -> None:
        for event in events:
            if isinstance(event, _SAVED) and self.on_record is not None and self.match.record is not None:
                self.on_record(self.match.record)
            await self.broadcast(event)

    async def turn(self, seat: int) -> None:
        """Ask ``seat`` to act once and apply the action (a move, resignation, draw offer, undo)."""
        match = self.match
        position = match.position
        assert position is not None
        player = self.players[seat]
        action = await player.choose_move(position.copy(), seat)
        if isinstance(action, OfferDraw):
            # One offer per seat per turn: a refused offer is not put again until the seat has moved.
            if match.may_offer_draw(seat):
                await self.apply(seat, action)
                accept = await self.players[1 - seat].accept_draw(position.copy(), 1 - seat)
                await self.apply(1 - seat, AnswerDraw(accept))
            return
        try:
            events = match.send(seat, action)
        except IllegalMoveError as exc:
            raise IllegalActionError(f"seat {seat} ({player.info.name}): {exc}") from exc
        except IllegalActionError as exc:
            raise IllegalActionError(f"seat {seat}: {exc}") from exc
        await self.show(events)
