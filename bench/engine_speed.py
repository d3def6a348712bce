"""Engine speed: random-playout decisions per second through Position and through the AI's Lean state.

A *decision* is one turn of a random playout: choose a uniformly random legal
move for the seat to move and apply it, with every rule checked on the way
(going out and the both-out draw, the repetition count of RULES.md §7, the
turn limit).  All rows play the same 36-card deals (default rules) from the
start to the end; the figure is decisions per second of wall time on one core.

Rows:

* ``Position``: the reference engine, ``legal_moves()`` then ``push_unchecked``;
* ``Lean list``: ``Lean.moves()`` (the list of every legal move) then ``make``;
* ``Lean count``: the move drawn by counting (no list) then ``make`` (undoable);
* ``Lean playout``: :func:`~p2ptrumps.ai.lean.random_playout`, the whole playout
  in one loop (no undo information);
* ``make+unmake``: search-like use, every legal move made and taken back at
  each turn (per second of make+unmake pairs, not decisions).

Usage: python bench/engine_speed.py [--deals N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from p2ptrumps.ai.lean import NONE, PICKUP, Lean, bits, random_playout
from p2ptrumps.rules import Position, RuleSet
from p2ptrumps.shuffle import start_position


def starts(deals: int, seed: int) -> list[Position]:
    return [start_position(seed.to_bytes(4, "big") + i.to_bytes(4, "big"), RuleSet(), (i % 4, (i + 1) % 4), i % 2)
            for i in range(deals)]


def bench_position(deals: int, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    positions = starts(deals, seed)
    t0 = time.perf_counter()
    turns = 0
    for p in positions:
        while p.outcome is None:
            p.push_unchecked(rng.choice(p.legal_moves()))
            turns += 1
    return turns, time.perf_counter() - t0


def bench_lean(deals: int, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    states = [Lean(p) for p in starts(deals, seed)]
    t0 = time.perf_counter()
    turns = 0
    for s in states:
        while s.result is None:
            s.make(rng.choice(s.moves()))
            turns += 1
    return turns, time.perf_counter() - t0


def random_move(s: Lean, rng: random.Random) -> int:
    """A uniformly random legal move int, drawn by counting the moves instead of listing them."""
    p = s.to_move
    hand = s.hands[p]
    pile = s.pile
    if not pile:
        return rng.choice(bits(hand))
    beaters = hand & s.beaters[p][pile[-1]]
    n = hand.bit_count()
    per = n - 1 if n > 1 else 1
    beats = beaters.bit_count() * per
    k = rng.randrange(beats + (1 if not beaters or s.voluntary else 0))
    if k == beats:
        return PICKUP
    bi, si = divmod(k, per)
    b = bits(beaters)[bi]
    if n == 1:
        return b | NONE << 6
    return b | bits(hand ^ (1 << b))[si] << 6


def bench_lean_counted(deals: int, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    states = [Lean(p) for p in starts(deals, seed)]
    t0 = time.perf_counter()
    turns = 0
    for s in states:
        while s.result is None:
            s.make(random_move(s, rng))
            turns += 1
    return turns, time.perf_counter() - t0


def bench_playout(deals: int, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    states = [Lean(p) for p in starts(deals, seed)]
    t0 = time.perf_counter()
    turns = 0
    for s in states:
        turns += random_playout(s, rng)
    return turns, time.perf_counter() - t0


def bench_lean_make_unmake(deals: int, seed: int) -> tuple[int, float]:
    """Search-like use: at every turn make and unmake every legal move, then play a random one."""
    rng = random.Random(seed)
    states = [Lean(p) for p in starts(deals, seed)]
    t0 = time.perf_counter()
    made = 0
    for s in states:
        while s.result is None:
            moves = s.moves()
            for m in moves:
                s.make(m)
                s.unmake()
            made += len(moves)
            s.make(rng.choice(moves))
    return made, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"random playouts of {args.deals} deals (36 cards, default rules); "
          "decision = choose a uniformly random legal move and apply it")
    base = 0.0
    for name, fn in (("Position", bench_position), ("Lean list", bench_lean), ("Lean count", bench_lean_counted),
                     ("Lean playout", bench_playout)):
        n, t = fn(args.deals, args.seed)
        rate = n / t
        base = base or rate
        print(f"  {name:13} {n:8d} turns in {t:6.2f} s = {rate:10,.0f} decisions/s  "
              f"(x{rate / base:4.1f}; {n / args.deals:.1f} turns per deal)")
    n_mu, t_mu = bench_lean_make_unmake(max(1, args.deals // 10), args.seed)
    print(f"  make+unmake of every legal move: {n_mu / t_mu:,.0f} pairs per second")


if __name__ == "__main__":
    main()
