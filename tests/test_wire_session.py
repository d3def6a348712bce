"""The peer Session in memory: whole matches, crossing messages, hostile peers (protocol/wire.md §7-§11)."""

from __future__ import annotations

import pytest

from p2ptrumps import events as ev
from p2ptrumps.rules import Move, RuleSet
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.errors import LocalProtocolError
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import (
    ConnectionPair,
    Script,
    attack,
    fixed_bytes,
    mover,
    paused_pair,
    replay_to_victim,
    resign_frame,
    sent_frames,
    side_identity,
)
from p2ptrumps.wire.verify import verify_log

SHORT = RuleSet(pack_size=32, deals=2)


def _hashes(pair: ConnectionPair) -> tuple[list[bytes], list[bytes]]:
    chains = [s.session.chain for s in pair.sides]
    assert chains[0] is not None and chains[1] is not None
    return [e.hash for e in chains[0].entries], [e.hash for e in chains[1].entries]


def test_whole_match_both_sides_agree_and_logs_verify() -> None:
    pair = ConnectionPair(SHORT)
    pair.run()
    host, guest = pair.host.session, pair.guest.session
    assert pair.violations() == []
    assert host.finished and guest.finished
    assert host.waiting_for() == (None, "rematch")
    h, g = _hashes(pair)
    assert h == g and len(h) > 20
    assert host.score_halves == guest.score_halves
    assert sum(host.score_halves) == 4  # two deals, 2 half-points each
    for side in pair.sides:
        verdict = verify_log(side.log_bytes())
        assert verdict.status == "valid", verdict.reason
        assert verdict.score_halves == host.score_halves
        assert [d.number for d in verdict.deals] == [1, 2]
    # The match machine's events come for both seats' messages (our own move is a MovePlayed too).
    assert [type(e).__name__ for e in pair.guest.events[:10]] == [
        "PeerHello",
        "RulesProposed",
        "RulesAgreed",
        "TrumpChosen",
        "TrumpChosen",
        "CommitDue",
        "RevealDue",
        "DealStarted",
        "MovePlayed",
        "MovePlayed",
    ]
    assert [type(e).__name__ for e in pair.host.events[:7]] == [
        "PeerHello",
        "RulesAgreed",
        "TrumpChosen",
        "TrumpChosen",
        "CommitDue",
        "DealStarted",
        "MovePlayed",
    ]
    moves = [(e.seat, e.move) for e in pair.host.events if isinstance(e, ev.MovePlayed)]
    assert moves == [(e.seat, e.move) for e in pair.guest.events if isinstance(e, ev.MovePlayed)]
    assert {seat for seat, _ in moves} == {0, 1}
    ends = [e for e in pair.host.events if isinstance(e, ev.MatchSigned)]
    assert ends == [ev.MatchSigned(host.score_halves)]


def test_byte_at_a_time_delivery_gives_the_same_chain() -> None:
    whole = ConnectionPair(SHORT)
    whole.run()
    bytewise = ConnectionPair(SHORT, chunk=1)
    bytewise.run()
    assert _hashes(whole)[0] == _hashes(bytewise)[0]
    assert whole.host.log_bytes() == bytewise.host.log_bytes()


def test_record_from_a_network_log_replays() -> None:
    pair = ConnectionPair(SHORT)
    pair.run()
    rec = verify_log(pair.guest.log_bytes()).to_record()
    assert rec.source == "network"
    assert rec.finished
    assert rec.score_halves() == pair.host.session.score_halves
    for deal in rec.deals:
        steps = list(rec.replay_deal(deal))
        assert steps[-1][1].outcome == deal.outcome


def _paused_pair() -> ConnectionPair:
    return paused_pair(SHORT)


def _mover(pair: ConnectionPair) -> tuple[Session, Session]:
    return mover(pair)


def _first_legal(s: Session) -> Move:
    pos = s.position
    assert pos is not None
    return pos.legal_moves()[0]


@pytest.mark.parametrize("interjector", ["host", "guest"])
def test_chat_crossing_a_move(interjector: str) -> None:
    pair = _paused_pair()
    mover, other = _mover(pair)
    # Make sure the interjection comes from `interjector` and crosses the mover's move.
    if (interjector == "host") != (other.role == "host"):
        # mover is the interjector's side: play one move so the floor flips
        mover.floor.play(_first_legal(mover))
        pair.run()
        mover, other = _mover(pair)
    mover.floor.play(_first_legal(mover))
    other.floor.chat("hello there")  # sent before the move arrived: both claim the same place
    pair.run()
    h, g = _hashes(pair)
    assert h == g
    kinds = [e.kind for e in pair.host.session.chain.entries[-2:]]  # type: ignore[union-attr]
    # the host's message took the contested place, the guest's was re-signed on top
    assert kinds == (["chat", "move"] if interjector == "host" else ["move", "chat"])
    chats = [e for s in pair.sides for e in s.events if isinstance(e, ev.ChatReceived)]
    assert chats == [ev.ChatReceived(0 if interjector == "host" else 1, "hello there")]
    for side in pair.sides:
        assert verify_log(side.log_bytes()).status == "unfinished"
    if interjector == "host":
        # the guest's log holds its withdrawn move, then the host's chat, then the re-signed move
        sent = [m.decode(f.frame[4:]) for f in pair.guest.log]
        kinds_logged = [x.kind for x in sent[-3:] if isinstance(x, m.Signed)]
        assert kinds_logged == ["move", "chat", "move"]


def test_host_resign_crossing_a_guest_move_drops_the_move() -> None:
    pair = _paused_pair()
    mover, other = _mover(pair)
    if mover.role == "host":
        mover.floor.play(_first_legal(mover))
        pair.run()
        mover, other = _mover(pair)
    assert mover.role == "guest"
    mover.floor.play(_first_legal(mover))
    other.floor.resign()
    pair.run()
    assert _hashes(pair)[0] == _hashes(pair)[1]
    assert pair.guest.session.floor.dropped and "deal ended" in pair.guest.session.floor.dropped[0][1]
    ended = [e for e in pair.guest.events if isinstance(e, ev.DealSigned)]
    assert ended and ended[0].outcome.reason == "resign" and ended[0].outcome.winner == 1
    assert verify_log(pair.guest.log_bytes()).status == "unfinished"


def test_both_offer_rematch_at_once() -> None:
    pair = ConnectionPair(RuleSet(pack_size=32), host=Script("host"), guest=Script("guest"))
    pair.run()
    pair.host.session.floor.offer_rematch()
    pair.guest.session.floor.offer_rematch()
    pair.run()
    for side in pair.sides:
        assert any(isinstance(e, ev.RematchAgreed) for e in side.events)
        assert verify_log(side.log_bytes()).status == "valid"
    assert _hashes(pair)[0] == _hashes(pair)[1]


def test_draw_offer_and_acceptance() -> None:
    pair = _paused_pair()
    pair.guest.session.floor.offer_draw()
    pair.run()
    assert any(isinstance(e, ev.DrawOffered) for e in pair.host.events)
    pair.host.session.floor.answer_draw(True)
    pair.run()
    ended = [e for e in pair.guest.events if isinstance(e, ev.DealSigned)]
    assert ended == [ev.DealSigned(1, ended[0].outcome, (1, 1))] and ended[0].outcome.reason == "agreed-draw"


def test_one_draw_offer_per_seat_per_turn() -> None:
    pair = _paused_pair()
    pair.guest.session.floor.offer_draw()
    pair.run()
    pair.host.session.floor.answer_draw(False)
    pair.run()
    refused = [e for e in pair.guest.events if isinstance(e, ev.DrawAnswered)]
    assert [(e.seat, e.accepted) for e in refused] == [(0, False)]
    with pytest.raises(LocalProtocolError, match=r"the guest offered a draw twice in turn 0"):
        pair.guest.session.floor.offer_draw()
    pair.host.session.floor.offer_draw()  # the other seat still may, once
    pair.run()
    # both offers, the guest's own first, in chain order
    assert [e.seat for e in pair.guest.events if isinstance(e, ev.DrawOffered)] == [1, 0]
    assert verify_log(pair.host.log_bytes()).status == "unfinished"


def test_local_errors() -> None:
    pair = _paused_pair()
    mover, other = _mover(pair)
    with pytest.raises(LocalProtocolError, match="not our turn"):
        other.floor.play(_first_legal(mover))
    with pytest.raises(LocalProtocolError, match="illegal move"):
        mover.floor.play(Move.parse("pickup"))
    with pytest.raises(LocalProtocolError, match="host sent trump while the match is at phase play"):
        pair.host.session.floor.choose_trump(2)
    pair.host.session.floor.commit(bytes(32))  # early commitment for deal 2 is held until due
    with pytest.raises(LocalProtocolError, match="no deal waits for our commitment"):
        pair.host.session.floor.commit(bytes(32))
    with pytest.raises(LocalProtocolError):
        other.floor.answer_draw(True)  # nobody offered
    with pytest.raises(LocalProtocolError, match=r"1\.\.500"):
        other.floor.chat("")


def test_guest_cannot_take_the_hosts_trump() -> None:
    pair = ConnectionPair(SHORT, guest=Script("guest", paused=True))
    pair.run()
    assert pair.guest.session.waiting_for() == (1, "trump")
    with pytest.raises(LocalProtocolError, match="suits must differ"):
        pair.guest.session.floor.choose_trump(pair.host.session.chain.referee.match.trumps[0])  # type: ignore[union-attr,arg-type]


def test_refused_rules_end_the_session() -> None:
    def refuse(s: Session, e: ev.Event) -> None:
        if isinstance(e, ev.RulesProposed):
            s.floor.refuse_rules()

    pair = ConnectionPair(SHORT, guest=Script("guest", on_event=refuse))
    pair.run()
    assert any(isinstance(e, ev.RulesRefused) for e in pair.host.events)
    verdict = verify_log(pair.host.log_bytes())
    assert (verdict.status, verdict.reason) == ("valid", "the guest refused the rules: no match was played")


def test_ping_pong_not_logged() -> None:
    pair = ConnectionPair(SHORT)
    pair.run()
    before = len(pair.host.log)
    pair.host.session.ping()
    data = pair.host.session.data_to_send()
    assert m.decode(data[4:]) == m.Ping(1)
    pair.guest.session.receive_data(data)
    pong = pair.guest.session.data_to_send()
    assert m.decode(pong[4:]) == m.Pong(1)
    pair.host.session.receive_data(pong)
    assert len(pair.host.log) == before and pair.host.session.next_event() is None


def test_connection_closed() -> None:
    pair = ConnectionPair(SHORT)
    pair.run()
    pair.host.session.receive_data(b"")
    assert pair.host.session.next_event() == ev.ConnectionClosed(True)
    s = Session("guest", Identity.from_seed(bytes(32)), "x", fixed_bytes("n"))
    s.receive_data(b"\x00\x00")
    s.receive_data(b"")
    assert s.next_event() == ev.ConnectionClosed(False)


def test_not_revealing_forfeits_provably() -> None:
    pair = ConnectionPair(SHORT)
    # The guest commits but never reveals (its reveal intent does nothing).
    original_reveal = pair.guest.session.floor.reveal
    pair.guest.session.floor.reveal = lambda: None  # type: ignore[method-assign]
    pair.run()
    pair.guest.session.floor.reveal = original_reveal  # type: ignore[method-assign]
    verdict = verify_log(pair.host.log_bytes())
    assert verdict.status == "unfinished"
    assert verdict.waiting == (1, "reveal") and verdict.forfeit == 1
    assert "seat 1 committed but never revealed, which forfeits the match" in verdict.reason


# ----- hostile peers -------------------------------------------------------------------------


def _honest() -> ConnectionPair:
    pair = ConnectionPair(SHORT)
    pair.run()
    return pair


def _index_of(frames: list[bytes], kind: str, nth: int = 0) -> int:
    hits = [i for i, f in enumerate(frames) if isinstance(x := m.decode(f[4:]), m.Signed) and x.kind == kind]
    return hits[nth]


FAULTS = [
    ("bad-signature", "signature does not verify"),
    ("broken-chain", "does not link to message"),
    ("non-canonical", "not the canonical encoding"),
    ("illegal-move", "is illegal"),
    ("wrong-position-hash", "claims position"),
    ("bad-reveal", "does not open its commitment"),
    ("oversized-frame", "more than the maximum 16384"),
    ("garbage-frame", "not a msgpack value"),
    ("sequence-gap", "arrived, but the chain holds"),
    ("wrong-game", "replayed from another session"),
    ("map-not-array", "a map is not allowed"),
]


@pytest.mark.parametrize(("code", "words"), FAULTS)
def test_hostile_guest(code: str, words: str) -> None:
    victim, _ = attack(code, SHORT)
    violation, log = victim.session.violation, victim.log_bytes()
    assert violation is not None
    assert violation.code == ("non-canonical" if code == "map-not-array" else code)
    assert words in violation.reason
    verdict = verify_log(log)
    assert verdict.status == "invalid"
    assert verdict.code == violation.code
    assert words in verdict.reason
    # the evidence is the last thing in the log
    assert log.endswith(violation.evidence)


def test_equivocation_by_the_host_is_caught() -> None:
    pair = _honest()
    frames = sent_frames(pair.host)
    gid = pair.guest.session.game_id
    assert gid is not None
    i = _index_of(frames, "move", 2)
    x = m.decode(frames[i][4:])
    assert isinstance(x, m.Signed)
    twin = resign_frame(frames[i], side_identity("host"), gid, body=m.ChatMsg("same place, other words"))
    victim = replay_to_victim("guest", [*frames[: i + 1], twin], SHORT)
    assert victim.session.violation is not None
    assert victim.session.violation.code == "equivocation"
