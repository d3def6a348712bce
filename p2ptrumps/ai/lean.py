"""A lean deal state for search: int bitmask hands, a list pile, make/unmake.

Source: RULES.md §4-§7, the same rules as :class:`p2ptrumps.rules.Position`
(the tests play both side by side and compare legal move sets and outcomes).
It exists for speed: moves are plain ints, undo information is a tuple on a
stack, and the repetition key is one int kept up to date incrementally.

The key is exact, not a hash: the pile is coded as ``pcode``, the sum of
``(card + 1) << 6 * index`` over its cards (index 0 at the bottom), so a push
is one OR and a pick-up one AND with a table mask; the cards are conserved, so
seat 1's hand follows from seat 0's hand and the pile, and
``key = pcode << 53 | hand0 << 1 | to_move`` identifies (both hands, the pile in
order, the seat to move) — the RULES.md §7 repetition position — with no
collisions.

Move ints (the kind follows from the state the move is played in):

* pile empty: ``m`` is the led card (0..51);
* pile not empty: ``m == PICKUP`` (-1) picks up; otherwise ``m & 63`` is the
  beating card and ``m >> 6`` the second card, ``NONE`` (63) when the beating
  card was the last one in hand.

Results: ``result`` is None while the deal goes on, else the winning seat (0/1)
or ``DRAW`` (2); ``reason`` is the :class:`~p2ptrumps.rules.Outcome` reason.
"""

from __future__ import annotations

import random

from ..cards import BEATERS
from ..rules import BEAT, LEAD, NO_CARD, PICK_UP, Move, Outcome, Position

PICKUP = -1
NONE = 63
DRAW = 2

#: ``PILE_MASK[i]``: the bits of the first ``i`` pile cards in a pile code.
PILE_MASK: tuple[int, ...] = tuple((1 << 6 * i) - 1 for i in range(60))

#: ``TAKE[t][top]``: cards a player with own trump ``t`` picks up from a pile topped by ``top``
#: (RULES.md §6), before capping at the pile's size (99 stands for the whole pile).
TAKE: tuple[tuple[int, ...], ...] = tuple(
    tuple(3 if top // 13 != t else 5 if top % 13 != 12 else 99 for top in range(52)) for t in range(4)
)



def _bit_lists(offset: int) -> tuple[tuple[int, ...], ...]:
    """For each 13-bit number ``x``: the indices of its set bits plus ``offset``, ascending."""
    table: list[tuple[int, ...]] = [()]
    for x in range(1, 1 << 13):
        low = x & -x
        table.append((low.bit_length() - 1 + offset, *table[x ^ low]))
    return tuple(table)


#: ``_BITS13_AT[s][x]``: the cards of suit ``s`` whose bits are set in the 13-bit number ``x`` (for :func:`bits`).
_BITS13_AT: tuple[tuple[tuple[int, ...], ...], ...] = tuple(_bit_lists(13 * s) for s in range(4))


def bits(mask: int) -> list[int]:
    """The card ints (0..51) of a card bitmask, ascending."""
    return [
        *_BITS13_AT[0][mask & 0x1FFF],
        *_BITS13_AT[1][mask >> 13 & 0x1FFF],
        *_BITS13_AT[2][mask >> 26 & 0x1FFF],
        *_BITS13_AT[3][mask >> 39 & 0x1FFF],
    ]


def pile_code(pile: tuple[int, ...] | list[int]) -> int:
    """The exact code of a pile given bottom to top: the sum of ``(card + 1) << 6 * index``."""
    z = 0
    for i, c in enumerate(pile):
        z |= (c + 1) << 6 * i
    return z


def position_key(hand0: int, pile: tuple[int, ...] | list[int], to_move: int) -> int:
    """The repetition key (see the module docstring) of seat 0's hand, the pile and the seat to move."""
    return pile_code(pile) << 53 | hand0 << 1 | to_move


class Lean:
    """A deal in progress, for search.  Built from a :class:`Position`: ``Lean(position)``
    (its repetition history included; the position is not changed).

    Attributes (read them, change them only through :meth:`make`/:meth:`unmake`):
        hands: ``[hand of seat 0, hand of seat 1]`` as card bitmasks.
        pile: card ints bottom to top.
        to_move: seat to move (unchanged by the move that ends the deal, as in ``Position``).
        turn: turns completed.
        pcode: the exact pile code (see the module docstring).
        counts: occurrences of each :meth:`key` so far (the repetition rule).
        reps: occurrences of the current position, counted by the last :meth:`make`
            (0 after a move that ended the deal by going out).
        result / reason: see the module docstring.
        trumps: own trump suit of seat 0 and seat 1.
        beaters: ``BEATERS`` rows of both seats' trumps.
        take: ``TAKE`` rows of both seats' trumps.
        voluntary / repetition / turn_limit: the rule set's values.
    """

    __slots__ = (
        "beaters",
        "counts",
        "hands",
        "pcode",
        "pile",
        "reason",
        "repetition",
        "reps",
        "result",
        "stack",
        "take",
        "to_move",
        "trumps",
        "turn",
        "turn_limit",
        "voluntary",
    )

    def __init__(self, position: Position) -> None:
        self.trumps = position.trumps
        self.beaters = (BEATERS[self.trumps[0]], BEATERS[self.trumps[1]])
        self.take = (TAKE[self.trumps[0]], TAKE[self.trumps[1]])
        self.voluntary = position.rules.voluntary_pickup
        self.repetition = position.rules.repetition
        self.turn_limit = position.rules.turn_limit
        self.hands = [position.hands[0], position.hands[1]]
        self.pile = list(position.pile)
        self.to_move = position.to_move
        self.turn = position.turn
        self.pcode = pile_code(self.pile)
        self.counts: dict[int, int] = {}
        for (h0, _h1, pile, p), n in position._counts.items():
            self.counts[position_key(h0, pile, p)] = n
        self.stack: list[tuple[int, int, int, int, list[int] | None, int, int | None, str]] = []
        self.reps = self.counts.get(self.key(), 0)
        out = position.outcome
        self.result: int | None = None if out is None else (DRAW if out.winner is None else out.winner)
        self.reason = "" if out is None else out.reason

    def key(self) -> int:
        """The exact repetition key of the current position (an int; see the module docstring)."""
        return self.pcode << 53 | self.hands[0] << 1 | self.to_move

    def moves(self) -> list[int]:
        """Every legal move int (empty exactly when the deal is over)."""
        if self.result is not None:
            return []
        p = self.to_move
        hand = self.hands[p]
        pile = self.pile
        if not pile:
            return bits(hand)
        beaters = hand & self.beaters[p][pile[-1]]
        out: list[int] = []
        if beaters:
            cards = bits(hand)
            if len(cards) == 1:
                out.append(cards[0] | NONE << 6)
            else:
                for b in bits(beaters):
                    out.extend([b | s << 6 for s in cards if s != b])
        if not beaters or self.voluntary:
            out.append(PICKUP)
        return out

    def make(self, m: int) -> None:
        """Play move int ``m`` (assumed legal) for the seat to move."""
        p = self.to_move
        hands = self.hands
        pile = self.pile
        n = len(pile)
        hand = old = hands[p]
        pc = old_pc = self.pcode
        taken: list[int] | None = None
        if not n:
            hand ^= 1 << m
            pile.append(m)
            pc = m + 1
        elif m < 0:
            k = self.take[p][pile[-1]]
            start = n - k if k < n else 0
            taken = pile[start:]
            del pile[start:]
            for c in taken:
                hand |= 1 << c
            pc &= PILE_MASK[start]
        else:
            b = m & 63
            s = m >> 6
            hand ^= 1 << b
            pile.append(b)
            pc |= (b + 1) << 6 * n
            if s != NONE:
                hand ^= 1 << s
                pile.append(s)
                pc |= (s + 1) << 6 * n + 6
        hands[p] = hand
        self.pcode = pc
        self.turn += 1
        o = 1 - p
        if not hand:
            self.stack.append((old, old_pc, n, p, taken, -1, self.result, self.reason))
            oh = hands[o]
            if oh & (oh - 1) == 0 and oh & self.beaters[o][pile[-1]]:
                self.result = DRAW
                self.reason = "both-out"
            else:
                self.result = p
                self.reason = "out"
            self.reps = 0
            return
        key = pc << 53 | hands[0] << 1 | o
        self.stack.append((old, old_pc, n, p, taken, key, self.result, self.reason))
        self.to_move = o
        counts = self.counts
        c = counts.get(key, 0) + 1
        counts[key] = c
        self.reps = c
        if self.repetition and c >= self.repetition:
            self.result = DRAW
            self.reason = "repetition"
        elif self.turn_limit and self.turn >= self.turn_limit:
            self.result = DRAW
            self.reason = "turn-limit"

    def unmake(self) -> None:
        """Take back the last :meth:`make`; ``IndexError`` if there is none."""
        hand, pc, n, p, taken, key, result, reason = self.stack.pop()
        if key >= 0:
            counts = self.counts
            c = counts[key] - 1
            if c:
                counts[key] = c
            else:
                del counts[key]
        self.hands[p] = hand
        self.pcode = pc
        pile = self.pile
        if taken is not None:
            pile.extend(taken)
        else:
            del pile[n:]
        self.to_move = p
        self.turn -= 1
        self.result = result
        self.reason = reason

    def outcome(self) -> Outcome | None:
        """The result as an :class:`Outcome` (None while the deal goes on)."""
        if self.result is None:
            return None
        return Outcome(None if self.result == DRAW else self.result, self.reason)


def random_playout(state: Lean, rng: random.Random, record: list[int] | None = None) -> int:
    """Play uniformly random legal moves in ``state`` until the deal ends (RULES.md §4-§7, the same
    rules as :meth:`Lean.make`, in one loop with no calls per turn: the engine-speed figure).

    The state is left at the end of the deal with ``result``/``reason`` set; it keeps its
    repetition counts but no undo information, so it cannot be taken back.  Every move int
    played is appended to ``record`` if given.  Returns the number of turns played (0 if the
    deal was already over).
    """
    if state.result is not None:
        return 0
    hands = state.hands
    pile = state.pile
    pc = state.pcode
    p = state.to_move
    turn = state.turn
    counts = state.counts
    repetition = state.repetition
    limit = state.turn_limit
    voluntary = state.voluntary
    rows = state.beaters
    take = state.take
    rnd = rng.random
    played = 0
    c = 0
    while True:
        hand = hands[p]
        n = len(pile)
        if not n:
            cards = bits(hand)
            m = cards[int(rnd() * len(cards))]
            hand ^= 1 << m
            pile.append(m)
            pc = m + 1
        else:
            beat = hand & rows[p][pile[-1]]
            per = hand.bit_count() - 1 or 1
            beats = beat.bit_count() * per
            k = int(rnd() * (beats + 1 if not beat or voluntary else beats))
            if k == beats:
                m = PICKUP
                t = take[p][pile[-1]]
                start = n - t if t < n else 0
                for c in pile[start:]:
                    hand |= 1 << c
                del pile[start:]
                pc &= PILE_MASK[start]
            else:
                b = bits(beat)[k // per]
                hand ^= 1 << b
                pile.append(b)
                pc |= (b + 1) << 6 * n
                if hand:
                    c = bits(hand)[k % per]
                    hand ^= 1 << c
                    pile.append(c)
                    pc |= (c + 1) << 6 * n + 6
                    m = b | c << 6
                else:
                    m = b | NONE << 6
        hands[p] = hand
        turn += 1
        played += 1
        if record is not None:
            record.append(m)
        o = 1 - p
        if not hand:
            oh = hands[o]
            if oh & (oh - 1) == 0 and oh & rows[o][pile[-1]]:
                state.result, state.reason = DRAW, "both-out"
            else:
                state.result, state.reason = p, "out"
            state.reps = 0
            break
        p = o
        key = pc << 53 | hands[0] << 1 | p
        c = counts.get(key, 0) + 1
        counts[key] = c
        if repetition and c >= repetition:
            state.result, state.reason = DRAW, "repetition"
            state.reps = c
            break
        if limit and turn >= limit:
            state.result, state.reason = DRAW, "turn-limit"
            state.reps = c
            break
    state.pcode = pc
    state.to_move = p
    state.turn = turn
    state.stack.clear()
    return played


def to_move_int(move: Move) -> int:
    """The move int of a :class:`Move` (the kind follows from the position it is played in)."""
    if move.kind == PICK_UP:
        return PICKUP
    if move.kind == LEAD:
        return move.card
    return move.card | (NONE if move.second == NO_CARD else move.second) << 6


def to_move(m: int, pile_empty: bool) -> Move:
    """The :class:`Move` of move int ``m`` played on an empty pile (a lead) or not."""
    if pile_empty:
        return Move(LEAD, m, NO_CARD)
    if m == PICKUP:
        return Move(PICK_UP, NO_CARD, NO_CARD)
    s = m >> 6
    return Move(BEAT, m & 63, NO_CARD if s == NONE else s)


