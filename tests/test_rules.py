"""The rules engine: moves, errors, pick-up sizes, end of a deal (RULES.md §4-§8)."""

from __future__ import annotations

from typing import Any

import pytest

from p2ptrumps.cards import Card, mask_of, parse_cards
from p2ptrumps.rules import (
    BEAT,
    LEAD,
    NO_CARD,
    PICK_UP,
    PICKUP_MOVE,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Outcome,
    Position,
    RuleSet,
    RuleSetError,
    next_dealer,
    pickup_count,
)

C, D, H, S = 0, 1, 2, 3


def cards(text: str) -> int:
    return mask_of(parse_cards(text))


def card(text: str) -> int:
    return int(Card.parse(text))


def pos_of(hand0: str, hand1: str, pile: str = "", to_move: int = 0, trumps: tuple[int, int] = (H, S),
           rules: RuleSet | None = None) -> Position:
    return Position(
        rules=rules or RuleSet(),
        trumps=trumps,
        hands=[cards(hand0), cards(hand1)],
        pile=tuple(parse_cards(pile)),
        to_move=to_move,
    )


def state(pos: Position) -> tuple[Any, ...]:
    """Everything observable about a position, including its repetition counts."""
    return (tuple(pos.hands), pos.pile, pos.to_move, pos.turn, pos.outcome, dict(pos._counts))


# ----- moves: text form ----------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "code"),
    [
        (Move.lead(card("QS")), "QS"),
        (Move.beat(card("10S"), card("7H")), "TS/7H"),
        (Move.beat(card("10S")), "TS/"),
        (Move.pick_up(), "pickup"),
        (Move(LEAD, 0), "2C"),
        (Move(BEAT, 51, 0), "AS/2C"),
    ],
)
def test_move_code_round_trip(move: Move, code: str) -> None:
    assert move.code == code
    assert str(move) == code
    assert Move.parse(code) == move
    assert Move.parse(code.lower()) == move


def test_move_parse_every_card_pair() -> None:
    for a in range(52):
        assert Move.parse(Move.lead(a).code) == Move(LEAD, a, NO_CARD)
        assert Move.parse(Move.beat(a).code) == Move(BEAT, a, NO_CARD)
        for b in range(52):
            if a != b:
                m = Move.beat(a, b)
                assert Move.parse(m.code) == m


@pytest.mark.parametrize("text", ["pickup", "PICKUP", "pick up", "pick-up", " pickup "])
def test_move_parse_pickup(text: str) -> None:
    assert Move.parse(text) is PICKUP_MOVE
    assert Move.parse(text).kind == PICK_UP


def test_move_parse_accepts_people_spellings() -> None:
    assert Move.parse("10♠/7♥") == Move.beat(card("TS"), card("7H"))
    assert Move.parse("10s/") == Move.beat(card("TS"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ZZ", "'ZZ' is not a move: 'ZZ' is not a card: 'Z' is not a suit (use C D H S or ♣ ♦ ♥ ♠)"),
        ("TS/7X", "'TS/7X' is not a move: '7X' is not a card: 'X' is not a suit (use C D H S or ♣ ♦ ♥ ♠)"),
        ("/7H", "'/7H' is not a move: '' is not a card: expected rank then suit, like 10H, TH or 10♥"),
        ("", "'' is not a move: '' is not a card: expected rank then suit, like 10H, TH or 10♥"),
        ("TS/TS", "'TS/TS': the second card repeats the beating card"),
        ("pick", "'pick' is not a move: 'pick' is not a card: 'k' is not a suit (use C D H S or ♣ ♦ ♥ ♠)"),
    ],
)
def test_move_parse_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert str(info.value) == message


def test_move_labels() -> None:
    assert Move.lead(card("TH")).label() == "lead 10♥"
    assert Move.beat(card("TS"), card("7H")).label() == "beat 10♠, second 7♥"
    assert Move.beat(card("TS"), card("7H")).label(ascii_only=True) == "beat 10S, second 7H"
    assert Move.beat(card("KS")).label() == "beat K♠ (last card)"
    assert PICKUP_MOVE.label() == "pick up"


# ----- illegal moves: one message per kind -----------------------------------------


# Seat 0: trump ♥, hand 10♠ 7♥ K♣; pile 9♠ (RULES.md §9 example 1).
EX1 = ("10S 7H KC", "AD 8D", "9S")


@pytest.mark.parametrize(
    ("hand0", "pile", "move", "message"),
    [
        (EX1[0], EX1[2], PICKUP_MOVE, "you must beat 9♠ when you can (beating cards: 7♥ 10♠)"),
        (EX1[0], "", PICKUP_MOVE, "the pile is empty: nothing to pick up; lead a card"),
        (EX1[0], EX1[2], Move(BEAT, 60, NO_CARD), "60 is not a card"),
        (EX1[0], EX1[2], Move(BEAT, card("TS"), 52), "52 is not a card"),
        (EX1[0], "", Move(LEAD, NO_CARD, NO_CARD), "no card given"),
        (EX1[0], "", Move.lead(card("AS")), "A♠ is not in your hand"),
        (EX1[0], EX1[2], Move.beat(card("JS"), card("KC")), "J♠ is not in your hand"),
        (EX1[0], EX1[2], Move.lead(card("TS")), "the pile is not empty: beat 9♠ or pick up"),
        (EX1[0], "", Move(LEAD, card("TS"), card("7H")), "a lead is one card"),
        (EX1[0], "", Move.beat(card("TS"), card("7H")), "the pile is empty: lead a card"),
        (EX1[0], EX1[2], Move.beat(card("KC"), card("TS")), "K♣ does not beat 9♠ (your trump is ♥)"),
        (EX1[0], EX1[2], Move.beat(card("TS")), "after beating with 10♠ play a second card"),
        (EX1[0], EX1[2], Move(BEAT, card("TS"), card("TS")), "the second card must differ from the beating card"),
        (EX1[0], EX1[2], Move.beat(card("TS"), card("AS")), "A♠ is not in your hand"),
        ("KS", "9S", Move.beat(card("KS"), card("7H")), "K♠ is your last card: no second card"),
        (EX1[0], EX1[2], Move(7, 0, 0), "Move(kind=7, card=0, second=0) is not a move"),
    ],
)
def test_illegal_move_messages(hand0: str, pile: str, move: Move, message: str) -> None:
    pos = pos_of(hand0, EX1[1], pile)
    before = state(pos)
    with pytest.raises(IllegalMoveError) as info:
        pos.push(move)
    assert str(info.value) == message
    assert not pos.is_legal(move)
    assert state(pos) == before  # a refused move changes nothing


def test_no_move_after_the_end() -> None:
    pos = pos_of("KS", "QS", "9S", trumps=(S, H))
    pos.push(Move.beat(card("KS")))
    assert pos.outcome == Outcome(0, "out")
    with pytest.raises(IllegalMoveError, match=r"^the deal is over$"):
        pos.push(Move.lead(card("QS")))
    assert pos.legal_moves() == []
    assert not pos.can_pick_up()


def test_illegal_move_is_a_value_error_distinct_from_invalid() -> None:
    assert issubclass(IllegalMoveError, ValueError)
    assert issubclass(InvalidMoveError, ValueError)
    assert not issubclass(IllegalMoveError, InvalidMoveError)
    assert not issubclass(InvalidMoveError, IllegalMoveError)


# ----- pick-up sizes (RULES.md §6) -------------------------------------------------


@pytest.mark.parametrize(
    ("top", "trump", "sizes"),
    [
        ("9S", H, {1: 1, 2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 20: 3}),  # not your trump: 3
        ("9H", H, {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 5, 20: 5}),  # your trump, not the ace: 5
        ("AH", H, {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 20: 20}),  # your trump ace: the whole pile
        ("AS", H, {1: 1, 4: 3, 20: 3}),  # an ace of another suit is an ordinary card
    ],
)
def test_pickup_count(top: str, trump: int, sizes: dict[int, int]) -> None:
    for pile_len, k in sizes.items():
        assert pickup_count(pile_len, card(top), trump) == k


@pytest.mark.parametrize(
    ("trump", "pile", "taken", "left"),
    [
        (S, "7C 8C 9C TC JC QH", "TC JC QH", "7C 8C 9C"),
        (H, "7C 8C 9C TC JC QH", "8C 9C TC JC QH", "7C"),
        (H, "7C 8C 9C TC JC 9H QH AH", "7C 8C 9C TC JC 9H QH AH", ""),
        (H, "JC QH", "JC QH", ""),
        (S, "JC QH", "JC QH", ""),
    ],
)
def test_pickup_push(trump: int, pile: str, taken: str, left: str) -> None:
    other = C if trump != C else D
    pos = pos_of("6D" if trump != D else "6C", "KD", pile, trumps=(trump, other))
    hand_before = pos.hands[0]
    if pos.beating_cards():
        pytest.fail("the fixture hand must not beat the top")
    pos.push(PICKUP_MOVE)
    assert pos.pile == tuple(parse_cards(left))
    assert pos.hands[0] == hand_before | cards(taken)
    assert pos.to_move == 1
    assert pos.turn == 1


def test_pickup_with_voluntary_rule_when_able_to_beat() -> None:
    pos = pos_of("10S 7H KC", "AD 8D", "6C 7C 8C 9S", rules=RuleSet(voluntary_pickup=True))
    assert pos.can_pick_up()
    pos.push(PICKUP_MOVE)
    assert pos.pile == tuple(parse_cards("6C"))
    assert pos.hands[0] == cards("10S 7H KC 7C 8C 9S")


# ----- repetition and the turn limit (RULES.md §7 house rules) ---------------------

# A six-turn cycle (voluntary pick-up makes every pick-up legal):
#   seat 0 leads 7♣; seat 1 beats with 8♣, second 6♦; seat 0 takes all three;
#   seat 1 leads 6♣; seat 0 beats with 8♣, second 6♦; seat 1 takes all three.
# After it, both hands, the (empty) pile and the player to move are as before.
CYCLE = ["7C", "8C/6D", "pickup", "6C", "8C/6D", "pickup"]


def cycle_position(rules: RuleSet) -> Position:
    return pos_of("7C 9D", "8C 6D 6C AS", trumps=(H, S), rules=rules)


def play_cycle(pos: Position, turns: int) -> None:
    for i in range(turns):
        pos.push(Move.parse(CYCLE[i % len(CYCLE)]))


def test_cycle_returns_to_the_start() -> None:
    pos = cycle_position(RuleSet(voluntary_pickup=True))
    start = pos.key()
    play_cycle(pos, 6)
    assert pos.key() == start
    assert pos.repetitions() == 2
    assert pos.outcome is None
    assert pos.turn == 6


@pytest.mark.parametrize(("repetition", "end_turn"), [(2, 6), (3, 12), (4, 18)])
def test_repetition_draws(repetition: int, end_turn: int) -> None:
    pos = cycle_position(RuleSet(voluntary_pickup=True, repetition=repetition))
    play_cycle(pos, end_turn - 1)
    assert pos.outcome is None
    play_cycle_from = end_turn - 1
    pos.push(Move.parse(CYCLE[play_cycle_from % 6]))
    assert pos.outcome == Outcome(None, "repetition")
    assert pos.turn == end_turn
    assert pos.repetitions() == repetition
    assert pos.legal_moves() == []


def test_repetition_off_and_turn_limit() -> None:
    pos = cycle_position(RuleSet(voluntary_pickup=True, repetition=0, turn_limit=20))
    play_cycle(pos, 19)
    assert pos.outcome is None
    assert pos.repetitions() == 4  # 19 turns = 3 cycles + 1: the position after turn 1, 4th time
    pos.push(Move.parse(CYCLE[19 % 6]))
    assert pos.outcome == Outcome(None, "turn-limit")
    assert pos.turn == 20


def test_default_turn_limit_is_1000() -> None:
    pos = cycle_position(RuleSet(voluntary_pickup=True, repetition=0))
    play_cycle(pos, 999)
    assert pos.outcome is None
    pos.push(Move.parse(CYCLE[999 % 6]))
    assert pos.outcome == Outcome(None, "turn-limit")
    assert pos.turn == 1000


def test_no_limits_at_all_is_refused() -> None:
    with pytest.raises(RuleSetError) as exc:
        RuleSet(voluntary_pickup=True, repetition=0, turn_limit=0)
    assert str(exc.value) == (
        "rules repetition and turn_limit cannot both be off: a deal could go on for ever"
    )


def test_going_out_beats_the_turn_limit() -> None:
    # Seat 0 goes out on turn 1 of a deal whose limit is 1 turn: going out counts.
    pos = pos_of("KS", "QS", "9S", trumps=(S, H), rules=RuleSet(turn_limit=1))
    pos.push(Move.beat(card("KS")))
    assert pos.outcome == Outcome(0, "out")


# ----- resign, agreed draw ----------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_resign(seat: int) -> None:
    pos = pos_of(*EX1)
    before = state(pos)
    pos.resign(seat)
    assert pos.outcome == Outcome(1 - seat, "resign")
    assert pos.legal_moves() == []
    with pytest.raises(IllegalMoveError, match=r"^the deal is over$"):
        pos.resign(1 - seat)
    with pytest.raises(IllegalMoveError, match=r"^the deal is over$"):
        pos.agree_draw()
    pos.pop()
    assert state(pos) == before


def test_agree_draw() -> None:
    pos = pos_of(*EX1)
    before = state(pos)
    pos.agree_draw()
    assert pos.outcome == Outcome(None, "agreed-draw")
    assert pos.is_over
    pos.pop()
    assert state(pos) == before


# ----- make / unmake ----------------------------------------------------------------


def test_push_pop_restores_everything() -> None:
    pos = cycle_position(RuleSet(voluntary_pickup=True))
    history = [state(pos)]
    for i in range(11):
        pos.push(Move.parse(CYCLE[i % 6]))
        history.append(state(pos))
    for expected in reversed(history[:-1]):
        pos.pop()
        assert state(pos) == expected
    with pytest.raises(IndexError):
        pos.pop()


def test_pop_after_going_out() -> None:
    pos = pos_of("KS", "AS", "9S", trumps=(S, H))
    before = state(pos)
    pos.push(Move.beat(card("KS")))
    assert pos.outcome == Outcome(None, "both-out")
    pos.pop()
    assert state(pos) == before


def test_copy_is_independent() -> None:
    pos = cycle_position(RuleSet(voluntary_pickup=True))
    play_cycle(pos, 6)
    twin = pos.copy()
    assert state(twin) == state(pos)
    twin.push(Move.parse("7C"))
    assert state(pos) != state(twin)
    assert pos.hands == [cards("7C 9D"), cards("8C 6D 6C AS")]
    # The copy keeps the repetition history: four more cycles' worth ends it on the third visit.
    twin.pop()
    play_cycle(twin, 6)
    assert twin.outcome == Outcome(None, "repetition")


def test_start_position() -> None:
    pos = Position.start(RuleSet(), (H, S), (cards("7C"), cards("8C")), dealer=0)
    assert (pos.to_move, pos.turn, pos.pile, pos.outcome) == (1, 0, (), None)
    assert pos.repetitions() == 1


def test_position_rejects_equal_trumps() -> None:
    with pytest.raises(ValueError, match=r"^trumps must be two different suits 0\.\.3, not \(2, 2\)$"):
        Position(rules=RuleSet(), trumps=(H, H), hands=[0, 0])
    with pytest.raises(ValueError, match=r"^trumps must be two different suits 0\.\.3, not \(2, 4\)$"):
        Position(rules=RuleSet(), trumps=(H, 4), hands=[0, 0])


def test_str() -> None:
    pos = pos_of(*EX1)
    assert str(pos) == (
        "seat 0 (trump ♥): K♣ 7♥ 10♠\n"
        "seat 1 (trump ♠): 8♦ A♦\n"
        "pile: 9♠\n"
        "to move: seat 0, turn 0"
    )


# ----- typed input -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("10s 7h", "TS/7H"),
        ("TS/7H", "TS/7H"),
        ("7♥, k♣", "7H/KC"),
        (" ts  kc ", "TS/KC"),
    ],
)
def test_parse_move_beats(text: str, code: str) -> None:
    assert pos_of(*EX1).parse_move(text).code == code


@pytest.mark.parametrize("text", ["p", "P", "pickup", "pick up", "pick-up", "take", "t"])
def test_parse_move_pickup(text: str) -> None:
    pos = pos_of("6S", "AD", "9S KD")
    assert pos.parse_move(text) is PICKUP_MOVE


def test_parse_move_lead_and_last_card() -> None:
    assert pos_of("7H KC", "AD").parse_move("kc") == Move.lead(card("KC"))
    assert pos_of("KS", "AD", "9S", trumps=(S, H)).parse_move("ks") == Move.beat(card("KS"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("xx", "'xx' is not a card: 'x' is not a suit (use C D H S or ♣ ♦ ♥ ♠)"),
        ("", "'': give one card, two cards (beat and second) or 'p' to pick up"),
        ("ts 7h kc", "'ts 7h kc': give one card, two cards (beat and second) or 'p' to pick up"),
        ("th 9c extra", "'th 9c extra': give one card, two cards (beat and second) or 'p' to pick up"),
    ],
)
def test_parse_move_invalid(text: str, message: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        pos_of(*EX1).parse_move(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p", "you must beat 9♠ when you can (beating cards: 7♥ 10♠)"),
        ("ts", "after beating with 10♠ play a second card"),
        ("kc ts", "K♣ does not beat 9♠ (your trump is ♥)"),
    ],
)
def test_parse_move_illegal(text: str, message: str) -> None:
    with pytest.raises(IllegalMoveError) as info:
        pos_of(*EX1).parse_move(text)
    assert str(info.value) == message


# ----- rule sets ----------------------------------------------------------------------


def test_ruleset_defaults() -> None:
    r = RuleSet()
    assert r.to_dict() == {
        "pack_size": 36,
        "sixes": True,
        "voluntary_pickup": False,
        "repetition": 3,
        "turn_limit": 1000,
        "deals": 1,
    }
    assert r.describe() == "36 cards, sixes on, must beat, repetition 3, limit 1000 turns, 1 deal"
    assert bin(r.pack).count("1") == 36


@pytest.mark.parametrize(
    "rules",
    [
        RuleSet(),
        RuleSet(pack_size=32, sixes=False, voluntary_pickup=True, repetition=0, turn_limit=50, deals=7),
        RuleSet(pack_size=52, repetition=2, turn_limit=1_000_000, deals=1000),
    ],
)
def test_ruleset_round_trip(rules: RuleSet) -> None:
    assert RuleSet.from_dict(rules.to_dict()) == rules


def test_ruleset_describe_variants() -> None:
    r = RuleSet(pack_size=52, sixes=False, voluntary_pickup=True, repetition=0, turn_limit=9, deals=3)
    assert r.describe() == "52 cards, sixes off, voluntary pick-up, repetition off, limit 9 turns, 3 deals"
    r = RuleSet(repetition=4, turn_limit=0)
    assert r.describe() == "36 cards, sixes on, must beat, repetition 4, no turn limit, 1 deal"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pack_size": 40}, "rule pack_size must be 32, 36 or 52, not 40"),
        ({"pack_size": "36"}, "rule pack_size must be an integer, not '36'"),
        ({"pack_size": True}, "rule pack_size must be an integer, not True"),
        ({"sixes": 1}, "rule sixes must be true or false, not 1"),
        ({"voluntary_pickup": "yes"}, "rule voluntary_pickup must be true or false, not 'yes'"),
        ({"repetition": 1}, "rule repetition must be 0 (off) or 2..100, not 1"),
        ({"repetition": 101}, "rule repetition must be 0 (off) or 2..100, not 101"),
        ({"turn_limit": -1}, "rule turn_limit must be 0 (off) or up to 1000000, not -1"),
        ({"turn_limit": 1.5}, "rule turn_limit must be an integer, not 1.5"),
        ({"deals": 0}, "rule deals must be 1..1000, not 0"),
        ({"deals": 1001}, "rule deals must be 1..1000, not 1001"),
    ],
)
def test_ruleset_validation(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(RuleSetError) as info:
        RuleSet(**kwargs)
    assert str(info.value) == message


def test_ruleset_from_dict_errors() -> None:
    with pytest.raises(RuleSetError) as info:
        RuleSet.from_dict({"pack_size": 36, "jokers": 2, "aces": 1})
    assert str(info.value) == "unknown rule(s): aces, jokers"
    with pytest.raises(RuleSetError) as info:
        RuleSet.from_dict([1, 2])  # type: ignore[arg-type]
    assert str(info.value) == "rule set must be a map, not list"
    assert RuleSet.from_dict({"deals": 3}) == RuleSet(deals=3)


# ----- outcomes and the next dealer ----------------------------------------------------------


@pytest.mark.parametrize(
    ("dealer", "outcome", "expected"),
    [
        (0, Outcome(0, "out"), 1),  # seat 1 lost: seat 1 deals
        (0, Outcome(1, "out"), 0),
        (1, Outcome(0, "resign"), 1),
        (1, Outcome(1, "out"), 0),
        (0, Outcome(None, "both-out"), 1),  # a draw: the other player deals
        (1, Outcome(None, "repetition"), 0),
        (0, Outcome(None, "agreed-draw"), 1),
        (1, Outcome(None, "turn-limit"), 0),
    ],
)
def test_next_dealer(dealer: int, outcome: Outcome, expected: int) -> None:
    assert next_dealer(dealer, outcome) == expected


def test_outcome_points_and_words() -> None:
    win = Outcome(1, "out")
    assert (win.points(0), win.points(1), win.is_draw) == (0, 2, False)
    draw = Outcome(None, "both-out")
    assert (draw.points(0), draw.points(1), draw.is_draw) == (1, 1, True)
    assert win.describe(("Ann", "Bob")) == "Bob went out and won"
    assert Outcome(0, "resign").describe(("Ann", "Bob")) == "Bob resigned; Ann won"
    assert Outcome(None, "repetition").describe() == "drawn by repetition"
    assert Outcome(None, "turn-limit").describe() == "drawn at the turn limit"
    assert Outcome(None, "agreed-draw").describe() == "drawn by agreement"
    assert draw.describe() == "drawn: both would go out"


@pytest.mark.parametrize(
    ("winner", "reason", "message"),
    [
        (0, "both-out", "reason 'both-out' does not fit winner 0"),
        (None, "out", "reason 'out' does not fit winner None"),
        (2, "out", "winner must be 0, 1 or None, not 2"),
        (0, "timeout", "unknown end-of-deal reason 'timeout'"),
    ],
)
def test_outcome_validation(winner: int | None, reason: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        Outcome(winner, reason)
    assert str(info.value) == message
