"""Is every move value the solver gives the value of the position it leads to?  A check of exact lengths.

For each position of ``--positions`` (default ``bench/solver_reach_positions.txt``)
the solver gives every legal move's exact value (:func:`p2ptrumps.ai.engine.solve`
with ``every``, as ``p2ptrumps solve`` does, within ``--nodes``); each move's
position is then solved afresh (within ``--child-nodes``), and the move's value
must be that value one ply on (a win in ``n`` plies for the opponent is a loss in
``n + 1`` for the mover).  Wins, losses and draws and their lengths are checked;
each disagreement is printed (position text, move, the value given, the value
wanted), then the count of move values compared, of disagreements, and the seconds.

Made to find the solver's lengths that rested on a depth too shallow (forced
moves use up no depth): 101 of 9,076 move values disagreed before that
fix, 0 of 9,311 after (``python bench/solver_consistency.py``).

Usage: python bench/solver_consistency.py [--positions FILE] [--nodes N] [--child-nodes N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from p2ptrumps.ai.core import WIN_BOUND
from p2ptrumps.ai.engine import solve
from p2ptrumps.notation import parse_position, position_text


def one_ply_on(value: int) -> int:
    """The mover's value of a move whose position has ``value`` for the opponent."""
    if value > WIN_BOUND:
        return -(value - 1)
    if value < -WIN_BOUND:
        return -(value + 1)
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=Path, default=Path(__file__).with_name("solver_reach_positions.txt"))
    ap.add_argument("--nodes", type=int, default=300_000, help="the solver's budget for every move of a position")
    ap.add_argument("--child-nodes", type=int, default=3_000_000, help="the budget for each move's position")
    args = ap.parse_args()
    start = time.perf_counter()
    compared = wrong = 0
    for line in args.positions.read_text(encoding="utf-8").split():
        p = parse_position(line)
        s = solve(p, None, max_nodes=args.nodes, every=True)
        if not s.solved:
            continue
        for move, value in s.moves:
            q = p.copy()
            q.push(move)
            if q.outcome is not None:
                continue
            after = solve(q, None, max_nodes=args.child_nodes)
            if not after.solved:
                continue
            compared += 1
            if one_ply_on(after.value) != value:
                wrong += 1
                print(f"disagrees: {position_text(p)} {move} gave {value}, wants {one_ply_on(after.value)}",
                      flush=True)
    print(f"{compared} move values compared, {wrong} disagree ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
