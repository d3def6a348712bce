"""The match machine (p2ptrumps/match.py): each action, checked once and applied, its events, what it
refuses (changing nothing), and going back to a mark (RULES.md §2-§8, protocol/wire.md §9.6, §15, §16)."""

from __future__ import annotations

import hashlib

import pytest

from p2ptrumps.events import (
    Claimed,
    DealEnded,
    DealStarted,
    Disputed,
    DrawAnswered,
    DrawOffered,
    Left,
    MatchEnded,
    MovePlayed,
    MovesTakenBack,
    Resigned,
    TrumpChosen,
    Withdrawn,
)
from p2ptrumps.match import (
    AnswerDraw,
    ChooseTrump,
    Claim,
    Deal,
    Dispute,
    IllegalActionError,
    Leave,
    Match,
    NextDeal,
    OfferDraw,
    Resign,
    Undo,
)
from p2ptrumps.record import MatchRecord, PlayerInfo
from p2ptrumps.rules import IllegalMoveError, Move, Outcome, Position, RuleSet
from p2ptrumps.shuffle import deal_hands, first_dealer

RULES = RuleSet(pack_size=32, deals=3)


def seed(n: int) -> bytes:
    return hashlib.sha256(b"test_machine %d" % n).digest()


def dealt(deals: int = 3, dealer: int | None = 0) -> Match:
    """A match with trumps 2 and 3, deal 1 dealt (dealer ``dealer``)."""
    match = Match(RuleSet(pack_size=32, deals=deals), trumps=(2, 3), dealer=dealer)
    match.send(None, Deal(seed(1)))
    return match


def first(match: Match) -> Move:
    assert match.position is not None
    return match.position.legal_moves()[0]


def play_out(match: Match) -> list[object]:
    """First legal moves until the deal ends; every event."""
    events: list[object] = []
    for _ in range(2000):
        seat, what = match.waiting_for()
        if what != "move":
            return events
        assert seat is not None
        events += match.send(seat, first(match))
    raise AssertionError("the deal does not end")


def state(match: Match) -> tuple[object, ...]:
    pos = match.position
    deal = match.deal
    return (match.phase, match.number, match.dealer, match.trumps, match.score_halves(), match.draw_offer,
            None if pos is None else (pos.key(), pos.turn, pos.outcome, pos.repetitions()),
            None if deal is None else (list(deal.moves), deal.outcome), len(match.deals), dict(match.awarded),
            list(match.claims), match.left)


def test_trumps_are_chosen_host_first_then_another_suit() -> None:
    match = Match(RULES)
    assert match.waiting_for() == (0, "trump")
    with pytest.raises(IllegalActionError, match=r"^chose a trump out of turn$"):
        match.send(1, ChooseTrump(1))
    assert match.send(0, ChooseTrump(2)) == [TrumpChosen(0, 2)]
    assert match.waiting_for() == (1, "trump")
    with pytest.raises(IllegalActionError, match=r"^chose the host's trump suit \(H\); the suits must differ$"):
        match.send(1, ChooseTrump(2))
    assert match.send(1, ChooseTrump(0)) == [TrumpChosen(1, 0)]
    assert (match.phase, match.waiting_for(), match.trumps) == ("deal", (None, "deal"), (2, 0))
    assert match.record is not None and match.record.trumps == (2, 0)


def test_a_deal_is_dealt_from_its_seed_and_the_first_dealer_drawn_from_it() -> None:
    match = Match(RULES, trumps=(2, 3))
    [started] = match.send(None, Deal(seed(1)))
    dealer = first_dealer(seed(1))
    hands = deal_hands(seed(1), RULES, (2, 3), dealer)
    assert isinstance(started, DealStarted)
    assert (started.number, started.dealer, started.seed) == (1, dealer, seed(1))
    assert (tuple(started.position.hands), started.position.to_move, started.position.turn) == (hands, 1 - dealer, 0)
    assert match.waiting_for() == (1 - dealer, "move")
    with pytest.raises(IllegalActionError, match=r"^no deal is due$"):
        match.send(None, Deal(seed(2)))


def test_an_illegal_move_is_refused_and_changes_nothing() -> None:
    match = dealt()
    seat = match.waiting_for()[0]
    assert seat == 1
    before = state(match)
    with pytest.raises(IllegalActionError, match=r"^moved out of turn$"):
        match.send(0, first(match))
    with pytest.raises(IllegalMoveError, match="the pile is empty: nothing to pick up; lead a card"):
        match.send(1, Move.pick_up())
    assert state(match) == before
    move = first(match)
    [played] = match.send(1, move)
    assert isinstance(played, MovePlayed) and (played.seat, played.move, played.position.turn) == (1, move, 1)
    assert played.position is not match.position  # a copy
    assert match.deal is not None and match.deal.moves == [move]


def test_a_deal_ends_and_the_loser_deals_the_next_until_the_match_is_decided() -> None:
    match = dealt(deals=2)
    events = play_out(match)
    end = events[-1]
    assert isinstance(end, DealEnded) and end.number == 1 and end.outcome == Outcome(1, "out")
    assert end.score_halves == (0, 2) and match.waiting_for() == (None, "deal-end")
    with pytest.raises(IllegalActionError, match=r"^moved, but no deal is being played$"):
        match.send(0, Move.pick_up())
    assert match.send(None, NextDeal()) == []
    assert (match.phase, match.dealer, match.due) == ("deal", 0, 2)  # seat 0 lost: it deals
    [started] = match.send(None, Deal(seed(2)))
    assert isinstance(started, DealStarted) and (started.number, started.dealer) == (2, 0)
    events = play_out(match)
    assert isinstance(events[-1], DealEnded)
    [ended] = match.send(None, NextDeal())
    assert isinstance(ended, MatchEnded) and ended.score_halves == match.score_halves()
    assert ended.record is match.record and match.waiting_for() == (None, "nothing")


def test_draw_offers_one_open_at_a_time_once_a_turn_answered_by_the_other_seat() -> None:
    match = dealt()
    assert match.send(0, OfferDraw()) == [DrawOffered(1, 0)]  # not its turn: allowed (wire.md §9.6)
    with pytest.raises(IllegalActionError, match=r"^offered a draw while an offer is open$"):
        match.send(1, OfferDraw())
    with pytest.raises(IllegalActionError, match=r"^answered a draw offer nobody made to it$"):
        match.send(0, AnswerDraw(True))
    match.send(1, first(match))  # a move does not close the offer
    assert match.draw_offer == 0
    assert match.send(1, AnswerDraw(False)) == [DrawAnswered(1, 1, False)]
    assert match.send(0, OfferDraw()) == [DrawOffered(1, 0)]  # a move was made since its last offer
    match.send(1, AnswerDraw(False))
    with pytest.raises(IllegalActionError, match=r"^offered a draw twice in turn 1$"):
        match.send(0, OfferDraw())
    assert match.may_offer_draw(1) and not match.may_offer_draw(0)
    assert match.send(1, OfferDraw()) == [DrawOffered(1, 1)]
    events = match.send(0, AnswerDraw(True))
    assert events[0] == DrawAnswered(1, 0, True)
    assert isinstance(events[1], DealEnded) and events[1].outcome == Outcome(None, "agreed-draw")
    assert events[1].score_halves == (1, 1)


def test_either_seat_resigns_at_any_time_in_play() -> None:
    match = dealt()
    events = match.send(0, Resign())  # seat 1 is to move
    assert events[0] == Resigned(1, 0)
    assert isinstance(events[1], DealEnded) and events[1].outcome == Outcome(1, "resign")
    with pytest.raises(IllegalActionError, match=r"^resigned, but no deal is being played$"):
        match.send(1, Resign())


def test_a_claim_in_play_ends_the_deal_on_time_and_a_dispute_takes_its_result_back() -> None:
    match = dealt()
    with pytest.raises(IllegalActionError, match=r"^claimed on time, but the match waits for itself$"):
        match.send(1, Claim())  # seat 1 is to move
    events = match.send(0, Claim())
    assert events[0] == Claimed(0, 1, (1,))
    assert isinstance(events[1], DealEnded) and events[1].outcome == Outcome(0, "time")
    assert match.score_halves() == (2, 0)
    with pytest.raises(IllegalActionError, match=r"^disputed, but no claim against it is open$"):
        match.send(0, Dispute())
    assert match.send(1, Dispute()) == [Disputed(1, 0, 1)]
    assert match.score_halves() == (0, 0) and match.deal is not None and match.deal.outcome is None
    assert (match.phase, match.disputes, match.waiting_for()) == ("disputed", [(0, 1)], (None, "nothing"))


def test_a_claim_between_deals_wins_every_deal_not_dealt() -> None:
    match = dealt()
    play_out(match)
    match.send(None, NextDeal())
    events = match.send(0, Claim())  # the commitments of deal 2 are the wire's: the referee checks the floor
    assert events[0] == Claimed(0, 2, (2, 3))
    assert isinstance(events[1], MatchEnded) and events[1].score_halves == (4, 2)
    assert match.send(1, Dispute()) == [Disputed(1, 0, 2)]
    assert match.score_halves() == (0, 2) and match.awarded == {}


def test_a_claim_in_the_trump_phase_only_against_the_seat_due() -> None:
    match = Match(RULES)
    with pytest.raises(IllegalActionError, match=r"^claimed on time, but the match waits for itself$"):
        match.send(0, Claim())
    events = match.send(1, Claim())
    assert events == [Claimed(1, 1, (1, 2, 3)), MatchEnded((0, 6), None)]


def test_leaving_in_play_resigns_the_deal_and_forfeits_the_rest_after_its_end() -> None:
    match = dealt()
    events = match.send(1, Leave())
    assert events[0] == Left(1)
    assert isinstance(events[1], DealEnded) and events[1].outcome == Outcome(0, "resign")
    assert events[1].score_halves == (2, 0)  # the forfeited deals are not in it yet (wire.md §15)
    assert match.forfeited == ()
    [ended] = match.send(None, NextDeal())
    assert isinstance(ended, MatchEnded) and ended.score_halves == (6, 0)
    assert match.forfeited == (2, 3)
    with pytest.raises(IllegalActionError, match=r"^left a match already left$"):
        match.send(0, Leave())


def test_leaving_between_deals_forfeits_at_once() -> None:
    match = Match(RULES, trumps=(2, 3))
    assert match.send(0, Leave()) == [Left(0), MatchEnded((0, 6), match.record)]
    assert match.forfeited == (1, 2, 3)


def test_undo_takes_back_to_the_seats_own_last_turn_when_allowed() -> None:
    match = dealt()
    with pytest.raises(IllegalActionError, match=r"^undo is not allowed in this match$"):
        match.send(1, Undo())
    match = Match(RULES, trumps=(2, 3), dealer=0, allow_undo=True)
    match.send(None, Deal(seed(1)))
    for _ in range(3):
        match.send(match.waiting_for()[0], first(match))  # type: ignore[arg-type]
    [taken] = match.send(1, Undo())  # seat 1 moved at turns 0 and 2
    assert isinstance(taken, MovesTakenBack) and (taken.count, taken.position.turn) == (1, 2)
    [taken] = match.send(0, Undo())  # seat 0 moved at turn 1
    assert isinstance(taken, MovesTakenBack) and (taken.count, taken.position.turn) == (1, 1)
    [taken] = match.send(0, Undo())  # seat 0 has no move left to take back
    assert isinstance(taken, MovesTakenBack) and (taken.count, taken.position.turn) == (0, 1)
    assert match.deal is not None and len(match.deal.moves) == 1


def test_rewinding_to_a_mark_takes_moves_and_ends_back_and_the_mark_stays_usable() -> None:
    match = dealt()
    match.send(1, first(match))
    before = state(match)
    mark = match.mark()
    match.send(0, first(match))
    match.send(1, first(match))
    match.send(0, OfferDraw())
    match.send(0, Resign())
    assert match.phase == "deal-end"
    events = match.rewind(mark)
    assert len(events) == 1 and isinstance(events[0], Withdrawn) and events[0].count == 2
    assert events[0].position is not None and events[0].position.turn == 1
    assert state(match) == before
    match.send(0, first(match))
    [withdrawn] = match.rewind(mark)
    assert isinstance(withdrawn, Withdrawn) and withdrawn.count == 1 and withdrawn.position is not None
    assert match.position is not None and withdrawn.position.key() == match.position.key()
    assert state(match) == before


def test_rewinding_past_a_deal_start_replays_the_deal_that_is_current_again() -> None:
    match = dealt()
    play_out(match)
    match.send(None, NextDeal())
    mark = match.mark()
    before = state(match)
    match.send(None, Deal(seed(2)))
    match.send(match.waiting_for()[0], first(match))  # type: ignore[arg-type]
    events = match.rewind(mark)
    assert state(match) == before
    assert isinstance(events[0], Withdrawn) and isinstance(events[1], DealStarted) and events[1].number == 1
    assert events[2:] == match.replay_events()[1:]
    assert len(events) == 2 + len(match.deals[0].moves)


def test_replay_events_bring_a_reader_to_the_deal_in_play() -> None:
    match = dealt()
    assert Match(RULES, trumps=(2, 3)).replay_events() == []
    played = [match.send(match.waiting_for()[0], first(match))[0] for _ in range(4)]  # type: ignore[arg-type]
    events = match.replay_events()
    assert isinstance(events[0], DealStarted) and (events[0].number, events[0].seed) == (1, seed(1))
    assert [(e.seat, e.move, e.position.key()) for e in events[1:]] == [  # type: ignore[attr-defined]
        (e.seat, e.move, e.position.key()) for e in played]  # type: ignore[attr-defined]


def test_a_saved_record_goes_on_where_it_stopped() -> None:
    match = dealt()
    match.send(1, first(match))
    match.send(0, first(match))
    assert match.record is not None
    record = MatchRecord.from_json(match.record.to_json())
    again = Match(RULES, resume=record)
    assert (again.phase, again.number, again.waiting_for()) == ("play", 1, (1, "move"))
    assert again.position is not None and match.position is not None
    assert again.position.key() == match.position.key()
    ended = Match(RULES, trumps=(2, 3), dealer=0)
    ended.send(None, Deal(seed(1)))
    play_out(ended)
    assert ended.record is not None
    resumed = Match(RULES, resume=MatchRecord.from_json(ended.record.to_json()))
    assert (resumed.phase, resumed.due, resumed.dealer) == ("deal", 2, 0)


def test_a_deal_set_up_from_a_position() -> None:
    pos = Position.start(RULES, (2, 3), deal_hands(seed(9), RULES, (2, 3), 1), 1)
    match = Match(RULES, start=pos, players=(PlayerInfo("Ann"), PlayerInfo("AI")))
    [started] = match.send(None, Deal(b""))
    assert isinstance(started, DealStarted) and (started.dealer, started.seed) == (1, b"")
    assert match.deal is not None and match.deal.start is not None and match.deal.seed == b""


def test_a_move_taken_back_at_once_leaves_the_match_as_before_it() -> None:
    """unmove: the move just applied goes (the wire referee's answer to a wrong position hash)."""
    match = dealt()
    match.send(1, first(match))
    match.send(0, OfferDraw())
    before = state(match)
    match.send(0, first(match))
    match.unmove(0)
    assert state(match) == before
    ended = Match(RULES, trumps=(2, 3), dealer=0)
    ended.send(None, Deal(seed(1)))
    play_out(ended)
    assert ended.phase == "deal-end"
    last = ended.deal.moves[-1] if ended.deal is not None else None
    ended.unmove(None)
    assert (ended.phase, ended.deal.outcome if ended.deal else "?") == ("play", None)
    assert last is not None and ended.send(ended.waiting_for()[0], last)[-1].outcome is not None  # type: ignore[arg-type, union-attr]
