"""A lean deal state for search: int bitmask hands, a list pile, make/unmake.

Source: RULES.md §4-§7, the same rules as :class:`p2ptrumps.rules.Position`
(the tests play both side by side and compare legal move sets and outcomes).
It exists for speed: moves are plain ints, the pile is hashed incrementally
(Zobrist, one 64-bit number per pile index and card), and undo information is
a tuple on a stack.

Move ints (the kind follows from the state the move is played in):

* pile empty: ``m`` is the led card (0..51);
* pile not empty: ``m == PICKUP`` (-1) picks up; otherwise ``m & 63`` is the
  beating card and ``m >> 6`` the second card, ``NONE`` (63) when the beating
  card was the last one in hand.

Results: ``result`` is None while the deal goes on, else the winning seat (0/1)
or ``DRAW`` (2); ``reason`` is the :class:`~p2ptrumps.rules.Outcome` reason.
"""

from __future__ import annotations

import hashlib

from ..cards import BEATERS
from ..rules import BEAT, LEAD, NO_CARD, PICK_UP, Move, Outcome, Position

PICKUP = -1
NONE = 63
DRAW = 2

#: ``ZOBRIST[i][c]``: the 64-bit hash contribution of card ``c`` at pile index ``i``
#: (from the bottom).  Derived from SHA-256 so that it is the same in every process.
ZOBRIST: tuple[tuple[int, ...], ...] = tuple(
    tuple(int.from_bytes(hashlib.sha256(b"p2ptrumps/zobrist/%d/%d" % (i, c)).digest()[:8], "big") for c in range(52))
    for i in range(52)
)

Key = tuple[int, int, int, int]
_Undo = tuple[int, int, int, int, "list[int] | None", "Key | None", "int | None", str]


def bits(mask: int) -> list[int]:
    """The card ints of a bitmask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def pile_hash(pile: tuple[int, ...] | list[int]) -> int:
    """Zobrist hash of a pile given bottom to top."""
    z = 0
    for i, c in enumerate(pile):
        z ^= ZOBRIST[i][c]
    return z


class Lean:
    """A deal in progress, for search.  Built from a :class:`Position`: ``Lean(position)``
    (its repetition history included; the position is not changed).

    Attributes (read them, change them only through :meth:`make`/:meth:`unmake`):
        hands: ``[hand of seat 0, hand of seat 1]`` as card bitmasks.
        pile: card ints bottom to top.
        to_move: seat to move (unchanged by the move that ends the deal, as in ``Position``).
        turn: turns completed.
        zpile: Zobrist hash of the pile.
        counts: occurrences of each :meth:`key` so far (the repetition rule).
        reps: occurrences of the current position, counted by the last :meth:`make`
            (0 after a move that ended the deal by going out).
        result / reason: see the module docstring.
        trumps: own trump suit of seat 0 and seat 1.
        beaters: ``BEATERS`` rows of both seats' trumps.
        voluntary / repetition / turn_limit: the rule set's values.
    """

    __slots__ = (
        "beaters",
        "counts",
        "hands",
        "pile",
        "reason",
        "repetition",
        "reps",
        "result",
        "stack",
        "to_move",
        "trumps",
        "turn",
        "turn_limit",
        "voluntary",
        "zpile",
    )

    def __init__(self, position: Position) -> None:
        self.trumps = position.trumps
        self.beaters = (BEATERS[self.trumps[0]], BEATERS[self.trumps[1]])
        self.voluntary = position.rules.voluntary_pickup
        self.repetition = position.rules.repetition
        self.turn_limit = position.rules.turn_limit
        self.hands = [position.hands[0], position.hands[1]]
        self.pile = list(position.pile)
        self.to_move = position.to_move
        self.turn = position.turn
        self.zpile = pile_hash(self.pile)
        self.counts: dict[Key, int] = {}
        for (h0, h1, pile, p), n in position._counts.items():
            self.counts[(h0, h1, pile_hash(pile), p)] = n
        self.stack: list[_Undo] = []
        self.reps = self.counts.get(self.key(), 0)
        out = position.outcome
        self.result: int | None = None if out is None else (DRAW if out.winner is None else out.winner)
        self.reason = "" if out is None else out.reason

    def key(self) -> Key:
        """The repetition key: both hands, the pile hash, the seat to move."""
        return (self.hands[0], self.hands[1], self.zpile, self.to_move)

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
        for b in bits(beaters):
            rest = hand ^ (1 << b)
            if rest:
                out.extend(b | s << 6 for s in bits(rest))
            else:
                out.append(b | NONE << 6)
        if not beaters or self.voluntary:
            out.append(PICKUP)
        return out

    def make(self, m: int) -> None:
        """Play move int ``m`` (assumed legal) for the seat to move."""
        p = self.to_move
        hands = self.hands
        pile = self.pile
        n = len(pile)
        hand = hands[p]
        zp = self.zpile
        taken: list[int] | None = None
        if not n:
            hand ^= 1 << m
            pile.append(m)
            zp ^= ZOBRIST[0][m]
        elif m < 0:
            top = pile[-1]
            if top // 13 != self.trumps[p]:
                k = 3
            elif top % 13 != 12:
                k = 5
            else:
                k = n
            if k > n:
                k = n
            start = n - k
            taken = pile[start:]
            del pile[start:]
            for i, c in enumerate(taken, start):
                hand |= 1 << c
                zp ^= ZOBRIST[i][c]
        else:
            b = m & 63
            s = m >> 6
            hand ^= 1 << b
            pile.append(b)
            zp ^= ZOBRIST[n][b]
            if s != NONE:
                hand ^= 1 << s
                pile.append(s)
                zp ^= ZOBRIST[n + 1][s]
        old = hands[p]
        hands[p] = hand
        self.turn += 1
        if not hand:
            self.stack.append((old, self.zpile, n, p, taken, None, self.result, self.reason))
            self.zpile = zp
            o = 1 - p
            oh = hands[o]
            if oh & (oh - 1) == 0 and oh & self.beaters[o][pile[-1]]:
                self.result = DRAW
                self.reason = "both-out"
            else:
                self.result = p
                self.reason = "out"
            self.reps = 0
            return
        o = 1 - p
        key = (hands[0], hands[1], zp, o)
        self.stack.append((old, self.zpile, n, p, taken, key, self.result, self.reason))
        self.zpile = zp
        self.to_move = o
        c = self.counts.get(key, 0) + 1
        self.counts[key] = c
        self.reps = c
        if self.repetition and c >= self.repetition:
            self.result = DRAW
            self.reason = "repetition"
        elif self.turn_limit and self.turn >= self.turn_limit:
            self.result = DRAW
            self.reason = "turn-limit"

    def unmake(self) -> None:
        """Take back the last :meth:`make`; ``IndexError`` if there is none."""
        hand, zp, n, p, taken, key, result, reason = self.stack.pop()
        if key is not None:
            c = self.counts[key] - 1
            if c:
                self.counts[key] = c
            else:
                del self.counts[key]
        self.hands[p] = hand
        self.zpile = zp
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
