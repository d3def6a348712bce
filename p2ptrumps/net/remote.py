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
  ``os.urandom(32)`` secret per deal, handed to ``before_commit`` (the resume file
  puts it on the disk) before it is committed, revealed through the session, and
  the seed both sides derive once both reveals are in;
* :class:`MoveClock` runs the move clock of the seat to move (protocol/wire.md §16);
  when the peer's runs out, :class:`RemotePlayer` claims the deal (the AI at once, a
  person when ``ask_claim`` says yes);
* a session restored from its log after a restart (protocol/wire.md §14.4) is
  replayed: :meth:`NetGame.restore` records what the chain already holds, and the
  players give the match loop those moves and ends again instead of asking or waiting.

The session is the authority on the match: the match loop runs the same engine
on the same moves, and :meth:`NetGame.seed` checks the session's deal against
the engine's before the deal is played.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TypeVar

import trio

from ..events import DealStarted
from ..events import MatchEvent as Event
from ..machine import Action, OfferDraw, Resign
from ..match import DealInterrupted, Player
from ..record import PlayerInfo
from ..rules import Move, Outcome, Position
from ..wire.errors import LocalProtocolError
from ..wire.events import (
    ChatReceived,
    Claimed,
    CommitDue,
    ConnectionClosed,
    DealReady,
    DrawAnswered,
    DrawOffered,
    DroppedAfterEnd,
    Flooded,
    Left,
    MatchEnded,
    MoveReceived,
    ProtocolViolation,
    RematchOffered,
    Resigned,
    Resumed,
    RevealDue,
)
from ..wire.events import DealEnded as DealEndedWire
from ..wire.events import Event as WireEvent
from ..wire.messages import ClaimMsg, DealEndMsg, MoveMsg
from ..wire.referee import DONE, PLAY
from ..wire.session import Session
from .config import NO_CLOCK_LIMIT_S, LinkState
from .transport import Connection, TransportError, single_errors

E = TypeVar("E")

#: Seconds past the move time before the waiting side claims (the last message's transit, §16).
CLAIM_GRACE_S = 3.0
#: How often the move clock ticks, seconds.
CLOCK_TICK_S = 0.25
#: Steps whose used time :class:`MoveClock` remembers (for checking a claim against us, §16).
SPENT_KEPT = 8
#: The steps with a move clock (protocol/wire.md §16): the trump choice, each commitment and reveal, each move.
CLOCKED = ("trump", "commit", "reveal", "move")

#: What the clock times: ``(step, deal, turn, seat)`` -- the step one of :data:`CLOCKED` or a statement
#: (``"deal-end"``, ``"match-end"``), the turn of the deal for a move (else 0), the seat awaited.
ClockKey = tuple[str, int, int, int]


def clock_text(seconds: float) -> str:
    """``"1:05"`` for 65 seconds (whole seconds rounded up, never below 0:00)."""
    whole = max(0, int(-(-seconds // 1)))
    return f"{whole // 60}:{whole % 60:02d}"


class MoveClock:
    """The move clock of the seat awaited, as this side sees it (protocol/wire.md §16, §17).

    Args:
        move_time: the agreed seconds per move (0: no clock shown; a step may then take
            ``no_clock_limit_s`` seconds, protocol/wire.md §16-§17: a seat that never moves cannot
            hold the other for ever).

    :meth:`tick` (called every :data:`CLOCK_TICK_S` seconds by :meth:`NetGame.run_clock`) restarts
    the clock whenever the match moves on to another step (:data:`ClockKey`), and counts time only
    while the link is up.  ``seat`` is the seat whose clock runs (None when the match waits for
    nobody in particular).
    """

    def __init__(self, move_time: int, no_clock_limit_s: float = NO_CLOCK_LIMIT_S) -> None:
        self.move_time = move_time
        self.no_clock_limit_s = no_clock_limit_s
        self.key: ClockKey | None = None
        self.seat: int | None = None
        self.used_s = 0.0
        #: Seconds used by the last few steps timed, by key (the current one included): the record a
        #: claim against us is checked with (protocol/wire.md §16).  At most :data:`SPENT_KEPT` keys.
        self.spent: dict[ClockKey, float] = {}
        self._changed = trio.Event()

    @property
    def limit_s(self) -> float:
        """Seconds a clocked step may take: ``move_time``, or ``no_clock_limit_s`` without a clock."""
        return self.move_time or self.no_clock_limit_s

    def tick(self, key: ClockKey | None, seat: int | None, link_up: bool, elapsed_s: float) -> None:
        """Advance by ``elapsed_s`` seconds; ``key`` identifies the step awaited."""
        if key != self.key:
            self.key, self.seat, self.used_s = key, seat, 0.0
        elif key is not None and link_up:
            self.used_s += elapsed_s
        if key is not None:
            self.spent[key] = self.used_s
            while len(self.spent) > SPENT_KEPT:
                del self.spent[next(iter(self.spent))]
        self._changed.set()
        self._changed = trio.Event()

    def ran_out(self, key: ClockKey) -> bool:
        """Whether the step ``key`` (ours, claimed against us) used its whole time on our own clock:
        :attr:`limit_s` seconds or more (protocol/wire.md §16; a step never timed here used 0 s)."""
        return self.spent.get(key, 0.0) >= self.limit_s

    def remaining_s(self) -> float | None:
        """Seconds left for the seat awaited (may go below 0); None without a clock, or when the match
        waits for no clocked step."""
        if not self.move_time or self.key is None or self.key[0] not in CLOCKED:
            return None
        return self.move_time - self.used_s

    async def next_tick(self) -> None:
        """Wait for the next :meth:`tick`."""
        await self._changed.wait()

    async def wait_expired(self, key: ClockKey, grace_s: float | None = None, limit_s: float | None = None) -> None:
        """Return once the step ``key`` has used ``limit_s`` (default :attr:`limit_s`) plus ``grace_s``
        seconds (default :data:`CLAIM_GRACE_S`)."""
        grace = CLAIM_GRACE_S if grace_s is None else grace_s
        while not (self.key == key and self.used_s >= (self.limit_s if limit_s is None else limit_s) + grace):
            await self._changed.wait()


def in_deal(deal: int) -> Callable[[object], bool]:
    """A ``where`` filter for :meth:`NetGame.take`: events of deal ``deal`` only."""
    return lambda ev: getattr(ev, "deal", None) == deal


class NetGameError(RuntimeError):
    """Our engine and the session disagree, or the session refused one of our intents;
    the message says what (a bug on our side, never the peer's fault)."""


class NetGame:
    """The session seen by the match loop (and, as a :class:`~p2ptrumps.net.config.MatchView`, by
    the table).

    Args:
        conn: the running connection (its ``session`` is the :class:`Session`).
        on_chat: ``on_chat(sender_name, text)`` for each chat line from the peer.
        on_note: ``on_note(text)`` for things worth telling the user (a crossed
            move dropped, ...); None ignores them.

    :attr:`on_left` (set after construction): ``on_left(peer_name)`` when the peer left the match
    (protocol/wire.md §15), in place of the ``on_note`` line "NAME resigned and left the match"
    (the table keeps it on its end screen).
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
        self._on_left: Callable[[str], None] | None = None
        #: The peer's name when it left before anyone was listening (the table is hooked once the
        #: rules are agreed; a peer may leave at once): said when :attr:`on_left` is set.
        self._left_unsaid: str | None = None
        #: ``on_draw_unanswered(text)``: our draw offer was not answered in time; we play on (None: ``on_note``).
        self.on_draw_unanswered: Callable[[str], None] | None = None
        #: ``on_closed(clean)`` when the peer closed the connection (:class:`~p2ptrumps.wire.events.ConnectionClosed`;
        #: ``clean``: after the match's end, when it declines a rematch by leaving).
        self.on_closed: Callable[[bool], None] | None = None
        self._queue: deque[WireEvent] = deque()
        self._arrived = trio.Event()
        self.deals: dict[int, DealReady] = {}
        self.events_seen = 0
        #: The deal the match loop is playing (deal-scoped peer events are taken only for it).
        self.current_deal = 0
        #: ``before_commit(deal, secret)``: called before our commitment is signed (the resume file
        #: writes the secret to the disk, protocol/wire.md §14.4).
        self.before_commit: Callable[[int, bytes], None] | None = None
        #: ``await ask_claim(text)``: whether to claim when the peer's clock ran out (None: claim).
        self.ask_claim: Callable[[str], Awaitable[bool]] | None = None
        self.clock = MoveClock(session.move_time)
        session.claim_check = self.check_claim
        #: What the chain held when a restarted session was restored (:meth:`restore`): the moves of
        #: each deal dealt, and the ends of those that had ended.
        self.restored_moves: dict[int, list[Move]] = {}
        self.restored_ends: dict[int, Outcome] = {}
        #: The deals whose commitment and reveal :meth:`prepare` gave the session.
        self._prepared: set[int] = set()

    @property
    def on_left(self) -> Callable[[str], None] | None:
        """``on_left(peer_name)``: the peer left the match (set by the table; see the class)."""
        return self._on_left

    @on_left.setter
    def on_left(self, fn: Callable[[str], None] | None) -> None:
        self._on_left = fn
        if fn is not None and self._left_unsaid is not None:  # it left before the table was hooked
            name, self._left_unsaid = self._left_unsaid, None
            fn(name)

    @property
    def names(self) -> tuple[str, str]:
        """Display names of seat 0 and seat 1 (from the hellos)."""
        me, peer = self.session.name, self.session.peer_name or "peer"
        return (me, peer) if self.seat == 0 else (peer, me)

    @property
    def seat(self) -> int:
        """Our seat (host 0, guest 1)."""
        return self.session.seat

    @property
    def peer_name(self) -> str | None:
        """The peer's display name from its hello (None before it)."""
        return self.session.peer_name

    # ----- what the table sees (config.MatchView) ----------------------------------------

    def chat(self, text: str) -> None:
        """Send a chat line to the peer now (protocol/wire.md §9.7): the session signs it, a system task
        flushes it (a connection that ends meanwhile drops it).  Raises ValueError or
        :class:`LocalProtocolError` when the session refuses it (bad text, §5.1): nothing is sent."""
        self.session.chat(text)

        async def flush() -> None:
            with contextlib.suppress(TransportError):
                await self.conn.send_pending()

        trio.lowlevel.spawn_system_task(flush)

    def link_state(self) -> LinkState:
        """How the link and the move clock stand now (see :class:`~p2ptrumps.net.config.LinkState`)."""
        conn, clock = self.conn, self.clock
        left = clock.remaining_s()
        return LinkState(failed=conn.error is not None, up=conn.link_up, silent_s=conn.silent_s,
                         clock_seat=clock.seat if left is not None else None, clock_left_s=left)

    def replays_end(self, deal: int) -> bool:
        """(a restored session) Whether the chain held the end of deal ``deal`` when restored and a
        later deal was dealt already (:meth:`restore`)."""
        return deal in self.restored_ends and any(later > deal for later in self.restored_moves)

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
            if isinstance(ev, Left) and self.on_left is None and ev.seat != self.seat:
                self._left_unsaid = self.session.peer_name or "the peer"  # for a table hooked later
            if isinstance(ev, Left) and self.on_left is not None and ev.seat != self.seat:
                self.on_left(self.session.peer_name or "the peer")
            elif isinstance(ev, Left) and self.on_note is not None:
                self.on_note(f"{self.session.peer_name or 'the peer'} resigned and left the match")
            if isinstance(ev, RematchOffered):
                if self.on_note is not None:
                    self.on_note(f"{self.session.peer_name or 'the peer'} offers a rematch")
                continue
            if isinstance(ev, DroppedAfterEnd):
                if self.on_note is not None:
                    self.on_note(f"{self.session.peer_name or 'the peer'} sent something after the match's end "
                                 f"({ev.reason} [{ev.code}]): dropped, not logged; the match stays complete")
                continue
            if isinstance(ev, (CommitDue, RevealDue, ProtocolViolation, Flooded)):
                continue  # commit/reveal are given early; faults and floods are the transport's
            if isinstance(ev, ConnectionClosed) and self.on_closed is not None:
                self.on_closed(ev.clean)
            self._push(ev)  # type: ignore[arg-type]

    def restore(self) -> None:
        """Note what the chain of a restored session holds (protocol/wire.md §14.4), so the match
        loop is replayed to where it stopped: each dealt deal's moves and end (see
        :meth:`replayed`), and a draw offer or a peer's leave or claim between deals that it has
        not seen as an event.  From here on the session queues the events of what its chain takes
        (what it took while catching up is in the chain read here, :meth:`Session.end_replay`)."""
        chain = self.session.chain
        assert chain is not None
        self.session.end_replay()
        ref = chain.referee
        for info in ref.deals:
            self.restored_moves[info.number] = self.chain_moves(info.number)
            if info.outcome is not None:
                self.restored_ends[info.number] = info.outcome
        peer = 1 - self.seat
        if ref.phase == PLAY and ref.draw_offer == peer:
            self._push(DrawOffered(ref.deal, peer))
        if ref.left == peer:
            self._push(Left(peer))
        for seat, won in ref.claims:
            if seat == peer and won and not any(d.number == won[0] for d in ref.deals):
                self._push(Claimed(peer, won[0], tuple(won)))
        if ref.phase == DONE:  # complete, our last statement unacknowledged (protocol/wire.md §14.5)
            self._push(MatchEnded(ref.score()))

    def replayed(self, deal: int, turn: int) -> Move | None:
        """(a restored session) The move the chain already holds at ``turn`` of ``deal``, or None when
        the deal goes on from there.

        Raises:
            DealInterrupted: the deal had ended there by a resignation, agreed draw or claim.
        """
        moves = self.restored_moves.get(deal)
        if moves is None:
            return None
        if turn < len(moves):
            return moves[turn]
        end = self.restored_ends.get(deal)
        if end is not None and turn == len(moves) and end.reason in ("resign", "agreed-draw", "time"):
            raise DealInterrupted(end)
        return None

    def _push(self, ev: WireEvent) -> None:
        self._queue.append(ev)
        self._arrived.set()
        self._arrived = trio.Event()

    async def until(self, predicate: Callable[[], bool]) -> None:
        """Wait until ``predicate()`` holds, checking whenever an event arrives."""
        while not predicate():
            await self._arrived.wait()

    async def run_clock(self) -> None:
        """Tick :attr:`clock` every :data:`CLOCK_TICK_S` seconds (run beside the match)."""
        last = trio.current_time()
        while True:
            await trio.sleep(CLOCK_TICK_S)
            now = trio.current_time()
            key = self.clock_key()
            self.clock.move_time = self.session.move_time  # agreed with the rules, after this game began
            self.clock.tick(key, None if key is None else key[3], self.conn.link_up, now - last)
            last = now

    def check_claim(self, step: ClockKey) -> bool:
        """The session's ``claim_check``: accept a claim against us on ``step`` only when our own clock
        of it ran out (protocol/wire.md §16); else the session disputes it."""
        self.clock.move_time = self.session.move_time
        ok = self.clock.ran_out(step)
        if not ok and self.on_note is not None:
            used = self.clock.spent.get(step, 0.0)
            self.on_note(f"the opponent claimed on time after {used:.0f} s of your {clock_text(self.clock.limit_s)}: "
                         "disputed (the match ends disputed, no one wins it)")
        return ok

    def clock_key(self) -> ClockKey | None:
        """The step the match waits for, as :class:`MoveClock` times it, or None (no rules agreed yet,
        after the match, or a seat that is not one seat)."""
        chain = self.session.chain
        if chain is None or self.session.rules is None:
            return None
        ref = chain.referee
        seat, what = ref.waiting_for()
        if seat is None or what not in (*CLOCKED, "deal-end", "match-end"):
            return None
        if what == "move":
            if ref.position is None or ref.draw_offer == seat:
                return None  # the mover's own offer is open: no clock runs (protocol/wire.md §16)
            return ("move", ref.deal, ref.position.turn, seat)
        return (what, ref.deal, 0, seat)

    def claim_stands(self, deal: int) -> bool:
        """True when our claim on ``deal`` is in the chain for good: the deal ended on it, and (as the
        guest, whose messages the host may still displace, protocol/wire.md §8.3) a host message
        came after it."""
        chain = self.session.chain
        if chain is None or self.chain_outcome(deal) != Outcome(self.seat, "time"):
            return False
        at = max((i for i, e in enumerate(chain.entries)
                  if isinstance(e.body, ClaimMsg) and e.seat == self.seat and e.body.deal == deal), default=None)
        if at is None:
            return False
        return self.seat == 0 or any(e.seat == 0 for e in chain.entries[at + 1:])

    def settled_in_chain(self, deal: int) -> bool:
        """True when both deal-end statements of ``deal`` are in the chain."""
        chain = self.session.chain
        return chain is not None and sum(
            1 for e in chain.entries if isinstance(e.body, DealEndMsg) and e.body.deal == deal) >= 2

    def match_over_early(self) -> bool:
        """True when the chain ends the match before every deal is dealt: a seat left, or a claim
        between deals (protocol/wire.md §15, §16); no more deals come."""
        return self.early_end() is not None

    def early_end(self) -> tuple[str, int] | None:
        """How the chain ends the match early: ``("left", seat)``, ``("claimed", claimant)`` (a claim
        between deals) or ``("disputed", disputer)`` (a claim disputed, §16), else None."""
        chain = self.session.chain
        if chain is None:
            return None
        ref = chain.referee
        if ref.disputes:  # a claim was disputed: the match ended, decided by no one (protocol/wire.md §16)
            return "disputed", ref.disputes[-1][1]
        if ref.left is not None:
            return "left", ref.left
        dealt = {d.number for d in ref.deals}
        for seat, won in ref.claims:
            if won and won[0] not in dealt:
                return "claimed", seat
        return None

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

    async def caught_up(self, limit_s: float) -> None:
        """(a session restored from its log) Wait until the first resume is proven and the chain holds every
        message the peer said it holds -- our own messages that our log lost come back from the peer and are
        adopted (protocol/wire.md §14.2 step 5) -- so the match goes on from what both hold, never signing
        a second message for a place the peer holds.  Polls every 50 ms for at most ``limit_s`` seconds.

        Raises:
            TransportError: the connection failed (the peer never came back) while waiting.
            NetGameError: still behind after ``limit_s`` seconds (the peer said it holds messages it
                does not send).
        """
        with trio.move_on_after(limit_s):
            while self.session.catching_up:
                if self.conn.error is not None:
                    raise self.conn.error
                await trio.sleep(0.05)
            return
        chain = self.session.chain
        raise NetGameError(f"after the resume, the peer did not send back the messages it said it holds "
                           f"(we hold {0 if chain is None else len(chain)}); nothing was signed")

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
            if outcome is not None and outcome.reason in ("resign", "agreed-draw", "time"):
                # our own resignation (leaving) or claim ended it: nothing the user needs told
                ours = ((outcome.reason == "resign" and outcome.winner != self.seat)
                        or (outcome.reason == "time" and outcome.winner == self.seat))
                if self.on_note is not None and not ours:
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
        if self.settled_in_chain(number):  # a restored session: signed before the restart
            settled = self.chain_outcome(number)
            assert settled is not None
        else:
            settled = (await self.take(DealEndedWire, where=lambda e: e.number == number)).outcome
        chain_moves = self.chain_moves(number)
        self._queue = deque(e for e in self._queue if getattr(e, "deal", None) != number
                            and not (isinstance(e, DealEndedWire) and e.number == number))
        if (chain_moves, settled) != (moves, outcome) and self.on_note is not None:
            extra = moves[len(chain_moves):] if moves[: len(chain_moves)] == chain_moves else []
            why = f"your move {' '.join(m.code for m in extra)} crossed the peer's message and was not played; " \
                if extra else ""
            self.on_note(f"deal {number}: {why}the signed result is {settled.describe(self.names)}")
        await self.prepare(number + 1)  # at once, not when our person leaves "deal over" (wire.md §16)
        return chain_moves, settled

    # ----- the seed source --------------------------------------------------------------

    async def seed(self, number: int) -> bytes:
        """``seed_source`` for :class:`~p2ptrumps.match.MatchRunner`: commit to a fresh
        ``os.urandom(32)`` secret for deal ``number`` (handed to ``before_commit`` first), reveal
        it when due, and return the 32-byte seed once both reveals are in (``DealReady``).  A
        restored session takes what the chain holds: the seed of a deal dealt already, the
        reveal of a secret committed already."""
        self.current_deal = number
        chain = self.session.chain
        if self.match_over_early():
            await trio.sleep_forever()  # no more deals (the driver ends the match)
        assert chain is not None
        ref = chain.referee
        info = next((d for d in ref.deals if d.number == number), None)
        if info is not None:
            self.deals[number] = DealReady(number, info.dealer, info.seed, info.hands)
            return info.seed
        if number not in self._prepared:
            if ref.deal == number and self.seat in ref.commits:
                if self.seat not in ref.secrets:
                    await self.send(self.session.reveal)
            else:
                await self._commit_and_reveal(number)
        while True:
            ready = await self.take(DealReady)
            if ready.number == number:
                break
        self.deals[number] = ready
        return ready.seed

    async def prepare(self, number: int) -> None:
        """Commit to a fresh ``os.urandom(32)`` secret for deal ``number`` (handed to ``before_commit``
        first) and reveal it when due -- the session sends each step when its turn comes.  Called for
        the next deal as soon as the last one's end is signed (:meth:`settle`), so that nobody's clock
        runs on a step that waits for a person's key (protocol/wire.md §16, whose clock runs); once per
        deal.  Does nothing unless the chain waits for the commitments of ``number`` and ours is not
        in it (the match ended early, a restored session committed already)."""
        chain = self.session.chain
        if number in self._prepared or chain is None or self.match_over_early():
            return
        ref = chain.referee
        if ref.phase != "commit" or ref.deal != number or self.seat in ref.commits:
            return
        try:
            await self._commit_and_reveal(number)
        except NetGameError:
            if not self.match_over_early():  # else the peer's leave or claim crossed ours: no deal comes
                raise

    async def _commit_and_reveal(self, number: int) -> None:
        self._prepared.add(number)
        secret = os.urandom(32)
        if self.before_commit is not None:
            self.before_commit(number, secret)  # on the disk before the commitment is signed
        await self.send(lambda: self.session.commit(secret))
        await self.send(self.session.reveal)

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
        """Wait for the peer's move, resignation or draw offer in the current deal.  With a move
        clock (protocol/wire.md §16), once the peer's clock has run out we claim the deal (asking
        ``game.ask_claim`` first, if set); the transport's heartbeats tell a thinking peer from a
        vanished one.  A restored session first replays the moves its chain holds.

        Raises:
            DealInterrupted: the peer claimed the deal, or our claim stands (the deal is ours on time).
            TransportError: the connection failed.
        """
        game = self.game
        deal = game.current_deal
        again = game.replayed(deal, position.turn)
        if again is not None:
            return again
        key: ClockKey = ("move", deal, position.turn, seat)
        claimed = False

        async def deadline(claimed: bool, key: ClockKey) -> None:
            if claimed:
                await game.until(lambda: game.claim_stands(deal))
            else:
                await game.clock.wait_expired(key)

        def peer_acts() -> Awaitable[object]:
            return game.take(MoveReceived, Resigned, DrawOffered, Claimed, where=in_deal(deal))

        came: object = None  # the peer's action, taken while the claim question was open
        while True:
            got = came if came is not None else await _first_of(peer_acts, partial(deadline, claimed, key))
            came = None
            if isinstance(got, MoveReceived):
                return got.move
            if isinstance(got, Resigned):
                return Resign()
            if isinstance(got, DrawOffered):
                return OfferDraw()
            if isinstance(got, Claimed):
                raise DealInterrupted(Outcome(got.seat, "time"))
            if claimed:  # our claim stands
                raise DealInterrupted(Outcome(game.seat, "time"))
            claimed = True
            name = game.session.peer_name or "the peer"
            text = f"{name}'s time is up ({clock_text(game.clock.limit_s)} a move): claim the deal?"
            ask = game.ask_claim
            answer = True if ask is None else await _first_of(partial(ask, text), peer_acts)
            if answer is not True or game.session.waiting_for() != (self.my_seat, "move"):
                # No; or the peer acted while we asked (the question is then closed, the action
                # taken); or its move is in the chain already: no claim, no more questions.
                came = None if isinstance(answer, bool) else answer
                claimed = False
                key = ("", -1, -1, -1)
                continue
            await game.send_in_deal(game.session.claim, deal)
            if game.on_note is not None:
                game.on_note(f"{name}'s time ran out: you claimed deal {deal}")

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
        # No clock runs while our own offer is open (protocol/wire.md §16); the peer has its move time
        # to answer, then we play on (the offer stays open: a move does not close it, §9.6).
        ev: object = None
        with trio.move_on_after(game.clock.limit_s + CLAIM_GRACE_S):
            ev = await game.take(DrawAnswered, Resigned, Claimed, where=in_deal(deal))
        if ev is None:
            tell = game.on_draw_unanswered or game.on_note
            if tell is not None:  # not declined: the offer stays open (the player is not told "declined")
                tell(f"{game.session.peer_name or 'the peer'} did not answer your draw offer in "
                     f"{clock_text(game.clock.limit_s)}: play on (the offer stays open)")
            return False
        if isinstance(ev, Resigned):
            raise DealInterrupted(Outcome(game.seat, "resign"))
        if isinstance(ev, Claimed):
            raise DealInterrupted(Outcome(ev.seat, "time"))
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
        again = game.replayed(deal, position.turn)
        if again is not None:
            return again  # a restored session: the chain holds this move of ours already
        while True:
            got = await self._race(position, seat)
            if isinstance(got, Resigned):
                raise DealInterrupted(Outcome(seat, "resign"))
            if isinstance(got, Claimed):
                if game.on_note is not None:
                    game.on_note(f"your time ran out: {game.session.peer_name or 'the peer'} claimed deal {deal}")
                raise DealInterrupted(Outcome(got.seat, "time"))
            if isinstance(got, DrawOffered):
                if await self.accept_draw(position, seat):
                    raise DealInterrupted(Outcome(None, "agreed-draw"))
                continue
            if isinstance(got, Move):
                await game.send_in_deal(partial(game.session.play, got), deal)
            elif isinstance(got, Resign):
                await game.send_in_deal(game.session.resign, deal)
            return got

    async def _race(self, position: Position, seat: int) -> Action | Resigned | DrawOffered | Claimed:
        """The inner player's action, or the peer's resignation / draw offer / claim if it comes first
        (the inner player is then cancelled; a peer event is never dropped)."""
        got: list[Action | Resigned | DrawOffered | Claimed] = []
        deal = self.game.current_deal
        with single_errors():
            async with trio.open_nursery() as nursery:

                async def mover() -> None:
                    got.append(await self.inner.choose_move(position.copy(), seat))
                    nursery.cancel_scope.cancel()

                async def watcher() -> None:
                    got.append(await self.game.take(Resigned, DrawOffered, Claimed, where=in_deal(deal)))
                    nursery.cancel_scope.cancel()

                nursery.start_soon(mover)
                nursery.start_soon(watcher)
        peer = [g for g in got if isinstance(g, (Resigned, DrawOffered, Claimed))]
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


async def _first_of(*fns: Callable[[], Awaitable[object]]) -> object:
    """Run the awaitables ``fns()`` side by side; the value of the first to finish (the rest are
    cancelled).  Exceptions propagate (a lone one unwrapped)."""
    got: list[object] = []
    with single_errors():
        async with trio.open_nursery() as nursery:
            for fn in fns:

                async def run(fn: Callable[[], Awaitable[object]] = fn) -> None:
                    value = await fn()
                    if not got:
                        got.append(value)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(run)
    return got[0] if got else None
