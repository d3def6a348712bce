"""A hostile peer that claims on time too early (protocol/wire.md §16): the honest side -- the real
networked stack, ``driver.play_over`` -- checks every claim against its own clock and disputes a
premature one; the claimant wins no deal, the match ends disputed, and both logs (the honest side's and
the claimant's) verify to the same match and show the dispute.  A claim after the whole move time is
accepted.  The hostile peer is the host or the guest; it claims in play, on the trump choice (of a
person, or of the program at once), on the commitment and reveal of deal 1 and between deals.  Two
honest sides, one slow, end with one verdict and both return.

The move clock is 5 s (the protocol's minimum); the claim times are 0 s, 10 s, 50 s and 64 s of a
60 s clock scaled to it.  Time is trio's mock clock (autojump): the test takes no real seconds."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio
import trio.testing

from p2ptrumps.events import MatchEvent as Event
from p2ptrumps.match import Action
from p2ptrumps.net import config, driver
from p2ptrumps.net.clock import MoveClock, clock_key
from p2ptrumps.net.table import _watch_silence
from p2ptrumps.net.testing import scripted_peer
from p2ptrumps.record import PlayerInfo
from p2ptrumps.rules import Position, RuleSet
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
    """An honest player that thinks 30 s (mock time) on every move: six times the clock."""

    def __init__(self, name: str = "Gus") -> None:
        self.info = PlayerInfo(name, "test")

    async def choose_move(self, position: Position, seat: int) -> Action:
        await trio.sleep(30)
        return position.legal_moves()[0]

    async def observe(self, event: Event) -> None:
        return None

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return False


def slow_trump(think_s: float) -> Callable[[int | None], Awaitable[int]]:
    """A person choosing a trump in ``think_s`` seconds (mock time): the first suit not taken."""

    async def choose(taken: int | None) -> int:
        await trio.sleep(think_s)
        return 1 if taken != 1 else 2

    return choose


async def claimer(stream: trio.abc.Stream, seat: int, claim_after_s: float, log: list[bytes], step: str = "move",
                  deals: int = 1) -> None:
    """A hostile peer in ``seat`` (a modified client: the session's own claim, sent early).  It plays
    legal moves at once, commits and reveals at once, and claims ``claim_after_s`` seconds into the
    other seat's first ``step`` (its move, trump, commitment or reveal) -- at 0 s as soon as the step
    is due, even between two frames of one read (so the claim crosses the step when the honest side
    sends it at once).  With ``deals`` 2 it resigns deal 1 first, so that the claim falls between
    deals (deal 2's commitment or reveal).  It never claims twice."""
    rules = RuleSet(pack_size=32, deals=deals, voluntary_pickup=True)
    s = (Session("host", HOST_KEY, "Hana", fixed_bytes("clock-claims/nonce"), rules=rules, move_time=MOVE_TIME,
                 on_message=lambda frame, direction: log.append(frame)) if seat == 0
         else Session("guest", GUEST_KEY, "Gus", fixed_bytes("clock-claims/nonce/guest"),
                      on_message=lambda frame, direction: log.append(frame)))
    peer = 1 - seat
    claimed = False
    claim_at: float | None = None  # the peer's step began: claim at this (mock) time, whatever pings come
    resigned = False

    def due() -> bool:
        ref = s.chain.referee if s.chain is not None else None
        at_stake = ref is not None and (deals == 1 or ref.deal == deals)
        return not claimed and at_stake and s.waiting_for() == (peer, step)

    def act(s: Session) -> None:  # after the events are answered (the secrets below)
        nonlocal claimed, resigned
        if due() and claim_after_s == 0:
            claimed = True
            s.floor.claim()
            return
        who, what = s.waiting_for()
        ref = s.chain.referee if s.chain is not None else None
        if deals > 1 and not resigned and ref is not None and ref.phase == "play" and ref.deal == 1:
            resigned = True
            s.floor.resign()
        elif (who, what) == (seat, "trump"):
            taken = ref.match.trumps[peer] if ref is not None and ref.match is not None else None
            s.floor.choose_trump(0 if taken != 0 else 3)
        elif (who, what) == (seat, "move"):
            pos = s.position
            assert pos is not None
            s.floor.play(pos.legal_moves()[0])

    async def receive() -> bytes | None:
        nonlocal claim_at, claimed
        if not due():
            return bytes(await stream.receive_some(65536))
        claim_at = trio.current_time() + claim_after_s if claim_at is None else claim_at
        data = b""
        with trio.move_on_after(max(0.0, claim_at - trio.current_time())):
            data = bytes(await stream.receive_some(65536))
        if data:
            return data
        claimed = True
        s.floor.claim()
        return None  # nothing read: the claim goes out

    # One frame at a time: a claim at 0 s goes out between two of them.
    await scripted_peer(stream, s, act, secret=lambda deal: fixed_bytes(f"clock-claims/secret/{seat}/{deal}"),
                        receive=receive, frame_by_frame=True, reads=100_000)


async def run(tmp_path: Path, claim_after_s: float, step: str = "move", *, claimer_seat: int = 0, deals: int = 1,
              trump_s: float | None = None) -> tuple[config.NetResult, list[bytes], str]:
    """The hostile :func:`claimer` in ``claimer_seat`` against the honest networked stack in the other
    seat (``driver.play_over``: moves of 30 s, its trump chosen at once or in ``trump_s`` seconds)."""
    ours, theirs = trio.testing.memory_stream_pair()
    honest = 1 - claimer_seat
    cfg = config.NetConfig(role="guest" if honest else "host", identity=GUEST_KEY if honest else HOST_KEY,
                           name="Gus" if honest else "Hana", data=tmp_path, accept_new=True, out=io.StringIO(),
                           timeout_s=10, log_path=tmp_path / "honest.p2plog",
                           hooks=config.SeatHooks(make_player=lambda c, seat: SlowThinker(c.name),
                                                  choose_trump=slow_trump(trump_s) if trump_s is not None else None),
                           trump=None if trump_s is not None else 1)
    if not honest:
        cfg.rules, cfg.move_time = RuleSet(pack_size=32, deals=deals, voluntary_pickup=True), MOVE_TIME
    log: list[bytes] = []
    with trio.fail_after(6000):
        async with trio.open_nursery() as n:
            n.start_soon(claimer, ours, claimer_seat, claim_after_s, log, step, deals)
            result = await driver.play_over(theirs, cfg, "memory")
    return result, log, cfg.out.getvalue()  # type: ignore[attr-defined]


def verdicts(result: config.NetResult, claimer_log: list[bytes]) -> tuple[dict[str, object], dict[str, object]]:
    """The honest side's verdict and the claimant's, after checking they agree on the match: every
    member but what only one file holds (its frame count, its own withdrawn or superseded messages)."""
    honest = verify_log(result.log_path.read_bytes()).to_json()  # type: ignore[union-attr]
    hostile = verify_log(LOG_MAGIC + b"".join(claimer_log)).to_json()
    assert _same_match(hostile) == _same_match(honest), (hostile, honest)
    return honest, hostile


def _same_match(verdict: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in verdict.items() if k not in ("frames", "withdrawn", "superseded")}


@pytest.mark.parametrize("claimer_seat", [0, 1])
@pytest.mark.parametrize("of_60", [0, 10, 50])
async def test_a_premature_claim_in_play_is_disputed_and_wins_nothing(
        tmp_path: Path, of_60: int, claimer_seat: int, autojump_clock: trio.testing.MockClock) -> None:
    result, log, out = await run(tmp_path, MOVE_TIME * of_60 / 60, claimer_seat=claimer_seat)
    honest, _ = verdicts(result, log)
    assert (honest["status"], honest["score"]) == ("valid", [0.0, 0.0]), honest["reason"]
    assert [(c["seat"], c["deals"], c["disputed"]["seat"]) for c in honest["claims"]] == [  # type: ignore[attr-defined, index]
        (claimer_seat, [1], 1 - claimer_seat)]
    assert honest["deals"][0]["winner"] is None  # type: ignore[index]
    who = "host" if claimer_seat == 0 else "guest"
    assert f"DISPUTED: seat {claimer_seat} ({who}) claimed deal 1 on time" in verify_log(
        result.log_path.read_bytes()).summary()  # type: ignore[union-attr]
    assert result.disputed and result.score_halves == (0, 0)
    assert "the match ended disputed" in out, out


@pytest.mark.parametrize("step", ["trump", "commit", "reveal"])
async def test_a_claim_at_once_on_a_step_of_the_program_is_disputed(
        tmp_path: Path, step: str, autojump_clock: trio.testing.MockClock) -> None:
    """The guest's trump, commitment or reveal, which its program sends at once: the host claims as
    soon as the step is due, crossing it (wire.md §16 races): disputed, no deal won, both logs valid
    and the same match -- the claimant's log holds the dispute too."""
    result, log, _ = await run(tmp_path, 0.0, step)
    honest, _ = verdicts(result, log)
    assert (honest["status"], honest["score"]) == ("valid", [0.0, 0.0]), honest["reason"]
    assert [(c["seat"], c["deals"], c["disputed"]["seat"]) for c in honest["claims"]] == [  # type: ignore[attr-defined, index]
        (0, [1], 1)], honest
    assert result.disputed and result.score_halves == (0, 0)


@pytest.mark.parametrize("of_60", [0, 10, 50])
async def test_a_premature_claim_on_a_persons_trump_choice_is_disputed(
        tmp_path: Path, of_60: int, autojump_clock: trio.testing.MockClock) -> None:
    """The guest's person takes 54 s of 60 to choose a trump; the host claims at 0, 10 or 50 s: disputed."""
    result, log, _ = await run(tmp_path, MOVE_TIME * of_60 / 60, "trump", trump_s=MOVE_TIME * 54 / 60)
    honest, _ = verdicts(result, log)
    assert (honest["status"], honest["score"]) == ("valid", [0.0, 0.0]), honest["reason"]
    assert [(c["seat"], c["deals"], c["disputed"]["seat"]) for c in honest["claims"]] == [  # type: ignore[attr-defined, index]
        (0, [1], 1)], honest
    assert result.disputed


@pytest.mark.parametrize("step", ["commit", "reveal"])
@pytest.mark.parametrize("claimer_seat", [0, 1])
async def test_a_claim_between_deals_never_wins_a_deal(
        tmp_path: Path, claimer_seat: int, step: str, autojump_clock: trio.testing.MockClock) -> None:
    """Between deals the honest program commits to and reveals the next deal at once (wire.md §16,
    whose clock runs), so a claim there is at once or never: the claimant resigns deal 1 and claims as
    soon as the honest side's commitment or reveal of deal 2 is due.  Its claim is disputed (it crossed
    the step and stood: a host claim) or withdrawn (a guest claim the host's step displaced); either
    way it wins no deal, and both logs verify to the same match."""
    result, log, _ = await run(tmp_path, 0.0, step, claimer_seat=claimer_seat, deals=2)
    honest, _ = verdicts(result, log)
    assert honest["status"] == "valid", honest["reason"]
    deals: list[dict[str, object]] = honest["deals"]  # type: ignore[assignment]
    assert (deals[0]["winner"], deals[0]["reason"]) == (1 - claimer_seat, "resign"), honest
    claims = [(c["seat"], c["disputed"] is not None) for c in honest["claims"]]  # type: ignore[attr-defined]
    assert claims in ([], [(claimer_seat, True)]), honest
    assert all(d["reason"] != "time" for d in deals), honest
    if claims:  # disputed: deal 1 counts, deal 2 was never dealt or has no result
        assert honest["score"] == ([1.0, 0.0] if claimer_seat == 1 else [0.0, 1.0]), honest
    else:  # the claim was withdrawn: deal 2 was played out, both statements signed
        assert len(deals) == 2 and deals[1]["reason"] is not None and not result.disputed, honest


async def test_a_claim_after_the_whole_clock_is_accepted(tmp_path: Path,
                                                         autojump_clock: trio.testing.MockClock) -> None:
    result, log, _ = await run(tmp_path, MOVE_TIME * 64 / 60)
    js, _ = verdicts(result, log)
    assert (js["status"], js["score"]) == ("valid", [1.0, 0.0]), js["reason"]
    assert js["claims"] == [{"seat": 0, "message": js["claims"][0]["message"], "deals": [1], "disputed": None}]  # type: ignore[index]
    assert not result.disputed and result.score_halves == (2, 0)


async def test_a_claim_on_a_trump_choice_after_the_whole_clock_is_accepted(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    """The guest's person takes 6 times the clock to choose a trump; the claim at 64 s of 60 stands: the
    match ends won by the claimant (its one deal never dealt)."""
    result, log, _ = await run(tmp_path, MOVE_TIME * 64 / 60, "trump", trump_s=MOVE_TIME * 6)
    js, _ = verdicts(result, log)
    assert (js["status"], js["score"], js["deals"]) == ("valid", [1.0, 0.0], []), js["reason"]
    assert [(c["seat"], c["deals"], c["disputed"]) for c in js["claims"]] == [(0, [1], None)]  # type: ignore[attr-defined, index]
    assert not result.disputed and result.score_halves == (2, 0)


def test_no_clock_runs_while_the_movers_own_draw_offer_is_open() -> None:
    """wire.md §16, whose clock runs: the seat to move that offered a draw waits for the answer, so its
    clock stops (no claim can be made against it by our clock); an offer by the other seat leaves the
    mover's clock running; after the answer the mover's clock starts afresh."""
    pair = paused_pair(RuleSet(pack_size=32, deals=1), move_time=MOVE_TIME)
    mover_s, other = mover(pair)
    sessions = (pair.host.session, pair.guest.session)
    key = ("move", 1, 0, mover_s.seat)
    assert clock_key(sessions[0]) == clock_key(sessions[1]) == key
    mover_s.floor.offer_draw()
    pair.run()
    assert clock_key(sessions[0]) is None and clock_key(sessions[1]) is None
    other.floor.answer_draw(False)
    pair.run()
    assert clock_key(sessions[0]) == clock_key(sessions[1]) == key
    other.floor.offer_draw()  # the other seat's offer: the mover may move or answer, its clock runs
    pair.run()
    assert clock_key(sessions[0]) == clock_key(sessions[1]) == key


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


class Thinker(SlowThinker):
    """An honest player that thinks ``think_s`` seconds (mock time) on each move."""

    def __init__(self, name: str, think_s: float) -> None:
        super().__init__(name)
        self.think_s = think_s

    async def choose_move(self, position: Position, seat: int) -> Action:
        await trio.sleep(self.think_s)
        return position.legal_moves()[0]


@pytest.mark.parametrize("slow_seat", [0, 1])
async def test_an_honest_claim_ends_with_both_sides_done_and_one_verdict(
        tmp_path: Path, slow_seat: int, autojump_clock: trio.testing.MockClock) -> None:
    """Two honest sides (the whole networked stack each), one of them thinking 30 s a move on a 5 s
    clock: its opponent claims each deal once its clock shows the move time and the grace, the slow
    side's own clock agrees (no dispute), and the next deal is dealt at once.  Both sides return (the
    processes exit) and both logs verify to the same match, every deal won on time by the claimant."""
    cfgs = []
    for seat in (0, 1):
        cfgs.append(config.NetConfig(
            role="host" if seat == 0 else "guest", identity=HOST_KEY if seat == 0 else GUEST_KEY,
            name="Hana" if seat == 0 else "Gus", data=tmp_path / str(seat), accept_new=True, out=io.StringIO(),
            timeout_s=10, log_path=tmp_path / f"{seat}.p2plog", trump=seat,
            hooks=config.SeatHooks(make_player=lambda c, s: Thinker(c.name, 30.0 if s == slow_seat else 0.0))))
    cfgs[0].rules, cfgs[0].move_time = RuleSet(pack_size=32, deals=2, voluntary_pickup=True), MOVE_TIME
    a, b = trio.testing.memory_stream_pair()
    results: list[config.NetResult] = []
    with trio.fail_after(6000):
        async with trio.open_nursery() as n:
            n.start_soon(_append, results, driver.play_over(a, cfgs[0], "memory"))
            n.start_soon(_append, results, driver.play_over(b, cfgs[1], "memory"))
    claimant = 1 - slow_seat
    assert sorted(r.score_halves for r in results) == [(4, 0) if claimant == 0 else (0, 4)] * 2
    host, guest = (verify_log((tmp_path / f"{seat}.p2plog").read_bytes()).to_json() for seat in (0, 1))
    assert _same_match(host) == _same_match(guest), (host, guest)
    assert host["status"] == "valid", host
    assert [(c["seat"], c["deals"], c["disputed"]) for c in host["claims"]] == [  # type: ignore[attr-defined]
        (claimant, [1], None), (claimant, [2], None)]
    assert [(d["winner"], d["reason"]) for d in host["deals"]] == [(claimant, "time")] * 2  # type: ignore[attr-defined]


async def _append(results: list[config.NetResult], run: Awaitable[config.NetResult]) -> None:
    results.append(await run)
