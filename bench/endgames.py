"""The endgame suite: positions from played games with their exact values, and how levels keep them.

``generate`` plays AI-against-AI deals (levels mixed: greedy, normal, strong at
small node budgets, seeded), solves the positions of each deal from the end
backwards (``--budget`` seconds for its value, as much again for every legal
move's value; three positions in a row whose value is unknown end the walk
back), and writes ``bench/endgames.txt``: one
line per solved position, ``TEXT RESULT PLIES KEEP LOSE`` -- the position text
(``protocol/position.md``), ``win``/``draw``/``loss`` for the seat to move, the
plies to the end (``-`` for a draw), the moves proven to keep that result and
those proven not to (comma-separated move codes, ``-`` for none; each move is
given at most ``--move-budget`` seconds, easy ones first, ``--moves-budget`` for
all, so some may be in neither list).  A position is *critical* when some legal move is proven not to
keep the result; every critical position is kept, and one in
``--plain-every`` of the others (so the suite is weighted to critical ones).
Positions with a single legal move are left out.

``check`` asks a level for its move in every suite position (``--think`` seconds
or ``--nodes`` per move) and prints, by cards in hands, how many moves kept the
value and how many lost it (a move the suite did not classify is judged by
solving the position after it, ``--verify-budget`` seconds; "undet." when that
fails), how many positions the level proved (``strong``: a proven value;
``normal``: an exact one) and the 95th percentile of its think time.

Usage::

    python bench/endgames.py generate [--deals N] [--budget S] [--seed N] [--out FILE]
    python bench/endgames.py check [--level strong] [--think 0.2] [--nodes N] [--limit N] [--file FILE]
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from collections import defaultdict
from pathlib import Path

from p2ptrumps.ai import analyse, choose_move
from p2ptrumps.ai.analysis import outcome_of
from p2ptrumps.ai.core import WIN, WIN_BOUND
from p2ptrumps.ai.engine import COMPILED, solve
from p2ptrumps.commands.arena import percentile_95
from p2ptrumps.notation import parse_position, position_text
from p2ptrumps.rules import Move, Position, RuleSet
from p2ptrumps.shuffle import start_position

#: The solver's table for the suite's many short solves: 2**18 entries (4 MiB).
TT_BITS = 18

HERE = Path(__file__).resolve().parent
SUITE = HERE / "endgames.txt"

#: The pairs of levels (seat 0, seat 1) and node budgets the games are played with.
MATCHUPS: list[tuple[tuple[str, int], tuple[str, int]]] = [
    (("strong", 100_000), ("normal", 5_000)),
    (("normal", 5_000), ("strong", 100_000)),
    (("greedy", 0), ("normal", 5_000)),
    (("strong", 100_000), ("greedy", 0)),
    (("normal", 5_000), ("normal", 5_000)),
    (("strong", 50_000), ("strong", 200_000)),
]


def cards_in_hands(p: Position) -> int:
    return p.hands[0].bit_count() + p.hands[1].bit_count()


def play_deal(index: int, seed: int) -> list[Position]:
    """The positions of one seeded AI-against-AI deal (with their history)."""
    rng = random.Random(seed * 1_000_003 + index)
    (l0, n0), (l1, n1) = MATCHUPS[index % len(MATCHUPS)]
    t0 = rng.randrange(4)
    t1 = (t0 + 1 + rng.randrange(3)) % 4
    p = start_position(f"endgames/{seed}/{index}".encode(), RuleSet(), (t0, t1), rng.randrange(2))
    positions = [p.copy()]
    while p.outcome is None:
        level, nodes = (l0, n0) if p.to_move == 0 else (l1, n1)
        p.push(choose_move(p, level, 1.0, rng, nodes))
        positions.append(p.copy())
    return positions


def move_value(child_value: int) -> int:
    """The value of a move for its mover, from the value of the position it leads to (for the
    opponent, one ply later)."""
    if child_value > WIN_BOUND:
        return -(child_value - 1)
    if child_value < -WIN_BOUND:
        return -(child_value + 1)
    return 0


def suite_line(p: Position, budget_s: float, move_budget_s: float, moves_budget_s: float) -> tuple[str, bool] | bool:
    """``(line, critical)`` for a position whose value was solved within ``budget_s`` (each move then
    classified as keeping the value or not, ``move_budget_s`` each, ``moves_budget_s`` in all);
    False when the value was not solved.  The position is solved as its text gives it (no
    history), as a reader of the suite will."""
    fresh = parse_position(position_text(p))
    s = solve(fresh, budget_s, tt_bits=TT_BITS)
    if not s.solved:
        return False
    result = outcome_of(s.value)
    plies = "-" if result == "draw" else str(WIN - abs(s.value))
    if result == "loss":  # every move loses: all keep the value
        return f"{position_text(fresh)} loss {plies} {','.join(m.code for m in fresh.legal_moves())} -", False
    keep: list[str] = []
    throw: list[str] = []
    pending: list[tuple[Move, Position]] = []
    for m in fresh.legal_moves():
        child = fresh.copy()
        child.push(m)
        if child.outcome is not None:
            v = 0 if child.outcome.winner is None else WIN - 1
            (keep if outcome_of(v) == result else throw).append(m.code)
        else:
            pending.append((m, child))
    # The easy moves first: each round gives the moves still unknown a longer budget.
    t0 = time.perf_counter()
    for budget in (move_budget_s / 25, move_budget_s / 5, move_budget_s):
        unknown = []
        for m, child in pending:
            if time.perf_counter() - t0 > moves_budget_s:
                unknown.append((m, child))
                continue
            c = solve(child, budget, tt_bits=TT_BITS)
            if c.solved:
                (keep if outcome_of(move_value(c.value)) == result else throw).append(m.code)
            else:
                unknown.append((m, child))
        pending = unknown
    line = f"{position_text(fresh)} {result} {plies} {','.join(keep) or '-'} {','.join(throw) or '-'}"
    return line, bool(throw)


def generate(args: argparse.Namespace) -> int:
    out = Path(args.out)
    lines: list[str] = []
    seen: set[str] = set()
    counts = {"critical": 0, "plain": 0, "plain seen": 0, "deals": 0}
    t0 = time.perf_counter()
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        for index in range(args.deals):
            if args.max_positions and len(lines) >= args.max_positions:
                break
            positions = play_deal(index, args.seed)
            misses = 0
            for p in reversed(positions):
                if p.outcome is not None or len(p.legal_moves()) < 2:
                    continue
                if misses >= 3:
                    break
                text = position_text(p)
                if text in seen:
                    continue
                seen.add(text)
                got = suite_line(p, args.budget, args.move_budget, args.moves_budget)
                if isinstance(got, bool):
                    misses += 1
                    continue
                misses = 0
                line, critical = got
                if critical:
                    counts["critical"] += 1
                    lines.append(line)
                else:
                    counts["plain seen"] += 1
                    if counts["plain seen"] % args.plain_every == 0:
                        counts["plain"] += 1
                        lines.append(line)
            counts["deals"] = index + 1
            if (index + 1) % 10 == 0:
                print(f"  {index + 1} deals: {len(lines)} positions ({counts['critical']} critical), "
                      f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("interrupted: writing what was found", file=sys.stderr)
    header = (f"# p2ptrumps endgame suite: {len(lines)} positions ({counts['critical']} critical, "
              f"{counts['plain']} not, one in {args.plain_every} of those found), "
              f"from {counts['deals']} seeded deals (seed {args.seed}); "
              f"values solved within {args.budget:g} s, moves within {args.move_budget:g} s each.\n"
              "# Made by: python bench/endgames.py generate; format: TEXT RESULT PLIES KEEP LOSE (see that script).\n")
    out.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(lines)} positions, {counts['critical']} critical")
    return 0


def load(path: Path) -> list[tuple[Position, str, set[Move], set[Move]]]:
    """The suite: (position, result, moves known to keep it, moves known to lose it)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        text, result, _plies, keep, throw = line.split(" ")
        moves = [{Move.parse(c) for c in field.split(",")} if field != "-" else set() for field in (keep, throw)]
        out.append((parse_position(text), result, moves[0], moves[1]))
    return out


def check(args: argparse.Namespace) -> int:
    suite = load(Path(args.file))
    if args.limit:
        suite = suite[: args.limit]
    rng = random.Random(7)
    # per size: positions, critical, kept, lost, undetermined, proved
    rows: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    times: list[float] = []
    misses: list[str] = []
    for p, result, keep, throw in suite:
        t0 = time.perf_counter()
        move, info = analyse(p, args.think, rng, level=args.level, max_nodes=args.nodes)
        times.append(time.perf_counter() - t0)
        if move in keep:
            kept: bool | None = True
        elif move in throw:
            kept = False
        else:  # not classified when the suite was made: solve the position after it now
            child = p.copy()
            child.push(move)
            if child.outcome is not None:
                v: int | None = 0 if child.outcome.winner is None else WIN - 1
            else:
                c = solve(child, args.verify_budget)
                v = move_value(c.value) if c.solved else None
            kept = None if v is None else outcome_of(v) == result
        row = rows[cards_in_hands(p)]
        row[0] += 1
        row[1] += bool(throw)
        row[2 if kept else 3 if kept is False else 4] += 1
        row[5] += info.exact
        if kept is False:
            misses.append(f"{position_text(p)} {result}: played {move.code}")
    budget = f"{args.nodes} nodes" if args.nodes else f"{args.think:g} s"
    core = "compiled core" if COMPILED else "pure-Python core"
    print(f"{args.level} at {budget} per move on {len(suite)} suite positions ({core})")
    print(f"{'cards in hands':>14} {'positions':>9} {'critical':>8} {'kept':>6} {'lost':>5} {'undet.':>6} "
          f"{'kept %':>6} {'proved %':>8}")
    total = [0] * 6
    for size in sorted(rows):
        row = rows[size]
        total = [a + b for a, b in zip(total, row, strict=True)]
        print(_row(str(size), row))
    print(_row("all", total))
    print(f"think time: p95 {percentile_95(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")
    for m in misses[:30]:
        print("  lost the value:", m)
    return 0


def _row(label: str, row: list[int]) -> str:
    n, critical, kept, lost, undetermined, proved = row
    judged = kept + lost
    pct = f"{100 * kept / judged:6.2f}" if judged else "     -"
    return (f"{label:>14} {n:>9} {critical:>8} {kept:>6} {lost:>5} {undetermined:>6} {pct} "
            f"{100 * proved / n:8.0f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--deals", type=int, default=300)
    g.add_argument("--budget", type=float, default=0.3)
    g.add_argument("--move-budget", type=float, default=0.1)
    g.add_argument("--moves-budget", type=float, default=0.3)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--plain-every", type=int, default=3)
    g.add_argument("--max-positions", type=int, default=2100)
    g.add_argument("--out", default=str(SUITE))
    c = sub.add_parser("check")
    c.add_argument("--level", default="strong", choices=("normal", "strong"))
    c.add_argument("--think", type=float, default=0.2)
    c.add_argument("--nodes", type=int, default=0)
    c.add_argument("--limit", type=int, default=0)
    c.add_argument("--verify-budget", type=float, default=5.0)
    c.add_argument("--file", default=str(SUITE))
    args = ap.parse_args()
    return generate(args) if args.command == "generate" else check(args)


if __name__ == "__main__":
    sys.exit(main())
