"""One-move heuristics: the ``greedy`` level.

Source: RULES.md §5 (what beats what) and §7 (going out, the both-out draw).
Works on a :class:`~p2ptrumps.rules.Position` and its :class:`~p2ptrumps.rules.Move`\\ s; the
card costs and the safe-shed bonus are the search core's (:mod:`p2ptrumps.ai.core`), whose static
evaluation is the searching levels' one.
"""

from __future__ import annotations

import random

from ..cards import BEATERS
from ..rules import BEAT, LEAD, NO_CARD, PICK_UP, Move, Position
from .core import COST, SAFE_SHED


def card_cost(card: int, trump: int) -> int:
    """How much a player with own trump ``trump`` loses by giving up ``card``: 20 + rank
    for an own trump, the rank (2..14) otherwise."""
    return COST[trump][card]


def greedy_score(position: Position, move: Move) -> int:
    """Score of ``move`` (legal in ``position``) for the seat to move by the one-move rules of the
    ``greedy`` level.

    Going out to win scores highest, going out to a both-out draw next; picking
    up scores lowest.  Otherwise: beat with the cheapest card (keep own trumps),
    and lead or play as the second card a card the opponent cannot beat,
    preferring to shed the cards least useful to us.
    """
    p = position.to_move
    o = 1 - p
    hand = position.hands[p]
    tp = position.trumps[p]
    opp = position.hands[o]
    orow = BEATERS[position.trumps[o]]
    if move.kind == PICK_UP:
        return -10_000
    if move.kind == LEAD:
        shed, beat_card, top = move.card, -1, move.card
        rest = hand ^ (1 << move.card)
    else:
        assert move.kind == BEAT
        beat_card = move.card
        rest = hand ^ (1 << beat_card)
        if move.second == NO_CARD:
            shed, top = -1, beat_card
        else:
            shed = top = move.second
            rest ^= 1 << shed
    if not rest:
        if opp & (opp - 1) == 0 and opp & orow[top]:
            return 5_000
        return 10_000
    score = 0
    if beat_card >= 0:
        score -= 2 * card_cost(beat_card, tp)
    if shed >= 0:
        if not orow[shed] & opp:
            score += SAFE_SHED
        score -= card_cost(shed, tp)
    return score


def greedy_move(position: Position, rng: random.Random) -> Move:
    """The ``greedy`` level's move: the best :func:`greedy_score`, ties broken by ``rng``.

    Raises ``ValueError`` if the deal is over.
    """
    if position.outcome is not None:
        raise ValueError("the deal is over: no move to choose")
    moves = position.legal_moves()
    best = -(10**9)
    choice: list[Move] = []
    for m in moves:
        v = greedy_score(position, m)
        if v > best:
            best = v
            choice = [m]
        elif v == best:
            choice.append(m)
    return choice[0] if len(choice) == 1 else rng.choice(choice)
