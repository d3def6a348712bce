"""A hostile host that claims on time too early (protocol/wire.md §16): the honest guest -- the real
networked stack, ``driver.play_over`` -- checks every claim against its own clock and disputes a
premature one; the claimant wins no deal, the match ends disputed and the guest's log verifies and
shows the dispute.  A claim after the whole move time is accepted.

The move clock is 5 s (the protocol's minimum); the claim times are 0 s, 10 s, 50 s and 64 s of a
60 s clock scaled to it.  Time is trio's mock clock (autojump): the test takes no real seconds."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import trio
import trio.testing

from p2ptrumps.match import Action, Event
from p2ptrumps.net import config, driver
from p2ptrumps.net.remote import MoveClock, NetGame
from p2ptrumps.net.table import _watch_silence
from p2ptrumps.record import PlayerInfo
from p2ptrumps.rules import Position, RuleSet
from p2ptrumps.wire import events as wev
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.log import LOG_MAGIC
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import fixed_bytes, mover, paused_pair
from p2ptrumps.wire.verify import verify_log

HOST_KEY = Identity.from_seed(fixed_bytes("clock-claims/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("clock-claims/guest"))
MOVE_TIME = 5
RULES = RuleSet(pack_size=32, deals=1, voluntary_pickup=True)


class SlowThinker:
    """An honest guest player that thinks 30 s (mock time) on every move."""

    def __init__(self) -> None:
        self.info = PlayerInfo("Gus", "test")

    async def choose_move(self, position: Position, seat: int) -> Action:
        await trio.sleep(30)
        return position.legal_moves()[0]

    async def observe(self, event: Event) -> None:
        return None

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return False


async def early_claimer(stream: trio.abc.Stream, claim_after_s: float, log: list[bytes], step: str = "move") -> None:
    """Host a 1-deal match with a 5 s clock; claim ``claim_after_s`` seconds into the guest's first
    ``step`` (its move, trump, commitment or reveal)."""
    s = Session("host", HOST_KEY, "Hana", fixed_bytes("clock-claims/nonce"), rules=RULES, move_time=MOVE_TIME,
                on_message=lambda frame, direction: log.append(frame))
    await stream.send_all(s.data_to_send())
    claimed = False
    claim_at: float | None = None  # the guest's turn began: claim at this (mock) time, whatever pings come
    for _ in range(10_000):
        if s.finished:
            break
        data = b""
        if s.waiting_for() == (1, step) and not claimed:
            claim_at = trio.current_time() + claim_after_s if claim_at is None else claim_at
            with trio.move_on_after(max(0.0, claim_at - trio.current_time())):
                data = await stream.receive_some(65536)
            if not data:
                claimed = True
                s.claim()
                await stream.send_all(s.data_to_send())
                continue
        else:
            data = await stream.receive_some(65536)
        if not data:
            break
        s.receive_data(data)
        while (ev := s.next_event()) is not None:
            if isinstance(ev, wev.PeerHello):
                s.accept_key()
            elif isinstance(ev, wev.CommitDue):
                s.commit(fixed_bytes(f"clock-claims/secret/{ev.deal}"))
                s.reveal()
            elif isinstance(ev, wev.ProtocolViolation):
                raise AssertionError(ev)
        seat, what = s.waiting_for()
        if (seat, what) == (0, "trump"):
            s.choose_trump(0)
        elif (seat, what) == (0, "move"):
            pos = s.position
            assert pos is not None
            s.play(pos.legal_moves()[0])
        await stream.send_all(s.data_to_send())
    await stream.aclose()


async def run(tmp_path: Path, claim_after_s: float, step: str = "move") -> tuple[config.NetResult, list[bytes], str]:
    host_stream, guest_stream = trio.testing.memory_stream_pair()
    cfg = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path, accept_new=True,
                            out=io.StringIO(), timeout_s=10, log_path=tmp_path / "guest.p2plog",
                            make_player=lambda c, seat: SlowThinker(), trump=1)
    host_log: list[bytes] = []
    with trio.fail_after(600):
        async with trio.open_nursery() as n:
            n.start_soon(early_claimer, host_stream, claim_after_s, host_log, step)
            result = await driver.play_over(guest_stream, cfg, "memory")
    return result, host_log, cfg.out.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("of_60", [0, 10, 50])
async def test_a_premature_claim_in_play_is_disputed_and_wins_nothing(
        tmp_path: Path, of_60: int, autojump_clock: trio.testing.MockClock) -> None:
    result, host_log, out = await run(tmp_path, MOVE_TIME * of_60 / 60)
    guest_v = verify_log(result.log_path.read_bytes())  # type: ignore[union-attr]
    host_v = verify_log(LOG_MAGIC + b"".join(host_log))
    for v in (guest_v, host_v):
        js = v.to_json()
        assert (js["status"], js["score"]) == ("valid", [0.0, 0.0]), js["reason"]
        assert [(c["seat"], c["deals"], c["disputed"]["seat"]) for c in js["claims"]] == [(0, [1], 1)]
        assert js["deals"][0]["winner"] is None
    assert "DISPUTED: seat 0 (host) claimed deal 1 on time" in guest_v.summary()
    assert result.disputed and result.score_halves == (0, 0)
    assert "the match ended disputed" in out, out


@pytest.mark.parametrize("step", ["trump", "commit", "reveal"])
async def test_a_claim_at_once_on_a_step_between_deals_is_disputed(
        tmp_path: Path, step: str, autojump_clock: trio.testing.MockClock) -> None:
    """The guest's trump, commitment or reveal: its program acts at once, the host claims at 0 s (the
    claim may cross the guest's message, wire.md §16 races): disputed, no deal won, both logs valid."""
    result, host_log, _ = await run(tmp_path, 0.0, step)
    guest = verify_log(result.log_path.read_bytes()).to_json()  # type: ignore[union-attr]
    assert (guest["status"], guest["score"]) == ("valid", [0.0, 0.0]), guest["reason"]
    assert [(c["seat"], c["deals"], c["disputed"]["seat"]) for c in guest["claims"]] == [(0, [1], 1)], guest
    assert result.disputed and result.score_halves == (0, 0)
    # The claimant's log holds the dispute too: both logs reach the same verdict.
    host = verify_log(LOG_MAGIC + b"".join(host_log)).to_json()
    assert _same_match(host) == _same_match(guest)


def _same_match(verdict: dict[str, object]) -> dict[str, object]:
    """A verdict without what only one side's file holds (its frame count, withdrawn or superseded
    messages of its own): what both logs must agree on."""
    return {k: v for k, v in verdict.items() if k not in ("frames", "withdrawn", "superseded")}


async def test_a_claim_after_the_whole_clock_is_accepted(tmp_path: Path,
                                                         autojump_clock: trio.testing.MockClock) -> None:
    result, _, _ = await run(tmp_path, MOVE_TIME * 64 / 60)
    v = verify_log(result.log_path.read_bytes())  # type: ignore[union-attr]
    js = v.to_json()
    assert (js["status"], js["score"]) == ("valid", [1.0, 0.0]), js["reason"]
    assert js["claims"] == [{"seat": 0, "message": js["claims"][0]["message"], "deals": [1], "disputed": None}]
    assert not result.disputed and result.score_halves == (2, 0)


def test_no_clock_runs_while_the_movers_own_draw_offer_is_open() -> None:
    """wire.md §16, whose clock runs: the seat to move that offered a draw waits for the answer, so its
    clock stops (no claim can be made against it by our clock); an offer by the other seat leaves the
    mover's clock running; after the answer the mover's clock starts afresh."""
    pair = paused_pair(RuleSet(pack_size=32, deals=1), move_time=MOVE_TIME)
    mover_s, other = mover(pair)
    views = {s.seat: NetGame(None, s) for s in (mover_s, other)}  # type: ignore[arg-type]
    key = ("move", 1, 0, mover_s.seat)
    assert views[0].clock_key() == views[1].clock_key() == key
    mover_s.offer_draw()
    pair.run()
    assert views[0].clock_key() is None and views[1].clock_key() is None
    other.answer_draw(False)
    pair.run()
    assert views[0].clock_key() == views[1].clock_key() == key
    other.offer_draw()  # the other seat's offer: the mover may move or answer, its clock runs
    pair.run()
    assert views[0].clock_key() == views[1].clock_key() == key


def test_a_claim_is_checked_against_our_own_record_of_the_step() -> None:
    """The record a claim against us is checked with: the seconds our clock counted on that step (0 for
    a step never timed here), at least ``move_time`` to accept (wire.md §16)."""
    clock = MoveClock(MOVE_TIME)
    step = ("move", 1, 4, 1)
    assert not clock.ran_out(step)
    clock.tick(step, 1, True, 0.0)
    clock.tick(step, 1, True, 4.9)
    assert clock.spent[step] == pytest.approx(4.9) and not clock.ran_out(step)
    clock.tick(step, 1, False, 10.0)  # the link down: time does not count
    assert not clock.ran_out(step)
    clock.tick(step, 1, True, 0.1)
    clock.tick(("move", 1, 5, 0), 0, True, 0.0)  # the next step: the record of this one stays
    assert clock.ran_out(step) and not clock.ran_out(("move", 1, 5, 0))


class _FakeTable:
    def __init__(self) -> None:
        self.calls: list[object] = []

    def set_clock(self, clock: tuple[int, float] | None) -> None:
        self.calls.append(clock)

    def bell(self) -> None:
        self.calls.append("bell")

    def set_connection(self, text: str) -> None:
        return None


class _FakeGame:
    seat = 1

    def __init__(self, states: list[config.LinkState]) -> None:
        self.states = states

    def link_state(self) -> config.LinkState:
        return self.states.pop(0) if len(self.states) > 1 else self.states[0]


@pytest.mark.parametrize("bell", [True, False])
async def test_the_bell_rings_once_as_our_own_clock_enters_its_last_10_seconds(
        bell: bool, autojump_clock: trio.testing.MockClock) -> None:
    def at(seat: int, left: float) -> config.LinkState:
        return config.LinkState(failed=False, up=True, silent_s=0.0, clock_seat=seat, clock_left_s=left)

    game = _FakeGame([at(0, 12.0), at(0, 9.0), at(1, 12.0), at(1, 10.5), at(1, 10.0), at(1, 9.5), at(1, 3.0),
                      at(0, 30.0), config.LinkState(failed=True, up=False, silent_s=0.0, clock_seat=None,
                                                    clock_left_s=None)])
    table = _FakeTable()
    await _watch_silence([game], table, bell)  # type: ignore[list-item, arg-type]
    ring = ["bell"] if bell else []
    # The peer's clock (seat 0) crossing 10 s rings nothing; ours rings once, as it crosses.
    assert table.calls == [(0, 12.0), (0, 9.0), (1, 12.0), (1, 10.5), *ring, (1, 10.0), (1, 9.5), (1, 3.0),
                           (0, 30.0)]
