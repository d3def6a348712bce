"""The AI as a :class:`~p2ptrumps.seats.Player`: it may take either seat, locally or over the network.

The search is CPU-bound; it runs in a worker thread (``trio.to_thread.run_sync``
with ``abandon_on_cancel=True``) so that a UI on the trio loop stays responsive
and a cancelled wait returns at once (the abandoned thread still finishes
within its time budget and its answer is dropped).  The levels that do not search
(:data:`INSTANT_LEVELS`: a move in microseconds) choose on the trio thread: handing
such a move to a thread would cost more than the move.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import trio

from ..record import PlayerInfo
from ..rules import Move, Position
from .levels import LEVELS, analyse, choose_move, position_seed

if TYPE_CHECKING:
    from ..events import MatchEvent as Event


#: The levels whose move takes no search: chosen at once, without a worker thread.
INSTANT_LEVELS = ("random", "greedy")

#: An unproven search value (for the AI's seat) at or below which the AI accepts a draw offer: for
#: ``normal`` (the hand-made evaluation, centi-cards) two cards behind; for ``strong`` (the fitted
#: evaluation, 400 to the log-odds) a chance of winning of at most 38 %.
DRAW_ACCEPT_BELOW = -200

#: Seconds the AI thinks at least before answering a draw offer: a short search's
#: estimate swings by more than a card from one run to the next.
DRAW_THINK_S = 1.0


def draw_acceptable(value: int, exact: bool) -> bool:
    """Whether the AI accepts a draw, given the search ``value`` for its seat
    (centi-cards; see :class:`~p2ptrumps.ai.engine.SearchResult`) and whether it is proven."""
    return value <= 0 if exact else value <= DRAW_ACCEPT_BELOW


class AIPlayer:
    """A seat played by the AI.

    Args:
        level: ``"random"``, ``"greedy"``, ``"normal"`` or ``"strong"`` (see :data:`p2ptrumps.ai.LEVELS`).
        budget_s: think time per move, seconds (``normal`` and ``strong``; also bounds the
            search behind :meth:`accept_draw`).
        max_nodes: if not 0, a node budget per move instead of ``budget_s``: then the tie-break
            is drawn from the position and ``seed`` (:func:`~p2ptrumps.ai.position_seed`), so the
            same position gets the same move in every run, on every machine.
        seed: seeds the tie-break randomness (None: from the OS; with ``max_nodes``, 0).
        name: display name in the record; default ``"AI (<level>)"``.
    Raises:
        ValueError: unknown level or a budget that is not a positive number.
    """

    def __init__(self, level: str = "normal", budget_s: float = 0.5, seed: int | None = None,
                 name: str | None = None, max_nodes: int = 0) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown AI level {level!r}; use one of {', '.join(LEVELS)}")
        if not budget_s > 0:
            raise ValueError(f"budget_s must be a positive number of seconds, not {budget_s!r}")
        if type(max_nodes) is not int or max_nodes < 0:
            raise ValueError(f"max_nodes must be a whole number of nodes (0: none), not {max_nodes!r}")
        self.level = level
        self.budget_s = budget_s
        self.max_nodes = max_nodes
        self.info = PlayerInfo(name or f"AI ({level})", f"ai:{level}")
        self._seed = seed or 0
        self._rng = random.Random(seed)

    def _child_rng(self, position: Position) -> random.Random:
        # A fresh generator per call: an abandoned worker thread never shares one with the next.
        if self.max_nodes:
            return random.Random(position_seed(position, self._seed))
        return random.Random(self._rng.getrandbits(64))

    async def choose_move(self, position: Position, seat: int) -> Move:
        """A legal move for ``seat`` (the seat to move in ``position``), computed in a worker thread.

        Raises ``ValueError`` if the deal is over or ``seat`` is not to move.
        """
        if position.to_move != seat:
            raise ValueError(f"seat {seat} is not to move (seat {position.to_move} is)")
        rng = self._child_rng(position)
        if self.level in INSTANT_LEVELS:
            await trio.lowlevel.checkpoint()
            return choose_move(position, self.level, self.budget_s, rng, self.max_nodes)
        return await trio.to_thread.run_sync(
            choose_move, position, self.level, self.budget_s, rng, self.max_nodes, abandon_on_cancel=True
        )

    async def observe(self, event: Event) -> None:
        """Events need no bookkeeping: each move is searched afresh from the position given."""

    async def accept_draw(self, position: Position, seat: int) -> bool:
        """Accept the opponent's draw offer (RULES.md §7 agreed draw) only when the search
        finds ``seat`` worse off: a proven draw or loss, or an estimate at least
        :data:`DRAW_ACCEPT_BELOW` centi-cards below even.  Searches (as ``strong`` for that
        level, else as ``normal``) for ``max(budget_s, DRAW_THINK_S)`` seconds, or four times the
        node budget when one is set."""
        if position.outcome is not None:
            return False
        rng = self._child_rng(position)
        budget_s = max(self.budget_s, DRAW_THINK_S)
        level = "strong" if self.level == "strong" else "normal"
        nodes = self.max_nodes * 4 if self.max_nodes else 0
        _, result = await trio.to_thread.run_sync(analyse, position, budget_s, rng, level, nodes,
                                                  abandon_on_cancel=True)
        value = result.value if position.to_move == seat else -result.value
        return draw_acceptable(value, result.exact)
