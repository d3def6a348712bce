"""The move clock of a networked match, as this side runs it (protocol/wire.md §16, §17).

Time is not part of the chain: each side runs the clock of the seat awaited on its own monotonic clock,
only while the link is up.  :class:`MoveClock` keeps the seconds the step awaited has used and the record
of the last few steps (to check a claim made against us); :func:`clock_key` says which step the match
waits for, as the clock times it.  The claims themselves are
:class:`~p2ptrumps.net.claims.Claims`'.
"""

from __future__ import annotations

import trio

from ..match import DEAL_END
from ..wire.messages import STEPS
from ..wire.referee import MATCH_END, PLAY
from ..wire.session import Session
from .config import NO_CLOCK_LIMIT_S

#: Seconds past the move time before the waiting side claims (the last message's transit, §16).
CLAIM_GRACE_S = 3.0
#: How often the move clock ticks, seconds.
CLOCK_TICK_S = 0.25
#: Steps whose used time :class:`MoveClock` remembers (for checking a claim against us, §16).
SPENT_KEPT = 8
#: The steps with a move clock (protocol/wire.md §16): the trump choice, each commitment and reveal, each move.
CLOCKED = STEPS

#: What the clock times: ``(step, deal, turn, seat)`` -- the step one of :data:`CLOCKED` or a statement
#: (``"deal-end"``, ``"match-end"``), the turn of the deal for a move (else 0), the seat awaited.
ClockKey = tuple[str, int, int, int]


#: What a player was doing at each step of the match a clock runs for (protocol/wire.md §16), in
#: the players' words ("to shuffle the deal", never "for its commit").
STEP_WORDS = {"rules": "to agree the rules", "agree": "to agree the rules", "trump": "to choose a trump",
              "commit": "to shuffle the deal", "reveal": "to shuffle the deal", "move": "to move",
              "deal-end": "to sign the deal's result", "match-end": "to sign the match's result"}


def step_words(what: str) -> str:
    """The player's words for the step ``what`` a clock ran for (:data:`STEP_WORDS`)."""
    return STEP_WORDS.get(what, "to act")



def clock_key(session: Session) -> ClockKey | None:
    """The step ``session``'s match waits for, as :class:`MoveClock` times it, or None (no rules agreed
    yet, after the match, or no one seat awaited).  No clock runs on a mover whose own draw offer is
    open (protocol/wire.md §16)."""
    chain = session.chain
    if chain is None or session.rules is None:
        return None
    ref = chain.referee
    seat, what = ref.waiting_for()
    if seat is None or what not in (*CLOCKED, DEAL_END, MATCH_END):
        return None
    if what == "move":
        match = ref.match
        if ref.phase != PLAY or match is None or match.position is None or match.draw_offer == seat:
            return None
        return ("move", ref.deal, match.position.turn, seat)
    return (what, ref.deal, 0, seat)


class MoveClock:
    """The move clock of the seat awaited, as this side sees it (protocol/wire.md §16, §17).

    Args:
        move_time: the agreed seconds per move (0: no clock shown; a step may then take
            ``no_clock_limit_s`` seconds, protocol/wire.md §16-§17: a seat that never moves cannot
            hold the other for ever).

    :meth:`tick` (called every :data:`CLOCK_TICK_S` seconds by
    :meth:`~p2ptrumps.net.seat.NetMatch.run_clock`) restarts the clock whenever the match moves on to
    another step (:data:`ClockKey`), and counts time only while the link is up.  ``seat`` is the seat
    whose clock runs (None when the match waits for nobody in particular).
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

    def expired(self, key: ClockKey) -> bool:
        """Whether the step ``key``, awaited now, has used its time plus the grace (a claim is due)."""
        return self.key == key and self.used_s >= self.limit_s + CLAIM_GRACE_S

    async def next_tick(self) -> None:
        """Wait for the next :meth:`tick`."""
        await self._changed.wait()
