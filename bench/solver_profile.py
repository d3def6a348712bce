"""Where the exact solver spends its nodes: per iteration depth, per proof test, and at the table.

The solver (:mod:`p2ptrumps.ai.core`, ``SOLVE``) deepens two null-window tests one
depth at a time -- "is it a win for the seat to move?" and "is it a loss?" --
until one succeeds or both fail on exact values (a draw).  This script runs the
pure-Python core (the reference; the compiled one visits the same nodes) with
counters around it and prints, for each position:

* a line per depth: the nodes of the win test and of the loss test at that depth
  (and of the search for the exact length once a test succeeded);
* the growth factor of the last iterations (nodes of depth d over depth d - 1):
  how much dearer one more ply of proof is;
* the nodes that ended before the table was asked (the reach bound, an immediate
  win, the horizon), the table probes and the share of them that found an entry,
  the nodes that generated their whole move list and the moves per such node.

Positions are position texts (``protocol/position.md``) on the command line, or
``--positions FILE`` (one a line, as ``bench/solver_reach_positions.txt``) with
``--sizes LO-HI`` (cards in both hands) and ``--per-size K``, sampled as
``bench/solver_reach.py`` samples them.  Node budget ``--nodes`` per position (the
same figures on any machine).

With ``--prove`` the prover (df-pn, ``PROVE``) is profiled instead: per question (a win,
then a loss for the seat to move) its result, the nodes, the expansions (calls of
``mid``) and children generated per expansion (each child is a node), how often an OR
node looked at more of its moves, the deepest ply, and the expansions per ply.

Usage: python bench/solver_profile.py [--nodes N] [--prove] [--positions FILE [--sizes LO-HI] [--per-size K]]
       [TEXT ...]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter, defaultdict
from pathlib import Path

from p2ptrumps.ai import core
from p2ptrumps.ai.core import INF, MAX_DEPTH, PROVE, SOLVE, WIN_BOUND
from p2ptrumps.ai.engine import SOLVE_TT_BITS, spec_of, verdict
from p2ptrumps.notation import PositionTextError, parse_position
from p2ptrumps.rules import Position


class Profiled(core._Core):
    """The pure-Python core with counters; ``iterations``: ``(depth, win-test nodes, loss-test nodes, exact-length
    nodes)`` per iteration of the root's :meth:`solve_here`."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.count: Counter[str] = Counter()
        self.iterations: list[tuple[int, int, int, int]] = []

    def solve_here(self, ply: int) -> int:
        """As :meth:`core._Core.solve_here`, counting the nodes of each test."""
        for depth in range(1, MAX_DEPTH + 1):
            n0 = self.nodes
            try:
                v = self.negamax(depth, WIN_BOUND - 1, WIN_BOUND, ply)
                n1 = self.nodes
                if v >= WIN_BOUND:
                    w = self.negamax(depth, WIN_BOUND - 1, INF, ply)
                    self.iterations.append((depth, n1 - n0, 0, self.nodes - n1))
                    return w if w >= WIN_BOUND else v
                not_win = not self.inexact
                v = self.negamax(depth, -WIN_BOUND, -WIN_BOUND + 1, ply)
                n2 = self.nodes
                if v <= -WIN_BOUND:
                    w = self.negamax(depth, -INF, -WIN_BOUND + 1, ply)
                    self.iterations.append((depth, n1 - n0, n2 - n1, self.nodes - n2))
                    return w if w <= -WIN_BOUND else v
                self.iterations.append((depth, n1 - n0, n2 - n1, 0))
                if not_win and not self.inexact:
                    return 0
            except core._Stop:
                self.iterations.append((depth, self.nodes - n0, -1, -1))  # the budget ran out in this iteration
                raise
        raise core._Stop

    def probe(self) -> tuple[int, int, int, int] | None:
        e = super().probe()
        self.count["probes"] += 1
        self.count["hits"] += e is not None
        return e

    def ordered(self, prune: bool) -> tuple[list[int], bool]:
        moves, cut = super().ordered(prune)
        self.count["expanded"] += 1
        self.count["moves"] += len(moves)
        return moves, cut


class ProfiledProver(core._Core):
    """The pure-Python core's prover with counters per question."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.count: Counter[str] = Counter()
        self.per_ply: Counter[int] = Counter()

    def mid(self, ply: int, thpn: int, thdn: int) -> tuple[int, int, int]:
        self.count["mid"] += 1
        self.per_ply[ply] += 1
        self.count["deepest"] = max(self.count["deepest"], ply)
        return super().mid(ply, thpn, thdn)

    def p_children(self, ply: int, moves: list[int]) -> list[list[int]]:
        self.count["children"] += len(moves)
        self.count["batches"] += 1
        return super().p_children(ply, moves)


def profile_prover(position: Position, nodes: int) -> str:
    """The prover's report of one position (lines end with a newline): the win question, then the loss
    question, each with half of ``nodes``."""
    size = position.hands[0].bit_count() + position.hands[1].bit_count()
    lines = [f"{size} cards in hands ({position.hands[position.to_move].bit_count()} to move), "
             f"{len(position.pile)} on the pile"]
    for question, seat in (("win", position.to_move), ("loss", 1 - position.to_move)):
        c = ProfiledProver(spec_of(position), PROVE, nodes // 2, 0.0, SOLVE_TT_BITS)
        try:
            length, _ = c.prove(seat)
            result = f"proven in at most {length} plies" if length else "not proven (disproven or too long)"
        except core._Stop:
            length, result = 0, "unknown when the budget ran out"
        k = c.count
        lines.append(f"  {question}: {result} after {c.nodes:,} nodes; {k['mid']:,} expansions, "
                     f"{k['children'] / max(1, k['mid']):.1f} children each, {k['batches'] - k['mid']:,} "
                     f"looks at more moves, deepest ply {k['deepest']}")
        lines.append("    expansions per ply: " + " ".join(f"{c.per_ply[i]}" for i in range(k["deepest"] + 1)))
        if length:
            break
    return "\n".join(lines) + "\n"


def profile(position: Position, nodes: int) -> str:
    """The report of one position (lines end with a newline)."""
    c = Profiled(spec_of(position), SOLVE, nodes, 0.0, SOLVE_TT_BITS)
    try:
        _, value, _ = c.root_solve(False)
        result = verdict(value)
    except core._Stop:
        result = "unknown"
    size = position.hands[0].bit_count() + position.hands[1].bit_count()
    lines = [f"{size} cards in hands ({position.hands[position.to_move].bit_count()} to move), "
             f"{len(position.pile)} on the pile: {result} after {c.nodes:,} nodes"]
    totals = []
    for depth, win, loss, exact in c.iterations:
        if loss < 0:
            lines.append(f"  depth {depth:>3}: {win:>10,} nodes when the budget ran out")
            break
        lines.append(f"  depth {depth:>3}: win test {win:>10,}  loss test {loss:>10,}"
                     + (f"  exact length {exact:>10,}" if exact else ""))
        totals.append(win + loss + exact)
    growth = [b / a for a, b in zip(totals[-4:-1], totals[-3:], strict=False) if a >= 100]
    if growth:
        lines.append("  growth per depth (last iterations): " + " ".join(f"x{g:.1f}" for g in growth))
    k = c.count
    early = c.nodes - k["probes"]
    lines.append(f"  ended before the table: {early:,} ({100 * early / max(1, c.nodes):.0f}%); table probes "
                 f"{k['probes']:,}, found {100 * k['hits'] / max(1, k['probes']):.0f}%; whole move lists "
                 f"{k['expanded']:,}, {k['moves'] / max(1, k['expanded']):.1f} moves each")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("texts", nargs="*", metavar="TEXT", help="position texts")
    ap.add_argument("--nodes", type=int, default=200_000, help="node budget per position")
    ap.add_argument("--positions", type=Path, default=None, help="a file of position texts")
    ap.add_argument("--sizes", default="2-36", help="cards in hands, LO-HI (with --positions)")
    ap.add_argument("--per-size", type=int, default=1, help="positions per size (with --positions)")
    ap.add_argument("--prove", action="store_true", help="profile the prover (df-pn) instead")
    args = ap.parse_args()
    try:
        positions = [parse_position(t) for t in args.texts]
    except PositionTextError as exc:
        ap.error(str(exc))
    if args.positions is not None:
        by_size: dict[int, list[Position]] = defaultdict(list)
        for line in args.positions.read_text(encoding="utf-8").splitlines():
            if line.strip():
                p = parse_position(line)
                by_size[p.hands[0].bit_count() + p.hands[1].bit_count()].append(p)
        low, high = (int(x) for x in args.sizes.split("-"))
        rng = random.Random(3)
        for size in range(low, high + 1):
            ps = by_size.get(size, [])
            positions += rng.sample(ps, args.per_size) if len(ps) > args.per_size else ps
    for p in positions:
        print((profile_prover if args.prove else profile)(p, args.nodes), flush=True)


if __name__ == "__main__":
    main()
