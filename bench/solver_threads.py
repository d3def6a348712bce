"""Time to solve on 1 thread and on N threads sharing one table, and whether both give the same answer.

For each position (a position text a line in ``--positions``, sampled as
``bench/solver_reach.py`` samples: ``--sizes A-B``, ``--per-size K``, seed 3),
the exact solver runs first on one thread within ``--budget`` seconds; a
position it solves in at least ``--min-s`` seconds (or does not solve, unless
``--solved-only``) is then solved on
``--threads N`` threads, and (``--repeat``) both again in the other order.
Printed per position: cards in hands, the wall seconds of each run, the ratio,
the nodes, and whether the answers agree (with ``--every``: every move's value,
the value and the best move; without: the value).  At the end: the sum of the
single-thread seconds over the sum of the N-thread seconds (the speedup on
these positions) and the positions whose answers differed (must be none).

The figures are wall seconds on a shared machine: give ``uptime`` with them.
Where other work holds the cores, the wall seconds say little about the threads;
the *work* ratio does not depend on the load: the nodes one thread needed over
the nodes the N threads visited together, times N -- the speedup when N cores
are free and each thread visits as many nodes a second as one alone (an upper
estimate: the threads share the memory bus and the table).

Usage: python bench/solver_threads.py [--positions FILE] [--sizes 2-36] [--per-size 4] [--budget 10]
       [--min-s 0.5] [--threads 2] [--every] [--repeat] [--solved-only] [--text POSITION ...]
"""

from __future__ import annotations

import argparse
import os
import random
from collections import defaultdict
from pathlib import Path

from p2ptrumps.ai.engine import COMPILED, SOLVE_TT_BITS, Solution, solve
from p2ptrumps.notation import parse_position, position_text
from p2ptrumps.rules import Position


def sample(path: Path, sizes: str, per_size: int) -> list[Position]:
    """Up to ``per_size`` positions of each size (cards in both hands) in ``sizes`` (``A-B``), as
    ``bench/solver_reach.py`` picks them (random.Random(3), in size order)."""
    by_size: dict[int, list[Position]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            p = parse_position(line)
            by_size[p.hands[0].bit_count() + p.hands[1].bit_count()].append(p)
    low, high = (int(x) for x in sizes.split("-"))
    rng = random.Random(3)
    out: list[Position] = []
    for size in range(low, high + 1):
        ps = by_size.get(size, [])
        if len(ps) > per_size:
            ps = rng.sample(ps, per_size)
        out.extend(ps)
    return out


def same(a: Solution, b: Solution, every: bool) -> bool:
    """Whether two finished solves agree (every move's value, value and best move; or the value)."""
    if every:
        return (a.value, a.move, a.moves) == (b.value, b.move, b.moves)
    return a.value == b.value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=Path, default=Path("bench/solver_reach_positions.txt"))
    ap.add_argument("--sizes", default="2-36")
    ap.add_argument("--per-size", type=int, default=4)
    ap.add_argument("--budget", type=float, default=10.0, help="seconds for each solve")
    ap.add_argument("--min-s", type=float, default=0.5, help="time only positions one thread needs this long for")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--every", action="store_true", help="every move's value (as p2ptrumps solve)")
    ap.add_argument("--repeat", action="store_true", help="both runs again, N threads first")
    ap.add_argument("--tt-bits", type=int, default=SOLVE_TT_BITS)
    ap.add_argument("--solved-only", action="store_true", help="skip what one thread did not solve")
    ap.add_argument("--text", nargs="*", default=None, help="these position texts instead of --positions")
    args = ap.parse_args()
    positions = ([parse_position(t) for t in args.text] if args.text
                 else sample(args.positions, args.sizes, args.per_size))
    print(f"{len(positions)} positions, budget {args.budget:g} s, 1 vs {args.threads} threads, "
          f"{'every move' if args.every else 'value only'}, compiled={COMPILED}, load {os.getloadavg()[0]:.2f}")
    print(f"{'cards':>5} {'1 thread s':>10} {f'{args.threads} threads s':>11} {'ratio':>6} {'nodes 1':>10} "
          f"{'nodes N':>10} {'work':>5} same position")
    t_one = t_many = 0.0
    n_one = n_many = 0
    timed = differ = only_many = 0

    def run(p: Position, threads: int) -> Solution:
        return solve(p, args.budget, every=args.every, tt_bits=args.tt_bits, threads=threads)

    for p in positions:
        size = p.hands[0].bit_count() + p.hands[1].bit_count()
        one = run(p, 1)
        if (one.solved and one.elapsed_s < args.min_s) or (args.solved_only and not one.solved):
            continue
        many = run(p, args.threads)
        rounds = [(one, many)]
        if args.repeat:
            many2 = run(p, args.threads)
            rounds.append((run(p, 1), many2))
        for a, b in rounds:
            agree = "-" if not (a.solved and b.solved) else "yes" if same(a, b, args.every) else "NO"
            ta = f"{a.elapsed_s:.2f}" if a.solved else f">{args.budget:g}"
            tb = f"{b.elapsed_s:.2f}" if b.solved else f">{args.budget:g}"
            ratio = f"{a.elapsed_s / b.elapsed_s:.2f}" if a.solved and b.solved else "-"
            work = f"{args.threads * a.nodes / b.nodes:.2f}" if a.solved and b.solved else "-"
            print(f"{size:>5} {ta:>10} {tb:>11} {ratio:>6} {a.nodes:>10} {b.nodes:>10} {work:>5} {agree:>4} "
                  f"{position_text(p)}", flush=True)
            if a.solved and b.solved:
                timed += 1
                t_one += a.elapsed_s
                t_many += b.elapsed_s
                n_one += a.nodes
                n_many += b.nodes
                differ += agree == "NO"
            only_many += b.solved and not a.solved
    if timed:
        print(f"solved by both: {timed} runs, {t_one:.2f} s on 1 thread, {t_many:.2f} s on {args.threads} "
              f"(speedup {t_one / t_many:.2f}, work ratio {args.threads * n_one / n_many:.2f}); "
              f"solved only by {args.threads} threads: {only_many}; "
              f"answers differing: {differ}; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
