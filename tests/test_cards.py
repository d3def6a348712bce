"""Cards, their names and card sets (RULES.md §1, §5)."""

from __future__ import annotations

import pytest

from p2ptrumps.cards import (
    BEATERS,
    FULL_MASK,
    SUIT_MASKS,
    Card,
    CardParseError,
    beats,
    card_index,
    card_list,
    cards_in,
    codes,
    count,
    mask_of,
    pack_mask,
    parse_cards,
    parse_suit,
    rank_of,
    suit_label,
    suit_of,
)

TEN_OF_HEARTS = 2 * 13 + (10 - 2)  # 34


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("10H", TEN_OF_HEARTS),
        ("TH", TEN_OF_HEARTS),
        ("th", TEN_OF_HEARTS),
        ("10♥", TEN_OF_HEARTS),
        ("10h", TEN_OF_HEARTS),
        ("tH", TEN_OF_HEARTS),
        ("T♥", TEN_OF_HEARTS),
        ("10♡", TEN_OF_HEARTS),
        ("  10H \n", TEN_OF_HEARTS),
        ("QS", 3 * 13 + 10),
        ("q♠", 3 * 13 + 10),
        ("6c", 0 * 13 + 4),
        ("6♣", 4),
        ("AD", 1 * 13 + 12),
        ("2C", 0),
        ("AS", 51),
        ("KD", 1 * 13 + 11),
        ("JH", 2 * 13 + 9),
    ],
)
def test_parse_every_spelling(text: str, value: int) -> None:
    card = Card.parse(text)
    assert card == value
    assert isinstance(card, Card)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "'' is not a card: expected rank then suit, like 10H, TH or 10♥"),
        ("H", "'H' is not a card: expected rank then suit, like 10H, TH or 10♥"),
        (" 7 ", "' 7 ' is not a card: the suit is missing (rank then suit, like 7H or 7♥)"),
        ("10", "'10' is not a card: the suit is missing (rank then suit, like 10H or 10♥)"),
        ("q", "'q' is not a card: the suit is missing (rank then suit, like QH or Q♥)"),
        ("♥q", "'♥q' is not a card: write the rank then the suit, like Q♥"),
        ("8H9C", "'8H9C' is not a card: put a space between cards, like 8H 9C"),
        ("8h9c10c", "'8h9c10c' is not a card: put a space between cards, like 8h 9c 10c"),
        ("10X", "'10X' is not a card: 'X' is not a suit (use C D H S or ♣ ♦ ♥ ♠)"),
        ("ZZ", "'ZZ' is not a card: 'Z' is not a suit (use C D H S or ♣ ♦ ♥ ♠)"),
        ("♥10", "'♥10' is not a card: write the rank then the suit, like 10♥"),
        ("1H", "'1H' is not a card: '1' is not a rank (use 2-10, T, J, Q, K, A)"),
        ("11S", "'11S' is not a card: '11' is not a rank (use 2-10, T, J, Q, K, A)"),
        ("QQS", "'QQS' is not a card: 'QQ' is not a rank (use 2-10, T, J, Q, K, A)"),
        ("XS", "'XS' is not a card: 'X' is not a rank (use 2-10, T, J, Q, K, A)"),
    ],
)
def test_parse_garbage(text: str, message: str) -> None:
    with pytest.raises(CardParseError) as info:
        Card.parse(text)
    assert str(info.value) == message
    assert repr(text) in str(info.value)


def test_parse_error_is_value_error() -> None:
    assert issubclass(CardParseError, ValueError)


def test_code_round_trip_all_52() -> None:
    seen = set()
    for n in range(52):
        c = Card(n)
        assert Card.parse(c.code) == c
        assert Card.parse(c.label()) == c
        assert Card.parse(c.label(ascii_only=True)) == c
        assert Card.parse(c.code.lower()) == c
        assert Card.of(c.rank, c.suit) == c
        assert card_index(rank_of(n), suit_of(n)) == n
        seen.add(c.code)
    assert len(seen) == 52


def test_names() -> None:
    c = Card.parse("10♥")
    assert (c.rank, c.suit) == (10, 2)
    assert c.code == "TH"
    assert c.label() == "10♥"
    assert c.label(ascii_only=True) == "10H"
    assert str(c) == "TH"
    assert repr(c) == "Card.parse('TH')"
    assert c.mask == 1 << 34
    assert Card.parse("AS").label() == "A♠"
    assert [Card(n).code for n in (0, 12, 13, 25, 26, 38, 39, 51)] == ["2C", "AC", "2D", "AD", "2H", "AH", "2S", "AS"]


def test_card_range() -> None:
    with pytest.raises(ValueError, match=r"^card index 52 is outside 0\.\.51$"):
        Card(52)
    with pytest.raises(ValueError, match=r"^card index -1 is outside 0\.\.51$"):
        Card(-1)
    with pytest.raises(ValueError, match=r"^no card of rank 15 and suit 0$"):
        Card.of(15, 0)
    with pytest.raises(ValueError, match=r"^no card of rank 10 and suit 4$"):
        Card.of(10, 4)


@pytest.mark.parametrize(
    ("text", "suit"),
    [("C", 0), ("d", 1), ("♥", 2), ("♤", 3), ("hearts", 2), ("Spade", 3), (" clubs ", 0), ("DIAMONDS", 1)],
)
def test_parse_suit(text: str, suit: int) -> None:
    assert parse_suit(text) == suit


def test_parse_suit_garbage() -> None:
    with pytest.raises(CardParseError) as info:
        parse_suit("trumps")
    assert str(info.value) == "'trumps' is not a suit: use C D H S, ♣ ♦ ♥ ♠ or clubs/diamonds/hearts/spades"


def test_suit_label() -> None:
    assert [suit_label(s) for s in range(4)] == ["♣", "♦", "♥", "♠"]
    assert [suit_label(s, ascii_only=True) for s in range(4)] == ["C", "D", "H", "S"]


def test_card_sets() -> None:
    hand = parse_cards("10♠ 7H, kc")
    assert [c.code for c in hand] == ["TS", "7H", "KC"]
    m = mask_of(hand)
    assert m == (1 << 47) | (1 << 31) | (1 << 11)
    assert count(m) == 3
    assert card_list(m) == [11, 31, 47]
    assert [c.code for c in cards_in(m)] == ["KC", "7H", "TS"]
    assert codes(card_list(m)) == "KC 7H TS"
    assert list(cards_in(0)) == []
    with pytest.raises(CardParseError, match="'7X' is not a card"):
        parse_cards("7H 7X 8H")


@pytest.mark.parametrize(("size", "low"), [(32, 7), (36, 6), (52, 2)])
def test_pack_mask(size: int, low: int) -> None:
    m = pack_mask(size)
    assert count(m) == size
    assert {c.rank for c in cards_in(m)} == set(range(low, 15))
    assert all(count(m & SUIT_MASKS[s]) == size // 4 for s in range(4))
    assert m & ~FULL_MASK == 0


def test_pack_mask_bad_size() -> None:
    with pytest.raises(ValueError, match=r"^pack size 40 is not one of 32, 36, 52$"):
        pack_mask(40)


def _beats_by_the_table(card: int, top: int, trump: int) -> bool:
    """RULES.md §5 written out literally."""
    if suit_of(top) != trump:
        return (suit_of(card) == suit_of(top) and rank_of(card) > rank_of(top)) or suit_of(card) == trump
    return suit_of(card) == trump and rank_of(card) > rank_of(top)


def test_beaters_match_the_rule_table() -> None:
    for trump in range(4):
        for top in range(52):
            expected = mask_of(c for c in range(52) if _beats_by_the_table(c, top, trump))
            assert BEATERS[trump][top] == expected, (trump, Card(top).code)
            assert BEATERS[trump][top] >> top & 1 == 0  # a card never beats itself


@pytest.mark.parametrize(
    ("card", "top", "trump", "result"),
    [
        ("10S", "9S", "H", True),
        ("7H", "9S", "H", True),
        ("KC", "9S", "H", False),
        ("8H", "9H", "H", False),
        ("JH", "9H", "H", True),
        ("AS", "9H", "H", False),
        ("6H", "AS", "H", True),
        ("AS", "KS", "H", True),
        ("6D", "10C", "C", False),
    ],
)
def test_beats(card: str, top: str, trump: str, result: bool) -> None:
    assert beats(Card.parse(card), Card.parse(top), parse_suit(trump)) is result
