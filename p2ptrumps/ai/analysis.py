"""Post-game analysis: which moves of a deal kept the value of the position and which threw it.

Source: RULES.md §7 (how a deal ends: the values the solver gives); the solver is
:func:`p2ptrumps.ai.engine.solve`, asked as the hint asks it
(:func:`p2ptrumps.ai.levels.hint_solution`).

A deal is given as the positions it went through (its start, then the position
after each move, each with the deal's repetition history, as
:meth:`p2ptrumps.record.MatchRecord.replay_deal` yields them).  Every position
is solved once if the budget allows, from the end of the deal backwards.  A move is proven
when the positions before and after it are solved, when it is the solver's best move in the
position before, or when the position after it is a proven win for the mover (then so was the
position before, at least as fast: "wins in at most 5"):

* ``kept``: the mover's result (win / draw / loss against best play) is the same after it;
* ``threw-win``: the mover could force a win and no longer can;
* ``threw-draw``: the mover could hold a draw and now loses;
* ``lost``: the mover was lost whatever it played (not counted in the summary);
* ``forced``: the only legal move (not counted in the summary; its value proven or estimated);
* ``slower``: the mover kept the win but it now takes more turns (``wins in 6`` → ``wins in 8``;
  exact values only);
* ``estimate``: not proven; the move is judged against the hint of the same budget
  (:func:`p2ptrumps.ai.levels.hint`): the hint's move is not graded, another move is graded by
  the advantage its position gives away against the hint's, both estimated alike (a search
  to the same depth with a node budget, seeded by the position, so the same on every machine);
* ``unknown``: not settled and no estimate asked for (``estimate_nodes=0``).

Each judged move also gets a grade (:data:`INACCURACY`, :data:`MISTAKE`, :data:`BLUNDER` or
``""``): a ``threw-win`` or ``threw-draw`` is a blunder, ``slower`` an inaccuracy; an estimated
move is graded by the expected score it gave away (:func:`advantage`: the fitted evaluation's
chance of winning, a draw counting half; a proven win 100 %, a loss 0 %): 5 points of it
(:data:`INACCURACY_LOSS`) an inaccuracy, 10 (:data:`MISTAKE_LOSS`) a mistake, 20
(:data:`BLUNDER_LOSS`) a blunder.

Values are for the mover, counted from the position before the move (``WIN - 1``:
the move goes out and wins).  Accuracy is the share of judged moves (a choice,
a position not already lost, not unknown) that got no grade.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..cards import Card
from ..message import N_, Message, Nn_, joined
from ..rules import BEAT, NO_CARD, PICK_UP, Move, Position
from ..text import counted
from .core import SEARCH, WIN, WIN_BOUND
from .engine import RUN, STRONG, Solution, plies_of, spec_of, verdict
from .levels import hint, hint_solution, position_seed, proven_move

KEPT, THREW_WIN, THREW_DRAW, LOST, FORCED, UNKNOWN = "kept", "threw-win", "threw-draw", "lost", "forced", "unknown"
SLOWER, ESTIMATE = "slower", "estimate"
INACCURACY, MISTAKE, BLUNDER = "inaccuracy", "mistake", "blunder"
#: The grades for people (the English is the grade itself, which ``--json`` writes).
GRADE_WORDS = {INACCURACY: N_("inaccuracy"), MISTAKE: N_("mistake"), BLUNDER: N_("blunder")}
#: A pick-up in :func:`short_label`: a lazy word.
PICK_UP_WORDS = N_("pick up")

#: Advantage (per mille, for the mover: see :func:`advantage`) given away by an estimated move that
#: makes it an inaccuracy, a mistake, a blunder: 5, 10 and 20 points of the expected score.
INACCURACY_LOSS, MISTAKE_LOSS, BLUNDER_LOSS = 100, 200, 400

#: A proven win counts as this advantage, a proven loss as its negative (the expected score 100 % / 0 %).
ADVANTAGE_CAP = 1000

#: The fitted evaluation's units per unit of the log-odds of winning (``bench/fit_eval.py``'s scale).
EVAL_PER_LOGIT = 400

#: The search's table for each estimate: 2**16 entries (1 MiB), allocated per estimate.
ESTIMATE_TT_BITS = 16

#: The depth (plies) of an estimate of the position before a move; the position after it is
#: searched one ply less, so that both look as far ahead (``analyse``'s ``--depth``).
ESTIMATE_DEPTH = 6

#: Positions one estimate may visit at most (``analyse``'s ``--estimate-nodes``): a node budget,
#: so the estimate is the same on every machine even when it stops short of the depth.
ESTIMATE_NODES = 1_000_000

#: How many unknown positions in a row make the analysis stop going back.
GIVE_UP_AFTER = 4


def outcome_of(value: int) -> str:
    """``"win"``, ``"draw"`` or ``"loss"`` of an exact value (for the seat to move)."""
    return "win" if value > WIN_BOUND else "loss" if value < -WIN_BOUND else "draw"


def advantage(value: int) -> int:
    """A value (exact, or the fitted evaluation's estimate, for one seat) as an advantage in per
    mille, ``-ADVANTAGE_CAP..ADVANTAGE_CAP``: twice the expected score (a win 1, a draw ½) less one,
    so a proven win is ``ADVANTAGE_CAP``, a draw 0, a proven loss ``-ADVANTAGE_CAP``; an estimate ``v``
    is ``1000 * tanh(v / (2 * EVAL_PER_LOGIT))`` rounded (the fitted evaluation's chance of winning),
    computed in decimal arithmetic (correctly rounded): the same on every machine."""
    if value > WIN_BOUND:
        return ADVANTAGE_CAP
    if value < -WIN_BOUND:
        return -ADVANTAGE_CAP
    with decimal.localcontext() as ctx:
        ctx.prec = 30
        e = (decimal.Decimal(value) / EVAL_PER_LOGIT).exp()
        return int((ADVANTAGE_CAP * (e - 1) / (e + 1)).to_integral_value(decimal.ROUND_HALF_EVEN))


def expected_score(adv: int) -> str:
    """An :func:`advantage` as the expected score in per cent: ``"62%"`` (``240``)."""
    return f"{(adv + ADVANTAGE_CAP) * 100 // (2 * ADVANTAGE_CAP)}%"


def grade_of_loss(loss: int) -> str:
    """The grade of an estimated move that gave away ``loss`` (per mille of :func:`advantage`): ``""`` below
    :data:`INACCURACY_LOSS`, else :data:`INACCURACY`, :data:`MISTAKE` or :data:`BLUNDER`."""
    if loss >= BLUNDER_LOSS:
        return BLUNDER
    if loss >= MISTAKE_LOSS:
        return MISTAKE
    if loss >= INACCURACY_LOSS:
        return INACCURACY
    return ""



@dataclass(frozen=True)
class MoveVerdict:
    """The verdict on move ``number`` (1-based) of a deal, played by ``seat``.

    Attributes:
        kind: :data:`KEPT`, :data:`SLOWER`, :data:`THREW_WIN`, :data:`THREW_DRAW`, :data:`LOST`,
            :data:`FORCED`, :data:`ESTIMATE` or :data:`UNKNOWN`.
        before: the exact value of the position before the move, for the mover (None: unknown).
        after: the exact value of the move played, for the mover, counted from the same position
            (None: unknown).
        best: a best move in the position before (None: unknown).
        grade: ``""``, :data:`INACCURACY`, :data:`MISTAKE` or :data:`BLUNDER`.
        score_before: the :func:`advantage` before the move for the mover (``±ADVANTAGE_CAP``
            for a proven win / loss; exact or estimated), None when unknown.
        score_after: the same after the move (for the same seat), None when unknown.
        bound: ``before`` was not solved but follows from ``after``, a proven win: its length (plies)
            is only bounded from above ("wins in at most 5").
    """

    number: int
    seat: int
    move: Move
    kind: str
    before: int | None
    after: int | None
    best: Move | None
    grade: str = ""
    score_before: int | None = None
    score_after: int | None = None
    bound: bool = False

    def _verdict(self, value: int) -> Message:
        return verdict(value, at_most=self.bound)

    def text(self, ascii_only: bool = False) -> Message:
        """The verdict in words: ``"kept the win (wins in 3)"``, ``"threw a forced win (best: TS/7H
        wins in 7); now a draw"``, ``"kept the win but slower (wins in 3 → wins in 4): inaccuracy"``,
        ``"estimate 62% → 51%: mistake"`` (the expected score before and after), ``"unknown (not solved
        in the budget)"``.  A lazy message (:mod:`p2ptrumps.message`): English in ``--json``."""
        arrow = "->" if ascii_only else "→"
        if self.kind == ESTIMATE and self.score_before is not None and self.score_after is not None:
            before, after = expected_score(self.score_before), expected_score(self.score_after)
            if self.grade:
                return N_("estimate %(before)s %(arrow)s %(after)s: %(grade)s", before=before, arrow=arrow,
                          after=after, grade=GRADE_WORDS.get(self.grade, self.grade))
            return N_("estimate %(before)s %(arrow)s %(after)s", before=before, arrow=arrow, after=after)
        if self.kind == FORCED and self.after is None and self.score_after is not None:
            return N_("forced (estimate %(score)s)", score=expected_score(self.score_after))
        if self.kind == UNKNOWN or self.before is None or self.after is None:
            return N_("unknown (not solved in the budget)")
        if self.after == WIN - 1:
            return N_("went out and won")
        if self.kind == FORCED:
            return N_("forced (%(verdict)s)", verdict=self._verdict(self.after))
        if self.kind == LOST:
            return N_("lost whatever the move (%(verdict)s)", verdict=self._verdict(self.after))
        if self.kind == SLOWER:
            return N_("kept the win but slower (%(before)s %(arrow)s %(after)s): inaccuracy",
                      before=verdict(self.before), arrow=arrow, after=verdict(self.after))
        if self.kind == KEPT:
            kept = outcome_of(self.before)
            after = self._verdict(self.after)
            return (N_("kept the win (%(verdict)s)", verdict=after) if kept == "win"
                    else N_("kept the draw (%(verdict)s)", verdict=after) if kept == "draw"
                    else N_("kept the loss (%(verdict)s)", verdict=after))
        best = short_label(self.best, ascii_only) if self.best is not None else "?"
        if self.kind == THREW_WIN:
            if outcome_of(self.after) == "draw":
                return N_("threw a forced win (best: %(best)s %(verdict)s); now a draw", best=best,
                          verdict=self._verdict(self.before))
            return N_("threw a forced win (best: %(best)s %(verdict)s); now %(now)s", best=best,
                      verdict=self._verdict(self.before), now=self._verdict(self.after))
        if outcome_of(self.after) == "draw":
            return N_("threw a draw (best: %(best)s holds the draw); now a draw", best=best)
        return N_("threw a draw (best: %(best)s holds the draw); now %(now)s", best=best, now=self._verdict(self.after))


@dataclass(frozen=True)
class PlayerSummary:
    """One seat's summary over the analysed moves: ``judged`` moves with a choice (not forced, not
    in a lost position) that were proven or estimated, how many ``kept`` the value (no grade), the
    ``blunders``, ``mistakes`` and ``inaccuracies`` among them, how many were ``estimated``, and
    the ``unknown`` moves."""

    seat: int
    judged: int
    kept: int
    blunders: int
    unknown: int
    mistakes: int = 0
    inaccuracies: int = 0
    estimated: int = 0

    @property
    def accuracy(self) -> float | None:
        """Share of judged moves that kept the value, 0..1 (None if no move was judged)."""
        return self.kept / self.judged if self.judged else None

    def text(self, name: str) -> Message:
        """``seat 0 Ann: accuracy 85% (17 of 20 judged moves kept the value, 12 estimated), 2 blunders,
        1 mistake, 0 inaccuracies, 0 unknown``: a lazy message."""
        if self.accuracy is None:
            acc = N_("accuracy unknown (no move judged)")
        else:
            acc = Nn_("accuracy %(percent)s (%(kept)d of %(n)d judged move kept the value, %(estimated)d estimated)",
                      "accuracy %(percent)s (%(kept)d of %(n)d judged moves kept the value, %(estimated)d estimated)",
                      self.judged, percent=f"{self.accuracy:.0%}", kept=self.kept, estimated=self.estimated)
        return N_("seat %(seat)d %(name)s: %(accuracy)s, %(blunders)s, %(mistakes)s, %(inaccuracies)s, %(unknown)d "
                  "unknown", seat=self.seat, name=name, accuracy=acc, blunders=counted(self.blunders, "blunder"),
                  mistakes=counted(self.mistakes, "mistake"),
                  inaccuracies=counted(self.inaccuracies, "inaccuracy", "inaccuracies"), unknown=self.unknown)


def short_label(move: Move, ascii_only: bool = False) -> Message:
    """A move in few characters: ``10♠``, ``10♠/7♥``, ``10♠/`` (beat with the last card), ``pick up``; a lazy
    message (the cards with the language's rank letters)."""
    if move.kind == PICK_UP:
        return PICK_UP_WORDS
    card = Message.cards([move.card], [Card(move.card).label(ascii_only)])
    if move.kind != BEAT:
        return card
    second = Message.cards([move.second], [Card(move.second).label(ascii_only)]) if move.second != NO_CARD else ""
    return joined([card, second], "/")


def _after_value(position: Position, value: int | None) -> int | None:
    """The value of ``position`` (just reached by a move) for the seat that made that move:
    the deal's result if it is over, else the negated value for the seat now to move."""
    out = position.outcome
    if out is not None:
        if out.winner is None:
            return 0
        # the mover went out (a resignation or agreed draw is not a move)
        return WIN - 1 if out.winner == position.to_move else -(WIN - 1)
    if value is None:
        return None
    if value > WIN_BOUND:
        return -(value - 1)
    if value < -WIN_BOUND:
        return -(value + 1)
    return 0


def estimate(position: Position, depth: int = ESTIMATE_DEPTH, max_nodes: int = ESTIMATE_NODES) -> int:
    """The search's value of ``position`` (not over) for the seat to move, in centi-cards (beyond
    ``±WIN_BOUND`` a proven win / loss): ``depth`` plies (1..64) and ``max_nodes`` positions at most,
    ties broken by :func:`~p2ptrumps.ai.levels.position_seed`, the clock never looked at: the same
    on every machine.

    Raises ``ValueError`` if the deal is over."""
    if position.outcome is not None:
        raise ValueError("the deal is over: nothing to estimate")
    spec = spec_of(position, position_seed(position))
    _, value, _, _, _, _ = RUN(spec, SEARCH, max_nodes=max(1, max_nodes), time_s=0.0, max_depth=max(1, depth),
                               tt_bits=ESTIMATE_TT_BITS, weights=STRONG.weights)
    return value


def analyse_deal(positions: Sequence[Position], moves: Sequence[Move], budget_s: float | None = 0.5,
                 give_up_after: int = GIVE_UP_AFTER,
                 progress: Callable[[int, int], None] | None = None,
                 solve_nodes: int = 0, estimate_nodes: int = 0,
                 estimate_depth: int = ESTIMATE_DEPTH,
                 estimating: Callable[[int, int], None] | None = None) -> list[MoveVerdict]:
    """Judge every move of a deal.

    Each position is solved, if the budget allows, as the hint solves it
    (:func:`~p2ptrumps.ai.levels.hint_solution`).  A move is proven when the positions before and
    after it are solved, when it is the solver's best move in the position before, or when the
    position after it is a proven win for the mover; a move of a lost position is :data:`LOST`.  The
    other moves are judged against the hint (:func:`~p2ptrumps.ai.levels.hint`, with the same
    budget): the hint's move is :data:`ESTIMATE` with no grade; another move is graded by how much
    less its position is worth than the hint's, both estimated the same way (:func:`estimate` of the
    position after each, ``estimate_depth - 1`` plies deep).  So a move that followed the hint of
    the same budget is never graded a blunder.

    Args:
        positions: the start of the deal and the position after each move (``len(moves) + 1``
            positions, each with its repetition history).
        moves: the moves played.
        budget_s: seconds for each position (None or 0 with ``solve_nodes``): the solver has half,
            the hint's search the other half.
        give_up_after: without estimates, unknown positions in a row after which earlier ones are not
            tried (with estimates every position is tried: the hint needs them).
        progress: called with (positions tried, positions in all) after each one.
        solve_nodes: if not 0, a node budget instead of ``budget_s``: the solver has this many
            nodes, the hint's search as many again (the same verdicts on every machine).
        estimate_nodes: if not 0, the moves not proven are judged against the hint, each estimate with
            this many nodes at most (0: left :data:`UNKNOWN`).
        estimate_depth: the depth of the estimates, in plies from the position before the move.
        estimating: called with (moves estimated, moves to estimate) after each estimate.
    Returns:
        One :class:`MoveVerdict` per move, in order.
    Raises:
        ValueError: the lengths do not fit.
    """
    if len(positions) != len(moves) + 1:
        raise ValueError(f"{len(moves)} moves need {len(moves) + 1} positions, not {len(positions)}")
    budget = budget_s or 0.0
    solutions: list[Solution | None] = [None] * len(positions)
    misses = 0
    for i in range(len(positions) - 1, -1, -1):
        p = positions[i]
        if p.outcome is not None:
            continue
        if misses >= give_up_after and not estimate_nodes:
            break
        s = hint_solution(p, budget, solve_nodes)
        solutions[i] = s
        misses = 0 if s.outcome != "unknown" else misses + 1
        if progress is not None:
            progress(len(positions) - i, len(positions))

    def value(i: int) -> int | None:
        s = solutions[i]
        return s.value if s is not None and s.solved else None

    befores = [value(i) for i in range(len(moves))]
    afters = [_after_value(positions[i + 1], value(i + 1)) for i in range(len(moves))]
    bounds = [False] * len(moves)
    forced_moves = [len(positions[i].legal_moves()) == 1 for i in range(len(moves))]
    for i, move in enumerate(moves):
        settled = solutions[i]
        if (afters[i] is None and settled is not None and befores[i] is not None and not forced_moves[i]
                and proven_move(settled) == move):
            afters[i] = befores[i]  # the move that settles the position before keeps its value
        after = afters[i]
        if befores[i] is None and after is not None and after > WIN_BOUND:
            befores[i] = after  # a move that wins: the position before was won, at least as fast
            bounds[i] = True
    lost = [b is not None and outcome_of(b) == "loss" and not f for b, f in zip(befores, forced_moves, strict=True)]
    to_estimate = sum((b is None or a is None) and not gone
                      for b, a, gone in zip(befores, afters, lost, strict=True)) if estimate_nodes else 0
    estimated = 0
    verdicts = []
    for i, move in enumerate(moves):
        before_pos, before, after = positions[i], befores[i], afters[i]
        sb = solutions[i]
        best = proven_move(sb) if sb is not None else None
        grade = ""
        score_b = advantage(before) if before is not None else None
        score_a = advantage(after) if after is not None else None
        forced = forced_moves[i]
        if lost[i]:
            kind = LOST
        elif before is None or after is None:
            kind = UNKNOWN
            if estimate_nodes:
                if forced:
                    kind, score_a = FORCED, advantage(_child_estimate(before_pos, move, estimate_depth,
                                                                      estimate_nodes))
                else:
                    hinted, result = hint(before_pos, budget, solve_nodes, solution=sb)
                    best = best if best is not None else hinted
                    kind = ESTIMATE
                    if move == hinted:
                        score_b = score_a = advantage(result.value)
                    else:
                        score_b = advantage(_child_estimate(before_pos, hinted, estimate_depth, estimate_nodes))
                        score_a = advantage(_child_estimate(before_pos, move, estimate_depth, estimate_nodes))
                        grade = grade_of_loss(score_b - score_a)
                estimated += 1
                if estimating is not None:
                    estimating(estimated, to_estimate)
        elif forced:
            kind = FORCED
        elif outcome_of(after) == outcome_of(before):
            slower = (outcome_of(before) == "win" and not bounds[i]
                      and (plies_of(after) or 0) > (plies_of(before) or 0))
            kind, grade = (SLOWER, INACCURACY) if slower else (KEPT, "")
        elif outcome_of(before) == "win":
            kind, grade = THREW_WIN, BLUNDER
        else:
            kind, grade = THREW_DRAW, BLUNDER
        verdicts.append(MoveVerdict(i + 1, before_pos.to_move, move, kind, before, after, best, grade,
                                    score_b, score_a, bounds[i] and kind not in (ESTIMATE, UNKNOWN)))
    return verdicts


def _child_estimate(position: Position, move: Move, depth: int, max_nodes: int) -> int:
    """The estimated value of ``move`` in ``position`` for the seat that plays it: the exact end when
    the move ends the deal, else the negated :func:`estimate` of the position after it, ``depth - 1``
    plies deep."""
    child = position.copy()
    child.push(move)
    exact = _after_value(child, None)
    return exact if exact is not None else -estimate(child, max(1, depth - 1), max_nodes)


#: The sparkline's eight levels, lowest first (``analyse``, the ``replay`` viewer).
SPARK = "▁▂▃▄▅▆▇█"
#: The sparkline's eight levels in ASCII, lowest first.
SPARK_ASCII = "_.-~=+*#"


def seat0_advantages(verdicts: Sequence[MoveVerdict]) -> list[int | None]:
    """The :func:`advantage` of seat 0 after each move (``±ADVANTAGE_CAP``; None: unknown)."""
    out: list[int | None] = []
    for v in verdicts:
        a = v.score_after
        out.append(None if a is None else a if v.seat == 0 else -a)
    return out


def sparkline(values: Sequence[int | None], ascii_only: bool = False) -> str:
    """One character per value in eight levels from ``-ADVANTAGE_CAP`` (lowest) to ``ADVANTAGE_CAP``
    (highest); ``?`` for an unknown value."""
    levels = SPARK_ASCII if ascii_only else SPARK
    out = []
    for v in values:
        if v is None:
            out.append("?")
        else:
            out.append(levels[min(7, (v + ADVANTAGE_CAP) * 8 // (2 * ADVANTAGE_CAP + 1))])
    return "".join(out)


def summarize(verdicts: Sequence[MoveVerdict]) -> tuple[PlayerSummary, PlayerSummary]:
    """The :class:`PlayerSummary` of seat 0 and seat 1 over ``verdicts`` (forced moves and moves in
    lost positions not counted)."""
    out = []
    for seat in (0, 1):
        mine = [v for v in verdicts if v.seat == seat and v.kind not in (FORCED, LOST)]
        judged = [v for v in mine if v.kind != UNKNOWN]
        out.append(PlayerSummary(
            seat=seat,
            judged=len(judged),
            kept=sum(not v.grade for v in judged),
            blunders=sum(v.grade == BLUNDER for v in judged),
            unknown=len(mine) - len(judged),
            mistakes=sum(v.grade == MISTAKE for v in judged),
            inaccuracies=sum(v.grade == INACCURACY for v in judged),
            estimated=sum(v.kind == ESTIMATE for v in judged),
        ))
    return out[0], out[1]
