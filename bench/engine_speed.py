"""Engine speed: random-playout decisions per second through Position and through the search core's state.

A *decision* is one turn of a random playout: choose a uniformly random legal
move for the seat to move and apply it.  All rows play the same 36-card deals
(default rules) from the start to the end; the figure is decisions per second of
wall time on one core.

Rows:

* ``Position``: the reference engine, ``legal_moves()`` then ``push_unchecked``
  (every rule checked: going out, the both-out draw, the repetition count of
  RULES.md §7, the turn limit);
* ``core state``: the pure-Python core's state (:class:`p2ptrumps.ai.core._Core`, the
  one layout the searching levels use): ``ordered(False)`` then ``make``, going
  out and the both-out draw checked (repetition is the search's business: it
  looks at the path, so a playout ends at the turn limit);
* ``make+unmake``: search-like use, every legal move made and taken back at
  each turn (per second of make+unmake pairs, not decisions).

Usage: python bench/engine_speed.py [--deals N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from p2ptrumps.ai import core
from p2ptrumps.ai.engine import spec_of
from p2ptrumps.rules import Position, RuleSet
from p2ptrumps.shuffle import start_position


def starts(deals: int, seed: int) -> list[Position]:
    return [start_position(seed.to_bytes(4, "big") + i.to_bytes(4, "big"), RuleSet(), (i % 4, (i + 1) % 4), i % 2)
            for i in range(deals)]


def states(deals: int, seed: int) -> list[core._Core]:
    return [core._Core(spec_of(p), core.SOLVE, 0, 0.0, 10) for p in starts(deals, seed)]


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


def bench_core(deals: int, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    ss = states(deals, seed)
    limit = RuleSet().turn_limit
    t0 = time.perf_counter()
    turns = 0
    for s in ss:
        for _ in range(limit):
            turns += 1
            if s.make(rng.choice(s.ordered(False)[0])) != core.GOES_ON:
                break
    return turns, time.perf_counter() - t0


def bench_core_make_unmake(deals: int, seed: int) -> tuple[int, float]:
    """Search-like use: at every turn make and unmake every legal move, then play a random one."""
    rng = random.Random(seed)
    ss = states(deals, seed)
    limit = RuleSet().turn_limit
    t0 = time.perf_counter()
    made = 0
    for s in ss:
        for _ in range(limit):
            moves = s.ordered(False)[0]
            for m in moves:
                s.make(m)
                s.unmake()
            made += len(moves)
            if s.make(rng.choice(moves)) != core.GOES_ON:
                break
    return made, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"random playouts of {args.deals} deals (36 cards, default rules); "
          "decision = choose a uniformly random legal move and apply it")
    base = 0.0
    for name, fn in (("Position", bench_position), ("core state", bench_core)):
        n, t = fn(args.deals, args.seed)
        rate = n / t
        base = base or rate
        print(f"  {name:13} {n:8d} turns in {t:6.2f} s = {rate:10,.0f} decisions/s  "
              f"(x{rate / base:4.1f}; {n / args.deals:.1f} turns per deal)")
    n_mu, t_mu = bench_core_make_unmake(max(1, args.deals // 10), args.seed)
    print(f"  make+unmake of every legal move: {n_mu / t_mu:,.0f} pairs per second")


if __name__ == "__main__":
    main()
