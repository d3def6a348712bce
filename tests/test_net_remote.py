"""The match loop's DealInterrupted path, used by LocalSeat/RemotePlayer when the peer resigns
or a draw is agreed over the network while another seat is to act (p2ptrumps/match.py, remote.py)."""

from __future__ import annotations

import pytest

from p2ptrumps.match import DealInterrupted, Event, MatchRunner
from p2ptrumps.record import PlayerInfo
from p2ptrumps.rules import Move, Outcome, Position, RuleSet


class Interrupting:
    def __init__(self, outcome: Outcome | None) -> None:
        self.info = PlayerInfo("x", "test")
        self.outcome = outcome

    async def choose_move(self, position: Position, seat: int) -> Move:
        if self.outcome is not None:
            raise DealInterrupted(self.outcome)
        return position.legal_moves()[0]

    async def observe(self, event: Event) -> None:
        return None

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return False


@pytest.mark.parametrize("outcome", [Outcome(0, "resign"), Outcome(1, "resign"), Outcome(None, "agreed-draw")])
async def test_deal_interrupted_ends_the_deal_with_its_outcome(outcome: Outcome) -> None:
    players = (Interrupting(outcome), Interrupting(outcome))
    record = await MatchRunner(RuleSet(deals=1), (0, 1), players, dealer=0).run()
    assert record.deals[0].outcome == outcome and record.deals[0].moves == []


def test_deal_interrupted_only_by_resign_agreed_draw_or_time() -> None:
    with pytest.raises(ValueError, match=r"only by resignation, agreed draw or a claim on time, not .out."):
        DealInterrupted(Outcome(0, "out"))


class _Conn:
    error = None

    async def send_pending(self) -> None:
        return None


@pytest.mark.parametrize("who", ["we", "the peer"])
async def test_a_move_after_a_resignation_is_noted_only_when_the_peer_resigned(who: str) -> None:
    """Our move crosses the end of the deal: a note "not sent: ...; the deal ended first" tells the user
    why.  It was also printed when the deal ended by our own resignation (a headless seat leaving on
    SIGTERM read "not sent: no deal is being played; the deal ended first (Fay resigned; ...)")."""
    from p2ptrumps.net.remote import NetGame
    from p2ptrumps.wire.testing import mover, paused_pair

    pair = paused_pair(RuleSet(pack_size=32, deals=1))
    me, peer = mover(pair)
    notes: list[str] = []
    view = NetGame(_Conn(), me, on_note=notes.append)  # type: ignore[arg-type]
    assert me.chain is not None and me.chain.referee.position is not None
    move = me.chain.referee.position.legal_moves()[0]
    (me if who == "we" else peer).resign()
    pair.run()
    with pytest.raises(DealInterrupted) as ended:
        await view.send_in_deal(lambda: me.play(move), 1)
    loser = me.seat if who == "we" else peer.seat
    assert ended.value.outcome == Outcome(1 - loser, "resign")
    names = view.names
    assert notes == ([] if who == "we" else [
        f"not sent: no deal is being played; the deal ended first ({names[loser]} resigned; {names[1 - loser]} won)"])
