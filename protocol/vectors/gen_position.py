"""Generate ``position.json``, the test vectors of ``protocol/position.md``.

Deterministic: the texts are fixed below.  Usage (from the repository root)::

    python protocol/vectors/gen_position.py          # rewrite position.json
    python protocol/vectors/gen_position.py --check  # exit 1 if position.json differs

The decoded fields come from :mod:`p2ptrumps.notation`; ``tests/test_notation.py``
checks the file against that module, and checks the first vector (the example
of position.md) against values written out by hand.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from p2ptrumps.cards import SUIT_LETTERS, Card, card_list
from p2ptrumps.notation import PositionTextError, parse_position, position_text

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "position.json"

#: Valid texts: canonical ones, and others a reader must accept (case, spaces, no rules field, order).
VALID: list[str] = [
    "v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000",  # the example of position.md
    "v1/CD/6C8CQC6DTD/9H/-/1/0/36.sixes.must.r3.t1000",  # empty pile, seat 1 to lead
    "v1/DS/KS6D/AHQC/8CJD6HTS7C9D/0/31/36.nosixes.voluntary.r2.t200",  # RULES.md §9 example 4's pile
    "v1/HC/-/7D/9S8SKS/0/57/36.sixes.must.r3.t1000",  # seat 0 went out: 7♦ alone does not beat K♠ (trump ♣)
    "v1/HS/-/AS/9SKS/0/57/36.sixes.must.r3.t1000",  # seat 0 went out; A♠ alone beats K♠: drawn (RULES.md §7)
    "v1/CH/JC/7H8H/6D/0/1000/36.sixes.must.r3.t1000",  # the turn limit is reached: drawn
    "v1/SH/2C3CAS/2H/KD/1/5/52.nosixes.must.r0.t50",  # a 52-card pack, no repetition rule
    "v1/DC/7DAD/KC/8S/1/3/32.sixes.must.r3.t0",  # a 32-card pack, no turn limit
    "  v1/sh/ks7s6s/9d6h/9ctc/0/12/36.SIXES.MUST.R3.T1000  ",  # case, spaces, an unsorted hand
    "v1/SH/6S7SKS/9D6H/9CTC/0/12",  # no rules field: the default rules
    "v1/HC/-/7D/9S8SKS/0/30/36.sixes.must.r3.t30",  # seat 0 went out at the turn limit: out first
    "\tV1/SH/6S7SKS/9D6H/9CTC/0/12\r\n",  # an upper-case version, a tab and a line break around
    "v1/CD/6C8CQC6DTD/ \n 9H/-/1/\r\n  0/36.sixes.must.r3.t1000",  # broken into lines after a / (as a screen shows it)
]

#: Texts a reader must refuse, and the field it names.
INVALID: list[tuple[str, str]] = [
    ("x" * 401, "length"),
    ("", "version"),
    ("SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000", "version"),
    ("v2/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000", "version"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0", "fields"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000/x", "fields"),
    ("v1/SS/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000", "trumps"),
    ("v1/SX/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000", "trumps"),
    ("v1/S/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000", "trumps"),
    ("v1/SH/6S7SK/6H9D/9CTC/0/12/36.sixes.must.r3.t1000", "hand of seat 0"),
    ("v1/SH/6S10S/6H9D/9CTC/0/12/36.sixes.must.r3.t1000", "hand of seat 0"),
    ("v1/SH/6S7SKS/6H9D5D/9CTC/0/12/36.sixes.must.r3.t1000", "hand of seat 1"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0/12/32.sixes.must.r3.t1000", "hand of seat 0"),
    ("v1/SH/6S7SKS/6H9D/9C7S/0/12/36.sixes.must.r3.t1000", "pile"),
    ("v1/SH/6S7SKS/9D6H/9CTC9C/0/12/36.sixes.must.r3.t1000", "pile"),
    ("v1/SH/6S7SKS/6H9D//0/12/36.sixes.must.r3.t1000", "pile"),
    ("v1/SH/6S7SKS/9D6H/9CTC/2/12/36.sixes.must.r3.t1000", "seat to move"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0/012/36.sixes.must.r3.t1000", "turn"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0/1001/36.sixes.must.r3.t1000", "turn"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0/-1/36.sixes.must.r3.t1000", "turn"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0/12/40.sixes.must.r3.t1000", "rules"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r1.t1000", "rules"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r0.t0", "rules"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3", "rules"),
    ("v1/SH/-/-/9CTC/0/12/36.sixes.must.r3.t1000", "hands"),
    ("v1/SH/-/6H9D/9CTC/1/12/36.sixes.must.r3.t1000", "hands"),
    ("v1/SH/-/6H9D/-/0/12/36.sixes.must.r3.t1000", "hands"),
    ("v1/S\u2665/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000", "trumps"),  # a suit symbol, not a letter
    ("v1/SH/6S7SK\u2660/9D6H/9CTC/0/12/36.sixes.must.r3.t1000", "hand of seat 0"),
    ("v1/SH/6S7SKS/9D6H/9CTC/0/\uff11\uff12/36.sixes.must.r3.t1000", "turn"),  # full-width digits
    ("v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000\u00a0", "rules"),  # a no-break space is not stripped
]


def codes(cards: list[int]) -> list[str]:
    return [Card(c).code for c in cards]


def valid_vector(text: str) -> dict[str, Any]:
    p = parse_position(text)
    rules = p.rules.to_dict()
    del rules["deals"]
    result = None if p.outcome is None else {"winner": p.outcome.winner, "reason": p.outcome.reason}
    return {
        "text": text,
        "canonical": position_text(p),
        "trumps": [SUIT_LETTERS[t] for t in p.trumps],
        "hands": [codes(card_list(p.hands[0])), codes(card_list(p.hands[1]))],
        "pile": codes(list(p.pile)),
        "to_move": p.to_move,
        "turn": p.turn,
        "rules": rules,
        "result": result,
    }


def invalid_vector(text: str, field: str) -> dict[str, str]:
    try:
        parse_position(text)
    except PositionTextError as exc:
        if not str(exc).startswith(field):
            raise AssertionError(f"{text!r}: expected a fault in {field}, got: {exc}") from None
        return {"text": text, "field": field}
    raise AssertionError(f"{text!r} was accepted")


def build() -> dict[str, Any]:
    """The whole vector file as a JSON-ready dict."""
    return {
        "spec": "protocol/position.md",
        "valid": [valid_vector(t) for t in VALID],
        "invalid": [invalid_vector(t, f) for t, f in INVALID],
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
