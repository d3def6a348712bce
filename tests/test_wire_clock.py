"""The move clock in the rules body and claims on time (protocol/wire.md §9.2, §16), and a session
rebuilt from its own log after a restart (§14.4), all sans-IO."""

from __future__ import annotations

import pytest

from p2ptrumps import events as ev
from p2ptrumps.rules import Move, Outcome, RuleSet
from p2ptrumps.wire import encoding
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.errors import LocalProtocolError, RemoteProtocolError
from p2ptrumps.wire.log import read_log
from p2ptrumps.wire.session import Direction, Session
from p2ptrumps.wire.testing import (
    ConnectionPair,
    LoggedFrame,
    Script,
    Side,
    exchange,
    mover,
    paused_pair,
    side_identity,
)
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair

SHORT = RuleSet(pack_size=32, deals=2)
RULE_ITEMS = [32, True, False, 3, 1000, 2]


# ----- the rules body grows by one element -----------------------------------------------


def test_rules_body_has_six_elements_without_a_clock_and_seven_with_one() -> None:
    assert m.RulesMsg(SHORT).fields() == RULE_ITEMS
    assert m.RulesMsg(SHORT, 60).fields() == [*RULE_ITEMS, 60]
    assert m.RulesMsg.parse(RULE_ITEMS) == m.RulesMsg(SHORT, 0)
    assert m.RulesMsg.parse([*RULE_ITEMS, 5]) == m.RulesMsg(SHORT, 5)
    assert m.RulesMsg.parse([*RULE_ITEMS, 3600]) == m.RulesMsg(SHORT, 3600)


@pytest.mark.parametrize("items, why", [
    ([*RULE_ITEMS, 0], "a 7th element (move_time) 0 must be left out"),
    ([*RULE_ITEMS, 4], "move_time 4 is not 5..3600 seconds"),
    ([*RULE_ITEMS, 3601], "move_time 3601 is not 5..3600 seconds"),
    ([*RULE_ITEMS, True], "move_time must be an integer, not a boolean"),
    ([*RULE_ITEMS, 60, 1], "has 6 elements, not 8"),
    (RULE_ITEMS[:5], "has 6 elements, not 5"),
])
def test_a_bad_move_time_is_malformed(items: list[object], why: str) -> None:
    with pytest.raises(RemoteProtocolError) as got:
        m.RulesMsg.parse(items)
    assert got.value.code == "malformed" and why in got.value.reason


def test_the_move_time_is_agreed_with_the_rules() -> None:
    pair = ConnectionPair(SHORT, move_time=45)
    pair.run()
    assert [s.session.move_time for s in pair.sides] == [45, 45]
    proposed = [e for e in pair.guest.events if isinstance(e, ev.RulesProposed)]
    assert proposed == [ev.RulesProposed(SHORT, 45)]
    v = verify_log(pair.host.log_bytes())
    assert (v.status, v.move_time) == ("valid", 45)
    assert v.to_json()["rules"]["move_time"] == 45
    first = pair.host.session.chain.entries[0]  # type: ignore[union-attr]
    assert encoding.unpack(first.payload)[6] == [*RULE_ITEMS, 45]


def test_a_session_refuses_a_move_time_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"5\.\.3600"):
        Session("host", side_identity("host"), "Hana", bytes(32), rules=SHORT, move_time=2)
    with pytest.raises(ValueError, match="the guest passes move_time=0"):
        Session("guest", side_identity("guest"), "Gus", bytes(32), move_time=60)


# ----- claims ------------------------------------------------------------------------------


def _paused_pair(move_time: int = 60) -> ConnectionPair:
    return paused_pair(SHORT, move_time)


def _mover(pair: ConnectionPair) -> tuple[Session, Session]:
    return mover(pair)


def _first_legal(s: Session) -> Move:
    pos = s.position
    assert pos is not None
    return pos.legal_moves()[0]


def _to_move(pair: ConnectionPair, role: str) -> tuple[Session, Session]:
    """Play first legal moves until ``role`` is to move; (mover, waiting side)."""
    for _ in range(3):
        mover, other = _mover(pair)
        if mover.role == role:
            return mover, other
        mover.floor.play(_first_legal(mover))
        pair.run()
    raise AssertionError("the floor did not pass")


@pytest.mark.parametrize("claimant", ["host", "guest"])
def test_a_claim_in_play_ends_the_deal_on_time_and_the_match_goes_on(claimant: str) -> None:
    pair = _paused_pair()
    _, waiter = _to_move(pair, "guest" if claimant == "host" else "host")
    waiter.floor.claim()
    pair.run()
    deal1 = [e for e in pair.host.events if isinstance(e, ev.DealSigned)]
    assert deal1 == [ev.DealSigned(1, Outcome(waiter.seat, "time"), (2, 0) if waiter.seat == 0 else (0, 2))]
    for side in pair.sides:  # the claimed side and the claimant (its own claim, as the machine took it)
        assert [e for e in side.events if isinstance(e, ev.Claimed)] == [ev.Claimed(waiter.seat, 1, (1,))]
    assert pair.host.session.deal_number == 2 and pair.host.session.waiting_for()[1] == "move"
    for side in pair.sides:
        v = verify_log(side.log_bytes())
        assert v.status == "unfinished" and len(v.claims) == 1
        seat, at, won = v.claims[0]
        assert (seat, won) == (waiter.seat, [1])
        entry = pair.host.session.chain.entries[at]  # type: ignore[union-attr]
        assert isinstance(entry.body, m.ClaimMsg) and entry.seat == waiter.seat
        assert (v.deals[0].winner, v.deals[0].reason) == (waiter.seat, "time")
        assert v.to_json()["claims"] == [{"seat": waiter.seat, "message": at, "deals": [1], "disputed": None}]
        assert f"CLAIMED, not proven: seat {waiter.seat}" in v.summary()


def test_the_seat_to_move_cannot_claim() -> None:
    pair = _paused_pair()
    mover, _ = _mover(pair)
    with pytest.raises(LocalProtocolError, match="only the waiting seat may claim"):
        mover.floor.claim()


def test_a_claim_between_deals_wins_every_deal_not_yet_dealt() -> None:
    pair = ConnectionPair(RuleSet(pack_size=32, deals=3), host=Script("host"), guest=Script("guest"))
    pair.guest.script.paused = True  # the guest never chooses its trump
    pair.run()
    assert pair.host.session.waiting_for() == (1, "trump")
    pair.host.session.floor.claim()
    pair.run()
    assert [e for e in pair.guest.events if isinstance(e, ev.Claimed)] == [ev.Claimed(0, 1, (1, 2, 3))]
    ended = [e for e in pair.host.events if isinstance(e, ev.MatchSigned)]
    assert ended == [ev.MatchSigned((6, 0))]
    for side in pair.sides:
        v = verify_log(side.log_bytes())
        assert (v.status, v.score_halves, v.deals) == ("valid", (6, 0), [])
        assert [(s, w) for s, _, w in v.claims] == [(0, [1, 2, 3])]


def test_a_guest_claim_crossing_the_host_move_is_dropped() -> None:
    pair = _paused_pair()
    host, guest = _to_move(pair, "host")
    host.floor.play(_first_legal(host))
    guest.floor.claim()  # sent before the host's move arrived: both take the same place
    pair.run()
    chains = [s.session.chain for s in pair.sides]
    assert [e.hash for e in chains[0].entries] == [e.hash for e in chains[1].entries]  # type: ignore[union-attr]
    assert guest.floor.dropped and guest.floor.dropped[0][0] == m.ClaimMsg(1)
    assert host.waiting_for() == (1, "move") and host.deal_number == 1
    for side in pair.sides:
        assert verify_log(side.log_bytes()).claims == []


def test_a_host_claim_crossing_the_guest_move_stands() -> None:
    pair = _paused_pair()
    guest, host = _to_move(pair, "guest")
    guest.floor.play(_first_legal(guest))
    host.floor.claim()
    pair.run()
    chains = [s.session.chain for s in pair.sides]
    assert [e.hash for e in chains[0].entries] == [e.hash for e in chains[1].entries]  # type: ignore[union-attr]
    assert guest.floor.dropped and "deal ended" in guest.floor.dropped[0][1]
    ended = [e for e in pair.guest.events if isinstance(e, ev.DealSigned)]
    assert ended and ended[0].outcome == Outcome(0, "time")


# ----- a session rebuilt from its log ------------------------------------------------------


def _frames(data: bytes) -> list[bytes]:
    return read_log(data).frames


def _secrets(label: str, deals: int) -> dict[int, bytes]:
    return {d: Script(label).secret(d) for d in range(1, deals + 1)}


def _restored(role: str, frames: list[bytes]) -> Side:
    log = [LoggedFrame(f, "sent") for f in frames]

    def hook(frame: bytes, direction: Direction) -> None:
        log.append(LoggedFrame(frame, direction))

    s = Session.restore(side_identity(role), frames, _secrets(role, 2), on_message=hook)
    return Side(s, Script(role), log)


def _cut(frames: list[bytes], messages: int) -> list[bytes]:
    """The first frames of a log up to and including its ``messages``-th chained message."""
    if messages == 0:
        return frames[:2]
    if len(frames) < messages + 2:
        raise AssertionError("the log is shorter")
    return frames[: messages + 2]  # no resume frames and no withdrawals in these logs


def _a_whole_match() -> tuple[list[bytes], list[int], list[list[bytes]]]:
    """A two-deal match with a move clock, played through (short deals: quick): the hash of each message
    of its chain (``full``), the seat that signed each (``seats``), and the frames of the host's and the
    guest's log (``logs``)."""
    pair = ConnectionPair(RuleSet(pack_size=32, deals=2, turn_limit=24), move_time=30)
    pair.run()
    entries = pair.host.session.chain.entries  # type: ignore[union-attr]
    return ([e.hash for e in entries], [e.seat for e in entries],
            [_frames(pair.host.log_bytes()), _frames(pair.guest.log_bytes())])


def _resumed(role: str, mine: list[bytes], theirs: list[bytes]) -> tuple[Side, Side]:
    """The side ``role`` restored from the log ``mine``, the other from ``theirs``, after the resume
    exchange between them: ``(host, guest)``."""
    a, b = _restored(role, mine), _restored("guest" if role == "host" else "host", theirs)
    host, guest = (a, b) if role == "host" else (b, a)
    host.session.begin_resume(bytes([1]) * 32)
    guest.session.begin_resume(bytes([2]) * 32)
    exchange(host, guest)
    return host, guest


@pytest.mark.parametrize("role", ["host", "guest"])
def test_restored_sessions_resume_from_any_point_and_finish_the_same_match(role: str) -> None:
    """Both sides restart from their logs cut at many points (the other side one message ahead,
    level, or one behind): after the resume exchange the match goes on from the last message both
    hold and ends exactly as the uninterrupted match did; both logs verify with one reconnection."""
    full, seats, logs = _a_whole_match()
    me, other = (0, 1) if role == "host" else (1, 0)
    tried = 0
    for n in range(3, len(full) - 2, 3):  # a log file exists once the rules are agreed
        for ahead in (-1, 0, 1):
            k = n + ahead
            if (ahead == 1 and seats[n] != other) or (ahead == -1 and seats[n - 1] != me):
                continue  # only the side that signed a message can hold it alone
            host, guest = _resumed(role, _cut(logs[me], n), _cut(logs[other], k))
            for side in (host, guest):
                assert [e.hash for e in side.session.chain.entries] == full  # type: ignore[union-attr]
                v = verify_log(side.log_bytes())
                assert (v.status, v.reconnections, v.messages) == ("valid", 1, len(full)), v.reason
            assert [e for e in host.events + guest.events if isinstance(e, ev.Resumed)] == [ev.Resumed(1)] * 2
            tried += 1
    assert tried >= 25


def test_restore_refuses_another_key_and_tells_who_awaits_an_acknowledgement() -> None:
    pair = ConnectionPair(SHORT)
    pair.run()
    frames = _frames(pair.host.log_bytes())
    with pytest.raises(ValueError, match="another identity key"):
        Session.restore(side_identity("guest"), frames, {})
    # A complete match is restored (wire.md §14.5): the host's last statement was acknowledged by the
    # guest's; the guest's own last statement (the match's last message) may not have reached the host.
    host = Session.restore(side_identity("host"), frames, {})
    guest = Session.restore(side_identity("guest"), _frames(pair.guest.log_bytes()), {})
    assert (host.finished, host.delivered) == (True, True)
    assert (guest.finished, guest.delivered) == (True, False)
    host.begin_resume(bytes([1]) * 32)
    guest.begin_resume(bytes([2]) * 32)
    guest.ping()  # sent while resuming: its pong acknowledges nothing (the statement goes after the proof)
    for _ in range(4):
        for a, b in ((guest, host), (host, guest)):
            if data := a.data_to_send():
                b.receive_data(data)
    assert [type(e).__name__ for e in iter(guest.next_event, None)] == ["Resumed"]
    assert not guest.delivered
    guest.ping()  # after the statement went again: its pong acknowledges it
    host.receive_data(guest.data_to_send())
    guest.receive_data(host.data_to_send())
    assert guest.delivered
    with pytest.raises(ValueError, match="does not start with two hellos"):
        Session.restore(side_identity("host"), frames[:1], {})


@pytest.mark.parametrize("role", ["host", "guest"])
def test_a_side_whose_log_lost_its_own_messages_adopts_them_back_and_signs_nothing_twice(role: str) -> None:
    """wire.md §14.2 step 5: one side's log is restored to an earlier state -- it lost
    messages it had sent, which the other side holds (up to 6 of the peer's chain, its own among them).
    After the resume exchange it signs nothing while behind, takes its own messages back from the peer
    (logged), and the match ends exactly as the uninterrupted one did: no second message for any held
    place, both logs verify, and the two verify as one chain."""
    full, seats, logs = _a_whole_match()
    me, other = (0, 1) if role == "host" else (1, 0)
    tried = 0
    for n in range(2, len(full) - 1, 3):
        for lost in (1, 3, 6):
            held = min(n + lost, len(full))
            if me not in seats[n:held]:
                continue  # only a loss of our own messages is the point here
            host, guest = _resumed(role, _cut(logs[me], n), _cut(logs[other], held))
            for side in (host, guest):
                assert side.session.violation is None
                assert not side.session.catching_up
                assert [e.hash for e in side.session.chain.entries] == full  # type: ignore[union-attr]
                v = verify_log(side.log_bytes())
                assert (v.status, v.reconnections, v.messages) == ("valid", 1, len(full)), v.reason
            behind = (host, guest)[me]
            adopted = [f.frame for f in behind.log[n + 2 + 1:held + 2 + 1]]  # after its log and the resume frame
            assert adopted == [f for f in logs[other][n + 2:held + 2]]  # the peer's copies, byte for byte
            pv = verify_pair(check_log(host.log_bytes()), check_log(guest.log_bytes()))
            assert (pv.status, pv.relation) == ("valid", "same"), pv.reason
            tried += 1
    assert tried >= 20, tried


def test_a_restored_side_signs_nothing_before_the_peer_has_proven_what_it_holds() -> None:
    """wire.md §14.2 step 5: until the peer's proof checks out, a session rebuilt from its log cannot know
    what its log lost, so it signs nothing (a move, a trump, a chat) -- the session says why."""
    pair = ConnectionPair(RuleSet(pack_size=32, deals=2, turn_limit=24), move_time=30)
    pair.run()
    frames = _frames(pair.host.log_bytes())
    host = _restored("host", _cut(frames, 2))  # rules and agree: the host is to choose its trump
    assert host.session.catching_up and host.session.waiting_for() == (0, "trump")
    with pytest.raises(LocalProtocolError, match=r"^catching up after a resume: the peer holds an unknown number "
                       r"of messages, we 2; nothing is signed"):
        host.session.floor.choose_trump(0)
    with pytest.raises(LocalProtocolError, match=r"^catching up after a resume"):
        host.session.floor.chat("hello")
    assert host.session.data_to_send() == b""
