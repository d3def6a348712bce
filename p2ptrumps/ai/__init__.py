"""The AI: players that choose a move from a position.

Sees only :mod:`p2ptrumps.rules` (and :mod:`p2ptrumps.record` for the
:class:`~p2ptrumps.record.PlayerInfo` of :class:`AIPlayer`).  Levels:

* ``random``: a uniformly random legal move;
* ``greedy``: the best move by one-move rules (go out when possible, beat
  cheaply, keep own trumps, shed a card the opponent cannot beat), random
  tie-break (:mod:`p2ptrumps.ai.heuristics`);
* ``normal`` (the default) and ``strong``: one search, the search core
  (:mod:`p2ptrumps.ai.core`, compiled when possible): iterative-deepening
  alpha-beta with a transposition table over both (known) hands, anytime under
  the budget, sound (a win is played only when proven against every reply,
  repetition exactly as RULES.md §7 says).  They differ in their
  :class:`~p2ptrumps.ai.engine.Settings`: ``normal`` judges the positions at the
  search's horizon by a hand-made evaluation; ``strong`` by the fitted one
  (:mod:`p2ptrumps.ai.weights`, fitted on the results of AI games), and gives the
  exact solver a share of the budget first where an end may be near and plays a
  solved position at once (:mod:`p2ptrumps.ai.engine`).  At an equal node budget
  ``strong`` wins most deal pairs against ``normal`` (``bench/level_strength.txt``).

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
* ``Hints()(position, budget_s, max_nodes=0) -> (Move, SearchResult)``: :func:`~p2ptrumps.ai.levels.hint`,
  the move ``analyse`` measures the others against

The same question gets the same answer: with a node budget the move and the value depend
only on the position (and the seed, if given), never on the machine, its load or the run.
"""

from __future__ import annotations

from .engine import SearchResult
from .levels import LEVELS, SETTINGS, Hints, analyse, choose_move, choose_trump, position_seed
from .player import AIPlayer

__all__ = ["LEVELS", "SETTINGS", "AIPlayer", "Hints", "SearchResult", "analyse", "choose_move", "choose_trump",
           "position_seed"]
