"""The AI: players that choose a move from a position.

Sees only :mod:`p2ptrumps.rules` (and :mod:`p2ptrumps.record` for the
:class:`~p2ptrumps.record.PlayerInfo` of :class:`AIPlayer`).  Levels:

* ``random``: a uniformly random legal move;
* ``greedy``: the best move by one-move rules (go out when possible, beat
  cheaply, keep own trumps, shed a card the opponent cannot beat), random
  tie-break (:mod:`p2ptrumps.ai.heuristics`);
* ``normal`` (the default): iterative-deepening alpha-beta with a
  transposition table over both (known) hands, anytime under ``budget_s``
  (:mod:`p2ptrumps.ai.search`);
* ``strong``: the search core (:mod:`p2ptrumps.ai.core`, compiled when
  possible): the same kind of search, many times faster and sound (a win is
  played only when proven against every reply, repetition exactly as RULES.md
  §7 says), playing a proven win at once (:mod:`p2ptrumps.ai.engine`).

Budgets: ``budget_s`` seconds per move, or ``max_nodes`` positions per move
(``normal`` and ``strong``; the same move on every machine, whatever its load).
The exact solver is :func:`p2ptrumps.ai.engine.solve`.

``choose_move`` is synchronous and CPU-bound; :class:`AIPlayer` adapts it to
the match loop's :class:`~p2ptrumps.match.Player` protocol by running it in a
worker thread.

Interface (stable; other layers rely on it):

* ``choose_move(position, level, budget_s, rng, max_nodes=0) -> Move``
* ``choose_trump(taken, rng) -> int``
* ``AIPlayer(level, budget_s=0.5, seed=None, name=None, max_nodes=0)``
"""

from __future__ import annotations

from .levels import LEVELS, analyse, choose_move, choose_trump
from .player import AIPlayer

__all__ = ["LEVELS", "AIPlayer", "analyse", "choose_move", "choose_trump"]
