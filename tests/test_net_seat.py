"""Our seat of a networked match (p2ptrumps/net/seat.py): an action of ours that the chain overtook is
not sent, and the user is told why only when the peer's message ended the deal."""

from __future__ import annotations

import pytest

from p2ptrumps.events import MatchEvent
from p2ptrumps.record import PlayerInfo
from p2ptrumps.rules import Move, Position, RuleSet
from p2ptrumps.wire.testing import mover, paused_pair


class _Conn:
    error = None

    async def send_pending(self) -> None:
        return None


class _Nobody:
    info = PlayerInfo("nobody", "test")

    async def choose_move(self, position: Position, seat: int) -> Move:
        raise AssertionError("not asked")

    async def observe(self, event: MatchEvent) -> None:
        return None

    async def accept_draw(self, position: Position, seat: int) -> bool:
        raise AssertionError("not asked")


@pytest.mark.parametrize("who", ["we", "the peer"])
async def test_a_move_after_a_resignation_is_noted_only_when_the_peer_resigned(who: str) -> None:
    """Our move crosses the end of the deal: a note "not sent: ...; the deal ended first" tells the user
    why.  It was also printed when the deal ended by our own resignation (a headless seat leaving on
    SIGTERM read "not sent: no deal is being played; the deal ended first (Fay resigned; ...)")."""
    from p2ptrumps.net.config import NetConfig
    from p2ptrumps.net.seat import NetMatch, NetSeat
    from p2ptrumps.wire.identity import Identity

    pair = paused_pair(RuleSet(pack_size=32, deals=1))
    me, peer = mover(pair)
    notes: list[str] = []
    view = NetMatch(_Conn(), me, on_note=notes.append)  # type: ignore[arg-type]
    cfg = NetConfig(role="host" if me.seat == 0 else "guest", identity=Identity.from_seed(bytes(32)), name="x",
                    data=None)  # type: ignore[arg-type]

    async def no_trump(taken: int | None) -> int:
        raise AssertionError("not asked")

    seat = NetSeat(view, cfg, _Nobody(), no_trump)
    assert me.position is not None
    move = me.position.legal_moves()[0]
    step = seat.our_step()
    assert step == ("move", 1, 0)
    (me if who == "we" else peer).floor.resign()
    pair.run()
    await seat._submit(step, move)
    loser = me.seat if who == "we" else peer.seat
    names = view.names
    assert seat.our_step() is None and me.position is not None and me.position.turn == 0
    assert notes == ([] if who == "we" else [
        f"not sent: no deal is being played; the deal ended first ({names[loser]} resigned; {names[1 - loser]} won)"])
