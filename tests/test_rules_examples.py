"""The ten worked examples of RULES.md §9, as exact legal-move sets and outcomes.

Each example is played from both seats ("you" = seat 0 and seat 1) so that the
engine cannot depend on which seat is which.  Suits: C=0 D=1 H=2 S=3.
"""

from __future__ import annotations

import pytest

from p2ptrumps.cards import cards_in, mask_of, parse_cards, parse_suit
from p2ptrumps.rules import Move, Outcome, Position, RuleSet


def cards(text: str) -> int:
    return mask_of(parse_cards(text))


def codes_of(mask: int) -> set[str]:
    return {c.code for c in cards_in(mask)}


def setup(
    you: int,
    t: str,
    o: str,
    pile: str,
    hand: str,
    opp_hand: str,
    rules: RuleSet | None = None,
) -> Position:
    """A position with ``you`` to move: own trump ``t``, the opponent's ``o``."""
    trumps = [0, 0]
    trumps[you] = parse_suit(t)
    trumps[1 - you] = parse_suit(o)
    hands = [0, 0]
    hands[you] = cards(hand)
    hands[1 - you] = cards(opp_hand)
    return Position(
        rules=rules or RuleSet(),
        trumps=(trumps[0], trumps[1]),
        hands=hands,
        pile=tuple(parse_cards(pile)),
        to_move=you,
    )


def legal(pos: Position) -> set[str]:
    return {m.code for m in pos.legal_moves()}


SEATS = pytest.mark.parametrize("you", [0, 1])


@SEATS
def test_example_1_must_beat(you: int) -> None:
    pos = setup(you, "H", "S", "9S", "10S 7H KC", "AD 8D")
    assert legal(pos) == {"TS/7H", "TS/KC", "7H/TS", "7H/KC"}
    assert pos.beating_cards() == cards("10S 7H")
    assert not pos.can_pick_up()


@SEATS
def test_example_1_voluntary_pickup(you: int) -> None:
    pos = setup(you, "H", "S", "9S", "10S 7H KC", "AD 8D", RuleSet(voluntary_pickup=True))
    assert legal(pos) == {"TS/7H", "TS/KC", "7H/TS", "7H/KC", "pickup"}
    assert pos.pickup_size() == 1
    pos.push(Move.pick_up())
    assert pos.pile == ()
    assert codes_of(pos.hands[you]) == {"TS", "7H", "KC", "9S"}
    assert pos.to_move == 1 - you
    assert pos.outcome is None
    assert legal(pos) == {"AD", "8D"}  # the opponent leads


@SEATS
def test_example_1_after_beat(you: int) -> None:
    pos = setup(you, "H", "S", "9S", "10S 7H KC", "AD 8D")
    pos.push(Move.parse("TS/7H"))
    assert [c for c in pos.pile] == [int(c) for c in parse_cards("9S 10S 7H")]
    assert codes_of(pos.hands[you]) == {"KC"}
    assert pos.to_move == 1 - you
    # The opponent (trump ♠) faces 7♥: no heart above 7, no spade -> must pick up 3.
    assert legal(pos) == {"pickup"}


@SEATS
def test_example_2_top_is_own_trump(you: int) -> None:
    pos = setup(you, "H", "S", "9H", "AS 8H JH", "6C")
    assert legal(pos) == {"JH/AS", "JH/8H"}


@SEATS
def test_example_3_opponent_trump_is_ordinary(you: int) -> None:
    pos = setup(you, "H", "S", "QS", "KS 6H AD", "6C")
    assert legal(pos) == {"KS/6H", "KS/AD", "6H/KS", "6H/AD"}
    assert pos.beating_cards() == cards("KS 6H")


@SEATS
def test_example_4_pick_up_three(you: int) -> None:
    pos = setup(you, "H", "D", "8C JD 6H 10S 7C 9D", "6S", "AS KD 7H")
    assert legal(pos) == {"pickup"}
    assert pos.pickup_size() == 3
    pos.push(Move.pick_up())
    assert pos.pile == tuple(parse_cards("8C JD 6H"))
    assert codes_of(pos.hands[you]) == {"6S", "TS", "7C", "9D"}
    assert pos.to_move == 1 - you
    assert pos.top == parse_cards("6H")[0]
    # The opponent (trump ♦) faces 6♥: 7♥ (higher heart) and K♦ (own trump) beat it.
    assert legal(pos) == {"7H/AS", "7H/KD", "KD/AS", "KD/7H"}


@SEATS
def test_example_5_pick_up_five(you: int) -> None:
    pos = setup(you, "D", "H", "8C JD 6H 10S 7C 9D", "6S", "AS KC 7S")
    assert legal(pos) == {"pickup"}
    assert pos.pickup_size() == 5
    pos.push(Move.pick_up())
    assert pos.pile == tuple(parse_cards("8C"))
    assert codes_of(pos.hands[you]) == {"6S", "JD", "6H", "TS", "7C", "9D"}
    assert pos.to_move == 1 - you
    # The opponent (trump ♥) faces 8♣: only K♣ (a higher club) beats it.
    assert legal(pos) == {"KC/AS", "KC/7S"}


@SEATS
def test_example_5_must_beat_with_higher_trump(you: int) -> None:
    pos = setup(you, "D", "H", "8C JD 6H 10S 7C 9D", "6S 10D 8D AH", "AS KC")
    assert legal(pos) == {"TD/6S", "TD/8D", "TD/AH"}


@SEATS
def test_example_6_own_trump_ace_takes_all(you: int) -> None:
    pos = setup(you, "D", "S", "7C 8C AD", "KD 6S", "QH 9H")
    assert legal(pos) == {"pickup"}
    assert pos.pickup_size() == 3
    pos.push(Move.pick_up())
    assert pos.pile == ()
    assert codes_of(pos.hands[you]) == {"KD", "6S", "7C", "8C", "AD"}
    assert pos.to_move == 1 - you
    assert legal(pos) == {"QH", "9H"}


@SEATS
@pytest.mark.parametrize(
    ("opp_hand", "outcome"),
    [
        ("AS", "draw"),
        ("AS 7D", "win"),
        ("QS", "win"),
        ("7H", "draw"),
    ],
)
def test_example_7_going_out_and_the_draw(you: int, opp_hand: str, outcome: str) -> None:
    pos = setup(you, "S", "H", "9S", "KS", opp_hand)
    assert legal(pos) == {"KS/"}
    pos.push(Move.parse("KS/"))
    assert pos.hands[you] == 0
    assert pos.pile == tuple(parse_cards("9S KS"))
    expected = Outcome(None, "both-out") if outcome == "draw" else Outcome(you, "out")
    assert pos.outcome == expected
    assert pos.legal_moves() == []


@SEATS
@pytest.mark.parametrize(("opp_hand", "outcome"), [("7D", "draw"), ("7S", "win")])
def test_example_8_second_card_is_the_top(you: int, opp_hand: str, outcome: str) -> None:
    pos = setup(you, "C", "D", "10C", "JC 6D", opp_hand)
    assert legal(pos) == {"JC/6D"}  # 6♦ does not beat the own-trump 10♣
    pos.push(Move.parse("JC/6D"))
    assert pos.top == parse_cards("6D")[0]
    assert pos.hands[you] == 0
    expected = Outcome(None, "both-out") if outcome == "draw" else Outcome(you, "out")
    assert pos.outcome == expected


@SEATS
@pytest.mark.parametrize(
    ("opp_hand", "outcome"),
    [
        ("10C", "draw"),  # a higher club beats the led 9♣
        ("6H", "draw"),  # the opponent's own trump (♥) beats it
        ("8C", "win"),  # lower club
        ("6S", "win"),  # my trump is ordinary for the opponent
        ("10C 6H", "win"),  # two cards: cannot go out at once
    ],
)
def test_example_9_lead_the_last_card(you: int, opp_hand: str, outcome: str) -> None:
    pos = setup(you, "S", "H", "", "9C", opp_hand)
    assert legal(pos) == {"9C"}
    pos.push(Move.parse("9C"))
    expected = Outcome(None, "both-out") if outcome == "draw" else Outcome(you, "out")
    assert pos.outcome == expected


@SEATS
def test_example_10_small_pile_taken_whole(you: int) -> None:
    pos = setup(you, "H", "S", "8C KD", "9C 10S", "AH 7D")
    assert legal(pos) == {"pickup"}
    assert pos.pickup_size() == 2
    pos.push(Move.pick_up())
    assert pos.pile == ()
    assert codes_of(pos.hands[you]) == {"9C", "TS", "8C", "KD"}
    assert pos.to_move == 1 - you
    assert legal(pos) == {"AH", "7D"}
