"""Search speed: nodes per second of the search core (pure Python and compiled), and of the old ``normal`` search.

The positions come from seeded greedy-against-greedy deals (every ``--every``-th
position with a choice), grouped by cards in both hands: 24 or more
("early"), 13 to 23 ("middle"), 12 or fewer ("late").  Each engine searches
every position with a node budget (the same positions for all) and the time is
measured; a node is a position the search visits (the core and ``normal``
count them alike: every call of the recursive search, the horizon's
evaluations included).

Rows:

* ``normal``: ``p2ptrumps.ai.search``, the ``normal`` level's own search until
  ``normal`` and ``strong`` got one core (only with an older checkout on ``PYTHONPATH``), ``--nodes`` per position;
* ``core (Python)``: ``p2ptrumps.ai.core``, the pure-Python core, ``--nodes`` per position;
* ``core (compiled)``: ``p2ptrumps.ai._core``, ``--nodes`` times ``--scale`` per position.

Run it against another checkout (e.g. the code before the core existed) with
``PYTHONPATH=that/checkout python bench/search_speed.py``: the rows whose
modules are missing are skipped, and a ``normal`` without node budgets gets
``--nodes / 150000`` seconds per position instead.

Usage: python bench/search_speed.py [--deals N] [--every K] [--nodes N] [--scale S]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from p2ptrumps.ai import choose_move
from p2ptrumps.rules import Position, RuleSet
from p2ptrumps.shuffle import start_position

PHASES = (("early", 24, 99), ("middle", 13, 23), ("late", 0, 12))


def sample(deals: int, every: int) -> dict[str, list[Position]]:
    rng = random.Random(1)
    out: dict[str, list[Position]] = {name: [] for name, _, _ in PHASES}
    k = 0
    for i in range(deals):
        p = start_position(b"search-speed" + i.to_bytes(4, "big"), RuleSet(), (i % 4, (i + 1) % 4), i % 2)
        while p.outcome is None:
            if len(p.legal_moves()) > 1:
                k += 1
                if k % every == 0:
                    n = p.hands[0].bit_count() + p.hands[1].bit_count()
                    for name, low, high in PHASES:
                        if low <= n <= high:
                            out[name].append(p.copy())
            p.push(choose_move(p, "greedy", 0, rng))
    return out


def engines(nodes: int, scale: int) -> list[tuple[str, Callable[[Position], int]]]:
    rows: list[tuple[str, Callable[[Position], int]]] = []
    try:  # an older checkout: normal's own search over its Lean state
        from p2ptrumps.ai.lean import Lean  # type: ignore[import-not-found,unused-ignore]
        from p2ptrumps.ai.search import search  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        pass
    else:
        def normal(p: Position) -> int:
            try:
                return int(search(Lean(p), 0.0, random.Random(2), max_nodes=nodes).nodes)
            except TypeError:  # a checkout from before node budgets: a time budget of about as many nodes
                return int(search(Lean(p), nodes / 150_000, random.Random(2)).nodes)

        rows.append(("normal", normal))
    try:
        from p2ptrumps.ai import core
        from p2ptrumps.ai.engine import spec_of
    except ImportError:
        return rows
    rows.append(("core (Python)", lambda p: core.run(spec_of(p, 2), core.SEARCH, max_nodes=nodes)[3]))
    try:
        from p2ptrumps.ai import _core
    except ImportError:
        return rows
    rows.append(("core (compiled)", lambda p: _core.run(spec_of(p, 2), core.SEARCH, max_nodes=nodes * scale)[3]))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--every", type=int, default=5)
    ap.add_argument("--nodes", type=int, default=20_000)
    ap.add_argument("--scale", type=int, default=50)
    args = ap.parse_args()
    positions = sample(args.deals, args.every)
    print(f"positions: {', '.join(f'{name} {len(ps)}' for name, ps in positions.items())} "
          f"(from {args.deals} greedy deals); budget {args.nodes} nodes ({args.nodes * args.scale} compiled)")
    print(f"{'engine':16} {'phase':7} {'nodes':>11} {'seconds':>8} {'nodes/s':>11}")
    base: dict[str, float] = {}
    for name, run in engines(args.nodes, args.scale):
        total_n, total_t = 0, 0.0
        for phase, ps in positions.items():
            if not ps:
                continue
            t0 = time.perf_counter()
            n = sum(run(p) for p in ps)
            t = time.perf_counter() - t0
            total_n += n
            total_t += t
            rate = n / t if t else 0.0
            base.setdefault(phase, rate)
            print(f"{name:16} {phase:7} {n:11,} {t:8.2f} {rate:11,.0f}  x{rate / base[phase]:5.1f}")
        rate = total_n / total_t
        base.setdefault("all", rate)
        print(f"{name:16} {'all':7} {total_n:11,} {total_t:8.2f} {rate:11,.0f}  x{rate / base['all']:5.1f}")


if __name__ == "__main__":
    main()
