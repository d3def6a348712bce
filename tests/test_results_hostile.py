"""Decided deals stand against a hostile peer (protocol/wire.md §16, §16.1): a peer losing 0-2 in a
3-deal match that claims on time at 0 s of the honest side's every step in the last deal, or that
stalls until it is claimed and then disputes, cannot take the two decided deals away.  The honest side
is the real networked stack (``driver.play_over``); the hostile one a modified client (a scripted
session).  The honest side disputes the premature claims by its own clock (twice: the deal is settled
as disputed) or claims the staller twice (it disputes twice: the same); either way its log, ``verify``
and ``history`` say: deals 1 and 2 won by the honest side, deal 3 without a result, the match won 2-0;
and the two logs are one chain.  Time is trio's mock clock (autojump): no real seconds."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import trio
import trio.testing

from p2ptrumps.commands.history import format_text, load_history
from p2ptrumps.events import MatchEvent as Event
from p2ptrumps.match import Action
from p2ptrumps.net import config, driver
from p2ptrumps.net.testing import scripted_peer
from p2ptrumps.record import PlayerInfo
from p2ptrumps.rules import Position, RuleSet
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.log import LOG_MAGIC
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair

HOST_KEY = Identity.from_seed(fixed_bytes("results-hostile/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("results-hostile/guest"))
MOVE_TIME = 5
RULES = RuleSet(pack_size=32, deals=3)


class Thinker:
    """An honest player that thinks 2 s (mock time) on every move: well within the 5 s clock."""

    def __init__(self, name: str) -> None:
        self.info = PlayerInfo(name, "test")

    async def choose_move(self, position: Position, seat: int) -> Action:
        await trio.sleep(2)
        return position.legal_moves()[0]

    async def observe(self, event: Event) -> None:
        return None

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return False


async def hostile(stream: trio.abc.Stream, seat: int, how: str, log: list[bytes]) -> None:
    """The modified client in ``seat``: it resigns deals 1 and 2 at once; in deal 3, ``how`` is
    ``"early"`` (it claims at 0 s of each step of the honest seat, and plays its own moves at once) or
    ``"stall"`` (it never moves, and disputes every claim made against it)."""
    if seat == 0:
        s = Session("host", HOST_KEY, "Hana", fixed_bytes("results-hostile/nonce/host"), rules=RULES,
                    move_time=MOVE_TIME, on_message=lambda frame, direction: log.append(frame))
    else:
        s = Session("guest", GUEST_KEY, "Gus", fixed_bytes("results-hostile/nonce/guest"),
                    on_message=lambda frame, direction: log.append(frame))
    resigned: set[int] = set()
    claimed: set[tuple[int, int, int]] = set()  # (turn, disputes so far, deal): one claim a step

    def act(s: Session) -> None:
        if s.floor is not None and how == "stall":
            s.floor.claim_check = lambda step: False  # "my clock had not run out"
        ref = s.chain.referee if s.chain is not None else None
        if ref is None or ref.match is None:
            return
        who, what = s.waiting_for()
        if what == "trump" and who == seat:
            taken = ref.match.trumps[1 - seat]
            s.floor.choose_trump(0 if taken != 0 else 3)
        if ref.phase != "play" or ref.match.position is None:
            return
        if ref.deal < 3 and ref.deal not in resigned:
            resigned.add(ref.deal)
            s.floor.resign()
            return
        step = (ref.match.position.turn, len(ref.match.disputes), ref.deal)
        if how == "early" and who == 1 - seat and step not in claimed:
            claimed.add(step)
            s.floor.claim()  # at 0 s of the honest seat's step
        elif how == "early" and who == seat:
            s.floor.play(ref.match.position.legal_moves()[0])

    await scripted_peer(stream, s, act, secret=lambda deal: fixed_bytes(f"results-hostile/secret/{seat}/{deal}"),
                        frame_by_frame=True, reads=100_000)


async def play(tmp_path: Path, how: str, hostile_seat: int) -> tuple[config.NetResult, bytes, bytes, str]:
    """The hostile client against the honest networked stack; the honest side's result, both logs and
    what the honest side printed."""
    ours, theirs = trio.testing.memory_stream_pair()
    honest = 1 - hostile_seat
    name = "Gus" if honest else "Hana"
    cfg = config.NetConfig(role="guest" if honest else "host", identity=GUEST_KEY if honest else HOST_KEY,
                           name=name, data=tmp_path, accept_new=True, out=io.StringIO(), timeout_s=10,
                           log_path=tmp_path / "honest.p2plog",
                           hooks=config.SeatHooks(make_player=lambda c, seat: Thinker(c.name)), trump=1)
    if not honest:
        cfg.rules, cfg.move_time = RULES, MOVE_TIME
    log: list[bytes] = []
    with trio.fail_after(6000):
        async with trio.open_nursery() as n:
            n.start_soon(hostile, ours, hostile_seat, how, log)
            result = await driver.play_over(theirs, cfg, "memory")
    assert result.log_path is not None
    return result, result.log_path.read_bytes(), LOG_MAGIC + b"".join(log), cfg.out.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("hostile_seat", [0, 1])
@pytest.mark.parametrize("how", ["early", "stall"])
async def test_the_decided_deals_stand_against_a_peer_losing_0_2(
        tmp_path: Path, how: str, hostile_seat: int, autojump_clock: trio.testing.MockClock) -> None:
    honest_seat = 1 - hostile_seat
    result, honest_log, hostile_log, out = await play(tmp_path, how, hostile_seat)
    v = verify_log(honest_log)
    js = v.to_json()
    assert js["status"] == "valid", js["reason"]
    assert [(d["number"], d["winner"], d["reason"]) for d in js["deals"]] == [
        (1, honest_seat, "resign"), (2, honest_seat, "resign"), (3, None, "disputed")]
    assert (js["disputed_deals"], js["decided"], js["winner"]) == ([3], True, honest_seat)
    assert js["score"] == ([2.0, 0.0] if honest_seat == 0 else [0.0, 2.0])
    claimant = hostile_seat if how == "early" else honest_seat
    assert [(c["seat"], c["deals"], c["disputed"]["seat"]) for c in js["claims"]] == [  # type: ignore[index]
        (claimant, [3], 1 - claimant), (claimant, [3], 1 - claimant)]
    names = ("host", "guest")
    assert v.result_line() == (f"result: seat {honest_seat} ({names[honest_seat]}) won the match (deal 3 has no "
                               "result, and cannot change that)")
    pair = verify_pair(check_log(honest_log), check_log(hostile_log))
    assert (pair.status, pair.relation) == ("valid", "same"), pair.reason
    assert verify_log(hostile_log).to_json()["winner"] == honest_seat
    assert result.disputed and result.score_halves == ((4, 0) if honest_seat == 0 else (0, 4))
    assert "deal 3: no result -- claimed on time and disputed twice" in out, out
    (tmp_path / "data" / "logs").mkdir(parents=True)
    (tmp_path / "data" / "logs" / "2026-12-01_1805_honest.p2plog").write_bytes(honest_log)
    history = load_history(tmp_path / "data")
    entry = history.entries[0]
    assert (entry.result, entry.score, entry.no_result, entry.disputes) == ("won", (2.0, 0.0), [[3, "disputed"]], 2)
    text = format_text(history, history.entries, ascii_only=True)
    assert "won 2-0 (deal 3 disputed)" in text and "on time" not in text
