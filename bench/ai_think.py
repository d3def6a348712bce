"""AI think time per move: median and p95 (seconds) for each level and a few budgets.

Plays AI-against-itself deals (seeded) and times every call of
``choose_move``, forced moves included, as the arena and the UI see them.
The last two columns count the moves that took more than 1.1 times the budget
and give the p95 as a share of the budget (the target: at most 110 %).

Usage: python bench/ai_think.py [--deals N] [--budgets 0.1,0.5,1.0] [--levels normal,strong]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import time

from p2ptrumps.ai import choose_move
from p2ptrumps.ai.core import DEFAULT_TT_BITS
from p2ptrumps.ai.engine import COMPILED
from p2ptrumps.commands.arena import percentile_95
from p2ptrumps.rules import RuleSet
from p2ptrumps.shuffle import start_position


def think_times(level: str, budget_s: float, deals: int) -> list[float]:
    rng = random.Random(1)
    times = []
    for i in range(deals):
        p = start_position(b"think" + i.to_bytes(4, "big"), RuleSet(), (i % 4, (i + 2) % 4), i % 2)
        while p.outcome is None:
            t0 = time.perf_counter()
            move = choose_move(p, level, budget_s, rng)
            times.append(time.perf_counter() - t0)
            p.push(move)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--budgets", default="0.1,0.5,1.0")
    ap.add_argument("--levels", default="normal,strong")
    args = ap.parse_args()
    rows = [("random", 0.0), ("greedy", 0.0)]
    rows += [(level, float(b)) for level in args.levels.split(",") for b in args.budgets.split(",")]
    print(f"{'level':8} {'budget s':>8} {'moves':>6} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} "
          f"{'>1.1 budget':>11} {'p95/budget':>10}")
    for level, budget in rows:
        times = think_times(level, budget, args.deals)
        over = sum(t > 1.1 * budget for t in times) if budget else 0
        share = f"{100 * percentile_95(times) / budget:9.0f}%" if budget else f"{'-':>10}"
        print(f"{level:8} {budget:8.2f} {len(times):6d} {statistics.median(times) * 1000:10.2f} "
              f"{percentile_95(times) * 1000:8.2f} {max(times) * 1000:8.2f} {over:11d} {share}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of this process: {peak:.0f} MiB (the strong level's table: "
          f"{16 * 2**DEFAULT_TT_BITS / 2**20:.0f} MiB, {'compiled' if COMPILED else 'pure-Python'} core)")


if __name__ == "__main__":
    main()
