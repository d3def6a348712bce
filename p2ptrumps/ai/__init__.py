"""The AI: players that choose a move from a position.

Sees only :mod:`p2ptrumps.rules`.  Levels: ``random``, ``greedy`` and ``normal``
(the default; a search).  ``choose_move`` is synchronous and CPU-bound;
:class:`AIPlayer` adapts it to the match loop's :class:`~p2ptrumps.match.Player`
protocol by running it in a worker thread.

Interface (stable; other layers rely on it):

* ``choose_move(position, level, budget_s, rng) -> Move``
* ``AIPlayer(level, budget_s=0.5, seed=None, name=None)``
"""

from __future__ import annotations

import random

from ..rules import Move, Position

LEVELS = ("random", "greedy", "normal")


def choose_move(position: Position, level: str = "normal", budget_s: float = 0.5,
                rng: random.Random | None = None) -> Move:
    """Choose a legal move for the player to move in ``position``.

    Args:
        position: a deal not yet over (not modified: the AI works on a copy).
        level: one of :data:`LEVELS`.
        budget_s: seconds the search may think (``normal`` only).
        rng: tie-break randomness; a fresh ``random.Random()`` if None.
    Raises:
        ValueError: unknown level, or the deal is over.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r}; use one of {', '.join(LEVELS)}")
    moves = position.legal_moves()
    if not moves:
        raise ValueError("the deal is over: no move to choose")
    rng = rng or random.Random()
    return rng.choice(moves)  # placeholder until the levels land
