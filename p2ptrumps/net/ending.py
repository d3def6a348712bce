"""After the last move of a match: the peer back after our restart, our last statement acknowledged,
and the rematch question.

Source: ``protocol/wire.md`` §14.5 (the last message: when the peer holds it for sure), §9.4 (the
rematch: both send ``rematch``; declining is closing the connection), §17 (how long each waits).
The steps of a match (:class:`~p2ptrumps.net.steps.MatchSteps`) run :class:`MatchEnd` once the match
is decided.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from ..events import ConnectionClosed, RematchAgreed
from ..i18n import _, tr
from ..message import N_
from .config import NetConfig, say
from .race import first_of
from .seat import NetGameError, NetMatch
from .transport import TransportError


@dataclass
class MatchEnd:
    """What follows a decided match on its connection (see the module docstring).

    Attributes:
        cfg: our side's configuration; ``game``: the match as the steps see it (its session, its
            connection; ``game.note`` tells the user).
        peer_name: the peer's display name (None: not known).
    """

    cfg: NetConfig
    game: NetMatch
    peer_name: str | None

    async def rejoined(self) -> None:
        """(a restarted side) Wait until the peer is back and proven, so that our last statement, or
        the acknowledgement of the peer's, can reach it (protocol/wire.md §14.5).  The reconnect wait
        bounds it."""
        while not self.game.conn.link_up:
            await trio.sleep(0.05)

    async def acknowledged(self) -> None:
        """Wait until the peer holds our last statement for sure (protocol/wire.md §14.5): ping after it
        and wait for the pong, again after any reconnection.  Returns at once when a message of the
        peer came after it (the host's case).  A peer that never answers holds us at most the reconnect
        wait plus the timeout (§17): then the match is complete, its acknowledgement unknown."""
        cfg, game = self.cfg, self.game
        session = game.session
        if game.conn.link_up and session.pending_bytes:
            await game.conn.send_pending()  # e.g. a dispute signed as the peer's statement came in (§16)
        with trio.move_on_after(cfg.reconnect_wait_s + cfg.timeout_s):
            while not session.delivered:
                if game.conn.link_up:
                    session.ping()
                    await game.conn.send_pending()
                with trio.move_on_after(1.0):
                    while not session.delivered:
                        await trio.sleep(0.01)
        if not session.delivered:
            say(self.cfg, N_("note: the match is complete, but the peer did not acknowledge your last statement"))

    async def rematch(self, rematches_left: int) -> bool:
        """After the match: offer / accept a rematch (protocol/wire.md §9.4).

        The AI (``--ai``) says yes while ``rematches_left`` allows, a person is asked
        (``cfg.hooks.ask_rematch``, else a line prompt when there is a terminal), nobody else
        wants one.  Declining is closing the connection.  Returns True once both sides
        sent ``rematch`` (the session's ``RematchAgreed``), False if we declined or the
        peer left (or declined) first.
        """
        cfg, game = self.cfg, self.game
        session = game.session
        peer = self.peer_name or N_("the peer")
        peer_offered = session.chain is not None and (1 - session.seat) in session.chain.referee.rematch
        closed = session.waiting_for()[1] == "nothing"
        if closed:
            return False

        async def ask() -> bool:
            if cfg.hooks.ask_rematch is not None:
                return await cfg.hooks.ask_rematch(peer, peer_offered)
            if cfg.ai is not None:
                return rematches_left > 0
            if cfg.hooks.confirm is None:
                return False
            # TRANSLATORS: the answers typed stay y and n (y or yes accepts).
            question = (_("%(name)s offers a rematch; play again? [y/N] ", name=tr(peer)) if peer_offered
                        else _("rematch? [y/N] "))
            return await trio.to_thread.run_sync(cfg.hooks.confirm, question, abandon_on_cancel=True)

        want = await _unless_closed(game, ask)
        if not want:
            if want is None:
                self.game.note(N_("%(name)s left: no rematch", name=peer))
            return False
        try:
            await game.act(session.floor.offer_rematch)
        except (NetGameError, TransportError):
            self.game.note(N_("%(name)s left: no rematch", name=peer))
            return False
        if (1 - session.seat) not in (session.chain.referee.rematch if session.chain else ()):
            self.game.note(N_("rematch offered; waiting for %(name)s (they may decline by leaving)", name=peer))

        async def agreed() -> bool:
            await game.take(RematchAgreed)
            return True

        got: bool | None = None
        with trio.move_on_after(cfg.rematch_wait_s) as wait:
            got = await _unless_closed(game, agreed)
        if wait.cancelled_caught:
            self.game.note(N_("%(name)s did not answer the rematch offer within %(seconds)s s", name=peer,
                              seconds=f"{cfg.rematch_wait_s:g}"))
            return False
        if not got:
            self.game.note(N_("%(name)s declined the rematch", name=peer))
            return False
        return True


async def _unless_closed(game: NetMatch, fn: Callable[[], Awaitable[bool]]) -> bool | None:
    """``await fn()``, or None if the peer closes the connection first."""
    index, value = await first_of(fn, lambda: game.take(ConnectionClosed))
    return value if index == 0 else None
