"""A sample of real positions for the solver's reach: positions met in games between the AI levels.

Game ``i`` is dealt from the seed ``reach-sample/<i>`` (protocol/shuffle.md) with own trumps
``(i % 4, (i % 4 + 1 + i % 3) % 4)`` and dealer ``i % 2`` under the default rules, and played by
``strong`` against ``normal`` (``strong`` in seat ``i % 2``), both with ``--nodes`` positions per move
(the same games on any machine).  From each game at most one position of each size (cards in both
hands) is kept, drawn among the game's positions of that size with a choice of moves (seeded), so the
positions of one size come from different games.  Games are played until every size of ``--sizes``
has ``--per-size`` positions or ``--games`` games were played.

The positions are written one a line as position texts (protocol/position.md, without their
history: a repetition draws only within the search), in size order; ``bench/reach_sample.txt`` is
the sample the solver's reach figures of the README and ``bench/solver_reach.py --positions`` are
measured on.

Usage: python bench/reach_sample.py [--games N] [--per-size K] [--sizes 6-36] [--nodes N] [--out FILE]
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from pathlib import Path

from p2ptrumps.ai import choose_move, position_seed
from p2ptrumps.notation import position_text
from p2ptrumps.rules import RuleSet
from p2ptrumps.shuffle import start_position


def game_positions(i: int, nodes: int) -> dict[int, list[str]]:
    """The position texts of game ``i`` with a choice of moves, by cards in hands."""
    t0 = i % 4
    p = start_position(f"reach-sample/{i}".encode(), RuleSet(), (t0, (t0 + 1 + i % 3) % 4), i % 2)
    levels = ("strong", "normal") if i % 2 == 0 else ("normal", "strong")
    out: dict[int, list[str]] = defaultdict(list)
    while p.outcome is None:
        if len(p.legal_moves()) > 1:
            out[p.hands[0].bit_count() + p.hands[1].bit_count()].append(position_text(p))
        rng = random.Random(position_seed(p, i))
        p.push(choose_move(p, levels[p.to_move], 1.0, rng, nodes))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="games at most")
    ap.add_argument("--per-size", type=int, default=40)
    ap.add_argument("--sizes", default="6-36", help="cards in both hands, A-B")
    ap.add_argument("--nodes", type=int, default=250_000, help="positions per move of both levels")
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("reach_sample.txt"))
    args = ap.parse_args()
    low, high = (int(x) for x in args.sizes.split("-"))
    sample: dict[int, list[str]] = defaultdict(list)
    rng = random.Random(2)
    played = 0
    for i in range(args.games):
        played += 1
        for size, texts in game_positions(i, args.nodes).items():
            if low <= size <= high and len(sample[size]) < args.per_size:
                sample[size].append(rng.choice(texts))
        short = [s for s in range(low, high + 1) if len(sample[s]) < args.per_size]
        print(f"game {i}: sizes short of {args.per_size}: {short}", flush=True)
        if not short:
            break
    args.out.write_text("".join(t + "\n" for s in sorted(sample) for t in sample[s]), encoding="utf-8")
    print(f"{sum(len(v) for v in sample.values())} positions from {played} games written to {args.out}")
    print("positions by size: " + ", ".join(f"{s}: {len(sample[s])}" for s in sorted(sample)))


if __name__ == "__main__":
    main()
