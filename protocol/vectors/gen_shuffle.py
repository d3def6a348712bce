"""Generate ``shuffle.json``, the test vectors of ``protocol/shuffle.md``.

Deterministic: the seeds are fixed below, so running it twice writes the same
bytes.  Usage (from the repository root)::

    python protocol/vectors/gen_shuffle.py          # rewrite shuffle.json
    python protocol/vectors/gen_shuffle.py --check  # exit 1 if shuffle.json differs

The vectors come from :mod:`p2ptrumps.shuffle`; ``tests/test_shuffle.py`` checks
them against that module and against an independent re-implementation.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from p2ptrumps.cards import SUIT_LETTERS, Card, card_list
from p2ptrumps.rules import RuleSet
from p2ptrumps.shuffle import deal_hands, first_dealer, shuffled_pack, stream_bytes

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "shuffle.json"

#: (name, seed bytes).  The last two exercise a long seed and the u16 length prefix.
SEEDS: list[tuple[str, bytes]] = [
    ("zero-32", bytes(32)),
    ("one-byte", b"\x2a"),
    ("random-looking", hashlib.sha256(b"p2ptrumps shuffle vector").digest()),
    ("ascii-text", b"svoi kozyri"),
    ("long-300", bytes(range(256)) + bytes(range(44))),
]

#: (pack size, trumps as suit letters of seat 0 and seat 1, dealer)
DEALS: list[tuple[int, str, int]] = [
    (36, "HS", 0),
    (36, "CD", 1),
    (52, "SH", 1),
    (32, "DC", 0),
]


def hand_codes(mask: int) -> list[str]:
    return [Card(c).code for c in card_list(mask)]


def vector(name: str, seed: bytes) -> dict[str, Any]:
    deals = []
    for pack_size, trumps_text, dealer in DEALS:
        trumps = (SUIT_LETTERS.index(trumps_text[0]), SUIT_LETTERS.index(trumps_text[1]))
        for sixes in (True, False):
            rules = RuleSet(pack_size=pack_size, sixes=sixes)
            hands = deal_hands(seed, rules, trumps, dealer)
            deals.append(
                {
                    "pack_size": pack_size,
                    "sixes": sixes,
                    "trumps": list(trumps_text),
                    "dealer": dealer,
                    "hands": [hand_codes(hands[0]), hand_codes(hands[1])],
                }
            )
    return {
        "name": name,
        "seed": seed.hex(),
        "stream_64": stream_bytes(seed, 64).hex(),
        "packs": {str(n): [Card(c).code for c in shuffled_pack(seed, n)] for n in (32, 36, 52)},
        "deals": deals,
        "first_dealer": first_dealer(seed),
    }


def build() -> dict[str, Any]:
    """The whole vector file as a JSON-ready dict."""
    return {
        "spec": "protocol/shuffle.md",
        "shuffle_tag": "p2ptrumps/shuffle/v1",
        "first_dealer_tag": "p2ptrumps/first-dealer/v1",
        "vectors": [vector(name, seed) for name, seed in SEEDS],
    }


def render() -> str:
    """The file text: JSON with 1-space indent, each list of strings on one line, a final newline."""
    text = json.dumps(build(), indent=1)
    return _STRING_LIST.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text) + "\n"


_STRING_LIST = re.compile(r'\[\s+("[^"\n]*"(?:,\s+"[^"\n]*")*)\s+\]')


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} is out of date: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
