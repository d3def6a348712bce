"""Engine speed: random-playout turns per second through Position and through the AI's Lean state.

A *decision* is one turn of a random playout: list the legal moves, pick one at
random, apply it.  Both engines play the same deals with the same kind of
random choices; the figure is decisions per second of wall time (one core).

Usage: python bench/engine_speed.py [--deals N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from p2ptrumps.ai.lean import NONE, PICKUP, Lean, bits
from p2ptrumps.rules import RuleSet
from p2ptrumps.shuffle import start_position


def bench_position(deals: int, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    starts = [start_position(seed.to_bytes(4, "big") + i.to_bytes(4, "big"), RuleSet(), (i % 4, (i + 1) % 4), i % 2)
              for i in range(deals)]
    t0 = time.perf_counter()
    turns = 0
    for p in starts:
        while p.outcome is None:
            p.push_unchecked(rng.choice(p.legal_moves()))
            turns += 1
    return turns, time.perf_counter() - t0


def bench_lean(deals: int, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    starts = [Lean(start_position(seed.to_bytes(4, "big") + i.to_bytes(4, "big"), RuleSet(), (i % 4, (i + 1) % 4),
                                  i % 2)) for i in range(deals)]
    t0 = time.perf_counter()
    turns = 0
    for s in starts:
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
    starts = [Lean(start_position(seed.to_bytes(4, "big") + i.to_bytes(4, "big"), RuleSet(), (i % 4, (i + 1) % 4),
                                  i % 2)) for i in range(deals)]
    t0 = time.perf_counter()
    turns = 0
    for s in starts:
        while s.result is None:
            s.make(random_move(s, rng))
            turns += 1
    return turns, time.perf_counter() - t0


def bench_lean_make_unmake(deals: int, seed: int) -> tuple[int, float]:
    """Search-like use: at every turn make and unmake every legal move, then play a random one."""
    rng = random.Random(seed)
    starts = [Lean(start_position(seed.to_bytes(4, "big") + i.to_bytes(4, "big"), RuleSet(), (i % 4, (i + 1) % 4),
                                  i % 2)) for i in range(deals)]
    t0 = time.perf_counter()
    made = 0
    for s in starts:
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
    n_pos, t_pos = bench_position(args.deals, args.seed)
    n_lean, t_lean = bench_lean(args.deals, args.seed)
    n_c, t_c = bench_lean_counted(args.deals, args.seed)
    n_mu, t_mu = bench_lean_make_unmake(max(1, args.deals // 10), args.seed)
    print(f"random playouts of {args.deals} deals (36 cards, default rules)")
    print(f"  Position: {n_pos} turns in {t_pos:.2f} s = {n_pos / t_pos:,.0f} decisions/s "
          f"({n_pos / args.deals:.1f} turns per deal)")
    print(f"  Lean:     {n_lean} turns in {t_lean:.2f} s = {n_lean / t_lean:,.0f} decisions/s "
          f"({n_lean / args.deals:.1f} turns per deal)")
    print(f"  ratio Lean / Position: {(n_lean / t_lean) / (n_pos / t_pos):.2f}")
    print(f"  Lean, move drawn by counting (no move list): {n_c} turns in {t_c:.2f} s = {n_c / t_c:,.0f} decisions/s")
    print(f"  Lean make+unmake of every legal move: {n_mu / t_mu:,.0f} per second")


if __name__ == "__main__":
    main()
