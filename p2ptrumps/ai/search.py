"""The ``normal`` level: iterative-deepening alpha-beta (negamax) over a :class:`Lean` state.

The duel is a game of perfect information once dealt (RULES.md §3), so the
search sees both hands.  Features:

* a transposition table keyed by (hands, pile hash, seat to move), holding the
  depth, a bound and the best move, tried first on the next visit;
* move ordering: the table's move, then history scores of moves that cut off,
  then a static guess (second cards the opponent cannot beat, cheap beating cards);
* forward pruning: below the root, only the best-guessed ``BRANCH`` moves are
  searched while the side to move holds more than ``FULL_WIDTH_CARDS`` cards
  (endgames are searched in full);
* late move reductions: after the first few moves, a move is first searched one
  ply shallower with a null window and searched again only if it looks better;
* forced moves (a single legal move, e.g. a pick-up when nothing beats) do not use
  up depth, so the horizon never falls in the middle of a forced sequence;
* a position that already occurred in the deal or on the search path scores
  as a draw (RULES.md §7 repetition, simplified to the second occurrence);
* going out is a win (``WIN`` minus the plies to it, so faster wins are preferred)
  or, with the RULES.md §7 both-out test, a draw;
* anytime: each finished iteration gives a move; an iteration cut off by the
  clock still counts when it found a better move than the previous best.

Values are in centi-cards from the point of view of the seat to move (see
:func:`~p2ptrumps.ai.heuristics.evaluate`).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from .heuristics import COST, beatable, evaluate
from .lean import DRAW, NONE, PICKUP, Lean, bits

WIN = 1_000_000
WIN_BOUND = WIN - 10_000
INF = 10 * WIN
MAX_PLY = 400
NEW_ITERATION_BEFORE = 0.8  # start another iteration only before this share of the budget
BRANCH = 12  # below the root, only the BRANCH best-guessed moves are searched ...
FULL_WIDTH_CARDS = 6  # ... unless the side to move holds at most this many cards
LMR_AFTER = 6  # moves after the first LMR_AFTER are searched one ply shallower first

EXACT, LOWER, UPPER = 0, 1, 2


class _Timeout(Exception):
    pass


@dataclass(frozen=True)
class SearchResult:
    """What :func:`search` found.

    Attributes:
        move: the chosen move int (see :mod:`p2ptrumps.ai.lean`).
        value: its value for the seat to move (centi-cards; ``> WIN_BOUND`` is a
            forced win, ``< -WIN_BOUND`` a forced loss, 0 may be a draw).
        depth: the deepest completed iteration, in plies (0 when the move was forced
            or an immediate win).
        nodes: positions visited.
        exact: the value is proven (no leaf was cut off by the depth limit and no
            move was pruned).
    """

    move: int
    value: int
    depth: int
    nodes: int
    exact: bool


class _Searcher:
    def __init__(self, state: Lean, deadline: float) -> None:
        self.s = state
        self.deadline = deadline
        self.tt: dict[tuple[int, int, int, int], tuple[int, int, int, int]] = {}
        self.history: dict[int, int] = {}
        self.nodes = 0
        self.horizon = False
        self.pruned = False

    def scored(self) -> list[tuple[int, int]]:
        """``(guess, move)`` for every legal move of the seat to move (unsorted)."""
        s = self.s
        p = s.to_move
        hand = s.hands[p]
        tp = s.trumps[p]
        pile = s.pile
        cards = bits(hand)
        safe = hand & ~beatable(s.hands[1 - p], s.trumps[1 - p])
        costs = COST[tp]
        shed = {c: (60 if safe >> c & 1 else 0) - costs[c] for c in cards}
        hist = self.history
        if not pile:
            return [(shed[c] + hist.get(c, 0), c) for c in cards]
        beaters = hand & s.beaters[p][pile[-1]]
        scored = []
        for b in bits(beaters):
            cost = 2 * costs[b]
            if hand == 1 << b:
                scored.append((10_000, b | NONE << 6))
                continue
            for c in cards:
                if c != b:
                    m = b | c << 6
                    scored.append((shed[c] - cost + hist.get(m, 0), m))
        if not beaters or s.voluntary:
            scored.append((-10_000 + hist.get(PICKUP, 0), PICKUP))
        return scored

    def leaf(self, ply: int) -> int:
        """Value at the horizon: a win if the seat to move goes out at once, else :func:`evaluate`."""
        s = self.s
        if s.hands[s.to_move].bit_count() <= 2:
            for _, m in self.scored():
                s.make(m)
                won = s.result is not None and s.result != DRAW
                s.unmake()
                if won:
                    return WIN - ply - 1
        self.horizon = True
        return evaluate(s)

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if not self.nodes & 255 and time.perf_counter() > self.deadline:
            raise _Timeout
        s = self.s
        p = s.to_move
        pile = s.pile
        if depth <= 0 or ply >= MAX_PLY:
            forced = pile and not s.voluntary and not s.hands[p] & s.beaters[p][pile[-1]]
            if not forced or ply >= MAX_PLY:
                return self.leaf(ply)
        key = (s.hands[0], s.hands[1], s.zpile, p)
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, flag, value, tt_move = entry
            if e_depth >= depth:
                if value > WIN_BOUND:
                    value -= ply
                elif value < -WIN_BOUND:
                    value += ply
                if flag == EXACT:
                    return value
                if flag == LOWER:
                    if value >= beta:
                        return value
                elif value <= alpha:
                    return value
        scored = self.scored()
        scored.sort(reverse=True)
        moves = [m for _, m in scored]
        if tt_move is not None and moves[0] != tt_move and tt_move in moves:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        if len(moves) > BRANCH and s.hands[p].bit_count() > FULL_WIDTH_CARDS:
            del moves[BRANCH:]
            self.pruned = True
        child_depth = depth - 1 if len(moves) > 1 else depth
        alpha0 = alpha
        best = -INF
        best_move = moves[0]
        reduce_from = LMR_AFTER if child_depth >= 2 else len(moves)
        for i, m in enumerate(moves):
            s.make(m)
            r = s.result
            if r is not None:
                v = 0 if r == DRAW else WIN - ply - 1
            elif s.reps >= 2:
                v = 0
            elif i >= reduce_from:
                v = -self.negamax(child_depth - 1, -alpha - 1, -alpha, ply + 1)
                if v > alpha:
                    v = -self.negamax(child_depth, -beta, -alpha, ply + 1)
            else:
                v = -self.negamax(child_depth, -beta, -alpha, ply + 1)
            s.unmake()
            if v > best:
                best = v
                best_move = m
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        self.history[m] = self.history.get(m, 0) + depth * depth
                        break
        stored = best
        if stored > WIN_BOUND:
            stored += ply
        elif stored < -WIN_BOUND:
            stored -= ply
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.tt[key] = (depth, flag, stored, best_move)
        return best

    def root(self, moves: list[int], depth: int, best_first: int) -> tuple[int, int]:
        """Search every root move to ``depth``; return (best move, value).  The best
        move found so far is kept in ``self.partial`` should the clock stop us."""
        s = self.s
        moves = [best_first] + [m for m in moves if m != best_first]
        alpha = -INF
        best_move = best_first
        for m in moves:
            s.make(m)
            r = s.result
            if r is not None:
                v = 0 if r == DRAW else WIN - 1
            elif s.reps >= 2:
                v = 0
            else:
                v = -self.negamax(depth - 1, -INF, -alpha, 1)
            s.unmake()
            if v > alpha:
                alpha = v
                best_move = m
                self.partial = (best_move, alpha)
        return best_move, alpha

    partial: tuple[int, int] | None = None


def search(state: Lean, budget_s: float, rng: random.Random, max_depth: int = 64) -> SearchResult:
    """Choose a move for the seat to move in ``state`` within about ``budget_s`` seconds.

    Args:
        state: a deal not yet over (restored to the same state on return).
        budget_s: seconds of thinking; iterative deepening stops when they run out,
            or before a new iteration once ``NEW_ITERATION_BEFORE`` of them are used
            (it would be unlikely to finish), or when the value is proven.
        rng: shuffles the root moves, so that equal moves are chosen at random.
        max_depth: deepest iteration, in plies.
    Raises:
        ValueError: the deal is over.
    """
    start = time.perf_counter()
    moves = state.moves()
    if not moves:
        raise ValueError("the deal is over: no move to choose")
    if len(moves) == 1:
        return SearchResult(moves[0], 0, 0, 0, False)
    for m in moves:  # immediate win
        state.make(m)
        won = state.result is not None and state.result != DRAW
        state.unmake()
        if won:
            return SearchResult(m, WIN - 1, 0, len(moves), True)
    searcher = _Searcher(state, start + budget_s)
    scored = searcher.scored()
    rng.shuffle(scored)
    scored.sort(key=lambda sm: -sm[0])
    moves = [m for _, m in scored]
    best, value, depth_done, exact = moves[0], 0, 0, False
    stack_depth = len(state.stack)
    for depth in range(1, max_depth + 1):
        searcher.horizon = False
        searcher.partial = None
        try:
            best, value = searcher.root(moves, depth, best)
        except _Timeout:
            while len(state.stack) > stack_depth:
                state.unmake()
            if searcher.partial is not None:
                best, value = searcher.partial
            break
        depth_done = depth
        if not searcher.horizon or abs(value) > WIN_BOUND:
            exact = not searcher.horizon and not searcher.pruned
            break
        if time.perf_counter() - start > budget_s * NEW_ITERATION_BEFORE:
            break
    return SearchResult(best, value, depth_done, searcher.nodes, exact)
