"""Post-game analysis: which moves of a deal kept the value of the position and which threw it.

Source: RULES.md §7 (how a deal ends: the values the solver gives); the solver is
:func:`p2ptrumps.ai.engine.solve`.

A deal is given as the positions it went through (its start, then the position
after each move, each with the deal's repetition history, as
:meth:`p2ptrumps.record.MatchRecord.replay_deal` yields them).  Every position
is solved once, from the end of the deal backwards, with ``budget_s`` seconds
each; once ``give_up_after`` positions in a row are unknown, the earlier ones
(with more cards in play) are left unknown too.  A move is judged when the
positions before and after it are both solved:

* ``kept``: the mover's result (win / draw / loss against best play) is the same after it;
* ``threw-win``: the mover could force a win and no longer can;
* ``threw-draw``: the mover could hold a draw and now loses;
* ``lost``: the mover was lost whatever it played (not counted in the summary);
* ``forced``: the only legal move (not counted in the summary);
* ``unknown``: the position before or after was not solved in the budget.

Values are for the mover, counted from the position before the move (``WIN - 1``:
the move goes out and wins).  Accuracy is the share of judged moves (a choice,
a position not already lost, both values known) that kept the value; a blunder
is a ``threw-win`` or ``threw-draw``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..cards import Card
from ..rules import BEAT, NO_CARD, PICK_UP, Move, Position
from .core import WIN, WIN_BOUND
from .engine import Solution, solve, verdict

KEPT, THREW_WIN, THREW_DRAW, LOST, FORCED, UNKNOWN = "kept", "threw-win", "threw-draw", "lost", "forced", "unknown"

#: How many unknown positions in a row make the analysis stop going back.
GIVE_UP_AFTER = 4

#: The solver's table for each position: 2**20 entries (16 MiB), allocated per position.
ANALYSIS_TT_BITS = 20


def outcome_of(value: int) -> str:
    """``"win"``, ``"draw"`` or ``"loss"`` of an exact value (for the seat to move)."""
    return "win" if value > WIN_BOUND else "loss" if value < -WIN_BOUND else "draw"


@dataclass(frozen=True)
class MoveVerdict:
    """The verdict on move ``number`` (1-based) of a deal, played by ``seat``.

    Attributes:
        kind: :data:`KEPT`, :data:`THREW_WIN`, :data:`THREW_DRAW`, :data:`LOST`, :data:`FORCED` or
            :data:`UNKNOWN`.
        before: the exact value of the position before the move, for the mover (None: unknown).
        after: the exact value of the move played, for the mover, counted from the same position
            (None: unknown).
        best: a best move in the position before (None: unknown).
    """

    number: int
    seat: int
    move: Move
    kind: str
    before: int | None
    after: int | None
    best: Move | None

    def text(self, ascii_only: bool = False) -> str:
        """The verdict in words: ``"kept the win (wins in 3)"``, ``"threw a forced win (best: TS/7H
        wins in 7); now a draw"``, ``"unknown (not solved in the budget)"``."""
        if self.kind == UNKNOWN or self.before is None or self.after is None:
            return "unknown (not solved in the budget)"
        if self.after == WIN - 1:
            return "went out and won"
        if self.kind == FORCED:
            return f"forced ({verdict(self.after)})"
        if self.kind == LOST:
            return f"lost whatever the move ({verdict(self.after)})"
        if self.kind == KEPT:
            return f"kept the {outcome_of(self.before)} ({verdict(self.after)})"
        best = short_label(self.best, ascii_only) if self.best is not None else "?"
        now = "now a draw" if outcome_of(self.after) == "draw" else f"now {verdict(self.after)}"
        if self.kind == THREW_WIN:
            return f"threw a forced win (best: {best} {verdict(self.before)}); {now}"
        return f"threw a draw (best: {best} holds the draw); {now}"


@dataclass(frozen=True)
class PlayerSummary:
    """One seat's summary over the analysed moves: ``judged`` moves with a choice whose value was
    known, how many ``kept`` it, the ``blunders`` (a win or a draw thrown away), ``unknown`` moves."""

    seat: int
    judged: int
    kept: int
    blunders: int
    unknown: int

    @property
    def accuracy(self) -> float | None:
        """Share of judged moves that kept the value, 0..1 (None if no move was judged)."""
        return self.kept / self.judged if self.judged else None

    def text(self, name: str) -> str:
        """``seat 0 Ann: accuracy 85% (17 of 20 judged moves kept the value), 2 blunders, 30 unknown``."""
        if self.accuracy is None:
            acc = "accuracy unknown (no move judged)"
        else:
            acc = f"accuracy {self.accuracy:.0%} ({self.kept} of {self.judged} judged moves kept the value)"
        return f"seat {self.seat} {name}: {acc}, {self.blunders} blunder{'s' if self.blunders != 1 else ''}, " \
               f"{self.unknown} unknown"


def short_label(move: Move, ascii_only: bool = False) -> str:
    """A move in few characters: ``10♠``, ``10♠/7♥``, ``10♠/`` (beat with the last card), ``pick up``."""
    if move.kind == PICK_UP:
        return "pick up"
    text = Card(move.card).label(ascii_only)
    if move.kind == BEAT:
        text += "/" + (Card(move.second).label(ascii_only) if move.second != NO_CARD else "")
    return text


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


def analyse_deal(positions: Sequence[Position], moves: Sequence[Move], budget_s: float = 0.5,
                 give_up_after: int = GIVE_UP_AFTER,
                 progress: Callable[[int, int], None] | None = None) -> list[MoveVerdict]:
    """Judge every move of a deal.

    Args:
        positions: the start of the deal and the position after each move (``len(moves) + 1``
            positions, each with its repetition history).
        moves: the moves played.
        budget_s: seconds to solve each position.
        give_up_after: unknown positions in a row after which earlier ones are not tried.
        progress: called with (positions tried, positions in all) after each one.
    Returns:
        One :class:`MoveVerdict` per move, in order.
    Raises:
        ValueError: the lengths do not fit.
    """
    if len(positions) != len(moves) + 1:
        raise ValueError(f"{len(moves)} moves need {len(moves) + 1} positions, not {len(positions)}")
    solutions: list[Solution | None] = [None] * len(positions)
    misses = 0
    for i in range(len(positions) - 1, -1, -1):
        p = positions[i]
        if p.outcome is not None:
            continue
        if misses >= give_up_after:
            break
        s = solve(p, budget_s, tt_bits=ANALYSIS_TT_BITS)
        solutions[i] = s
        misses = 0 if s.solved else misses + 1
        if progress is not None:
            progress(len(positions) - i, len(positions))
    verdicts = []
    for i, move in enumerate(moves):
        before_pos, after_pos = positions[i], positions[i + 1]
        sb, sa = solutions[i], solutions[i + 1]
        before = sb.value if sb is not None and sb.solved else None
        after = _after_value(after_pos, sa.value if sa is not None and sa.solved else None)
        best = sb.move if sb is not None and sb.solved else None
        if len(before_pos.legal_moves()) == 1:
            kind = FORCED if after is not None else UNKNOWN
        elif before is None or after is None:
            kind = UNKNOWN
        elif outcome_of(before) == "loss":
            kind = LOST
        elif outcome_of(after) == outcome_of(before):
            kind = KEPT
        elif outcome_of(before) == "win":
            kind = THREW_WIN
        else:
            kind = THREW_DRAW
        verdicts.append(MoveVerdict(i + 1, before_pos.to_move, move, kind, before, after, best))
    return verdicts


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
            kept=sum(v.kind == KEPT for v in judged),
            blunders=sum(v.kind in (THREW_WIN, THREW_DRAW) for v in judged),
            unknown=len(mine) - len(judged),
        ))
    return out[0], out[1]
