"""Labelled positions for fitting the search's evaluation: positions of AI games and how they ended.

Game ``i`` is dealt from the seed ``eval-data/<i>`` (protocol/shuffle.md) with own trumps ``(i % 4,
(i % 4 + 1 + i % 3) % 4)`` and dealer ``i % 2`` under the default rules, and played by two searching
levels with node budgets drawn per game from ``--nodes`` (the level and budget of each seat drawn from
the game's seed, so that the games differ in strength and style).  Every position with a choice of
moves is written, one a line: its position text (protocol/position.md), then the result for the seat
to move there: ``1`` it went on to win, ``0.5`` the deal was drawn, ``0`` it lost; then the exact outcome
when the solver settles the position within ``--solve-nodes`` nodes (``win`` / ``draw`` / ``loss``,
else ``-``).

``bench/fit_eval.py`` fits the evaluation's weights on such a file.

Usage: python bench/eval_data.py --out FILE [--games N] [--first I] [--nodes 30000,300000] [--solve-nodes N]
"""

from __future__ import annotations

import argparse
import hashlib
import random
from pathlib import Path

from p2ptrumps.ai import choose_move, position_seed
from p2ptrumps.ai.engine import solve
from p2ptrumps.notation import position_text
from p2ptrumps.rules import RuleSet
from p2ptrumps.shuffle import start_position


def game(i: int, budgets: list[int], solve_nodes: int) -> list[str]:
    """The labelled lines of game ``i``."""
    seed = f"eval-data/{i}".encode()
    pick = random.Random(int.from_bytes(hashlib.sha256(seed).digest()[:8], "big"))
    levels = [pick.choice(("normal", "strong")) for _ in range(2)]
    nodes = [pick.choice(budgets) for _ in range(2)]
    t0 = i % 4
    p = start_position(seed, RuleSet(), (t0, (t0 + 1 + i % 3) % 4), i % 2)
    seen: list[tuple[str, int, str]] = []
    while p.outcome is None:
        if len(p.legal_moves()) > 1:
            exact = "-"
            if solve_nodes:
                s = solve(p, None, max_nodes=solve_nodes)
                exact = s.outcome if s.solved else "-"
            seen.append((position_text(p), p.to_move, exact))
        rng = random.Random(position_seed(p, i))
        p.push(choose_move(p, levels[p.to_move], 1.0, rng, nodes[p.to_move]))
    winner = p.outcome.winner
    out = []
    for text, seat, exact in seen:
        result = "0.5" if winner is None else "1" if winner == seat else "0"
        out.append(f"{text} {result} {exact}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--nodes", default="30000,100000,300000", help="node budgets per move to draw from")
    ap.add_argument("--solve-nodes", type=int, default=100_000, help="the solver's budget per position (0: none)")
    args = ap.parse_args()
    budgets = [int(x) for x in args.nodes.split(",")]
    with args.out.open("a", encoding="utf-8") as f:
        for i in range(args.first, args.first + args.games):
            lines = game(i, budgets, args.solve_nodes)
            f.write("".join(line + "\n" for line in lines))
            f.flush()
            print(f"game {i}: {len(lines)} positions", flush=True)


if __name__ == "__main__":
    main()
