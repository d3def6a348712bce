"""Strength by level and budget: ``arena`` scores of level pairs at node budgets, as a table.

Each row is ``p2ptrumps arena A B --nodes N --deals PAIRS --seed SEED --jobs J`` (duplicate deals,
A's score over deal pairs with its 95 % interval and the Elo difference; node budgets, so the same
games on any machine and under any load), run in this process.  ``--rows`` lists them as
``A:B:N`` separated by commas (``N`` in positions per move, ``k``/``M`` suffixes allowed).  To
measure another checkout (the levels before a change), run this script with
``PYTHONPATH=/that/checkout``: the table says which code it ran (the package's path).
``bench/level_strength.txt`` holds the tables of this repository's levels before and after the
fitted evaluation.

Usage: python bench/level_strength.py [--rows strong:normal:250k,...] [--pairs N] [--seed S] [--jobs J]
"""

from __future__ import annotations

import argparse
import time

import p2ptrumps
from p2ptrumps.ai.engine import COMPILED
from p2ptrumps.commands.arena import PairTask, run_pairs, summarize
from p2ptrumps.rules import RuleSet

DEFAULT_ROWS = ("strong:normal:100k,strong:normal:250k,strong:normal:1M,normal:greedy:250k,greedy:random:0,"
                "strong:greedy:250k")


def budget(text: str) -> int:
    """``250k`` -> 250000, ``1M`` -> 1000000, ``0`` -> 0."""
    scale = {"k": 1000, "M": 1_000_000}.get(text[-1:], 1)
    return int(text.rstrip("kM")) * scale


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default=DEFAULT_ROWS)
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    core = "compiled core" if COMPILED else "pure-Python core"
    print(f"# levels of {p2ptrumps.__file__.rsplit('/', 2)[0]} ({core}); {args.pairs} deal pairs a row, "
          f"seed {args.seed}")
    print(f"{'A':>8} {'B':>8} {'nodes':>9} {'pairs':>5} {'score A':>8} {'95% CI':>15} {'Elo':>6} "
          f"{'A ms/move':>10} {'B ms/move':>10}")
    for row in args.rows.split(","):
        a, b, n = row.split(":")
        nodes = budget(n)
        tasks = [PairTask(i, args.seed, a, b, 0.1, RuleSet(), None, nodes, nodes) for i in range(args.pairs)]
        t0 = time.perf_counter()
        s = summarize(a, b, run_pairs(tasks, args.jobs))
        elo = "inf" if abs(s.elo) == float("inf") else f"{s.elo:+.0f}"
        print(f"{a:>8} {b:>8} {nodes:>9} {s.pairs:>5} {s.score:8.3f} {s.ci_low:7.3f}..{s.ci_high:.3f} {elo:>6} "
              f"{s.think_a.mean_s * 1000:10.1f} {s.think_b.mean_s * 1000:10.1f}"
              f"   ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
