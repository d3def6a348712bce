"""The search core at the level of a :class:`~p2ptrumps.rules.Position`: the exact solver and the
one search of the ``normal`` and ``strong`` levels (:func:`search`, told apart by :class:`Settings`).

Source: RULES.md §4-§7.  The work is done by :func:`p2ptrumps.ai.core.run`, in
its compiled form (``p2ptrumps.ai._core``, built by ``pip install .`` when a C
compiler is there) or else in pure Python; both give the same answers for the
same node budget.  :data:`COMPILED` says which one runs; setting the
environment variable ``P2PTRUMPS_PURE_PYTHON_AI=1`` forces the pure-Python one.

Values are for the seat to move: ``WIN - n`` is a win when the game ends
after ``n`` more turns (plies) of both players, ``-(WIN - n)`` a loss after
``n`` plies, 0 a draw; :func:`verdict` puts them in words.  Budgets: a time
budget in seconds or a node budget (positions visited; the same on every
machine).  Memory: one transposition table of ``2**tt_bits`` entries (16 bytes
each in the compiled core: 16 MiB at the default 20 bits, 64 MiB at 22).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..message import N_, Message, Nn_
from ..rules import BEAT, LEAD, NO_CARD, PICK_UP, Move, Position
from . import core, parallel
from .core import (
    DEFAULT_TT_BITS,
    DONE,
    NO_MOVE,
    NONE,
    PICKUP,
    PROVE,
    SEARCH,
    SOLVE,
    SOLVE_ALL,
    WIN,
    WIN_BOUND,
    position_hash,
)
from .weights import FITTED

Runner = Callable[..., tuple[int, int, int, int, int, list[tuple[int, int]]]]


def to_move_int(move: Move) -> int:
    """The core's move int of a :class:`Move` (the kind follows from the position it is played in):
    a lead is its card, a beat ``card | second << 6`` (second :data:`~.core.NONE` when there is
    none), a pick-up :data:`~.core.PICKUP`."""
    if move.kind == PICK_UP:
        return PICKUP
    if move.kind == LEAD:
        return move.card
    return move.card | (NONE if move.second == NO_CARD else move.second) << 6


def to_move(m: int, pile_empty: bool) -> Move:
    """The :class:`Move` of the core's move int ``m`` played on an empty pile (a lead) or not."""
    if pile_empty:
        return Move(LEAD, m, NO_CARD)
    if m == PICKUP:
        return Move(PICK_UP, NO_CARD, NO_CARD)
    s = m >> 6
    return Move(BEAT, m & 63, NO_CARD if s == NONE else s)


def _load() -> tuple[Runner, bool]:
    if os.environ.get("P2PTRUMPS_PURE_PYTHON_AI"):
        return core.run, False
    try:
        from . import _core
    except ImportError:
        return core.run, False
    return _core.run, True


RUN, COMPILED = _load()

#: The transposition table of ``solve`` and ``analyse`` (64 MiB compiled; the prover's, 24-byte slots:
#: 96 MiB): solving is worth the memory.
SOLVE_TT_BITS = 22
#: :func:`solve` with ``prove``: the exact solver's share of the budget (nodes or seconds); the prover
#: (df-pn) has the rest when the solver has not finished.  Measured with ``bench/solver_reach.py --prove
#: --every`` (every move solved, as ``p2ptrumps solve`` does) on its 123 positions: outcomes settled at
#: 500k / 5M nodes 31 / 35 by the solver alone, 33 / 37 with 0.5, 32 / 37 with 0.8, exact values the
#: same 11 / 12 in all three.  (Without ``every``, 0.5 settles 38 outcomes at 5M where the solver alone
#: settles 39, 0.8 the same 39: where only the position's value is asked the prover adds nothing there.)
SOLVER_SHARE = 0.5


def spec_of(position: Position, seed: int = 0) -> tuple[object, ...]:
    """The core's position spec of ``position`` (see :mod:`p2ptrumps.ai.core`): its hands, pile,
    seat to move, turn, rules, and the hash of every position of its history that would draw by
    repetition if reached again (seen ``repetition - 1`` times or more, RULES.md §7)."""
    rules = position.rules
    draws: set[int] = set()
    if rules.repetition:
        for (h0, h1, pile, p), n in position._counts.items():
            if n >= rules.repetition - 1:
                draws.add(position_hash(h0, h1, pile, p))
    return (position.trumps[0], position.trumps[1], position.hands[0], position.hands[1], bytes(position.pile),
            position.to_move, position.turn, int(position.rules.voluntary_pickup), rules.repetition,
            rules.turn_limit, tuple(sorted(draws)), seed & (2**64 - 1))


def is_proven(value: int) -> bool:
    """Whether a value is a win or loss (beyond ``±WIN_BOUND``)."""
    return value > WIN_BOUND or value < -WIN_BOUND


def plies_of(value: int) -> int | None:
    """Plies (turns of both players) to the end of a won or lost value; None for other values."""
    return WIN - abs(value) if is_proven(value) else None


def verdict(value: int, at_most: bool = False) -> Message:
    """A solved value in words, for the seat to move: ``"wins in 3"`` (the seat goes out on its
    3rd turn from now), ``"loses in 2"`` (the opponent goes out on its 2nd turn), ``"draw"``; with
    ``at_most``, a proven outcome whose length is an upper bound: ``"wins in at most 3"``.  A lazy
    message (:mod:`p2ptrumps.message`), English in ``--json``, said in the person's language by a display."""
    n = plies_of(value)
    if n is None:
        return N_("draw")
    if value > 0:
        turns = (n + 1) // 2
        # TRANSLATORS: the seat to move goes out on its %(n)d-th turn from now (its own turns).
        return (Nn_("wins in at most %(n)d", "wins in at most %(n)d", turns) if at_most
                else Nn_("wins in %(n)d", "wins in %(n)d", turns))
    return (Nn_("loses in at most %(n)d", "loses in at most %(n)d", n // 2) if at_most
            else Nn_("loses in %(n)d", "loses in %(n)d", n // 2))


@dataclass(frozen=True)
class Solution:
    """What :func:`solve` found.

    Attributes:
        solved: the value is exact; False when the budget ran out (then ``value`` is 0, ``move`` None).
        value: for the seat to move (see the module docstring).
        move: a best move: the fastest win, else a drawing move, else the slowest loss.
        moves: with ``every``, each legal move and its exact value (for the seat that plays it), in
            the solver's root order; when the budget ran out (or the prover proved a draw: then the
            drawing move too), those solved before (on one thread the
            first ones in root order; on several, any of them).
        nodes: positions visited (the solver's and the prover's).
        elapsed_s: seconds spent.
        bound: when not solved, the prover's proven outcome with a bound on its length: ``WIN - n``
            the seat to move wins within ``n`` plies (the fastest win takes ``n`` or fewer), ``-(WIN -
            n)`` it loses within ``n`` plies (against best play the opponent goes out within ``n``);
            0: none (no prover, or no proof within the budget).
        bound_move: with a ``bound`` win, the move the proof plays first; else None.
        threads: the threads the exact solver ran on (1 with a node budget or the pure-Python core,
            whatever ``threads`` asked).
    """

    solved: bool
    value: int
    move: Move | None
    moves: tuple[tuple[Move, int], ...]
    nodes: int
    elapsed_s: float
    bound: int = 0
    bound_move: Move | None = None
    threads: int = 1

    @property
    def outcome(self) -> str:
        """``"win"``, ``"draw"``, ``"loss"`` (for the seat to move) or ``"unknown"``; a ``bound`` counts
        (its outcome is proven, only the length is not exact)."""
        if not self.solved:
            return "win" if self.bound > 0 else "loss" if self.bound < 0 else "unknown"
        return "win" if self.value > WIN_BOUND else "loss" if self.value < -WIN_BOUND else "draw"


def solve(position: Position, budget_s: float | None = 1.0, max_nodes: int = 0, every: bool = False,
          tt_bits: int = SOLVE_TT_BITS, prove: bool = False, threads: int = 1) -> Solution:
    """Solve ``position`` exactly (RULES.md §7 ends, repetition and turn limit included).

    With ``prove``, the exact solver has :data:`SOLVER_SHARE` of the budget; if it does not finish,
    the prover (df-pn, :data:`~.core.PROVE`) has the rest to prove a win, then a loss, for the seat
    to move: a proof of a win or a loss gives ``bound`` (the outcome proven, its length an upper
    bound), not an exact value; when the prover disproves both and checks both disproofs (a draw:
    "Draws" in :mod:`p2ptrumps.ai.core`), the value is exact, 0, with a drawing move (with ``every``
    that move's value 0 is added to ``moves``, the other moves stay as the solver left them).

    Args:
        position: a deal not yet over (not modified).
        budget_s: seconds at most (None or 0: no time limit).
        max_nodes: positions at most (0: no limit); one of the two budgets must be set.
        every: also the exact value of every legal move.
        tt_bits: the transposition table has ``2**tt_bits`` entries (10..28).
        prove: let the prover try where the solver does not finish (see above).
        threads: with a time budget only (no ``max_nodes``) and the compiled core, the solver runs on
            this many threads sharing one table (:mod:`.parallel`): the same exact values (and with
            ``every`` the same best move, the first best in root order) in less wall time; when the
            budget runs out, ``moves`` holds the moves solved, not always the first ones.  With a node
            budget or the pure-Python core: one thread (the node budget's answer is the same on every
            run and machine).  The prover runs on one thread.  ``p2ptrumps solve`` uses threads;
            ``analyse``, the hint and ``strong`` (the position's value only, :data:`~.core.SOLVE`)
            solve on one thread: measured on this project's 2-core machine (``bench/solver_reach.py
            --threads``, ``bench/solver_threads.py``), 2 threads settled no more of 123
            positions within 0.1 s or 1 s than one (30 / 43 against 31 / 42) and solved the value
            alone only 1.06 times faster (the helper thread mostly repeats the first one's work);
            every move's value (``every``) 1.28 times faster, up to 1.9 where the root moves share
            the work (none where one move holds it).
    Raises:
        ValueError: the deal is over, no budget, a bad ``tt_bits`` or ``threads`` (1..64).
    """
    if position.outcome is not None:
        raise ValueError("the deal is over: nothing to solve")
    if not budget_s and not max_nodes:
        raise ValueError("give a time budget or a node budget")
    pile_empty = not position.pile
    share = SOLVER_SHARE if prove else 1.0
    if not 1 <= threads <= parallel.MAX_THREADS:
        raise ValueError(f"threads must be 1..{parallel.MAX_THREADS}, not {threads!r}")
    spec = spec_of(position)
    t0 = time.perf_counter()
    mode = SOLVE_ALL if every else SOLVE
    if not (COMPILED and budget_s and not max_nodes):
        threads = 1
    if threads > 1:
        move, value, _, nodes, status, values = parallel.solve(RUN, spec, mode, threads, (budget_s or 0.0) * share,
                                                                tt_bits)
    else:
        move, value, _, nodes, status, values = RUN(spec, mode,
                                                    max_nodes=max(1, int(max_nodes * share)) if max_nodes else 0,
                                                    time_s=(budget_s or 0.0) * share,
                                                    tt_bits=tt_bits)
    move_values = tuple((to_move(m, pile_empty), v) for m, v in values)
    if status == DONE:
        return Solution(True, value, to_move(move, pile_empty), move_values, nodes, time.perf_counter() - t0,
                        threads=threads)
    bound, bound_move = 0, None
    rest_nodes = max_nodes - nodes if max_nodes else 0
    rest_s = budget_s - (time.perf_counter() - t0) if budget_s else 0.0
    if prove and (not max_nodes or rest_nodes > 0) and (not budget_s or rest_s > 0):
        m, v, _, prover_nodes, status, _ = RUN(spec, PROVE, max_nodes=rest_nodes, time_s=rest_s, tt_bits=tt_bits)
        nodes += prover_nodes
        if status == DONE and v == 0:  # a proven draw: exact, and the prover's move keeps it
            draw_move = to_move(m, pile_empty)
            if every and all(mv != draw_move for mv, _ in move_values):
                move_values += ((draw_move, 0),)
            return Solution(True, 0, draw_move, move_values, nodes, time.perf_counter() - t0, threads=threads)
        if status == DONE:
            bound, bound_move = v, None if m == NO_MOVE else to_move(m, pile_empty)
    return Solution(False, 0, None, move_values, nodes, time.perf_counter() - t0, bound, bound_move, threads)


@dataclass(frozen=True)
class Settings:
    """What tells one level's search from another's: the core and its search are the same.

    Attributes:
        solve_cards: the exact solver has ``solve_share`` of the budget first where the two hands
            hold at most this many cards together, or a hand at most ``solve_short`` cards (an end may
            be near); 0: never.
        solve_short: see ``solve_cards``.
        solve_share: the share of the budget (seconds or nodes) the solver has first.
        weights: the fitted evaluation's weights (:mod:`.weights`), or None: the hand-made evaluation.
    """

    solve_cards: int
    solve_short: int
    solve_share: float
    weights: tuple[int, ...] | None = None


#: ``strong``: the search with the fitted evaluation, the exact solver first where an end may be near.
STRONG = Settings(solve_cards=24, solve_short=3, solve_share=0.3, weights=FITTED)
#: ``normal``: the same search, no solver first.
NORMAL = Settings(solve_cards=0, solve_short=0, solve_share=0.0)


@dataclass(frozen=True)
class SearchResult:
    """What :func:`search` found.

    Attributes:
        move: the chosen move.
        value: its value for the seat to move (centi-cards; beyond ``±WIN_BOUND`` a proven win or
            loss, see the module docstring; 0 may be a draw).
        depth: the deepest finished iteration, in plies (0 for a forced move, an immediate win or a
            position the solver settled).
        nodes: positions visited.
        exact: the value is proven (a win or loss, or a value that rests on no estimate).
    """

    move: Move
    value: int
    depth: int
    nodes: int
    exact: bool


def search(position: Position, budget_s: float, rng: random.Random, max_nodes: int = 0,
           tt_bits: int = DEFAULT_TT_BITS, settings: Settings = STRONG) -> SearchResult:
    """A searching level's choice in ``position`` (not modified): ``strong``'s by default, any
    level's with its ``settings`` (:data:`STRONG`, :data:`NORMAL`).

    A forced move is played at once, and so is going out to a win.  Where an end may be near
    (:func:`worth_solving`) the exact solver has ``settings.solve_share`` of the budget first: a
    solved position is played at once (the fastest win, a drawing move, the slowest loss).
    Otherwise the core's search (iterative-deepening alpha-beta with forward pruning and sound
    proofs: see :mod:`p2ptrumps.ai.core`) has the rest; it stops early on a proven value.  The
    budget is ``budget_s`` seconds, or ``max_nodes`` nodes when that is set (then the clock is not
    looked at: the same move on every machine).  ``rng`` breaks ties.

    Raises ``ValueError`` if the deal is over.
    """
    start = time.perf_counter()
    moves = position.legal_moves()
    if not moves:
        raise ValueError("the deal is over: no move to choose")
    if len(moves) == 1:
        return SearchResult(moves[0], 0, 0, 0, False)
    for move in moves:
        after = position.copy()
        after.push(move)
        if after.outcome is not None and after.outcome.winner == position.to_move:
            return SearchResult(move, WIN - 1, 0, len(moves), True)
    spec = spec_of(position, rng.getrandbits(64))
    solver_nodes = 0
    if worth_solving(position, settings):
        share = settings.solve_share
        time_s = 0.0 if max_nodes else budget_s * share
        move_int, value, _, solver_nodes, status, _ = RUN(spec, SOLVE, max_nodes=int(max_nodes * share),
                                                          time_s=time_s, tt_bits=tt_bits)
        if status == DONE:
            return SearchResult(to_move(move_int, not position.pile), value, 0, solver_nodes, True)
    time_s = 0.0 if max_nodes else max(0.001, budget_s - (time.perf_counter() - start))
    move_int, value, depth, nodes, proven, _ = RUN(spec, SEARCH, max_nodes=max(1, max_nodes - solver_nodes)
                                                   if max_nodes else 0, time_s=time_s, tt_bits=tt_bits,
                                                   weights=settings.weights)
    return SearchResult(to_move(move_int, not position.pile), value, depth, solver_nodes + nodes, bool(proven))


def worth_solving(position: Position, settings: Settings = STRONG) -> bool:
    """Whether a level with ``settings`` tries the exact solver first: few cards in hands (at most
    ``solve_cards``) or a hand of at most ``solve_short`` cards (an end may be near)."""
    if not settings.solve_cards:
        return False
    a, b = position.hands[0].bit_count(), position.hands[1].bit_count()
    return a + b <= settings.solve_cards or min(a, b) <= settings.solve_short
