"""The shuffle and the deal against protocol/shuffle.md and its vectors, byte for byte."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from p2ptrumps.cards import SUIT_LETTERS, Card, card_index, card_list, count
from p2ptrumps.rules import RuleSet
from p2ptrumps.shuffle import (
    FIRST_DEALER_TAG,
    SHUFFLE_TAG,
    ByteStream,
    deal_hands,
    first_dealer,
    shuffled_pack,
    start_position,
    stream_bytes,
)
from tests.conftest import load_script

VECTORS_DIR = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
DATA: dict[str, Any] = json.loads((VECTORS_DIR / "shuffle.json").read_text(encoding="utf-8"))
VECTORS: list[dict[str, Any]] = DATA["vectors"]
IDS = [v["name"] for v in VECTORS]


# ----- an independent implementation, written from protocol/shuffle.md only -----------


def spec_stream(seed: bytes) -> Iterator[bytes]:
    """Yield the stream one 32-byte block at a time (shuffle.md §2); at most 2**16 blocks."""
    prefix = b"p2ptrumps/shuffle/v1" + len(seed).to_bytes(2, "big") + seed
    for i in range(2**16):
        yield hashlib.sha256(prefix + i.to_bytes(8, "big")).digest()


class SpecReader:
    def __init__(self, seed: bytes) -> None:
        self.blocks = spec_stream(seed)
        self.buf = b""

    def take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self.buf += next(self.blocks)
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def below(self, n: int) -> int:
        limit = 2**32 - 2**32 % n
        for _ in range(1000):
            x = int.from_bytes(self.take(4), "big")
            if x < limit:
                return x % n
        raise AssertionError("1000 rejections in a row")


def spec_pack(seed: bytes, size: int) -> list[int]:
    low = {32: 7, 36: 6, 52: 2}[size]
    p = [s * 13 + r - 2 for s in range(4) for r in range(low, 15)]
    reader = SpecReader(seed)
    for i in range(size - 1, 0, -1):
        j = reader.below(i + 1)
        p[i], p[j] = p[j], p[i]
    return p


def spec_deal(seed: bytes, size: int, sixes: bool, trumps: tuple[int, int], dealer: int) -> list[set[int]]:
    hands: list[set[int]] = [set(), set()]
    for k, c in enumerate(spec_pack(seed, size)):
        hands[1 - dealer if k % 2 == 0 else dealer].add(c)
    if sixes:
        for s in (0, 1):
            six = trumps[s] * 13 + 4
            if six in hands[1 - s]:
                hands[1 - s].remove(six)
                hands[s].add(six)
    return hands


def codes(cards: list[int]) -> list[str]:
    return [Card(c).code for c in cards]


# ----- the vectors -----------------------------------------------------------------------


def test_vector_file_is_what_the_generator_writes() -> None:
    gen = load_script(VECTORS_DIR / "gen_shuffle.py")
    assert gen.render() == (VECTORS_DIR / "shuffle.json").read_text(encoding="utf-8")


def test_vector_file_covers_the_brief() -> None:
    seeds = {v["name"]: bytes.fromhex(v["seed"]) for v in VECTORS}
    assert seeds["zero-32"] == bytes(32)
    assert len(seeds["one-byte"]) == 1
    assert len(seeds["long-300"]) == 300
    assert DATA["shuffle_tag"].encode() == SHUFFLE_TAG
    assert DATA["first_dealer_tag"].encode() == FIRST_DEALER_TAG
    # The sixes rule moves at least one six somewhere in the vectors, and both dealers occur.
    moved = 0
    for v in VECTORS:
        deals = v["deals"]
        for on, off in zip(deals[::2], deals[1::2], strict=True):
            assert (on["sixes"], off["sixes"]) == (True, False)
            if on["hands"] != off["hands"]:
                moved += 1
    assert moved >= 3
    assert {v["first_dealer"] for v in VECTORS} == {0, 1}


def test_known_first_bytes() -> None:
    # Pinned here too, so that a regenerated vector file cannot silently move the stream.
    assert stream_bytes(bytes(32), 8).hex() == "f37749d3e821f723"
    assert VECTORS[0]["stream_64"].startswith("f37749d3e821f723")


@pytest.mark.parametrize("v", VECTORS, ids=IDS)
def test_stream(v: dict[str, Any]) -> None:
    seed = bytes.fromhex(v["seed"])
    assert stream_bytes(seed, 64).hex() == v["stream_64"]
    reader = SpecReader(seed)
    assert reader.take(64).hex() == v["stream_64"]
    # Reading in odd-sized pieces gives the same bytes.
    s = ByteStream(seed)
    assert (s.read(5) + s.read(0) + s.read(30) + s.read(29)).hex() == v["stream_64"]


@pytest.mark.parametrize("v", VECTORS, ids=IDS)
@pytest.mark.parametrize("size", [32, 36, 52])
def test_shuffled_pack(v: dict[str, Any], size: int) -> None:
    seed = bytes.fromhex(v["seed"])
    expected = v["packs"][str(size)]
    assert codes(shuffled_pack(seed, size)) == expected
    assert codes(spec_pack(seed, size)) == expected
    assert len(set(expected)) == size


@pytest.mark.parametrize("v", VECTORS, ids=IDS)
def test_deals(v: dict[str, Any]) -> None:
    seed = bytes.fromhex(v["seed"])
    for d in v["deals"]:
        trumps = (SUIT_LETTERS.index(d["trumps"][0]), SUIT_LETTERS.index(d["trumps"][1]))
        rules = RuleSet(pack_size=d["pack_size"], sixes=d["sixes"])
        hands = deal_hands(seed, rules, trumps, d["dealer"])
        assert [codes(card_list(h)) for h in hands] == d["hands"]
        spec = spec_deal(seed, d["pack_size"], d["sixes"], trumps, d["dealer"])
        assert [codes(sorted(h)) for h in spec] == d["hands"]
        assert hands[0] & hands[1] == 0
        assert hands[0] | hands[1] == rules.pack


@pytest.mark.parametrize("v", VECTORS, ids=IDS)
def test_first_dealer(v: dict[str, Any]) -> None:
    seed = bytes.fromhex(v["seed"])
    assert first_dealer(seed) == v["first_dealer"]
    assert hashlib.sha256(b"p2ptrumps/first-dealer/v1" + seed).digest()[0] & 1 == v["first_dealer"]


# ----- the rules of the deal ------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1])
def test_alternate_dealing_elder_first(dealer: int) -> None:
    seed = b"alternate"
    pack = shuffled_pack(seed, 36)
    hands = deal_hands(seed, RuleSet(sixes=False), (2, 3), dealer)
    elder = 1 - dealer
    assert hands[elder] == sum(1 << c for c in pack[0::2])
    assert hands[dealer] == sum(1 << c for c in pack[1::2])
    assert (count(hands[0]), count(hands[1])) == (18, 18)


def test_sixes_rule_gives_each_player_the_six_of_their_trump() -> None:
    moved_sizes = set()
    for n in range(40):
        seed = n.to_bytes(2, "big")
        for trumps in ((0, 1), (2, 3), (3, 0)):
            for size in (36, 52):
                on = deal_hands(seed, RuleSet(pack_size=size), trumps, n % 2)
                off = deal_hands(seed, RuleSet(pack_size=size, sixes=False), trumps, n % 2)
                for seat in (0, 1):
                    six = 1 << card_index(6, trumps[seat])
                    assert on[seat] & six
                    assert not on[1 - seat] & six
                    # Nothing else moves.
                    assert on[seat] & ~six == off[seat] & ~six & ~(1 << card_index(6, trumps[1 - seat]))
                moved_sizes.add((count(on[0]), count(on[1])))
    # Hands start unequal when a six moves (RULES.md §3): 17/19 with 36 cards, and 18/18 when none or both move.
    assert {(17, 19), (18, 18), (19, 17)} <= moved_sizes


def test_sixes_rule_is_a_no_op_with_32_cards() -> None:
    seed = b"thirty-two"
    on = deal_hands(seed, RuleSet(pack_size=32), (0, 1), 0)
    off = deal_hands(seed, RuleSet(pack_size=32, sixes=False), (0, 1), 0)
    assert on == off
    assert (count(on[0]), count(on[1])) == (16, 16)


def test_start_position() -> None:
    seed = bytes(32)
    pos = start_position(seed, RuleSet(), (2, 3), dealer=0)
    assert pos.hands == list(deal_hands(seed, RuleSet(), (2, 3), 0))
    assert (pos.to_move, pos.pile, pos.turn) == (1, (), 0)


# ----- the unbiased draw ------------------------------------------------------------------


class FakeStream(ByteStream):
    """A ByteStream that returns the given bytes instead of the DRBG's."""

    def __init__(self, data: bytes) -> None:
        super().__init__(b"x")
        self._data = data

    def read(self, n: int) -> bytes:
        out, self._data = self._data[:n], self._data[n:]
        assert len(out) == n, "the fake stream ran dry"
        return out


def test_below_rejects_above_the_largest_multiple() -> None:
    # n = 3: limit = 2**32 - 1, so 0xffffffff is rejected and the next word is used.
    s = FakeStream(bytes.fromhex("ffffffff" "00000007"))
    assert s.below(3) == 7 % 3
    s = FakeStream(bytes.fromhex("fffffffe"))
    assert s.below(3) == 0xFFFFFFFE % 3
    # n = 52: 2**32 % 52 = 48, so the 48 highest words are rejected.
    s = FakeStream((2**32 - 48).to_bytes(4, "big") + (2**32 - 1).to_bytes(4, "big") + (2**32 - 49).to_bytes(4, "big"))
    assert s.below(52) == (2**32 - 49) % 52
    s = FakeStream(bytes.fromhex("12345678"))
    assert s.below(1) == 0
    s = FakeStream(bytes.fromhex("deadbeef"))
    assert s.below(2**32) == 0xDEADBEEF


@pytest.mark.parametrize("n", [0, -1, 2**32 + 1])
def test_below_range(n: int) -> None:
    with pytest.raises(ValueError, match=r"^n out of range$"):
        ByteStream(b"x").below(n)


@pytest.mark.parametrize("seed", [b"", bytes(65536)])
def test_seed_length(seed: bytes) -> None:
    with pytest.raises(ValueError, match=r"^seed must be 1\.\.65535 bytes$"):
        ByteStream(seed)


def test_bad_dealer_and_trumps() -> None:
    with pytest.raises(ValueError, match=r"^dealer must be 0 or 1, not 2$"):
        deal_hands(b"x", RuleSet(), (0, 1), 2)
    with pytest.raises(ValueError, match=r"^the two trumps must differ$"):
        deal_hands(b"x", RuleSet(), (1, 1), 0)
    with pytest.raises(ValueError, match=r"^trumps must be two suits 0\.\.3, not \(0, 7\)$"):
        deal_hands(b"x", RuleSet(), (0, 7), 0)
    with pytest.raises(ValueError, match=r"^trumps must be two suits 0\.\.3, not \(0, 1, 2\)$"):
        deal_hands(b"x", RuleSet(), (0, 1, 2), 0)  # type: ignore[arg-type]
