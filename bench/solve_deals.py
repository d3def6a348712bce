"""Solved deals: full deals solved from the first move by the exact solver, with a budget per deal.

Each deal ``i`` is dealt from the seed ``solve-deals/<i>`` (protocol/shuffle.md)
with own trumps ``(i % 4, (i % 4 + 1 + i % 3) % 4)`` and dealer ``i % 2`` under
the default rules of the chosen pack (RULES.md; 32 cards: the whole pack in the
two hands), and solved with :func:`p2ptrumps.ai.engine.solve` (``--limit``
seconds, or ``--nodes`` positions -- the same verdicts on any machine and under
any load, which a shared machine needs -- and a table of ``2**--tt-bits`` entries).  The elder (``1 - dealer``) moves
first, so the value is the elder's: a win, a draw or a loss against best play,
or unknown within the limit.

Writes a table, one line per deal: ``index seed pack trumps dealer result plies
nodes seconds`` (``result``: ``elder``, ``dealer`` or ``draw`` -- who wins against
best play -- or ``unknown``; ``plies`` to the end, ``-`` for a draw or unknown;
``seconds`` of CPU time of this process, which a loaded machine does not inflate),
then prints how many deals were settled, how long they took, and the shares won
by the elder, by the dealer and drawn.  ``bench/solved_deals.txt`` is the table
shipped with the package's sources.  With ``--prove`` the solver has half the
budget and the prover (df-pn) the rest (``solve(..., prove=True)``): a deal whose
win or loss only the prover settles has ``plies`` ``<=N`` (an upper bound).

Usage: python bench/solve_deals.py [--deals N] [--first I] [--pack 32] [--limit S | --nodes N] [--tt-bits B]
       [--out FILE] [--prove]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from p2ptrumps.ai.core import WIN_BOUND
from p2ptrumps.ai.engine import COMPILED, plies_of, solve
from p2ptrumps.rules import RuleSet
from p2ptrumps.shuffle import start_position


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--first", type=int, default=0, help="index of the first deal")
    ap.add_argument("--pack", type=int, default=32, choices=(32, 36, 52))
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per deal")
    ap.add_argument("--nodes", type=int, default=0, help="positions per deal instead of --limit")
    ap.add_argument("--tt-bits", type=int, default=24)
    ap.add_argument("--out", type=Path, default=None, help="append the table here (default: print it only)")
    ap.add_argument("--prove", action="store_true", help="the prover (df-pn) has the half the solver leaves")
    args = ap.parse_args()
    rules = RuleSet(pack_size=args.pack)
    core = "compiled core" if COMPILED else "pure-Python core"
    budget = f"{args.nodes} positions" if args.nodes else f"{args.limit:g} s"
    head = f"# {args.pack}-card deals solved from the first move, {budget} each ({core})"
    print(head)
    lines = []
    times: list[float] = []
    results: dict[str, int] = {"elder": 0, "dealer": 0, "draw": 0, "unknown": 0}
    for i in range(args.first, args.first + args.deals):
        seed = f"solve-deals/{i}".encode()
        t0 = i % 4
        trumps = (t0, (t0 + 1 + i % 3) % 4)
        dealer = i % 2
        p = start_position(seed, rules, trumps, dealer)
        cpu = time.process_time()
        s = solve(p, None if args.nodes else args.limit, args.nodes, tt_bits=args.tt_bits, prove=args.prove)
        cpu = time.process_time() - cpu
        value = s.value if s.solved else s.bound
        if not s.solved and not s.bound:
            result = "unknown"
        elif value > WIN_BOUND:
            result = "elder"
        elif value < -WIN_BOUND:
            result = "dealer"
        else:
            result = "draw"
        results[result] += 1
        if result != "unknown":
            times.append(cpu)
        plies = plies_of(value) if result != "unknown" else None
        shown = "-" if plies is None else str(plies) if s.solved else f"<={plies}"
        line = (f"{i} {seed.decode()} {args.pack} {trumps[0]},{trumps[1]} {dealer} {result} "
                f"{shown} {s.nodes} {cpu:.2f}")
        lines.append(line)
        print(line, flush=True)
    settled = args.deals - results["unknown"]
    print(f"settled {settled} of {args.deals} within {budget}", end="")
    if times:
        print(f" (CPU median {statistics.median(times):.2f} s, max {max(times):.2f} s)", end="")
    print()
    if settled:
        print("against best play: " + ", ".join(
            f"{k} {results[k]} ({100 * results[k] / settled:.0f}%)" for k in ("elder", "dealer", "draw")))
    if args.out is not None:
        with args.out.open("a", encoding="utf-8") as f:
            if f.tell() == 0:
                f.write(head + "\n# index seed pack trumps dealer result plies nodes seconds\n")
            f.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()
