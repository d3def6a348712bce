"""One-move heuristics: the ``greedy`` level and the static evaluation of the search.

Source: RULES.md §5 (what beats what) and §7 (going out, the both-out draw).
Everything works on a :class:`~p2ptrumps.ai.lean.Lean` state and move ints.
"""

from __future__ import annotations

import random

from ..cards import FULL_MASK, SUIT_MASKS
from .lean import DRAW, NONE, PICKUP, Lean

#: Static evaluation weights (centi-cards, from the side to move).
CARD = 100  # one card fewer in hand than the opponent
TRUMP = 14  # one own trump in hand
KILLER = 10  # one card in hand that the opponent cannot beat
TEMPO = 40  # being to move in a quiet position (about to shed cards)
THREAT = 200  # to move, able to beat and then play a card the opponent cannot beat (it must pick up)
THREAT_LEAD = 60  # to lead, holding a card the opponent cannot beat (it must take it back)
SAFE_SHED = 60  # move ordering and greedy: bonus for shedding a card the opponent cannot beat


def card_cost(card: int, trump: int) -> int:
    """How much a player with own trump ``trump`` loses by giving up ``card``: 20 + rank
    for an own trump, the rank (2..14) otherwise."""
    rank = card % 13 + 2
    return 20 + rank if card // 13 == trump else rank


#: ``COST[trump][card]``: :func:`card_cost` as a table.
COST: tuple[tuple[int, ...], ...] = tuple(tuple(card_cost(c, t) for c in range(52)) for t in range(4))


#: ``BELOW[c]``: the cards of ``c``'s suit ranked below ``c``.
BELOW: tuple[int, ...] = tuple(((1 << c) - 1) & SUIT_MASKS[c // 13] for c in range(52))
_NOT_SUIT: tuple[int, ...] = tuple(FULL_MASK & ~m for m in SUIT_MASKS)
#: ``_UNDER[s][x]``: the cards of suit ``s`` below the highest card whose bit is set in the
#: 13-bit number ``x`` (the part of suit ``s`` of a hand); 0 for ``x == 0``.
_UNDER: tuple[tuple[int, ...], ...] = tuple(
    tuple(map([0, *(((1 << k) - 1) << 13 * s for k in range(13))].__getitem__, map(int.bit_length, range(1 << 13))))
    for s in range(4)
)
_U0, _U1, _U2, _U3 = _UNDER


def beatable(opp_hand: int, opp_trump: int) -> int:
    """Every card that some card of ``opp_hand`` beats for a player whose own trump is ``opp_trump``
    (RULES.md §5): the cards below that player's highest card of each suit, and every card
    outside ``opp_trump`` when that player holds one of it."""
    m = (_U0[opp_hand & 0x1FFF] | _U1[opp_hand >> 13 & 0x1FFF] | _U2[opp_hand >> 26 & 0x1FFF]
         | _U3[opp_hand >> 39])
    if opp_hand & SUIT_MASKS[opp_trump]:
        m |= _NOT_SUIT[opp_trump]
    return m


def unbeatable(hand: int, opp_hand: int, opp_trump: int) -> int:
    """The cards of ``hand`` that no card of ``opp_hand`` beats for a player with own trump ``opp_trump``."""
    return hand & ~beatable(opp_hand, opp_trump)


def evaluate(state: Lean) -> int:
    """Static value of a deal still going on, for the seat to move, in centi-cards.

    Counts cards (fewer is better), own trumps held, cards the opponent cannot
    beat, the tempo of being to move, and the threat of the seat to move playing a
    card the opponent cannot beat next (as a lead, or as the second card after a
    beat).  Positive favours the seat to move.
    """
    p = state.to_move
    o = 1 - p
    hp = state.hands[p]
    ho = state.hands[o]
    tp = state.trumps[p]
    to = state.trumps[o]
    value = CARD * (ho.bit_count() - hp.bit_count())
    value += TRUMP * ((hp & SUIT_MASKS[tp]).bit_count() - (ho & SUIT_MASKS[to]).bit_count())
    killers = unbeatable(hp, ho, to)
    value += KILLER * (killers.bit_count() - unbeatable(ho, hp, tp).bit_count())
    pile = state.pile
    if not pile:
        value += TEMPO + (THREAT_LEAD if killers else 0)
    else:
        beaters = hp & state.beaters[p][pile[-1]]
        if beaters:
            value += TEMPO
            if hp.bit_count() >= 2 and (killers & ~(beaters & -beaters) or killers & (killers - 1)):
                value += THREAT
    return value


def greedy_score(state: Lean, m: int) -> int:
    """Score of move int ``m`` for the seat to move by the one-move rules of the ``greedy`` level.

    Going out to win scores highest, going out to a both-out draw next; picking
    up scores lowest.  Otherwise: beat with the cheapest card (keep own trumps),
    and lead or play as the second card a card the opponent cannot beat,
    preferring to shed the cards least useful to us.
    """
    p = state.to_move
    o = 1 - p
    hand = state.hands[p]
    tp = state.trumps[p]
    opp = state.hands[o]
    orow = state.beaters[o]
    pile = state.pile
    if m == PICKUP and pile:
        return -10_000
    if not pile:
        shed, beat_card, top = m, -1, m
        rest = hand ^ (1 << m)
    else:
        beat_card, s = m & 63, m >> 6
        rest = hand ^ (1 << beat_card)
        if s == NONE:
            shed, top = -1, beat_card
        else:
            shed, top = s, s
            rest ^= 1 << s
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


def greedy_move(state: Lean, rng: random.Random) -> int:
    """The ``greedy`` level's move int: the best :func:`greedy_score`, ties broken by ``rng``.

    Raises ``ValueError`` if the deal is over.
    """
    moves = state.moves()
    if not moves:
        raise ValueError("the deal is over: no move to choose")
    best = -(10**9)
    choice: list[int] = []
    for m in moves:
        v = greedy_score(state, m)
        if v > best:
            best = v
            choice = [m]
        elif v == best:
            choice.append(m)
    return choice[0] if len(choice) == 1 else rng.choice(choice)


def terminal_value(state: Lean) -> int:
    """+1 / 0 / -1: the finished deal's result for the seat that was to move before the last move."""
    if state.result == DRAW:
        return 0
    return 1 if state.result == state.to_move else -1
