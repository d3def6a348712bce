"""How big a position the exact solver settles within 0.1 s, 1 s and 10 s, by cards in hands.

Positions come from seeded AI-against-AI deals (``strong`` against ``normal`` at
small node budgets, both seatings), every position with a choice, grouped by the
number of cards in both hands (the rest of the 36-card pack is on the pile, and
is picked up again in play: a position with few cards in hands is not small).
Up to ``--per-size`` positions of each size are solved (the position as its text
gives it, no history) with the largest budget; a position counts as solved
within a budget when the solver finished in that time.

With ``--positions FILE`` the positions are read from FILE (one position text a
line, as :func:`~p2ptrumps.notation.position_text` writes it), or, when FILE does
not exist yet, generated as above and written there: the same positions can
then be solved by two checkouts (``PYTHONPATH=other/checkout``), whose AIs would
have played other deals.  ``bench/solver_reach_positions.txt`` holds the
positions the figures in ``p2ptrumps/ai/engine.py`` were measured on.

With ``--nodes N1,N2,..`` the budgets are positions visited instead of
seconds (the solver is deterministic in nodes: the table is the same on any
machine and under any load).  The compiled solver visits about 5 million
positions per second of one core of a 2-core VM, so
``--nodes 500000,5000000,50000000`` is the table for 0.1 / 1 / 10 s there
without its load.

With ``--prove`` each position is also solved once per budget by ``solve(...,
prove=True)`` (what ``p2ptrumps solve`` runs: the solver has
:data:`~p2ptrumps.ai.engine.SOLVER_SHARE` of the budget, the df-pn prover the
rest), and a second table gives per budget what that settles: the exact value
(``exact``) and the outcome -- an exact value, or a win or a loss proven by the
prover with only a bound on its length (``outcome``).  ``--share S`` sets the
solver's share for that run.  With ``--every`` the solver is asked for every
move's value too (``solve(..., every=True)``, as ``p2ptrumps solve`` does): a
position counts as settled when all its moves are, or (outcome) when a move is
proven to win or the prover proved the outcome.

With ``--threads N`` (time budgets only) the solver runs on N threads sharing one
table (:mod:`p2ptrumps.ai.parallel`; default 1): a position counts as solved
within a budget when the threads finished in that wall time.  Other work on the
machine takes cores from them: give the load (``uptime``) with the figures, and
compare ``--threads 1`` and ``--threads 2`` back to back.  With ``--nodes`` the
solver runs on one thread (a node budget is deterministic there only).

With ``--tt-bits B`` the solver's table has ``2**B`` entries (default
:data:`~p2ptrumps.ai.engine.SOLVE_TT_BITS`, as ``solve`` and ``analyse`` use); with
``--detail`` each position's line (size, outcome, nodes, CPU seconds, text) is
printed too, so two runs can be compared position by position.

Usage: python bench/solver_reach.py [--deals N] [--per-size K] [--budgets 0.1,1,10] [--sizes 2-24]
       [--positions FILE] [--nodes N1,N2,..] [--tt-bits B] [--detail] [--prove [--share S]] [--every]
       [--threads N]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict
from pathlib import Path

from p2ptrumps.ai import choose_move, engine
from p2ptrumps.ai.engine import COMPILED, SOLVE_TT_BITS, WIN_BOUND, solve
from p2ptrumps.notation import parse_position, position_text
from p2ptrumps.rules import Position, RuleSet
from p2ptrumps.shuffle import start_position


def positions(deals: int) -> dict[int, list[Position]]:
    by_size: dict[int, list[Position]] = defaultdict(list)
    for i in range(deals):
        rng = random.Random(i)
        levels = [("strong", 100_000), ("normal", 5_000)]
        if i % 2:
            levels.reverse()
        t0 = i % 4
        p = start_position(f"reach/{i}".encode(), RuleSet(), (t0, (t0 + 1 + i % 3) % 4), i % 2)
        while p.outcome is None:
            if len(p.legal_moves()) > 1:
                by_size[p.hands[0].bit_count() + p.hands[1].bit_count()].append(parse_position(position_text(p)))
            level, nodes = levels[p.to_move]
            p.push(choose_move(p, level, 1.0, rng, nodes))
    return by_size


def load_or_make(path: Path | None, deals: int) -> dict[int, list[Position]]:
    """The positions by cards in hands: read from ``path`` if it exists, else generated from ``deals``
    deals (and written to ``path`` when given)."""
    if path is not None and path.exists():
        by_size: dict[int, list[Position]] = defaultdict(list)
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                p = parse_position(line)
                by_size[p.hands[0].bit_count() + p.hands[1].bit_count()].append(p)
        return by_size
    by_size = positions(deals)
    if path is not None:
        path.write_text("".join(position_text(p) + "\n" for size in sorted(by_size) for p in by_size[size]),
                        encoding="utf-8")
    return by_size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--per-size", type=int, default=10)
    ap.add_argument("--budgets", default="0.1,1,10")
    ap.add_argument("--sizes", default="2-24")
    ap.add_argument("--positions", type=Path, default=None)
    ap.add_argument("--nodes", default=None, help="node budgets instead of --budgets")
    ap.add_argument("--tt-bits", type=int, default=SOLVE_TT_BITS, help="the solver's table: 2**B entries")
    ap.add_argument("--detail", action="store_true", help="also a line per position")
    ap.add_argument("--prove", action="store_true", help="also solve with the prover (a second table)")
    ap.add_argument("--share", type=float, default=engine.SOLVER_SHARE, help="with --prove: the solver's share")
    ap.add_argument("--every", action="store_true", help="solve every move too (as p2ptrumps solve)")
    ap.add_argument("--threads", type=int, default=1, help="with time budgets: solver threads sharing one table")
    args = ap.parse_args()
    threads = 1 if args.nodes else args.threads
    engine.SOLVER_SHARE = args.share
    nodes = [int(b) for b in args.nodes.split(",")] if args.nodes else None
    budgets = [float(b) for b in (args.nodes or args.budgets).split(",")]
    unit = " nodes" if nodes else " s"
    low, high = (int(x) for x in args.sizes.split("-"))
    by_size = load_or_make(args.positions, args.deals)
    rng = random.Random(3)
    core = "compiled core" if COMPILED else "pure-Python core"
    print(f"positions from {args.deals} deals, up to {args.per_size} per size, "
          f"solved within {budgets[-1]:g}{unit} ({core}, {threads} thread{'s' if threads > 1 else ''}"
          f"{', every move' if args.every else ''})")
    heads = " ".join(f"{'<= ' + format(b, 'g') + unit:>10}" for b in budgets)
    print(f"{'cards in hands':>14} {'positions':>9} {heads}")
    totals = [0] * (len(budgets) + 1)
    # with --prove, per size: (positions, [exact per budget], [outcome per budget])
    split: list[tuple[int, int, list[int], list[int]]] = []
    for size in range(low, high + 1):
        ps = by_size.get(size, [])
        if len(ps) > args.per_size:
            ps = rng.sample(ps, args.per_size)
        if not ps:
            continue
        solved = [0] * len(budgets)
        exact = [0] * len(budgets)
        outcome = [0] * len(budgets)
        for p in ps:
            cpu = time.process_time()
            s = (solve(p, None, max_nodes=nodes[-1], tt_bits=args.tt_bits, every=args.every) if nodes
                 else solve(p, budgets[-1], tt_bits=args.tt_bits, every=args.every, threads=threads))
            if args.detail:
                print(f"  {size} {s.outcome} {s.nodes} {time.process_time() - cpu:.2f} {position_text(p)}", flush=True)
            for j, b in enumerate(budgets):
                solved[j] += s.solved and (s.nodes if nodes else s.elapsed_s) <= b
                if args.prove:
                    t = (solve(p, None, max_nodes=int(b), tt_bits=args.tt_bits, prove=True, every=args.every) if nodes
                         else solve(p, b, tt_bits=args.tt_bits, prove=True, every=args.every, threads=threads))
                    exact[j] += t.solved
                    outcome[j] += t.outcome != "unknown" or any(v > WIN_BOUND for _, v in t.moves)
                    if args.detail:
                        print(f"    prove {b:g}: {t.outcome} exact={t.solved} bound={t.bound} {t.nodes}", flush=True)
        totals[0] += len(ps)
        for j in range(len(budgets)):
            totals[j + 1] += solved[j]
        split.append((size, len(ps), exact, outcome))
        cells = " ".join(f"{n:>4} {100 * n / len(ps):4.0f}%" for n in solved)
        print(f"{size:>14} {len(ps):>9} {cells}", flush=True)
    cells = " ".join(f"{n:>4} {100 * n / totals[0]:4.0f}%" for n in totals[1:])
    print(f"{'all':>14} {totals[0]:>9} {cells}")
    if args.prove:
        print(f"\nwith the prover (solver share {args.share:g}): exact value / outcome settled within the budget")
        heads = " ".join(f"{'<= ' + format(b, 'g') + unit:>21}" for b in budgets)
        print(f"{'cards in hands':>14} {'positions':>9} {heads}")
        rows = [*split, (0, sum(r[1] for r in split), [sum(r[2][j] for r in split) for j in range(len(budgets))],
                         [sum(r[3][j] for r in split) for j in range(len(budgets))])]
        big = [r for r in split if r[0] >= 28]
        if big:
            rows.append((-28, sum(r[1] for r in big), [sum(r[2][j] for r in big) for j in range(len(budgets))],
                         [sum(r[3][j] for r in big) for j in range(len(budgets))]))
        for size, n, ex, oc in rows:
            label = "all" if size == 0 else ">= 28" if size < 0 else str(size)
            cells = " ".join(f"{e:>4} {100 * e / n:3.0f}% /{o:>4} {100 * o / n:3.0f}%"
                             for e, o in zip(ex, oc, strict=True))
            print(f"{label:>14} {n:>9} {cells}")


if __name__ == "__main__":
    main()
