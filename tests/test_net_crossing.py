"""A host resignation that crosses a guest move (protocol/wire.md §8.3): the guest's match
machine, its MatchRecord and both logs must all follow the signed chain.

The guest is the real networked stack (``driver.play_over``: Session, Connection, the match
machine in the session's referee, our seat of net/seat.py); the host is a scripted Session over an
in-memory stream which, when the guest's move arrives, resigns *before* reading it --
a true crossing: both messages claim the same place in the chain, the host's wins,
the guest's move is withdrawn and dropped.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
import trio.testing

from p2ptrumps.events import MatchEvent as Event
from p2ptrumps.match import Action
from p2ptrumps.net import config, driver
from p2ptrumps.net.testing import scripted_peer
from p2ptrumps.record import MatchRecord, PlayerInfo
from p2ptrumps.rules import PICK_UP, Position, RuleSet
from p2ptrumps.wire import framing, messages
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.log import LOG_MAGIC
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log

HOST_KEY = Identity.from_seed(fixed_bytes("crossing-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("crossing-test/guest"))
RULES = RuleSet(pack_size=32, deals=2, voluntary_pickup=True)


class FirstLegal:
    """A deterministic guest player: the first legal move, never accepts a draw."""

    def __init__(self) -> None:
        self.info = PlayerInfo("Gus", "test")

    async def choose_move(self, position: Position, seat: int) -> Action:
        return position.legal_moves()[0]

    async def observe(self, event: Event) -> None:
        return None

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return False


def guest_move_ends_deal(s: Session) -> bool:
    """(host view) the guest, to move, will end the deal with its first legal move."""
    pos = s.position
    assert pos is not None
    pos.push(pos.legal_moves()[0])
    return pos.outcome is not None


def guest_second_move(s: Session) -> bool:
    pos = s.position
    assert pos is not None
    return pos.turn in (2, 3)  # the guest's second turn or so, whoever leads


def has_move(data: bytes) -> bool:
    dec = framing.FrameDecoder()
    dec.feed(data)
    for _ in range(100):
        got = dec.next_frame()
        if got is None:
            return False
        msg = messages.decode(got[1])
        if isinstance(msg, messages.Signed) and msg.kind == "move":
            return True
    return False


async def crossing_host(stream: trio.abc.Stream, cross_when: Callable[[Session], bool], log: list[bytes]) -> int:
    """Host the match; in deal 1, when ``cross_when`` holds on the guest's turn, resign as
    the guest's move arrives, before reading it.  Returns how many crossings happened."""
    s = Session("host", HOST_KEY, "Hana", fixed_bytes("crossing-test/nonce"), rules=RULES,
                on_message=lambda frame, direction: log.append(frame))
    crossed = 0
    armed = False

    async def before(data: bytes) -> None:
        nonlocal armed, crossed
        if armed and has_move(data):
            s.floor.resign()  # our resignation and the guest's move cross on the wire
            await stream.send_all(s.data_to_send())
            armed = False
            crossed += 1

    def act(s: Session) -> None:
        nonlocal armed
        seat, what = s.waiting_for()
        if (seat, what) == (0, "trump"):
            s.floor.choose_trump(0)
        elif (seat, what) == (0, "move"):
            pos = s.position
            assert pos is not None
            legal = pos.legal_moves()
            pick = [m for m in legal if m.kind == PICK_UP]
            s.floor.play(pick[0] if pick else legal[0])  # the host hoards cards: the guest goes out
        if s.waiting_for() == (1, "move") and s.deal_number == 1 and not crossed:
            armed = cross_when(s)

    await scripted_peer(stream, s, act, secret=lambda deal: fixed_bytes(f"crossing-test/secret/{deal}"),
                        before=before)
    return crossed


def deals_of(record: MatchRecord) -> list[tuple[object, ...]]:
    return [(d.number, d.dealer, d.seed, d.hands, d.moves, d.outcome) for d in record.deals]


@pytest.mark.parametrize("cross_when", [guest_move_ends_deal, guest_second_move], ids=["deal-ending", "mid-deal"])
async def test_crossed_resignation_records_and_logs_agree(tmp_path: Path,
                                                          cross_when: Callable[[Session], bool]) -> None:
    host_stream, guest_stream = trio.testing.memory_stream_pair()
    cfg = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path, accept_new=True,
                            out=io.StringIO(), timeout_s=10, log_path=tmp_path / "guest.p2plog",
                            hooks=config.SeatHooks(make_player=lambda c, seat: FirstLegal()), trump=1)
    host_log: list[bytes] = []
    crossed: list[int] = []
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            async def host() -> None:
                crossed.append(await crossing_host(host_stream, cross_when, host_log))

            n.start_soon(host)
            result = await driver.play_over(guest_stream, cfg, "memory")
    assert crossed == [1]
    guest_v = verify_log(result.log_path.read_bytes())  # type: ignore[union-attr]
    host_v = verify_log(LOG_MAGIC + b"".join(host_log))
    assert (guest_v.status, guest_v.reason) == ("valid", "")
    assert (host_v.status, host_v.reason) == ("valid", "")
    assert result.record is not None
    local = deals_of(result.record)
    assert local == deals_of(guest_v.to_record()) == deals_of(host_v.to_record())
    assert local[0][5] is not None and local[0][5].reason == "resign" and local[0][5].winner == 1
    assert result.score_halves == guest_v.score_halves == host_v.score_halves == result.record.score_halves()
    out = cfg.out.getvalue()  # type: ignore[attr-defined]
    assert "crossed the peer's message and was not played; the signed result is Hana resigned" in out, out


class DrawTaker(FirstLegal):
    """Accepts every draw offer."""

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return True


async def offer_then_move_host(stream: trio.abc.Stream, log: list[bytes]) -> None:
    """Host a 1-deal match; on its first turn it offers a draw and plays its move in one write."""
    s = Session("host", HOST_KEY, "Hana", fixed_bytes("crossing-test/nonce2"), rules=RuleSet(pack_size=32, deals=1),
                on_message=lambda frame, direction: log.append(frame))
    offered = False

    def act(s: Session) -> None:
        nonlocal offered
        seat, what = s.waiting_for()
        if (seat, what) == (0, "trump"):
            s.floor.choose_trump(0)
        elif (seat, what) == (0, "move") and not offered:
            offered = True
            s.floor.offer_draw()
            pos = s.position
            assert pos is not None
            s.floor.play(pos.legal_moves()[0])

    await scripted_peer(stream, s, act, secret=lambda deal: fixed_bytes(f"crossing-test/secret2/{deal}"))


async def test_draw_offer_then_move_then_accepted(tmp_path: Path) -> None:
    """Regression (tester's defect 4): the peer offers a draw and moves at once; our side
    accepts the offer -- the deal ends drawn by agreement, the move before the answer stays
    in the chain, and nothing crashes."""
    host_stream, guest_stream = trio.testing.memory_stream_pair()
    cfg = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path, accept_new=True,
                            out=io.StringIO(), timeout_s=10, log_path=tmp_path / "guest.p2plog",
                            hooks=config.SeatHooks(make_player=lambda c, seat: DrawTaker()), trump=1)
    host_log: list[bytes] = []
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            n.start_soon(offer_then_move_host, host_stream, host_log)
            result = await driver.play_over(guest_stream, cfg, "memory")
    assert result.record is not None and result.score_halves == (1, 1)
    deal = result.record.deals[0]
    assert deal.outcome is not None and (deal.outcome.winner, deal.outcome.reason) == (None, "agreed-draw")
    guest_v = verify_log(result.log_path.read_bytes())  # type: ignore[union-attr]
    host_v = verify_log(LOG_MAGIC + b"".join(host_log))
    assert (guest_v.status, host_v.status) == ("valid", "valid")
    assert deals_of(result.record) == deals_of(guest_v.to_record()) == deals_of(host_v.to_record())
