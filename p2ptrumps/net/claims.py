"""The claims the move clock gives in a networked match (protocol/wire.md §16, §17).

Beside the match, :meth:`Claims.watch` looks at the clock every tick: when the step awaited from the
peer -- its trump, commitment, reveal or move -- has used its time plus the grace, we claim (a person
is asked first, once a step); when the peer's deal-end or match-end statement is late, we stop.  A
claim made against us is accepted only when our own clock of that step ran out
(:meth:`Claims.check`, the session's ``claim_check``); else the session disputes it.
"""

from __future__ import annotations

import trio

from ..match import DEAL_END, Match
from ..text import clock_text
from ..wire.errors import LocalProtocolError
from ..wire.referee import MATCH_END
from .clock import ClockKey, clock_key, step_words
from .config import NetConfig
from .race import unless
from .seat import NetMatch
from .transport import PeerTimeout


class Claims:
    """Our side's claims on time and our answer to the peer's (see the module docstring).

    Args:
        game: the match's :class:`~p2ptrumps.net.seat.NetMatch` (its clock, its connection, its notes).
        cfg: our side's configuration (``hooks.ask_claim``, ``statement_wait_s``).

    Made once the rules are agreed: it becomes the session's ``claim_check``.
    """

    def __init__(self, game: NetMatch, cfg: NetConfig) -> None:
        self.game = game
        self.session = game.session
        self.cfg = cfg
        floor = self.session.floor
        assert floor is not None  # made once the rules are agreed
        floor.claim_check = self.check

    @property
    def peer(self) -> str:
        return self.session.peer_name or "the peer"

    def _machine(self) -> Match:
        chain = self.session.chain
        assert chain is not None and chain.referee.match is not None
        return chain.referee.match

    def check(self, step: ClockKey) -> bool:
        """The session's ``claim_check``: accept a claim against us on ``step`` only when our own clock
        of it ran out (protocol/wire.md §16); else the session disputes it."""
        clock = self.game.clock
        clock.move_time = self.session.move_time
        ok = clock.ran_out(step)
        if not ok:
            used = clock.spent.get(step, 0.0)
            self.game.note(f"the opponent claimed on time after {used:.0f} s of your {clock_text(clock.limit_s)}: "
                           "disputed (the match ends disputed, no one wins it)")
        return ok

    async def watch(self) -> None:
        """The claims beside the match (protocol/wire.md §16, §17): when the peer's step has used its
        time (the move clock, or ``cfg.no_clock_limit_s`` without one) plus the grace, claim; when its
        deal-end or match-end statement is ``cfg.statement_wait_s`` late, stop.  Only time with the link
        up counts.  Runs until cancelled."""
        clock, cfg = self.game.clock, self.cfg
        peer = 1 - self.session.seat
        handled: set[ClockKey] = set()
        for _ in range(1 << 62):  # one pass per tick of the clock
            await clock.next_tick()
            key = clock.key
            if key is None or key[3] != peer or key in handled:
                continue
            if key[0] in (DEAL_END, MATCH_END):
                if clock.used_s >= cfg.statement_wait_s:
                    self.game.conn.stop(PeerTimeout(f"the peer did not sign its {key[0]} statement within "
                                                    f"{cfg.statement_wait_s:g} s (it is due at once)"))
                    await trio.sleep_forever()  # the connection ends the match
                continue
            if clock.expired(key):
                handled.add(key)
                await self._claim(key)

    async def _claim(self, key: ClockKey) -> None:
        """The peer's step ``key`` is over its time: claim (protocol/wire.md §16) unless the person says no
        or the peer's message came first."""
        game, session, clock = self.game, self.session, self.game.clock
        what = key[0]
        if what == "move":
            text = f"{self.peer}'s time is up ({clock_text(clock.limit_s)} a move): claim the deal?"
        else:
            text = f"{self.peer}'s time is up ({clock_text(clock.limit_s)} {step_words(what)}): claim the rest " \
                   "of the match?"
        ask = self.cfg.hooks.ask_claim
        if ask is not None:
            answered, yes = await unless(lambda: ask(text), lambda: self._until_key_changes(key))
            if not answered or not yes:
                return  # no; or the peer acted while we asked (the question is then closed)
        if clock_key(session) != key:
            return
        floor = session.floor
        assert floor is not None
        try:
            floor.claim()
        except LocalProtocolError:  # its message came first (or crossed ours): the match goes on
            return
        await game.conn.send_pending()
        claims = self._machine().claims
        won = claims[-1][1] if claims else ()
        if what == "move":
            game.note(f"{self.peer}'s time ran out: you claimed deal {key[1]}")
        else:
            game.note(f"{self.peer}'s time ran out ({step_words(what)}): you claimed deals {', '.join(map(str, won))}")

    async def _until_key_changes(self, key: ClockKey) -> None:
        while clock_key(self.session) == key:
            await self.game.clock.next_tick()
