"""The remote peer as a match player, and the commit-reveal seed source.

Source: ``protocol/wire.md`` §9 (the match: trumps, commit-reveal per deal,
moves, resignation, draw offers, deal and match end) and issue 3 §2.

:class:`NetGame` sits between a running :class:`~p2ptrumps.net.transport.Connection`
and the match loop (:class:`~p2ptrumps.match.MatchRunner`):

* its :meth:`NetGame.pump` task takes every session event off the connection,
  shows chat at once, and queues the rest for whoever waits for them;
* :class:`RemotePlayer` plays the peer's seat: ``choose_move`` waits for the
  peer's move (or resignation, or draw offer); ``observe`` sends *our* seat's
  moves and resignation to the peer through the session;
* :class:`LocalSeat` wraps our own player (the AI or the person): while it
  thinks, a resignation or draw offer from the peer interrupts it
  (:class:`~p2ptrumps.match.DealInterrupted`), and its draw answers go to the peer;
* :meth:`NetGame.seed` is the ``seed_source`` of the match loop: a fresh
  ``os.urandom(32)`` secret per deal, committed and revealed through the
  session, and the seed both sides derive once both reveals are in.

The session is the authority on the match: the match loop runs the same engine
on the same moves, and :meth:`NetGame.seed` checks the session's deal against
the engine's before the deal is played.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import TypeVar

import trio

from ..match import Action, DealInterrupted, DealStarted, Event, OfferDraw, Player, Resign
from ..record import PlayerInfo
from ..rules import Move, Outcome, Position
from ..wire.errors import LocalProtocolError
from ..wire.events import (
    ChatReceived,
    CommitDue,
    DealReady,
    DrawAnswered,
    DrawOffered,
    Left,
    MoveReceived,
    ProtocolViolation,
    RematchOffered,
    Resigned,
    Resumed,
    RevealDue,
)
from ..wire.events import DealEnded as DealEndedWire
from ..wire.events import Event as WireEvent
from ..wire.messages import MoveMsg
from ..wire.session import Session
from .transport import Connection, single_errors

E = TypeVar("E")


def in_deal(deal: int) -> Callable[[object], bool]:
    """A ``where`` filter for :meth:`NetGame.take`: events of deal ``deal`` only."""
    return lambda ev: getattr(ev, "deal", None) == deal


class NetGameError(RuntimeError):
    """Our engine and the session disagree, or the session refused one of our intents;
    the message says what (a bug on our side, never the peer's fault)."""


class NetGame:
    """The session seen by the match loop.

    Args:
        conn: the running connection (its ``session`` is the :class:`Session`).
        on_chat: ``on_chat(sender_name, text)`` for each chat line from the peer.
        on_note: ``on_note(text)`` for things worth telling the user (a crossed
            move dropped, ...); None ignores them.
    """

    def __init__(
        self,
        conn: Connection,
        session: Session,
        *,
        on_chat: Callable[[str, str], None] | None = None,
        on_note: Callable[[str], None] | None = None,
    ) -> None:
        self.conn = conn
        self.session = session
        self.on_chat = on_chat
        self.on_note = on_note
        self._queue: deque[WireEvent] = deque()
        self._arrived = trio.Event()
        self.deals: dict[int, DealReady] = {}
        self.events_seen = 0
        #: The deal the match loop is playing (deal-scoped peer events are taken only for it).
        self.current_deal = 0

    @property
    def names(self) -> tuple[str, str]:
        """Display names of seat 0 and seat 1 (from the hellos)."""
        me, peer = self.session.name, self.session.peer_name or "peer"
        return (me, peer) if self.seat == 0 else (peer, me)

    @property
    def seat(self) -> int:
        """Our seat (host 0, guest 1)."""
        return self.session.seat

    # ----- events --------------------------------------------------------------------

    async def pump(self) -> None:
        """Move session events from the connection to the queue until the connection ends.
        Run it in a nursery beside the match; it returns when the connection closes."""
        while True:
            ev = await self.conn.next_event()
            self.events_seen += 1
            if isinstance(ev, ChatReceived):
                if self.on_chat is not None:
                    self.on_chat(self.session.peer_name or "peer", ev.text)
                continue
            if isinstance(ev, Resumed):
                if self.on_note is not None:
                    self.on_note("reconnected: the match goes on")
                continue
            if isinstance(ev, Left) and self.on_note is not None:
                self.on_note(f"{self.session.peer_name or 'the peer'} resigned and left the match")
            if isinstance(ev, RematchOffered):
                if self.on_note is not None:
                    self.on_note(f"{self.session.peer_name or 'the peer'} offers a rematch")
                continue
            if isinstance(ev, (CommitDue, RevealDue, ProtocolViolation)):
                continue  # commit/reveal are given early; faults are the transport's
            self._queue.append(ev)  # type: ignore[arg-type]
            self._arrived.set()
            self._arrived = trio.Event()

    async def take(self, *types: type[E], where: Callable[[E], bool] | None = None) -> E:
        """Remove and return the first queued event of one of ``types`` (and for which
        ``where(event)`` holds, if given), waiting for one.

        Raises:
            TransportError: the connection failed while waiting.
        """
        while True:
            for i, ev in enumerate(self._queue):
                if isinstance(ev, types) and (where is None or where(ev)):
                    del self._queue[i]
                    return ev
            arrived = self._arrived
            await arrived.wait()

    async def send(self, intent: Callable[[], None]) -> None:
        """Apply a session intent (e.g. ``lambda: session.play(move)``) and send what it produced.

        Raises:
            NetGameError: the session refused it (``LocalProtocolError``).
            TransportError: the connection failed while sending.
        """
        try:
            intent()
        except LocalProtocolError as exc:
            if self.conn.error is not None:  # the connection died first: that is the real cause
                raise self.conn.error from None
            raise NetGameError(f"the session refused our action: {exc}") from exc
        await self.conn.send_pending()

    async def send_in_deal(self, intent: Callable[[], None], deal: int) -> None:
        """Like :meth:`send` for an action in deal ``deal`` (a move, resignation, draw offer
        or answer).  If the session refuses it because the chain has already ended that
        deal (the peer's resignation or accepted draw arrived, and crossed or preceded
        our action), :class:`~p2ptrumps.match.DealInterrupted` with the chain's outcome
        is raised instead: the match loop then follows the chain.

        Raises:
            DealInterrupted: the deal is over in the chain (resignation / agreed draw).
            NetGameError: the session refused it for another reason (a bug on our side).
            TransportError: the connection failed.
        """
        try:
            intent()
        except LocalProtocolError as exc:
            if self.conn.error is not None:
                raise self.conn.error from None
            outcome = self.chain_outcome(deal)
            if outcome is not None and outcome.reason in ("resign", "agreed-draw"):
                if self.on_note is not None:
                    self.on_note(f"not sent: {exc}; the deal ended first ({outcome.describe(self.names)})")
                raise DealInterrupted(outcome) from None
            raise NetGameError(f"the session refused our action: {exc}") from exc
        await self.conn.send_pending()

    def chain_outcome(self, deal: int) -> Outcome | None:
        """The outcome of deal ``deal`` in the signed chain, None while it is being played
        (or not dealt yet)."""
        chain = self.session.chain
        if chain is None:
            return None
        for info in chain.referee.deals:
            if info.number == deal:
                return info.outcome
        return None

    def chain_moves(self, deal: int) -> list[Move]:
        """The moves of deal ``deal`` in the signed chain, in chain order."""
        chain = self.session.chain
        if chain is None:
            return []
        return [e.body.move for e in chain.entries if isinstance(e.body, MoveMsg) and e.body.deal == deal]

    async def settle(self, number: int, moves: list[Move], outcome: Outcome) -> tuple[list[Move], Outcome]:
        """``settle_deal`` for :class:`~p2ptrumps.match.MatchRunner`: wait until both sides
        have signed the end of deal ``number`` (the session's ``DealEnded``) and return
        the deal's moves and outcome as the chain holds them -- the truth both logs
        share.  They differ from the match loop's ``moves``/``outcome`` only when a
        message of ours was dropped because the peer's resignation crossed it
        (protocol/wire.md §8.3); the user is told.  Events of that deal still queued
        (a resignation the loop never needed) are discarded.

        Raises:
            TransportError: the connection failed while waiting.
        """
        ended = await self.take(DealEndedWire, where=lambda e: e.number == number)
        chain_moves = self.chain_moves(number)
        self._queue = deque(e for e in self._queue if getattr(e, "deal", None) != number)
        if (chain_moves, ended.outcome) != (moves, outcome) and self.on_note is not None:
            extra = moves[len(chain_moves):] if moves[: len(chain_moves)] == chain_moves else []
            why = f"your move {' '.join(m.code for m in extra)} crossed the peer's message and was not played; " \
                if extra else ""
            self.on_note(f"deal {number}: {why}the signed result is {ended.outcome.describe(self.names)}")
        return chain_moves, ended.outcome

    # ----- the seed source --------------------------------------------------------------

    async def seed(self, number: int) -> bytes:
        """``seed_source`` for :class:`~p2ptrumps.match.MatchRunner`: commit to a fresh
        ``os.urandom(32)`` secret for deal ``number``, reveal it when due, and return
        the 32-byte seed once both reveals are in (``DealReady``)."""
        self.current_deal = number
        chain = self.session.chain
        if chain is not None and chain.referee.left is not None:
            await trio.sleep_forever()  # a seat left: no more deals (the driver ends the match)
        secret = os.urandom(32)
        await self.send(lambda: self.session.commit(secret))
        await self.send(self.session.reveal)
        while True:
            ready = await self.take(DealReady)
            if ready.number == number:
                break
        self.deals[number] = ready
        return ready.seed

    def check_deal(self, event: DealStarted) -> None:
        """Raise :class:`NetGameError` unless the engine's deal is the session's deal."""
        ready = self.deals.get(event.number)
        if ready is None:
            raise NetGameError(f"deal {event.number} started without the session's deal")
        hands = (event.position.hands[0], event.position.hands[1])
        if ready.dealer != event.dealer or ready.hands != hands:
            raise NetGameError(
                f"deal {event.number}: the engine deals (dealer {event.dealer}) but the session "
                f"dealt (dealer {ready.dealer}) other hands"
            )


class RemotePlayer:
    """The peer's seat as a :class:`~p2ptrumps.match.Player`.

    Args:
        game: the :class:`NetGame` of the connection.
        info: the peer's name, ``kind="remote"`` and fingerprint.

    Our own seat's actions are sent by :class:`LocalSeat` (before the match loop
    applies them); this class only waits for the peer's and checks each deal.
    """

    def __init__(self, game: NetGame, info: PlayerInfo) -> None:
        self.game = game
        self.info = info

    @property
    def my_seat(self) -> int:
        return 1 - self.game.seat

    async def choose_move(self, position: Position, seat: int) -> Action:
        """Wait for the peer's move, resignation or draw offer in the current deal
        (unlimited time: the transport's heartbeats tell a thinking peer from a vanished one).

        Raises:
            TransportError: the connection failed.
        """
        deal = self.game.current_deal
        ev = await self.game.take(MoveReceived, Resigned, DrawOffered, where=in_deal(deal))
        if isinstance(ev, MoveReceived):
            return ev.move
        if isinstance(ev, Resigned):
            return Resign()
        return OfferDraw()

    async def observe(self, event: Event) -> None:
        """Check each deal the match loop starts against the session's deal."""
        if isinstance(event, DealStarted):
            self.game.check_deal(event)

    async def accept_draw(self, position: Position, seat: int) -> bool:
        """Offer the peer a draw (our player asked for one) and wait for the answer.

        Raises:
            DealInterrupted: the peer resigned instead of answering (or before our offer).
        """
        game = self.game
        deal = game.current_deal
        await game.send_in_deal(game.session.offer_draw, deal)
        ev = await game.take(DrawAnswered, Resigned, where=in_deal(deal))
        if isinstance(ev, Resigned):
            raise DealInterrupted(Outcome(game.seat, "resign"))
        assert isinstance(ev, DrawAnswered)
        return ev.accepted


class LocalSeat:
    """Our own player (AI or person) wrapped for a networked match.

    Args:
        inner: the player.
        game: the :class:`NetGame` of the connection.

    Each move or resignation of the inner player is handed to the session (signed,
    logged, sent) *before* it is returned to the match loop; if the chain has
    already ended the deal (the peer resigned or a draw was agreed), the match loop
    is interrupted with the chain's outcome instead.  A move the session placed
    but later had to drop (the host's resignation crossed it, protocol/wire.md
    §8.3) is taken back when the deal is settled (:meth:`NetGame.settle`).
    """

    def __init__(self, inner: Player, game: NetGame) -> None:
        self.inner = inner
        self.game = game
        self.info = inner.info

    async def choose_move(self, position: Position, seat: int) -> Action:
        """The inner player's action; a peer's resignation or draw offer arriving meanwhile
        interrupts it (the draw offer is put to the inner player, then it is asked again).

        Raises:
            DealInterrupted: the peer resigned, or a draw was agreed.
        """
        game = self.game
        deal = game.current_deal
        while True:
            got = await self._race(position, seat)
            if isinstance(got, Resigned):
                raise DealInterrupted(Outcome(seat, "resign"))
            if isinstance(got, DrawOffered):
                if await self.accept_draw(position, seat):
                    raise DealInterrupted(Outcome(None, "agreed-draw"))
                continue
            if isinstance(got, Move):
                await game.send_in_deal(partial(game.session.play, got), deal)
            elif isinstance(got, Resign):
                await game.send_in_deal(game.session.resign, deal)
            return got

    async def _race(self, position: Position, seat: int) -> Action | Resigned | DrawOffered:
        """The inner player's action, or the peer's resignation / draw offer if it comes first
        (the inner player is then cancelled; a peer event is never dropped)."""
        got: list[Action | Resigned | DrawOffered] = []
        deal = self.game.current_deal
        with single_errors():
            async with trio.open_nursery() as nursery:

                async def mover() -> None:
                    got.append(await self.inner.choose_move(position.copy(), seat))
                    nursery.cancel_scope.cancel()

                async def watcher() -> None:
                    got.append(await self.game.take(Resigned, DrawOffered, where=in_deal(deal)))
                    nursery.cancel_scope.cancel()

                nursery.start_soon(mover)
                nursery.start_soon(watcher)
        peer = [g for g in got if isinstance(g, (Resigned, DrawOffered))]
        return peer[0] if peer else got[0]

    async def observe(self, event: Event) -> None:
        await self.inner.observe(event)

    async def accept_draw(self, position: Position, seat: int) -> bool:
        """Ask the inner player about the peer's draw offer and send the answer.

        Raises:
            DealInterrupted: the deal ended in the chain before the answer could be sent.
        """
        answer = await self.inner.accept_draw(position.copy(), seat)
        await self.game.send_in_deal(partial(self.game.session.answer_draw, answer), self.game.current_deal)
        return answer
