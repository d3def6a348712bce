"""The AI: players that choose a move from a position.

Sees only :mod:`p2ptrumps.rules` (and :mod:`p2ptrumps.record` for the
:class:`~p2ptrumps.record.PlayerInfo` of :class:`AIPlayer`).  Levels:

* ``random``: a uniformly random legal move;
* ``greedy``: the best move by one-move rules (go out when possible, beat
  cheaply, keep own trumps, shed a card the opponent cannot beat), random
  tie-break (:mod:`p2ptrumps.ai.heuristics`);
* ``normal`` (the default): iterative-deepening alpha-beta with a
  transposition table over both (known) hands, anytime under ``budget_s``
  (:mod:`p2ptrumps.ai.search`).

``choose_move`` is synchronous and CPU-bound; :class:`AIPlayer` adapts it to
the match loop's :class:`~p2ptrumps.match.Player` protocol by running it in a
worker thread.

Interface (stable; other layers rely on it):

* ``choose_move(position, level, budget_s, rng) -> Move``
* ``choose_trump(taken, rng) -> int``
* ``AIPlayer(level, budget_s=0.5, seed=None, name=None)``
"""

from __future__ import annotations

import random

from ..rules import Move, Position
from .heuristics import greedy_move
from .lean import Lean, to_move
from .player import AIPlayer
from .search import SearchResult, search

LEVELS = ("random", "greedy", "normal")

__all__ = ["LEVELS", "AIPlayer", "analyse", "choose_move", "choose_trump"]


def choose_move(
    position: Position, level: str = "normal", budget_s: float = 0.5, rng: random.Random | None = None
) -> Move:
    """Choose a legal move for the player to move in ``position``.

    Args:
        position: a deal not yet over (not modified: the AI works on its own state).
        level: one of :data:`LEVELS`.
        budget_s: seconds the search may think (``normal`` only; it stops earlier
            when the result is proven or the move is forced).
        rng: tie-break randomness; a fresh ``random.Random()`` if None.
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
    state = Lean(position)
    m = greedy_move(state, rng) if level == "greedy" else search(state, budget_s, rng).move
    return to_move(m, not position.pile)


def analyse(position: Position, budget_s: float = 0.5, rng: random.Random | None = None) -> tuple[Move, SearchResult]:
    """Run the ``normal`` search on ``position`` and return its move and the full :class:`SearchResult`
    (value for the player to move, depth, nodes).  Raises ``ValueError`` if the deal is over."""
    if position.outcome is not None:
        raise ValueError("the deal is over: nothing to analyse")
    result = search(Lean(position), budget_s, rng or random.Random())
    return to_move(result.move, not position.pile), result


def choose_trump(taken: int | None, rng: random.Random) -> int:
    """The AI's own trump suit (0..3) for RULES.md §2: all suits are alike before the deal,
    so a random suit, different from ``taken`` (the other player's, if already chosen).

    Raises ``ValueError`` if ``taken`` is not None or a suit 0..3.
    """
    if taken is not None and taken not in (0, 1, 2, 3):
        raise ValueError(f"taken must be a suit 0..3 or None, not {taken!r}")
    return rng.choice([s for s in range(4) if s != taken])
