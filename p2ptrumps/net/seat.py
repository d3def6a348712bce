"""Our seat of a networked match: the session's events in order, our player, and the claims the clock gives.

Source: ``protocol/wire.md`` §8.3 (crossing messages), §9 (the match), §9.6 (draw offers), §14.4 (a
restarted side), §15 (leaving) and §16 (the move clock and claims).

One match machine decides the match: the session's referee runs it over both seats' messages, ours
as we sign them and the peer's as they arrive.  The peer is not a player here, and nothing replays
the match a second time.  Beside the steps of :mod:`p2ptrumps.net.steps`, three tasks:

* the **pump** (:meth:`NetMatch.pump`) takes the session's events off the connection in order: it
  shows chat and notes at once, commits to each deal's secret and reveals it as soon as the deal is
  due (nobody waits on a person for that, wire.md §16), hands the match's events to the seat, and
  keeps the rest for the steps (:meth:`NetMatch.take`);
* the **seat** (:meth:`NetSeat.run`) shows each match event to our player -- the table, the headless
  printer, the AI -- holding a deal's end (and the match's) until both seats signed it; when the
  match waits for our seat (its trump, its move, the answer to the peer's draw offer) it asks our
  player, racing whatever changes that step, and hands the answer to the session;
* the **clock** (:meth:`NetMatch.run_clock`, and :mod:`p2ptrumps.net.claims`) ticks the move clock;
  when the step awaited from the peer is over its time it claims (a person is asked first), and
  when the peer's statement is late it stops.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import trio

from ..cards import suit_label
from ..events import (
    Abandoned,
    ChatReceived,
    Claimed,
    CommitDue,
    ConnectionClosed,
    Continued,
    DealEnded,
    DealSigned,
    Disputed,
    DroppedAfterEnd,
    Event,
    Flooded,
    Left,
    MatchEnded,
    MatchEvent,
    MatchSigned,
    ProtocolViolation,
    RematchOffered,
    Resumed,
    RevealDue,
    TrumpChosen,
    Withdrawn,
)
from ..match import DEAL_END, Match, OfferDraw, Resign
from ..message import N_
from ..rules import Move
from ..seats import Player
from ..system.boottime import SleepMeter
from ..text import clock_text
from ..wire import messages as m
from ..wire.errors import LocalProtocolError
from ..wire.floor import Floor
from ..wire.referee import ABANDONED, COMMIT, DONE, MATCH_END, PLAY, TRUMP, Referee
from ..wire.session import Session
from . import clock as clocks
from .clock import CLOCK_TICK_S, MoveClock, clock_key
from .config import LinkState, NetConfig, say
from .race import unless
from .transport import Connection, TransportError

E = TypeVar("E")

#: The events the seat takes: the match machine's and the signed statements of its results.
SEAT_EVENTS = (*MatchEvent.__args__, DealSigned, MatchSigned)

class NetGameError(RuntimeError):
    """The session refused one of our own actions for no reason the match explains; the message says
    what (a bug on our side, never the peer's fault)."""


class NetMatch:
    """A networked match as the steps and the table see it (a :class:`~p2ptrumps.net.config.MatchView`).

    Args:
        conn: the running connection; ``session`` its :class:`~p2ptrumps.wire.session.Session`.
        on_chat / on_note: see :class:`~p2ptrumps.net.config.MatchView` (None: said nowhere).

    :attr:`before_commit` (``before_commit(deal, secret)``): called before our commitment of a deal is
    signed (the resume file keeps the secret, protocol/wire.md §14.4).  :attr:`seat_events` receives
    the match's events in order (the seat's :meth:`NetSeat.feed`).
    """

    def __init__(self, conn: Connection, session: Session, *, on_chat: Callable[[str, str], None] | None = None,
                 on_note: Callable[[str], None] | None = None) -> None:
        self.conn = conn
        self.session = session
        self.on_chat = on_chat
        self.on_note = on_note
        self.on_draw_unanswered: Callable[[str], None] | None = None
        self.on_closed: Callable[[bool], None] | None = None
        self._on_left: Callable[[str], None] | None = None
        #: The peer's name when it left before anyone was listening (the table is hooked once the rules
        #: are agreed; a peer may leave at once): said when :attr:`on_left` is set.
        self._left_unsaid: str | None = None
        self.before_commit: Callable[[int, bytes], None] | None = None
        self.seat_events: Callable[[Event], None] | None = None
        self.clock = MoveClock(session.move_time)
        #: ``slept()``: the seconds the machine slept since the last call (protocol/wire.md §16: our own
        #: steps count them, the time our player lived; the peer's steps do not).  A stand-in in tests.
        self.slept: Callable[[], float] = SleepMeter().slept
        #: ``ticked()`` after each tick of the clock (the seat looks again at what it waits for).
        self.ticked: Callable[[], None] | None = None
        self._queue: deque[Event] = deque()
        self._arrived = trio.Event()

    @property
    def on_left(self) -> Callable[[str], None] | None:
        """``on_left(peer_name)``: the peer left the match (set by the table; see :class:`MatchView`)."""
        return self._on_left

    @on_left.setter
    def on_left(self, fn: Callable[[str], None] | None) -> None:
        self._on_left = fn
        if fn is not None and self._left_unsaid is not None:  # it left before the table was hooked
            name, self._left_unsaid = self._left_unsaid, None
            fn(name)

    @property
    def seat(self) -> int:
        """Our seat (host 0, guest 1)."""
        return self.session.seat

    @property
    def peer_name(self) -> str | None:
        """The peer's display name from its hello (None before it)."""
        return self.session.peer_name

    @property
    def names(self) -> tuple[str, str]:
        """Display names of seat 0 and seat 1 (from the hellos)."""
        me, peer = self.session.name, self.session.peer_name or "peer"
        return (me, peer) if self.seat == 0 else (peer, me)

    def note(self, text: str) -> None:
        """Tell the user ``text`` (:attr:`on_note`; nowhere when it is None)."""
        if self.on_note is not None:
            self.on_note(text)

    def chat(self, text: str) -> None:
        """Send a chat line to the peer now (protocol/wire.md §9.7): the session signs it, a system task
        flushes it (a connection that ends meanwhile drops it).  Raises ValueError or
        :class:`LocalProtocolError` when the session refuses it (bad text, §5.1): nothing is sent."""
        self.session.floor.chat(text)

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

    async def run_clock(self) -> None:
        """Tick the move clock every :data:`~p2ptrumps.net.clock.CLOCK_TICK_S` seconds (run beside the
        match): the step awaited, the link up or not, and the time our own steps took -- the sleep of
        this machine counted too (protocol/wire.md §16, "the own clock")."""
        clock, conn = self.clock, self.conn
        last = trio.current_time()
        for _ in range(1 << 62):  # ends with the match's nursery
            await trio.sleep(CLOCK_TICK_S)
            now, slept = trio.current_time(), self.slept()
            key = clock_key(self.session)
            clock.move_time = self.session.move_time  # agreed with the rules, after this game began
            ours = key is not None and key[3] == self.session.seat
            clock.tick(key, None if key is None else key[3], conn.link_up, now - last + (slept if ours else 0.0))
            last = now
            if self.ticked is not None:
                self.ticked()

    # ----- the pump ------------------------------------------------------------------

    async def pump(self) -> None:
        """Take the session's events off the connection in order until it ends (see the module docstring).
        Run it in a nursery beside the match; it returns when the connection closes.

        Raises:
            TransportError: the connection failed.
            NetGameError: the session refused our commitment or reveal.
            OSError: the resume file cannot keep a deal's secret.
        """
        peer = self.peer_name
        for _ in range(1 << 62):  # one event a pass; the connection ends it
            ev = await self.conn.next_event()
            peer = self.peer_name or "the peer"
            if isinstance(ev, ChatReceived):
                if self.on_chat is not None:
                    self.on_chat(peer, ev.text)
            elif isinstance(ev, Resumed):
                self.note("reconnected: the match goes on")
            elif isinstance(ev, RematchOffered):
                self.note(f"{peer} offers a rematch")
            elif isinstance(ev, DroppedAfterEnd):
                self.note(f"{peer} sent something after the match's end ({ev.reason} [{ev.code}]): dropped, not "
                          "logged; the match stays complete")
            elif isinstance(ev, CommitDue):
                await self._commit(ev.deal)
            elif isinstance(ev, RevealDue) and not self._floor().commitments.revealing(ev.deal):
                await self.act(self.session.floor.reveal)  # a restored session's commitment, made before the restart
            elif isinstance(ev, (ProtocolViolation, Flooded)):
                pass  # the transport's to report
            elif isinstance(ev, SEAT_EVENTS):
                if isinstance(ev, Left) and ev.seat != self.seat:
                    self._peer_left(peer)
                if self.seat_events is not None:
                    self.seat_events(ev)
            else:
                if isinstance(ev, ConnectionClosed) and self.on_closed is not None:
                    self.on_closed(ev.clean)
                self._push(ev)  # type: ignore[arg-type]

    def _floor(self) -> Floor:
        floor = self.session.floor
        assert floor is not None  # the match's events come after both hellos
        return floor

    def _peer_left(self, peer: str) -> None:
        if self.on_left is not None:
            self.on_left(peer)
        else:
            self._left_unsaid = peer  # for a table hooked later
            self.note(f"{peer} resigned and left the match")

    async def _commit(self, deal: int) -> None:
        """Commit to a fresh ``os.urandom(32)`` secret for ``deal`` (on the disk first, through
        :attr:`before_commit`) and reveal it when due: the session sends each step when its turn comes.
        Nothing when the chain no longer waits for it (a leave or a claim between deals came first)."""
        ref = referee_of(self.session)
        if ref.phase != COMMIT or ref.deal != deal or self.seat in ref.commits:
            return
        secret = os.urandom(32)
        if self.before_commit is not None:
            self.before_commit(deal, secret)  # on the disk before the commitment is signed (wire.md §14.4)

        def commit_and_reveal() -> None:
            self.session.floor.commit(secret)
            self.session.floor.reveal()

        await self.act(commit_and_reveal)

    async def act(self, intent: Callable[[], None]) -> None:
        """Apply a session intent (e.g. ``session.floor.resign``) and send what it produced.

        Raises:
            NetGameError: the session refused it (``LocalProtocolError``).
            TransportError: the connection failed first, or while sending.
        """
        try:
            intent()
        except LocalProtocolError as exc:
            if self.conn.error is not None:  # the connection died first: that is the real cause
                raise self.conn.error from None
            raise NetGameError(f"the session refused our action: {exc}") from exc
        await self.conn.send_pending()

    # ----- what the steps wait for ----------------------------------------------------

    def _push(self, ev: Event) -> None:
        self._queue.append(ev)
        self._arrived.set()
        self._arrived = trio.Event()

    async def take(self, *types: type[E], where: Callable[[E], bool] | None = None) -> E:
        """Remove and return the first queued event of one of ``types`` (and for which ``where(event)``
        holds, if given), waiting for one.  (The match's events go to the seat, never here.)"""
        for _ in range(1 << 62):
            for i, ev in enumerate(self._queue):
                if isinstance(ev, types) and (where is None or where(ev)):
                    del self._queue[i]
                    return ev
            await self._arrived.wait()
        raise AssertionError("unreachable")

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


def referee_of(session: Session) -> Referee:
    """The referee of ``session``'s chain (once both hellos are in)."""
    assert session.chain is not None
    return session.chain.referee


def machine_of(session: Session) -> Match:
    """The match machine of ``session`` (once the rules are agreed)."""
    match = referee_of(session).match
    assert match is not None
    return match


#: A step the match waits for from our seat: ``("trump",)``, ``("answer", deal, turn)`` (the peer's
#: draw offer) or ``("move", deal, turn)``.
Step = tuple[Any, ...]


class NetSeat:
    """Our seat of a networked match (see the module docstring).

    Args:
        game: the match's :class:`NetMatch` (its events reach :meth:`feed`).
        cfg: our side's configuration (the trump wished, ``ask_claim``, the deadlines).
        player: our seat's player (the AI, a line prompt, the table's person; headless: wrapped in the
            printer).
        choose_trump: ``await choose_trump(taken)``: our trump when the peer's ``taken`` suit (or None)
            is known.
    """

    def __init__(self, game: NetMatch, cfg: NetConfig, player: Player,
                 choose_trump: Callable[[int | None], Awaitable[int]]) -> None:
        self.game = game
        self.session = game.session
        self.cfg = cfg
        self.player = player
        self.choose_trump = choose_trump
        self._events: deque[Event] = deque()
        self._changed = trio.Event()
        #: Deal ends (and the match's) the machine reached, shown once both seats signed them.
        self._held: dict[int, DealEnded] = {}
        self._held_match: MatchEnded | None = None
        #: Our own draw offer waiting for its answer: (deal, turn) and until when (trio time).
        self._offer: tuple[int, int, float] | None = None
        self._dropped_seen = 0
        self._dropped_moves: dict[int, list[Move]] = {}
        self._trumps_said = False
        self._peer_left = False
        self.over = False
        game.seat_events = self.feed
        game.ticked = self._wake  # our draw offer's wait, and whatever the clock decides

    @property
    def seat(self) -> int:
        return self.session.seat

    @property
    def peer(self) -> str:
        return self.session.peer_name or "the peer"

    def feed(self, event: Event) -> None:
        """One of the match's events, in chain order (from the pump): shown to our player in turn."""
        self._events.append(event)
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # ----- the run ------------------------------------------------------------------------

    def start(self) -> None:
        """Bring our player to where the match stands (a match taken up after a restart, protocol/wire.md
        §14.4: the deal in play and its moves; a deal's end or the match's end not yet signed is held).
        Call once, before :meth:`run`."""
        ref = referee_of(self.session)
        match = ref.match
        if match is None:
            return
        mine, theirs = match.trumps[self.seat], match.trumps[1 - self.seat]
        if mine is not None and theirs is not None:
            self._trumps_said = True
            self._say_trumps(mine, theirs)
        elif self.seat == 1 and theirs is None:  # the guest is told why it waits
            self.game.note(N_("%(name)s is choosing a trump; you choose yours next", name=self.peer))
        self._events.extendleft(reversed(match.replay_events()))
        deal, pos = match.deal, match.position
        if match.phase == DEAL_END and deal is not None and deal.outcome is not None and pos is not None:
            self._held[deal.number] = DealEnded(deal.number, deal.outcome, pos.copy(), match.score_halves())
        if ref.phase in (MATCH_END, DONE):
            self._held_match = MatchEnded(match.score_halves(), match.record)
        if ref.phase == DONE:
            self._events.append(MatchSigned(match.score_halves()))

    async def run(self) -> None:
        """Play our seat until the match is decided and both seats signed it (or it is abandoned,
        protocol/wire.md §15.1).  May be cancelled and run again (we leave: the end still comes).

        Raises:
            TransportError: the connection failed.
            NetGameError: the session refused one of our actions for no reason the match explains.
        """
        for _ in range(1 << 62):  # one event or one step of ours a pass; the match is bounded
            if self._events:
                await self._show(self._events.popleft())
                continue
            if self.over:
                return
            if referee_of(self.session).phase == ABANDONED:
                await self._continue_or_over()
                continue
            self._offer_expired()
            step = self.our_step()
            if step is None:
                await self._changed.wait()
                continue
            await self._take(step)

    async def until_over(self) -> None:
        """Wait, showing nothing more to our player, until the match is signed complete or abandoned (we
        left it: protocol/wire.md §15)."""
        while referee_of(self.session).phase not in (DONE, ABANDONED):
            await self._changed.wait()

    async def _take(self, step: Step) -> None:
        """Ask our player for ``step`` unless the match moves on first; hand the answer to the session."""
        done, decision = await unless(lambda: self._decide(step), lambda: self._until_changed(step))
        if done:
            await self._submit(step, decision)

    def our_step(self) -> Step | None:
        """What the match waits for from our seat now, if anything (see :data:`Step`)."""
        session = self.session
        if session.chain is None or session.catching_up:
            return None
        ref = referee_of(session)
        match = ref.match
        if match is None:
            return None
        if ref.phase == TRUMP:
            return ("trump",) if match.waiting_for()[0] == self.seat else None
        pos = match.position
        if ref.phase != PLAY or pos is None:
            return None
        if match.draw_offer == 1 - self.seat:
            return ("answer", ref.deal, pos.turn)
        if pos.to_move != self.seat:
            return None
        offer = self._offer
        if offer is not None and match.draw_offer == self.seat and offer[:2] == (ref.deal, pos.turn) \
                and trio.current_time() < offer[2]:
            return None  # our own offer waits for its answer: no clock runs, we do not move (wire.md §16)
        return ("move", ref.deal, pos.turn)

    async def _until_changed(self, step: Step) -> None:
        while self.our_step() == step:
            await self._changed.wait()

    async def _decide(self, step: Step) -> object:
        """Ask our player for ``step``: the trump, the answer to the peer's draw offer, or the move."""
        match = machine_of(self.session)
        if step[0] == "trump":
            if self.seat == 1 and match.trumps[0] is not None:
                return await self.choose_trump(match.trumps[0])
            return await self.choose_trump(None)
        pos = match.position
        assert pos is not None
        if step[0] == "answer":
            return await self.player.accept_draw(pos.copy(), self.seat)
        return await self.player.choose_move(pos.copy(), self.seat)

    async def _submit(self, step: Step, decision: object) -> None:
        """Hand our player's answer to ``step`` to the session."""
        session = self.session
        if step[0] == "trump":
            suit = int(decision)  # type: ignore[call-overload]
            await self._send(lambda: session.floor.choose_trump(suit), step)
        elif step[0] == "answer":
            await self._send(lambda: session.floor.answer_draw(bool(decision)), step)
        elif isinstance(decision, Move):
            await self._send(lambda: session.floor.play(decision), step)
        elif isinstance(decision, Resign):
            await self._send(session.floor.resign, step)
        elif isinstance(decision, OfferDraw) and machine_of(session).may_offer_draw(self.seat):
            # No clock runs while our own offer is open (wire.md §16): the peer has its move time to
            # answer, then we play on (the offer stays open: a move does not close it, §9.6).
            await self._send(session.floor.offer_draw, step)
            self._offer = (step[1], step[2], trio.current_time() + self.game.clock.limit_s + clocks.CLAIM_GRACE_S)

    async def _send(self, intent: Callable[[], None], step: Step) -> None:
        """Apply ``intent``; if the session refuses it because the match moved on meanwhile (the peer's
        resignation or claim is in our chain first), say so and go on with what the chain holds."""
        try:
            intent()
        except LocalProtocolError as exc:
            if self.game.conn.error is not None:
                raise self.game.conn.error from None
            if self.our_step() == step:
                raise NetGameError(f"the session refused our action: {exc}") from exc
            self._not_sent(str(exc), step)
            return
        await self.game.conn.send_pending()

    def _not_sent(self, why: str, step: Step) -> None:
        match = machine_of(self.session)
        deal = match.deals[step[1] - 1] if len(step) > 1 and 0 < step[1] <= len(match.deals) else None
        outcome = None if deal is None else deal.outcome
        if outcome is None:
            return
        ours = ((outcome.reason == "resign" and outcome.winner != self.seat)
                or (outcome.reason == "time" and outcome.winner == self.seat))
        if not ours:  # our own resignation (leaving) or claim ended it: nothing the user needs told
            self.game.note(f"not sent: {why}; the deal ended first ({outcome.describe(self.game.names)})")

    def _offer_expired(self) -> None:
        """Our draw offer waited its time unanswered: say so (not "declined") and let our player move."""
        offer = self._offer
        if offer is None or trio.current_time() < offer[2]:
            return
        self._offer = None
        match = machine_of(self.session)
        if match.draw_offer == self.seat and match.position is not None \
                and (match.number, match.position.turn) == offer[:2]:  # the offer stays open
            tell = self.game.on_draw_unanswered or self.game.note
            tell(f"{self.peer} did not answer your draw offer in {clock_text(self.game.clock.limit_s)}: play on "
                 "(the offer stays open)")

    # ----- showing the match -----------------------------------------------------------------

    async def _show(self, ev: Event) -> None:
        """Show one match event to our player; hold deal and match ends until both seats signed them."""
        if isinstance(ev, DealEnded):
            if not self._peer_left:  # the peer's leaving ends the match: its deal's end is no screen of its own
                self._held[ev.number] = ev
            return
        if isinstance(ev, MatchEnded):
            self._held_match = ev
            return
        if isinstance(ev, DealSigned):
            self._note_dropped(ev)
            held = self._held.pop(ev.number, None)
            if held is not None:  # a person reads the deal's end, unless the match is decided meanwhile
                await unless(lambda: self.player.observe(held), self._until_decided)
            return
        if isinstance(ev, MatchSigned):
            ended = self._held_match or MatchEnded(ev.score_halves, machine_of(self.session).record)
            self._held_match = None
            if ended.record is not None:  # decided before the trumps were chosen: no table to close
                await self.player.observe(ended)
            self.over = True
            return
        if isinstance(ev, Withdrawn):
            self._drop_stale_ends()
        if isinstance(ev, Left) and ev.seat != self.seat:
            self._peer_left = True
        if isinstance(ev, Disputed):
            self._drop_stale_ends()  # the claim's end of the deal (or of the match) is taken back
        self._say(ev)
        await self.player.observe(ev)  # type: ignore[arg-type]
        if isinstance(ev, Abandoned):
            await self._continue_or_over()

    async def _continue_or_over(self) -> None:
        """The match stands abandoned (protocol/wire.md §15.1).  By the peer, whose abandonment reached
        us after a resume: its ``continue`` follows at once when it takes it back -- a moment for it
        (``cfg.statement_wait_s``); then, still abandoned, our seat is over."""
        ref = referee_of(self.session)
        if ref.abandoned is not None and ref.abandoned[3] != self.seat:
            with trio.move_on_after(self.cfg.statement_wait_s):
                while referee_of(self.session).phase == ABANDONED and self.game.conn.error is None:
                    await self._changed.wait()
        if referee_of(self.session).phase == ABANDONED and not self._events:
            self.over = True

    async def _until_decided(self) -> None:
        """Until the match's signed end (or an abandonment) is among the events to show."""
        while not any(isinstance(e, (MatchSigned, Abandoned)) for e in self._events):
            await self._changed.wait()

    def _drop_stale_ends(self) -> None:
        """Our withdrawn messages had ended a deal or the match; the chain no longer does (wire.md §8.3)."""
        match = machine_of(self.session)
        self._held = {n: e for n, e in self._held.items() if n <= len(match.deals)
                      and match.deals[n - 1].outcome is not None}
        if match.phase not in ("over",):
            self._held_match = None

    def _say(self, ev: Event) -> None:
        """The notes an event gives: the trumps, a claim against us."""
        game, cfg = self.game, self.cfg
        if isinstance(ev, TrumpChosen) and ev.seat == 1 and not self._trumps_said:
            self._trumps_said = True
            match = machine_of(self.session)
            mine, theirs = match.trumps[self.seat], match.trumps[1 - self.seat]
            if mine is not None and theirs is not None:
                self._say_trumps(mine, theirs)
        elif isinstance(ev, TrumpChosen) and ev.seat == 0 and self.seat == 1 and not cfg.headless:
            # the note that we wait is stale now: the guest's own choice is asked (and timed)
            game.note(f"{self.peer} chose {suit_label(ev.suit, cfg.ascii_only)}: now choose yours")
        elif isinstance(ev, Claimed) and ev.seat != self.seat and len(ev.deals) == 1:
            game.note(f"your time ran out: {self.peer} claimed deal {ev.deal}")
        elif isinstance(ev, Disputed):
            who = "you" if ev.seat == self.seat else self.peer
            game.note(f"{who} disputed the claim on time on deal {ev.deal}: "
                      + (f"deal {ev.deal} has no result (its second dispute)" if ev.settled
                         else "the deal goes on from where it stood"))
        elif isinstance(ev, Abandoned):
            game.note("you ended the match as abandoned by the opponent (the decided deals stand)"
                      if ev.seat == self.seat else
                      f"{self.peer} ended the match as abandoned by you: the decided deals stand")
        elif isinstance(ev, Continued):
            game.note(f"{'you' if ev.seat == self.seat else self.peer} took the abandonment back: play goes on")

    def _say_trumps(self, mine: int, theirs: int) -> None:
        a = self.cfg.ascii_only
        say(self.cfg, N_("trumps: you %(mine)s, %(name)s %(theirs)s", mine=suit_label(mine, a), name=self.peer,
                         theirs=suit_label(theirs, a)))

    def _note_dropped(self, signed: DealSigned) -> None:
        """Our move that crossed the peer's message and was not played (wire.md §8.3): said with the
        signed result of its deal."""
        floor = self.session.floor
        dropped = [] if floor is None else floor.dropped
        for body, _ in dropped[self._dropped_seen:]:
            if isinstance(body, m.MoveMsg):
                self._dropped_moves.setdefault(body.deal, []).append(body.move)
        self._dropped_seen = len(dropped)
        moves = self._dropped_moves.pop(signed.number, [])
        if moves:
            codes = " ".join(mv.code for mv in moves)
            self.game.note(f"deal {signed.number}: your move {codes} crossed the peer's message and was not played; "
                           f"the signed result is {signed.outcome.describe(self.game.names)}")
