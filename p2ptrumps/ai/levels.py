"""The AI by level: :func:`choose_move`, :func:`analyse` and :func:`choose_trump` over the searches
of this package (the levels are described in :mod:`p2ptrumps.ai`).

Below :mod:`p2ptrumps.ai.player` (which runs them in a worker thread) and re-exported by the
package, so that no import of the package runs in a circle.
"""

from __future__ import annotations

import random

from ..rules import Move, Position
from .engine import strong_search
from .heuristics import greedy_move
from .lean import Lean, to_move, to_move_int
from .search import SearchResult, search

LEVELS = ("random", "greedy", "normal", "strong")


def choose_move(
    position: Position, level: str = "normal", budget_s: float = 0.5, rng: random.Random | None = None,
    max_nodes: int = 0,
) -> Move:
    """Choose a legal move for the player to move in ``position``.

    Args:
        position: a deal not yet over (not modified: the AI works on its own state).
        level: one of :data:`LEVELS`.
        budget_s: seconds the search may think (``normal`` and ``strong``; they stop
            earlier when the result is proven or the move is forced).
        rng: tie-break randomness; a fresh ``random.Random()`` if None.
        max_nodes: if not 0, a node budget instead of ``budget_s``: the search visits at most
            this many positions and never looks at the clock (reproducible on any machine).
    Returns:
        A :class:`Move` legal in ``position``.
    Raises:
        ValueError: unknown level, or the deal is over.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r}; use one of {', '.join(LEVELS)}")
    if position.outcome is not None:
        raise ValueError("the deal is over: no move to choose")
    rng = rng or random.Random()
    if level == "random":
        return rng.choice(position.legal_moves())
    if level == "strong":
        return strong_search(position, budget_s, rng, max_nodes).move
    state = Lean(position)
    if level == "greedy":
        return to_move(greedy_move(state, rng), not position.pile)
    return to_move(search(state, budget_s, rng, max_nodes=max_nodes).move, not position.pile)


def analyse(position: Position, budget_s: float = 0.5, rng: random.Random | None = None, level: str = "normal",
            max_nodes: int = 0) -> tuple[Move, SearchResult]:
    """Search ``position`` as ``level`` (``normal`` or ``strong``) and return its move and the full
    :class:`SearchResult` (value for the player to move, depth, nodes, whether proven).

    Raises ``ValueError`` if the deal is over or the level does not search.
    """
    if position.outcome is not None:
        raise ValueError("the deal is over: nothing to analyse")
    rng = rng or random.Random()
    if level == "strong":
        r = strong_search(position, budget_s, rng, max_nodes)
        return r.move, SearchResult(to_move_int(r.move), r.value, r.depth, r.nodes, r.proven)
    if level != "normal":
        raise ValueError(f"level {level!r} does not search; use normal or strong")
    result = search(Lean(position), budget_s, rng, max_nodes=max_nodes)
    return to_move(result.move, not position.pile), result


def choose_trump(taken: int | None, rng: random.Random) -> int:
    """The AI's own trump suit (0..3) for RULES.md §2: all suits are alike before the deal,
    so a random suit, different from ``taken`` (the other player's, if already chosen).

    Raises ``ValueError`` if ``taken`` is not None or a suit 0..3.
    """
    if taken is not None and taken not in (0, 1, 2, 3):
        raise ValueError(f"taken must be a suit 0..3 or None, not {taken!r}")
    return rng.choice([s for s in range(4) if s != taken])
