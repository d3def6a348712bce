"""Generate the sample game records of ``protocol/record.md``.

Deterministic (fixed seeds, fixed move choices, a fixed start time), so running
it twice writes the same bytes.  Usage (from the repository root)::

    python protocol/vectors/gen_record.py          # rewrite the record-*.json files
    python protocol/vectors/gen_record.py --check  # exit 1 if a file differs

Files:

* ``record-sample.json``: a finished three-deal match.  Deal 1 is played to a
  win ("first" policy: each side plays the first move of
  ``Position.legal_moves()``), deal 2 to a draw by repetition ("last" policy:
  the last move of the list), and in deal 3 seat 0 resigns after four turns.
  The dealers follow RULES.md §3: the first from the first seed, then the
  loser, then after the draw the other player.
* ``record-unfinished.json``: a two-deal match abandoned during deal 2
  (``result`` null, ``finished`` false).
* ``record-position.json``: a one-deal match set up from a position text
  (``start``, record.md §3; ``p2ptrumps play --position``): seat 0 throws a
  forced win with its first move (``p2ptrumps analyse`` says so), then both
  sides play the first legal move to the end.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from p2ptrumps.notation import parse_position
from p2ptrumps.record import DealRecord, MatchRecord, PlayerInfo
from p2ptrumps.rules import Move, Outcome, RuleSet, next_dealer
from p2ptrumps.shuffle import first_dealer, start_position

HERE = Path(__file__).resolve().parent
STARTED = "2025-01-01T12:00:00Z"
TRUMPS = (2, 3)  # seat 0 hearts, seat 1 spades
PLAYERS = (PlayerInfo("Ann", "human"), PlayerInfo("greedy AI", "ai:greedy"))


def seed_of(deal_number: int) -> bytes:
    return hashlib.sha256(b"p2ptrumps record sample deal %d" % deal_number).digest()


def play(record: MatchRecord, number: int, dealer: int, policy: str, max_turns: int | None) -> DealRecord:
    """Append deal ``number`` to ``record``, played by ``policy`` ("first"/"last") for at most
    ``max_turns`` turns (None: to the end)."""
    seed = seed_of(number)
    pos = start_position(seed, record.rules, record.trumps, dealer)
    deal = DealRecord(number=number, dealer=dealer, seed=seed, hands=(pos.hands[0], pos.hands[1]))
    for _ in range(max_turns if max_turns is not None else record.rules.turn_limit):
        if pos.is_over:
            break
        moves = pos.legal_moves()
        move = moves[0] if policy == "first" else moves[-1]
        pos.push(move)
        deal.moves.append(move)
    deal.outcome = pos.outcome
    record.deals.append(deal)
    return deal


def sample() -> MatchRecord:
    rec = MatchRecord(rules=RuleSet(deals=3), trumps=TRUMPS, players=PLAYERS, started=STARTED)
    dealer = first_dealer(seed_of(1))
    d1 = play(rec, 1, dealer, "first", None)
    assert d1.outcome is not None and d1.outcome.reason == "out"
    dealer = next_dealer(dealer, d1.outcome)
    d2 = play(rec, 2, dealer, "last", None)
    assert d2.outcome is not None and d2.outcome.reason == "repetition"
    dealer = next_dealer(dealer, d2.outcome)
    d3 = play(rec, 3, dealer, "first", 4)
    assert d3.outcome is None
    d3.outcome = Outcome(1, "resign")  # seat 0 resigns
    assert rec.finished
    return rec


def unfinished() -> MatchRecord:
    rec = MatchRecord(rules=RuleSet(deals=2, voluntary_pickup=True), trumps=(0, 1), players=PLAYERS, started=STARTED)
    dealer = first_dealer(seed_of(1))
    d1 = play(rec, 1, dealer, "first", None)
    assert d1.outcome is not None
    play(rec, 2, next_dealer(dealer, d1.outcome), "first", 7)
    assert not rec.finished
    return rec


#: The start of ``record-position.json``: seat 0 (♠) wins by force with 10♠ then 7♣ (RULES.md
#: example positions; ``p2ptrumps solve`` gives every move's value), and loses after 10♠ then K♦.
POSITION_START = "v1/SH/7C9DKDTS/QD/8C/0/0/36.sixes.must.r3.t1000"


def from_position() -> MatchRecord:
    start = parse_position(POSITION_START)
    rec = MatchRecord(rules=RuleSet(), trumps=start.trumps, players=PLAYERS, started=STARTED)
    deal = DealRecord(number=1, dealer=1 - start.to_move, seed=b"", hands=(start.hands[0], start.hands[1]),
                      start=POSITION_START)
    pos = start.copy()
    for move in [Move.parse("TS/KD"), *([None] * 40)]:
        if pos.is_over:
            break
        move = move or pos.legal_moves()[0]
        pos.push(move)
        deal.moves.append(move)
    deal.outcome = pos.outcome
    rec.deals.append(deal)
    assert rec.finished
    return rec


FILES = {"record-sample.json": sample, "record-unfinished.json": unfinished, "record-position.json": from_position}


def main(argv: list[str]) -> int:
    stale = []
    for name, make in FILES.items():
        record = make()
        record.check()  # every deal replays and the deals fit together (record.md §6)
        text = record.dumps()
        path = HERE / name
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)}: run {Path(__file__).name}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
