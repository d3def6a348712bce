"""A match played in one process (the driver of p2ptrumps/seats.py over the match machine; RULES.md §3,
§8): deals, dealer rotation, score, record saving, intents."""

from __future__ import annotations

import hashlib
import json

import pytest

from p2ptrumps.cards import Card, cards_in
from p2ptrumps.events import DealEnded, DealStarted, MatchEnded, MovePlayed, MovesTakenBack
from p2ptrumps.events import MatchEvent as Event
from p2ptrumps.match import Action, IllegalActionError, Match, OfferDraw, Resign, Undo
from p2ptrumps.record import MatchRecord, PlayerInfo
from p2ptrumps.rules import Move, Outcome, Position, RuleSet, next_dealer
from p2ptrumps.seats import play
from p2ptrumps.shuffle import deal_hands, first_dealer

TRUMPS = (2, 3)


async def seeds(number: int) -> bytes:
    return hashlib.sha256(b"test_match deal %d" % number).digest()


class Scripted:
    """Plays the first legal move, except where ``script`` says otherwise.

    ``script`` maps (deal number, turn) to an action; each entry is used once.
    """

    def __init__(self, name: str, script: dict[tuple[int, int], Action] | None = None,
                 accept: bool = False) -> None:
        self.info = PlayerInfo(name, "human")
        self.script = dict(script or {})
        self.accept = accept
        self.deal = 0
        self.events: list[Event] = []
        self.asked: list[tuple[int, int, Position]] = []  # (deal, turn, position) at each choose_move
        self.draw_questions = 0

    async def choose_move(self, position: Position, seat: int) -> Action:
        assert position.to_move == seat
        self.asked.append((self.deal, position.turn, position))
        action = self.script.pop((self.deal, position.turn), None)
        if action is not None:
            return action
        return position.legal_moves()[0]

    async def observe(self, event: Event) -> None:
        if isinstance(event, DealStarted):
            self.deal = event.number
        self.events.append(event)

    async def accept_draw(self, position: Position, seat: int) -> bool:
        self.draw_questions += 1
        return self.accept


class Saves:
    """An on_record callback that keeps a JSON snapshot of each save."""

    def __init__(self) -> None:
        self.snapshots: list[dict[str, object]] = []

    def __call__(self, record: MatchRecord) -> None:
        self.snapshots.append(json.loads(record.dumps()))


class Runner:
    """A match between two scripted players, played by :func:`p2ptrumps.seats.play`."""

    def __init__(self, p0: Scripted, p1: Scripted, deals: int, saves: Saves | None, allow_undo: bool,
                 dealer: int | None) -> None:
        self.match = Match(RuleSet(deals=deals), trumps=TRUMPS, players=(p0.info, p1.info), allow_undo=allow_undo,
                           dealer=dealer)
        self.players = (p0, p1)
        self.saves = saves

    @property
    def record(self) -> MatchRecord:
        assert self.match.record is not None
        return self.match.record

    async def run(self) -> MatchRecord:
        return await play(self.match, self.players, seed_source=seeds, on_record=self.saves)


def runner(p0: Scripted, p1: Scripted, deals: int, saves: Saves | None = None, allow_undo: bool = False,
           dealer: int | None = None) -> Runner:
    return Runner(p0, p1, deals, saves, allow_undo, dealer)


async def test_three_deals_first_legal() -> None:
    a, b, saves = Scripted("Ann"), Scripted("Bob"), Saves()
    record = await runner(a, b, 3, saves).run()
    s1 = await seeds(1)
    assert first_dealer(s1) == 1
    dealers = [d.dealer for d in record.deals]
    outcomes = [d.outcome for d in record.deals]
    assert dealers == [1, 1, 0]
    assert outcomes == [Outcome(0, "out"), Outcome(1, "out"), Outcome(1, "out")]
    assert [len(d.moves) for d in record.deals] == [17, 18, 25]
    # The loser deals the next deal (RULES.md §3).
    for prev, nxt in zip(record.deals, record.deals[1:], strict=False):
        assert prev.outcome is not None
        assert nxt.dealer == next_dealer(prev.dealer, prev.outcome)
    # Each deal is the deal of its seed.
    for d in record.deals:
        assert d.hands == deal_hands(await seeds(d.number), record.rules, TRUMPS, d.dealer)
    assert record.score_halves() == (2, 4)
    assert record.finished
    # Saved at each deal start, after each move, at each deal end, and once at the match end.
    assert len(saves.snapshots) == sum(len(d.moves) + 2 for d in record.deals) + 1 == 67
    assert saves.snapshots[-1]["score"] == [1.0, 2.0]
    assert saves.snapshots[-1]["finished"] is True
    # Move counts grow one at a time in the saved snapshots of deal 1.
    deal1_moves = [len(s["deals"][0]["moves"]) for s in saves.snapshots[:19]]  # type: ignore[index]
    assert deal1_moves == [*range(18), 17]
    # Both players saw the same events.
    assert len(a.events) == len(b.events) == 3 + 60 + 3 + 1
    assert [type(e) for e in a.events] == [type(e) for e in b.events]
    ends = [e for e in a.events if isinstance(e, DealEnded)]
    assert [e.score_halves for e in ends] == [(2, 0), (2, 2), (2, 4)]
    assert isinstance(a.events[-1], MatchEnded)
    assert a.events[-1].score_halves == (2, 4)
    starts = [e for e in a.events if isinstance(e, DealStarted)]
    assert [(e.number, e.dealer, e.position.to_move) for e in starts] == [(1, 1, 0), (2, 1, 0), (3, 0, 1)]
    # The record on disk replays.
    again = MatchRecord.from_json(json.loads(record.dumps()))
    for d in again.deals:
        list(again.replay_deal(d))


async def test_events_carry_copies() -> None:
    a, b = Scripted("Ann"), Scripted("Bob")
    await runner(a, b, 1).run()
    played = [e for e in a.events if isinstance(e, MovePlayed)]
    assert [e.position.turn for e in played] == list(range(1, len(played) + 1))
    assert len({id(e.position) for e in played}) == len(played)


async def test_explicit_first_dealer() -> None:
    a, b = Scripted("Ann"), Scripted("Bob")
    record = await runner(a, b, 1, dealer=0).run()
    assert record.deals[0].dealer == 0
    assert b.asked[0][1] == 0  # the elder (seat 1) was asked first, at turn 0
    assert a.asked[0][1] == 1


@pytest.mark.parametrize("resigner", [0, 1])
async def test_resign(resigner: int) -> None:
    script: dict[tuple[int, int], Action] = {}
    # Deal 1: dealer 1, so seat 0 moves at even turns, seat 1 at odd ones.
    script[(1, 4 + resigner)] = Resign()
    players = [Scripted("Ann"), Scripted("Bob")]
    players[resigner].script = script
    saves = Saves()
    record = await runner(players[0], players[1], 2, saves).run()
    d1 = record.deals[0]
    assert d1.outcome == Outcome(1 - resigner, "resign")
    assert len(d1.moves) == 4 + resigner
    assert record.deals[1].dealer == resigner  # the loser deals
    # Deal 2, dealt by the resigner, is won back by the resigner under first-legal play.
    assert record.deals[1].outcome == Outcome(resigner, "out")
    assert record.score_halves() == (2, 2)
    assert saves.snapshots[len(d1.moves) + 1]["deals"][0]["result"] == {  # type: ignore[index]
        "winner": 1 - resigner, "reason": "resign"}


async def test_draw_offer_accepted() -> None:
    a = Scripted("Ann", {(1, 2): OfferDraw()})
    b = Scripted("Bob", accept=True)
    record = await runner(a, b, 2).run()
    assert record.deals[0].outcome == Outcome(None, "agreed-draw")
    assert len(record.deals[0].moves) == 2
    assert b.draw_questions == 1
    assert record.deals[1].dealer == 1 - record.deals[0].dealer  # after a draw, the other deals
    assert record.deals[1].outcome == Outcome(0, "out")
    assert record.score_halves() == (3, 1)  # ½ + 1 to seat 0, ½ to seat 1


async def test_draw_offer_refused() -> None:
    a = Scripted("Ann", {(1, 2): OfferDraw()})
    b = Scripted("Bob", accept=False)
    plain = await runner(Scripted("Ann"), Scripted("Bob"), 1).run()
    record = await runner(a, b, 1).run()
    assert b.draw_questions == 1
    # The deal goes on exactly as without the offer; the offerer was asked again at the same turn.
    assert record.deals[0].moves == plain.deals[0].moves
    assert record.deals[0].outcome == plain.deals[0].outcome
    assert [t for d, t, _ in a.asked[:3]] == [0, 2, 2]


async def test_undo_takes_back_to_the_undoing_seats_last_turn() -> None:
    # Dealer 1: seat 0 moves at turns 0, 2, 4, ...  At turn 4 it undoes: back to turn 2.
    a = Scripted("Ann", {(1, 4): Undo()})
    b = Scripted("Bob")
    saves = Saves()
    record = await runner(a, b, 1, saves, allow_undo=True).run()
    taken = [e for e in a.events if isinstance(e, MovesTakenBack)]
    assert len(taken) == 1
    assert taken[0].count == 2
    assert taken[0].position.turn == 2
    assert taken[0].position.to_move == 0
    # Seat 0 was asked at turns 0, 2, 4 (undo), then 2 again, in the very position it had before.
    turns = [t for _, t, _ in a.asked[:5]]
    assert turns == [0, 2, 4, 2, 4]
    before, after = a.asked[1][2], a.asked[3][2]
    assert (before.hands, before.pile, before.to_move) == (after.hands, after.pile, after.to_move)
    assert before.turn == after.turn == 2
    assert before.repetitions() == after.repetitions() == 1
    # The replayed game is the same as the plain one; the record has no trace of the undone moves.
    plain = await runner(Scripted("Ann"), Scripted("Bob"), 1).run()
    assert record.deals[0].moves == plain.deals[0].moves
    undo_save = saves.snapshots[1 + 4]  # start, 4 moves, then the save after the undo
    assert len(undo_save["deals"][0]["moves"]) == 2  # type: ignore[index]


async def test_undo_before_any_own_move() -> None:
    # Seat 1 is the dealer in deal 1 and moves second; seat 0 undoes at turn 0: nothing to take back.
    a = Scripted("Ann", {(1, 0): Undo()})
    record = await runner(a, Scripted("Bob"), 1, allow_undo=True).run()
    taken = [e for e in a.events if isinstance(e, MovesTakenBack)]
    assert [e.count for e in taken] == [0]
    assert record.deals[0].outcome is not None


async def test_undo_not_allowed() -> None:
    a = Scripted("Ann", {(1, 2): Undo()})
    with pytest.raises(IllegalActionError) as info:
        await runner(a, Scripted("Bob"), 1).run()
    assert str(info.value) == "seat 0: undo is not allowed in this match"


async def test_illegal_move_from_a_player() -> None:
    saves = Saves()
    b = Scripted("Bob", {(1, 3): Move.pick_up()})
    r = runner(Scripted("Ann"), b, 1, saves)
    with pytest.raises(IllegalActionError) as info:
        await r.run()
    position = b.asked[1][2]
    assert position.turn == 3
    assert not position.can_pick_up()
    beaters = " ".join(c.label() for c in cards_in(position.beating_cards()))
    top = Card(position.pile[-1]).label()
    assert str(info.value) == f"seat 1 (Bob): you must beat {top} when you can (beating cards: {beaters})"
    assert isinstance(info.value.__cause__, ValueError)
    # The record (in memory and as last saved) has every move before the illegal one, and no result.
    assert len(r.record.deals[0].moves) == 3
    last = saves.snapshots[-1]
    assert len(last["deals"][0]["moves"]) == 3  # type: ignore[index]
    assert last["deals"][0]["result"] is None  # type: ignore[index]
    assert last["finished"] is False
    rec = MatchRecord.from_json(last)
    assert [p.turn for _, p in rec.replay_deal(rec.deals[0])] == [0, 1, 2, 3]


async def test_not_an_action() -> None:
    a = Scripted("Ann", {(1, 0): "TS"})  # type: ignore[dict-item]
    with pytest.raises(IllegalActionError) as info:
        await runner(a, Scripted("Bob"), 1).run()
    assert str(info.value) == "seat 0: 'TS' is not a move or an intent"
