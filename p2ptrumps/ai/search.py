"""The ``normal`` level: iterative-deepening alpha-beta (negamax, PVS) over a :class:`Lean` state.

The duel is a game of perfect information once dealt (RULES.md §3), so the
search sees both hands.  Features:

* a transposition table keyed by the exact repetition key of :class:`Lean`
  (hands, pile in order, seat to move), holding the depth, a bound and the
  best move, tried first on the next visit;
* staged move generation: the table's move and two killer moves per ply are
  tried before the other moves are generated (a cut-off by one of them costs no
  generation); the rest are ordered by a static guess (a second card or lead the
  opponent cannot beat, or can beat only dearly, and a cheap beating card); moves
  are ints sorted as ints (guess and move packed in one number), no per-move objects;
* forward pruning: below the root, only the best-guessed ``BRANCH`` moves are
  searched while the side to move holds more than ``FULL_WIDTH_CARDS`` cards
  (endgames are searched in full);
* principal variation search: after the first move, moves are searched with a
  null window and again with the full window only if they look better (late move
  reductions were tried: without them the arena score was as good or better);
* forced moves (a single legal move, e.g. a pick-up when nothing beats) do not use
  up depth, so the horizon never falls in the middle of a forced sequence;
* at the horizon, going out at once is found without making the move, and
  the static evaluation is computed in place (no call per leaf);
* repetition as RULES.md §7 says: a position reached for the ``repetition``-th time
  in the deal ends it drawn, and a position already met on the search path scores as
  a draw (a player who can win never needs to repeat, one who can hold a draw can);
* a loss is proven only when every move was searched: where moves were pruned away
  and all searched ones lose, the value is capped at ``LIKELY_LOSS`` (very bad, not a
  proof), so a win found inside the pruned tree never stops the search early;
* going out is a win (``WIN`` minus the plies to it, so faster wins are preferred)
  or, with the RULES.md §7 both-out test, a draw;
* anytime: each finished iteration gives a move; an iteration cut off by the
  clock still counts when it found a better move than the previous best;
* when an iteration finds every move lost (against best play), the move the last
  iteration without a proven loss preferred is kept: it leaves a fallible
  opponent the most chances to go wrong.

Values are in centi-cards from the point of view of the seat to move (see
:func:`~p2ptrumps.ai.heuristics.evaluate`).
"""

from __future__ import annotations

import math
import random
import time
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from ..cards import SUIT_MASKS
from .heuristics import CARD, COST, KILLER, SAFE_SHED, TEMPO, THREAT, THREAT_LEAD, TRUMP, beatable
from .lean import DRAW, NONE, PICKUP, Lean, bits

WIN = 1_000_000
WIN_BOUND = WIN - 10_000
INF = 10 * WIN
MAX_PLY = 400
NEW_ITERATION_BEFORE = 1.0  # start another iteration only before this share of the budget (1: until the clock stops it)
BRANCH = 12  # below the root, only the BRANCH best-guessed moves are searched ...
FULL_WIDTH_CARDS = 6  # ... unless the side to move holds at most this many cards
CLOCK_EVERY = 256  # look at the clock every CLOCK_EVERY nodes or so
LIKELY_LOSS = 500_000  # the value of a node whose searched moves all lose while others were pruned away

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
    def __init__(self, state: Lean, deadline: float, max_nodes: int = 0) -> None:
        self.s = state
        self.deadline = deadline
        self.max_nodes = max_nodes
        #: Occurrences of each position in the deal before the search (the rest are on the search path).
        self.history = dict(state.counts)
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.killers = [[-2, -2] for _ in range(MAX_PLY + 2)]
        self.nodes = 0
        self.next_check = CLOCK_EVERY
        self.horizon = False
        self.pruned = False
        self.partial: tuple[int, int] | None = None
        t0, t1 = state.trumps
        self.costs = (COST[t0], COST[t1])
        self.trump_masks = (SUIT_MASKS[t0], SUIT_MASKS[t1])

    def shed_guesses(self) -> list[tuple[int, int]]:
        """``(guess, card)`` for each card of the seat to move, as a lead or second card: what the
        opponent must pay to beat it (``SAFE_SHED`` if it cannot, else the cost of its cheapest
        beating card, own trumps dearest) minus what the card is worth to us."""
        s = self.s
        p = s.to_move
        o = 1 - p
        ho = s.hands[o]
        orow = s.beaters[o]
        plain = ~self.trump_masks[o]
        ocosts = self.costs[o]
        costs = self.costs[p]
        out = []
        for c in bits(s.hands[p]):
            x = ho & orow[c]
            if not x:
                out.append((SAFE_SHED - costs[c], c))
            else:
                y = x & plain
                low = y & -y if y else x & -x
                out.append((ocosts[low.bit_length() - 1] - costs[c], c))
        return out

    def keys(self) -> tuple[list[int], bool]:
        """The legal beats or leads of the seat to move as ints ``guess << 12 | move`` (unsorted),
        and whether picking up is legal too."""
        s = self.s
        p = s.to_move
        hand = s.hands[p]
        pile = s.pile
        costs = self.costs[p]
        shed = self.shed_guesses()
        if not pile:
            return [v << 12 | c for v, c in shed], False
        beaters = hand & s.beaters[p][pile[-1]]
        pickup = not beaters or s.voluntary
        if len(shed) == 1:
            return ([shed[0][1] | NONE << 6] if beaters else []), pickup
        keys: list[int] = []
        for b in bits(beaters):
            cost = 2 * costs[b]
            keys += [(v - cost) << 12 | b | c << 6 for v, c in shed if c != b]
        return keys, pickup

    def ordered(self, prune: bool) -> list[int]:
        """The legal moves of the seat to move, best guess first.  If ``prune``, only the
        ``BRANCH`` best guesses (and picking up when legal).  With pruning the pairs (beating
        card, second card) are generated best-first: the guess is a sum of a term of each card,
        so the ``BRANCH``-th pair of the cheapest beating card bounds the others."""
        s = self.s
        p = s.to_move
        hand = s.hands[p]
        pile = s.pile
        if not prune:
            keys, pickup = self.keys()
            keys.sort(reverse=True)
            moves = [k & 4095 for k in keys]
        else:
            costs = self.costs[p]
            shed = sorted([v << 6 | c for v, c in self.shed_guesses()], reverse=True)
            if not pile:
                pickup = False
                moves = [k & 63 for k in shed]
            else:
                beaters = hand & s.beaters[p][pile[-1]]
                pickup = not beaters or s.voluntary
                if not beaters:
                    moves = []
                else:
                    order = sorted([costs[b] << 6 | b for b in bits(beaters)])
                    b0 = order[0] & 63
                    c0 = 2 * (order[0] >> 6)
                    first = [k for k in shed if k & 63 != b0][:BRANCH]
                    floor = (first[-1] >> 6) - c0
                    keys = [((k >> 6) - c0) << 12 | b0 | (k & 63) << 6 for k in first]
                    if len(order) > 1:
                        negs = [-(k >> 6) for k in shed]  # ascending
                        for kb in order[1:]:
                            b = kb & 63
                            cost = 2 * (kb >> 6)
                            cut = bisect_right(negs, -floor - cost)  # the seconds with v - cost >= floor
                            if not cut:
                                break
                            keys += [((k >> 6) - cost) << 12 | b | (k & 63) << 6 for k in shed[:cut] if k & 63 != b]
                    keys.sort(reverse=True)
                    moves = [k & 4095 for k in keys]
            if len(moves) > BRANCH:
                del moves[BRANCH:]
                self.pruned = True
        if pickup:
            moves.append(PICKUP)
        return moves

    def staged(self, ply: int, tt_move: int, prune: bool) -> Iterator[int]:
        """The moves in search order, generated lazily: the table move and the killer moves of
        ``ply`` (when legal here) come before the others are even generated, so a cut-off by one
        of them costs no move generation.  The rest is :meth:`ordered`."""
        first: list[int] = []
        for m in (tt_move, *self.killers[ply]):
            if m != -2 and m not in first and self.legal(m):
                first.append(m)
                yield m
        for m in self.ordered(prune):
            if m not in first:
                yield m

    def legal(self, m: int) -> bool:
        """Whether move int ``m`` (a killer or table move from another node) is legal here."""
        s = self.s
        p = s.to_move
        hand = s.hands[p]
        pile = s.pile
        if not pile:
            return 0 <= m < 52 and hand >> m & 1 == 1
        if m < 0:
            return s.voluntary or not hand & s.beaters[p][pile[-1]]
        b = m & 63
        c = m >> 6
        if not (hand & s.beaters[p][pile[-1]]) >> b & 1:
            return False
        return c != b and hand >> c & 1 == 1 if c != NONE else hand == 1 << b

    def leaf(self, ply: int, beaters: int) -> int:
        """Value at the horizon for the seat to move, whose cards beating the top are ``beaters``
        (0 on an empty pile): a win if it can go out at once to a win, else the static evaluation
        (the same as :func:`~p2ptrumps.ai.heuristics.evaluate`)."""
        s = self.s
        p = s.to_move
        o = 1 - p
        hp = s.hands[p]
        ho = s.hands[o]
        pile = s.pile
        n = hp.bit_count()
        if n <= 2:
            single_opp = ho & (ho - 1) == 0
            orow = s.beaters[o]
            if not pile:
                if n == 1 and not (single_opp and ho & orow[hp.bit_length() - 1]):
                    return WIN - ply - 1
            elif beaters:
                for b in bits(beaters):
                    rest = hp ^ (1 << b)
                    top = rest.bit_length() - 1 if rest else b
                    if not (single_opp and ho & orow[top]):
                        return WIN - ply - 1
        self.horizon = True
        tp, to = s.trumps[p], s.trumps[o]
        tm = self.trump_masks
        value = CARD * (ho.bit_count() - n)
        value += TRUMP * ((hp & tm[p]).bit_count() - (ho & tm[o]).bit_count())
        killers = hp & ~beatable(ho, to)
        value += KILLER * (killers.bit_count() - (ho & ~beatable(hp, tp)).bit_count())
        if not pile:
            value += TEMPO + (THREAT_LEAD if killers else 0)
        elif beaters:
            value += TEMPO
            if n >= 2 and (killers & ~(beaters & -beaters) or killers & (killers - 1)):
                value += THREAT
        return value

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.max_nodes and self.nodes > self.max_nodes:
            raise _Timeout
        if self.nodes >= self.next_check:
            self.next_check = self.nodes + CLOCK_EVERY
            if time.perf_counter() > self.deadline:
                raise _Timeout
        s = self.s
        p = s.to_move
        pile = s.pile
        hp = s.hands[p]
        if depth <= 0 or ply >= MAX_PLY:
            beaters = hp & s.beaters[p][pile[-1]] if pile else 0
            if not pile or beaters or s.voluntary or ply >= MAX_PLY:
                return self.leaf(ply, beaters)
        key = s.pcode << 53 | s.hands[0] << 1 | p
        entry = self.tt.get(key)
        tt_move = -2
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
        n = hp.bit_count()
        if not pile:
            single = n == 1
            total = n
        else:
            beaters = hp & s.beaters[p][pile[-1]]
            single = not beaters or (not s.voluntary and n <= 2 and beaters & (beaters - 1) == 0)
            total = beaters.bit_count() * (n - 1 or 1)
        searched = 0
        child_depth = depth if single else depth - 1
        alpha0 = alpha
        best = -INF
        best_move = -2
        leaves = child_depth <= 0 and not s.voluntary and ply + 1 < MAX_PLY
        make = s.make
        unmake = s.unmake
        for i, m in enumerate(self.staged(ply, tt_move, n > FULL_WIDTH_CARDS)):
            searched += m != PICKUP
            make(m)
            r = s.result
            if r is not None:
                v = 0 if r == DRAW else WIN - ply - 1
            elif s.reps >= 2 and s.reps - self.history.get(s.key(), 0) >= 2:
                v = 0
            elif leaves and (not s.pile or s.hands[s.to_move] & s.beaters[s.to_move][s.pile[-1]]):
                # a quiet child at the horizon: its static value, once (it does not depend on the window)
                self.nodes += 1
                c = s.to_move
                v = -self.leaf(ply + 1, s.hands[c] & s.beaters[c][s.pile[-1]] if s.pile else 0)
            elif i == 0:
                v = -self.negamax(child_depth, -beta, -alpha, ply + 1)
            else:
                v = -self.negamax(child_depth, -alpha - 1, -alpha, ply + 1)
                if alpha < v < beta:
                    v = -self.negamax(child_depth, -beta, -alpha, ply + 1)
            unmake()
            if v > best:
                best = v
                best_move = m
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        killers = self.killers[ply]
                        if killers[0] != m:
                            killers[1] = killers[0]
                            killers[0] = m
                        break
        else:
            if best < -WIN_BOUND and searched < total:
                best = -LIKELY_LOSS  # every searched move loses, but some were pruned away
        stored = best
        if stored > WIN_BOUND:
            stored += ply
        elif stored < -WIN_BOUND:
            stored -= ply
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.tt[key] = (depth, flag, stored, best_move)
        return best

    def root(self, moves: list[int], depth: int) -> tuple[int, int, list[tuple[int, int]]]:
        """Search every root move to ``depth`` (``moves`` best guess first); return (best move, value,
        (value, move) of every move, exact for the best, bounds for the others).  The best move found
        so far is kept in ``self.partial`` should the clock stop us."""
        s = self.s
        alpha = -INF
        best_move = moves[0]
        values = []
        for i, m in enumerate(moves):
            s.make(m)
            r = s.result
            if r is not None:
                v = 0 if r == DRAW else WIN - 1
            elif s.reps >= 2 and s.reps - self.history.get(s.key(), 0) >= 2:
                v = 0
            elif i == 0:
                v = -self.negamax(depth - 1, -INF, INF, 1)
            else:
                v = -self.negamax(depth - 1, -alpha - 1, -alpha, 1)
                if v > alpha:
                    v = -self.negamax(depth - 1, -INF, -alpha, 1)
            s.unmake()
            values.append((v, m))
            if v > alpha:
                alpha = v
                best_move = m
                self.partial = (best_move, alpha)
        return best_move, alpha, values


def search(state: Lean, budget_s: float, rng: random.Random, max_depth: int = 64, max_nodes: int = 0) -> SearchResult:
    """Choose a move for the seat to move in ``state`` within about ``budget_s`` seconds.

    Args:
        state: a deal not yet over (restored to the same state on return).
        budget_s: seconds of thinking; iterative deepening stops when they run out,
            or before a new iteration once ``NEW_ITERATION_BEFORE`` of them are used
            (it would be unlikely to finish), or when the value is proven.
        rng: shuffles the root moves, so that equal moves are chosen at random.
        max_depth: deepest iteration, in plies.
        max_nodes: if not 0, a node budget instead of the time budget: the search stops after
            this many nodes and never looks at the clock (the same move on every machine).
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
    searcher = _Searcher(state, math.inf if max_nodes else start + budget_s, max_nodes)
    keys, pickup = searcher.keys()
    scored = [(k >> 12, k & 4095) for k in keys] + ([(-10_000, PICKUP)] if pickup else [])
    rng.shuffle(scored)
    scored.sort(key=lambda sm: -sm[0])  # stable: equal guesses stay in random order
    moves = [m for _, m in scored]
    best, value, depth_done, exact = moves[0], 0, 0, False
    stack_depth = len(state.stack)
    hopeful: int | None = None
    for depth in range(1, max_depth + 1):
        searcher.horizon = False
        searcher.pruned = False
        searcher.partial = None
        try:
            best, value, values = searcher.root(moves, depth)
        except _Timeout:
            while len(state.stack) > stack_depth:
                state.unmake()
            if searcher.partial is not None:
                best, value = searcher.partial
            break
        depth_done = depth
        if value < -WIN_BOUND and hopeful is not None:
            # Lost against best play (as far as the pruned tree sees): keep the move the last
            # iteration without a proven loss liked best, which keeps the most chances against a
            # fallible opponent, rather than any longest loss.
            best = hopeful
            break
        if value >= -WIN_BOUND:
            hopeful = best
        if not searcher.horizon or abs(value) > WIN_BOUND:
            exact = abs(value) > WIN_BOUND or not searcher.pruned
            break
        if not max_nodes and time.perf_counter() - start > budget_s * NEW_ITERATION_BEFORE:
            break
        order = {m: i for i, (_, m) in enumerate(values)}
        values.sort(key=lambda vm: (-vm[0], order[vm[1]]))  # stable for equal values
        moves = [best] + [m for _, m in values if m != best]
    return SearchResult(best, value, depth_done, searcher.nodes, exact)
