"""The AI by level: :func:`choose_move`, :func:`analyse` and :func:`choose_trump` over the one search
of this package, the hint (:class:`Hints`) and the tie-break seed of a position (:func:`position_seed`)
(the levels are described in :mod:`p2ptrumps.ai`).

Below :mod:`p2ptrumps.ai.player` (which runs them in a worker thread) and re-exported by the
package, so that no import of the package runs in a circle.
"""

from __future__ import annotations

import random
from dataclasses import replace

from ..rules import Move, Position
from ..text import AI_LEVELS
from .core import WIN, WIN_BOUND, position_hash
from .engine import NORMAL, STRONG, SearchResult, Settings, Solution, search, solve, spec_of
from .heuristics import greedy_move

#: The levels, weakest first (their names live in :mod:`p2ptrumps.text`, which the command line reads
#: without loading the AI).
LEVELS = AI_LEVELS

#: The settings of each searching level.
SETTINGS: dict[str, Settings] = {"normal": NORMAL, "strong": STRONG}

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
    if level == "greedy":
        return greedy_move(position, rng)
    return search(position, budget_s, rng, max_nodes, settings=SETTINGS[level]).move


def analyse(position: Position, budget_s: float = 0.5, rng: random.Random | None = None, level: str = "normal",
            max_nodes: int = 0) -> tuple[Move, SearchResult]:
    """Search ``position`` as ``level`` (``normal`` or ``strong``) and return its move and the full
    :class:`SearchResult` (value for the player to move, depth, nodes, whether proven).

    A forced move (the only legal one) is judged too: its value is that of the position after it,
    searched with the same budget (a chain of forced moves is followed one by one).

    Raises ``ValueError`` if the deal is over or the level does not search.
    """
    if position.outcome is not None:
        raise ValueError("the deal is over: nothing to analyse")
    if level not in SETTINGS:
        raise ValueError(f"level {level!r} does not search; use normal or strong")
    rng = rng or random.Random()
    moves = position.legal_moves()
    if len(moves) == 1:
        return moves[0], _judge_forced(position, moves[0], budget_s, rng, level, max_nodes)
    result = search(position, budget_s, rng, max_nodes, settings=SETTINGS[level])
    return result.move, result


def _judge_forced(position: Position, move: Move, budget_s: float, rng: random.Random, level: str,
                  max_nodes: int) -> SearchResult:
    """The result of the forced ``move`` in ``position``: the value of the first position after it
    (and after every further forced move, followed one by one) that has a choice or is over, seen
    from the seat to move in ``position``; the search there has the whole budget."""
    after = position.copy()
    after.push(move)
    plies = 1
    while after.outcome is None:
        moves = after.legal_moves()
        if len(moves) > 1:
            break
        after.push(moves[0])
        plies += 1
    sign = 1 if after.to_move == position.to_move else -1
    if after.outcome is not None:
        winner = after.outcome.winner
        value = 0 if winner is None else (WIN - plies) * (1 if winner == position.to_move else -1)
        return SearchResult(move, value, 0, plies, True)
    reply = search(after, budget_s, rng, max_nodes, settings=SETTINGS[level])
    value = reply.value
    if value > WIN_BOUND:
        value -= plies
    elif value < -WIN_BOUND:
        value += plies
    return SearchResult(move, sign * value, reply.depth + plies, reply.nodes, reply.exact)


#: The table of the solver behind the hint and the analysis (2**20 entries, 16 MiB compiled):
#: the same size in both, so that with a node budget they reach the same verdicts.
HINT_TT_BITS = 20

#: The search behind the hint where the solver did not settle the position: ``strong``'s,
#: without its solver first (the hint has solved already).
HINT_SEARCH = replace(STRONG, solve_cards=0, solve_short=0, solve_share=0.0)


def hint_solution(position: Position, budget_s: float, max_nodes: int = 0) -> Solution:
    """The exact solver's verdict on ``position`` (not over) as the hint and the analysis ask for it:
    :func:`~.engine.solve` with :data:`HINT_TT_BITS`, ``max_nodes`` nodes when not 0, else half of
    ``budget_s`` seconds.  (No prover: on the positions of games between the levels it settled none
    that the solver does not, and its share of the budget cost the solver some: 43 of 132 positions
    settled with it at 2,500,000 nodes, 45 by the solver alone.)"""
    return solve(position, None if max_nodes else budget_s / 2, max_nodes=max_nodes, tt_bits=HINT_TT_BITS)


def proven_move(solution: Solution) -> Move | None:
    """The move a solved :func:`hint_solution` proves best (the fastest win, a drawing move, the
    slowest loss); None when the position was not solved."""
    return solution.move if solution.solved else None


def hint(position: Position, budget_s: float = 0.5, max_nodes: int = 0,
         solution: Solution | None = None) -> tuple[Move, SearchResult]:
    """The best move the AI knows in ``position`` (not over), and its value for the seat to move: the
    hint of ``play`` and the move ``analyse`` measures the others against.

    A forced move is judged as :func:`analyse` judges it.  Otherwise the exact solver first
    (:func:`hint_solution`, or ``solution`` when the caller has it): a solved position gets the
    solver's move and its exact value.  Else the ``strong`` search (:data:`HINT_SEARCH`), ties broken
    by :func:`position_seed`.  Budgets: with ``max_nodes`` (not 0) the solver has ``max_nodes`` nodes
    and the search as many again (the same answer on every machine); else each has half of
    ``budget_s`` seconds.  The result's ``nodes`` counts both.

    Raises ``ValueError`` if the deal is over.
    """
    if position.outcome is not None:
        raise ValueError("the deal is over: no move to choose")
    rng = random.Random(position_seed(position))
    moves = position.legal_moves()
    if len(moves) == 1:
        return moves[0], _judge_forced(position, moves[0], budget_s, rng, "strong", max_nodes)
    if solution is None:
        solution = hint_solution(position, budget_s, max_nodes)
    move = proven_move(solution)
    if move is not None:
        return move, SearchResult(move, solution.value, 0, solution.nodes, True)
    result = search(position, budget_s / 2, rng, max_nodes, settings=HINT_SEARCH)
    return result.move, replace(result, nodes=solution.nodes + result.nodes)


def position_seed(position: Position, seed: int = 0) -> int:
    """A 64-bit tie-break seed drawn from ``position`` alone (its hands, pile and seat to move, by
    :func:`~p2ptrumps.ai.core.position_hash`) mixed with ``seed``: the same position asks the same
    question, so a search with a node budget seeded by it gives the same answer every time."""
    return (position_hash(position.hands[0], position.hands[1], position.pile, position.to_move)
            ^ (seed * 0x9E3779B97F4A7C15)) & (2**64 - 1)


class Hints:
    """The hint for the person at the table: :func:`hint`'s move and its value.

    The same question gets the same answer.  Ties are broken by :func:`position_seed`, so with
    a node budget the move and the value are the same on every press, machine and run.  With a
    time budget, a search reaches a depth that depends on the machine's load; a press on the
    position of the previous press keeps the previous answer unless the new search went deeper
    (or proved a value the previous one had not): the hint changes only when more time found more.
    """

    def __init__(self) -> None:
        self._last: tuple[tuple[object, ...], Move, SearchResult] | None = None

    def __call__(self, position: Position, budget_s: float, max_nodes: int = 0) -> tuple[Move, SearchResult]:
        """The hint in ``position``: ``(move, result)`` as :func:`hint` gives them, with ``budget_s``
        seconds or ``max_nodes`` positions (when not 0).

        Raises ``ValueError`` if the deal is over."""
        move, result = hint(position, budget_s, max_nodes)
        key = spec_of(position)
        last = self._last
        if not max_nodes and last is not None and last[0] == key:
            _, old_move, old = last
            if old.exact or (old.depth >= result.depth and not result.exact):
                return old_move, old
        self._last = (key, move, result)
        return move, result


def choose_trump(taken: int | None, rng: random.Random) -> int:
    """The AI's own trump suit (0..3) for RULES.md §2: all suits are alike before the deal,
    so a random suit, different from ``taken`` (the other player's, if already chosen).

    Raises ``ValueError`` if ``taken`` is not None or a suit 0..3.
    """
    if taken is not None and taken not in (0, 1, 2, 3):
        raise ValueError(f"taken must be a suit 0..3 or None, not {taken!r}")
    return rng.choice([s for s in range(4) if s != taken])
