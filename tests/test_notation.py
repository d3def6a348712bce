"""The position text (protocol/position.md): the vectors, round trips on played deals, errors."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from p2ptrumps.ai import choose_move
from p2ptrumps.cards import SUIT_LETTERS, Card, card_list, mask_of, parse_cards
from p2ptrumps.notation import PositionTextError, parse_position, position_text
from p2ptrumps.rules import Outcome, RuleSet
from p2ptrumps.shuffle import start_position
from tests.conftest import load_script

VECTORS_DIR = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
DATA: dict[str, Any] = json.loads((VECTORS_DIR / "position.json").read_text(encoding="utf-8"))


def codes(cards: list[int]) -> list[str]:
    return [Card(c).code for c in cards]


@pytest.mark.parametrize("vector", DATA["valid"], ids=lambda v: v["text"].strip()[:40])
def test_valid_vectors(vector: dict[str, Any]) -> None:
    p = parse_position(vector["text"])
    assert [SUIT_LETTERS[t] for t in p.trumps] == vector["trumps"]
    assert [codes(card_list(h)) for h in p.hands] == vector["hands"]
    assert codes(list(p.pile)) == vector["pile"]
    assert (p.to_move, p.turn) == (vector["to_move"], vector["turn"])
    assert p.rules == RuleSet(**vector["rules"])
    result = vector["result"]
    assert p.outcome == (None if result is None else Outcome(result["winner"], result["reason"]))
    assert position_text(p) == vector["canonical"]
    assert position_text(parse_position(vector["canonical"])) == vector["canonical"]
    assert p.repetitions() == 1


@pytest.mark.parametrize("vector", DATA["invalid"], ids=lambda v: v["field"] + ":" + v["text"][:30])
def test_invalid_vectors(vector: dict[str, Any]) -> None:
    with pytest.raises(PositionTextError) as exc:
        parse_position(vector["text"])
    assert str(exc.value).startswith(vector["field"])


def test_the_example_of_the_spec_by_hand() -> None:
    p = parse_position("v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000")
    assert p.trumps == (3, 2)
    assert p.hands == [mask_of(parse_cards("6S 7S KS")), mask_of(parse_cards("6H 9D"))]
    assert p.pile == tuple(int(c) for c in parse_cards("9C TC"))
    assert (p.to_move, p.turn, p.outcome, p.rules) == (0, 12, None, RuleSet())
    assert sorted(m.code for m in p.legal_moves()) == ["6S/7S", "6S/KS", "7S/6S", "7S/KS", "KS/6S", "KS/7S"]


def test_the_vector_file_is_what_the_generator_writes() -> None:
    gen = load_script(VECTORS_DIR / "gen_position.py")
    assert gen.render() == (VECTORS_DIR / "position.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("rules", [RuleSet(), RuleSet(pack_size=52, sixes=False, voluntary_pickup=True,
                                                       repetition=2, turn_limit=40)], ids=["default", "variant"])
def test_round_trip_over_played_deals(rules: RuleSet) -> None:
    rng = random.Random(11)
    texts = 0
    for i in range(6):
        p = start_position(bytes([i, 1]), rules, (i % 4, (i + 1) % 4), i % 2)
        while True:
            text = position_text(p)
            q = parse_position(text)
            assert (q.trumps, q.hands, q.pile, q.to_move, q.turn) == (p.trumps, p.hands, p.pile, p.to_move, p.turn)
            assert q.rules == RuleSet(**{**rules.to_dict(), "deals": 1})
            if p.outcome is None or p.outcome.reason != "repetition":
                assert q.outcome == p.outcome
            assert position_text(q) == text
            texts += 1
            if p.outcome is not None:
                break
            p.push(choose_move(p, "random", 0, rng))
    assert texts > 150


def test_a_parsed_position_plays_on() -> None:
    p = parse_position("v1/SH/6S7SKS/9D6H/9CTC/0/12")
    p.push(p.parse_move("KS 6S"))
    assert position_text(p) == "v1/SH/7S/9D6H/9CTCKS6S/1/13/36.sixes.must.r3.t1000"


def test_errors_quote_the_field() -> None:
    with pytest.raises(PositionTextError, match=r"hand of seat 0 '6S10S': write the ten as T"):
        parse_position("v1/SH/6S10S/9D6H/9CTC/0/12")
    with pytest.raises(PositionTextError, match=r"pile '9C7S': 7S appears twice in the position"):
        parse_position("v1/SH/6S7SKS/9D6H/9C7S/0/12")
    with pytest.raises(PositionTextError, match="version 'v2': unsupported"):
        parse_position("v2/SH/6S7SKS/9D6H/9CTC/0/12")
    with pytest.raises(PositionTextError, match="must be text"):
        parse_position(12)  # type: ignore[arg-type]


def test_a_turn_of_too_many_digits_is_said_to_be_too_high() -> None:
    """A turn of 8 or more digits was refused as "expected a whole number without leading zeros",
    which it is; the fault is its size, said as for a turn over the limit."""
    with pytest.raises(PositionTextError, match=r"^turn '99999999999999999999': at most 1000$"):
        parse_position("v1/SH/6S7SKS/9D6H/9CTC/0/99999999999999999999/36.sixes.must.r3.t1000")
    with pytest.raises(PositionTextError, match=r"^turn '1001': at most 1000$"):
        parse_position("v1/SH/6S7SKS/9D6H/9CTC/0/1001/36.sixes.must.r3.t1000")
    with pytest.raises(PositionTextError, match=r"^turn '012': expected a whole number without leading zeros$"):
        parse_position("v1/SH/6S7SKS/9D6H/9CTC/0/012/36.sixes.must.r3.t1000")
