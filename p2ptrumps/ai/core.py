"""The search core in pure Python: the exact solver and the ``strong`` level's search.

Source: RULES.md §4-§7.  This module is the reference; ``_core.c`` (the optional
compiled extension, built by ``pip install .`` when a C compiler is present) is
a line-by-line translation of it.  Given the same position and the same node
budget both return the same move, value, depth and node count (the tests
compare them on many positions); only the speed differs.  :mod:`.engine`
chooses which one runs.

One entry point, :func:`run`, takes a position *spec* (plain ints, so that the
C side needs no Python objects while it searches):

``(trump0, trump1, hand0, hand1, pile, to_move, turn, voluntary, repetition,
turn_limit, draw_hashes, seed)`` -- hands are card bitmasks, ``pile`` is a
``bytes`` of card ints bottom to top, ``draw_hashes`` a sorted tuple of the
:func:`position_hash` of every position that would draw by repetition if
reached again (the game's positions seen ``repetition - 1`` times or more),
``seed`` a 64-bit number for the random tie-break of the root moves.

Modes:

* :data:`SEARCH`: iterative-deepening alpha-beta (negamax, PVS) with a static
  evaluation at the horizon (:meth:`_Core.leaf`), forced moves not using up
  depth, forward pruning (only the :data:`BRANCH` best-guessed moves where the
  side to move holds more than :data:`FULL_WIDTH_CARDS` cards), the table move
  and two killer moves tried first, and a transposition table -- the search of
  both the ``normal`` and the ``strong`` level, and a sound one: a win counts as
  proven only when every reply of the loser was searched (where moves were
  pruned away and every searched one loses, the value is capped at
  :data:`LIKELY_LOSS`), so a proven value ends the search at once and a win
  found only inside the pruned tree does not.  The static evaluation is the
  hand-made one (cards, trumps, cards the opponent cannot beat, tempo, threats:
  ``normal``) or, when ``run`` is given ``weights``, the fitted one: the
  :func:`features` of the position weighted by them (``strong``: the weights of
  :mod:`.weights`, a logistic regression of the result on positions of AI
  games, ``bench/fit_eval.py``; in units of 1/400 of the log-odds of winning).
* :data:`SOLVE`: the exact value of the position (RULES.md §7 ends, repetition
  and turn limit included) and a best move: the fastest win, else a drawing
  move, else the slowest loss.  The same search without forward pruning, in
  null-window tests deepened one ply at a time: "is it a win?" (a value of at
  least ``WIN_BOUND``), "is it a loss?".  Only going out gives such values, so a
  test that succeeds is a proof, and a search with the window beyond the bound
  then gives the exact length.  Each node also reports whether its value rests
  on an estimate (the horizon, or a table entry of limited depth); a value
  that does not is exact at any depth, is stored as such, and when both tests
  fail on exact values only, the position is a draw.
* :data:`SOLVE_ALL`: the same for every legal move (in root order).
* :data:`PROVE`: a depth-first proof-number search (df-pn: Nagai 2002, with the
  1+epsilon trick of Pawlewicz & Lew 2007) asking "can seat X force going out
  from here?", first for the seat to move (a win), then for the other seat (a
  loss for the seat to move).  It settles the *outcome* of positions the
  solver cannot reach, not the exact length: see "Proofs" below.

Proofs (:data:`PROVE`).  OR nodes have the attacker X to move, AND nodes the
other seat.  X going out proves; the other seat going out, both going out
(BOTH_OUT), a position of ``draw_hashes`` and a repetition of a position on the
search path disprove (so does :data:`MAX_PLY`); the turn limit is left out of
the search.  Each node has a proof number pn (at least how many leaves must
still be proven) and a disproof number dn; an OR node's pn is its children's
least, its dn their sum, an AND node the other way round; a child not yet in
the table starts at pn = the turns X needs at least to shed its hand (a turn
sheds at most two cards), dn = 1 (df-pn+); a child whose seat to move can go
out at once is settled when generated.  An OR node looks at its moves
:data:`WIDEN` at a time, best guess first (the rest stand as one more child, one
worse than the first guess): with some 100 beats per hand, generating them all
at every OR node cost most of the nodes.  :meth:`_Core.mid` expands the most
proving child with thresholds, the second-best number times 1.25 (plus 1) as its
own threshold so the search does not thrash between siblings.  The table has
``1 << tt_bits`` slots in buckets of two (24 bytes a slot in C: 96 MiB at 22
bits), each ``(key, pn, dn, length, work, move)``; a new entry replaces the one
of its bucket that cost fewer nodes.  A proven entry keeps ``length``, the plies
of its proof's strategy: 1 for going out at once, an OR node 1 + its shortest
proven child's, an AND node 1 + its children's longest.

Why a proof is sound although disproofs are not.  A repetition disproof depends
on the path (the graph-history interaction), and such disproofs are stored like
any other, so a disproof may be wrong and the prover may miss a proof: its
disproofs are never reported (draws stay the solver's job).  But a wrong
disproof never makes a false proof: a disproven child is passed over at an OR
node and disproves an AND node.  Every proven node was proven from children
proven before it (or by going out), so the proven positions lie in X's
*attractor* of going out in the game graph where ``draw_hashes`` positions and
the other seat going out are sinks, and by induction on that order the
attractor rank (the fewest plies in which X can force going out there) is at
most the stored ``length``.  Playing to lower the rank never repeats a position
(the rank falls at every X move and never rises), so RULES.md §7's repetition
draw cannot stop it, and it goes out within ``length`` plies of the root: no
position at ``root_turn + length`` or later is reached, so when ``root_turn +
length <= turn_limit`` (or there is none) the turn limit cannot draw either --
:meth:`_Core.prove` rejects a longer proof.  So a proof is a win for X, and
``length`` an upper bound on the plies of the fastest win (the exact value's).

Node count of the prover: one per :meth:`_Core.mid` call and one per child
generated (each child costs a move and a table look-up, about an alpha-beta
node), checked by :meth:`_Core.tick` as in the solver.

Values: ``WIN - n`` is a win for the seat to move when the deal ends after
``n`` more plies, ``-(WIN - n)`` a loss, 0 a draw; the search's estimates lie
strictly between ``-WIN_BOUND`` and ``WIN_BOUND`` (centi-cards, or the fitted
evaluation's units).

Repetition (RULES.md §7: the ``repetition``-th occurrence of a position draws;
the starting position counts).  Both the solver and the search score as a draw
a position of ``draw_hashes`` and a position that already occurred on the
search path since the root.  This gives the true value: a player who can force
a win can do so without ever repeating a position (so the repetitions the
search scores early are ones the winner avoids anyway), and one who can avoid
losing can keep doing so until a repetition or the turn limit draws
(``tests/test_ai_core.py`` checks it against the real rules, with a history).
A value that rests on a repetition of a position *above* a node depends on the
path to that node, so it is never stored in the transposition table (only its
best move is, for move ordering); values that rest only on repetitions inside
the node's own subtree are stored.  The turn limit draws as in RULES.md §7; a
value that rests on it is likewise not stored.

Budgets: ``max_nodes`` (0: none) stops the search when the node count would
exceed it (the count returned is then ``max_nodes``, never more); ``time_s``
(0: none) when the clock passes it, looked at every :data:`CLOCK_EVERY` nodes.
A node budget alone gives the same answer on any machine.  Memory: the
transposition table has ``1 << tt_bits`` entries (16 bytes each in C, e.g. 16
MiB for the default 20 bits); the rest is bounded by :data:`MAX_PLY` times the
number of moves of the pack.

The compiled core's ``run`` takes four more keyword arguments, for the parallel
solver (:mod:`.parallel`; this module, the reference, runs on one thread and has
none of them, and they leave a single search's moves, values and node counts as
they are): ``table``, a writable buffer of ``16 * 2**k`` bytes (k 10..28) used as
the transposition table instead of one of its own, shared by threads (each
entry stores the position's key XOR its data, and is taken only when the two
agree, so a read torn by another thread's write is a miss); ``stop``, a
writable buffer whose first byte, once nonzero, stops the search (looked at
every :data:`CLOCK_EVERY` nodes); ``moves`` (:data:`SOLVE_ALL` only), the root
moves to solve, in root order; ``variant`` *k* (1..255), a helper thread's move
order at the root (:data:`SOLVE`) or at the root move's replies
(:data:`SOLVE_ALL`): the ordered moves (no table or killer move first) from
*k*/256 of the way down the list, round to its start.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..cards import BEATERS, FULL_MASK, SUIT_MASKS, card_list

# ----- constants shared with _core.c (keep them equal) ------------------------------------

WIN = 1_000_000
WIN_BOUND = WIN - 10_000
INF = 10 * WIN
#: The value of a position whose searched moves all lose by force while other moves were pruned
#: away: very bad, but not a proven loss.
LIKELY_LOSS = 500_000
MAX_PLY = 400
BRANCH = 12
FULL_WIDTH_CARDS = 6
CLOCK_EVERY = 1024
DEFAULT_TT_BITS = 20
EXACT_DEPTH = 127  # the depth stored with a value that rests on no estimate (good at any depth)
MAX_DEPTH = 100  # the deepest iteration of the search (depths are stored in a signed byte in C)
NO_DEP = 1 << 30

SEARCH, SOLVE, SOLVE_ALL, PROVE = 0, 1, 2, 3
EMPTY, EXACT, LOWER, UPPER = 0, 1, 2, 3
PICKUP = -1
NONE = 63
NO_MOVE = -2
#: :func:`run` status: the answer is complete (solved / search finished) or the budget ran out.
DONE, STOPPED = 0, 1
#: What a move led to (``_make``).
GOES_ON, WENT_OUT, BOTH_OUT = 0, 1, 2

# Static evaluation weights (centi-cards, from the side to move): one card fewer in hand than the opponent,
# one own trump, one card the opponent cannot beat, being to move in a quiet position, able to beat and
# then play a card the opponent cannot beat, to lead holding such a card; move ordering and greedy: the
# bonus for shedding a card the opponent cannot beat.
CARD, TRUMP, KILLER, TEMPO, THREAT, THREAT_LEAD, SAFE_SHED = 100, 14, 10, 40, 200, 60, 60
PICKUP_GUESS = -10_000

# ----- the fitted evaluation (``weights``) -----------------------------------------------------
#: The hand sizes at which the fitted evaluation's hand-size steps are (a feature ``n >= k`` each).
FIT_SIZES = (3, 4, 5, 6, 7, 8, 10, 12, 15, 18, 22, 27)
#: The queens, kings and aces of every suit.
HIGH_MASK = sum(1 << (13 * s + r) for s in range(4) for r in (10, 11, 12))
#: How many features :func:`features` gives, so how many weights ``run(..., weights=...)`` takes.
N_FEATURES = 1 + 2 * len(FIT_SIZES) + 20
#: The fitted evaluation is the weighted sum of the features divided by ``2 ** EVAL_SHIFT`` (rounded down).
EVAL_SHIFT = 8

# ----- df-pn (PROVE) ------------------------------------------------------------------------
#: A proof or disproof number that stands for infinity; sums of finite numbers stop at ``PN_INF - 1``.
PN_INF = 1 << 30
#: The 1+epsilon trick: a child's threshold is the second-best number plus 1 plus a quarter of it.
EPS_SHIFT = 2
#: An OR node looks at this many of its moves at a time (best guess first); the rest stand as one child.
WIDEN = 4
#: Proof lengths (plies) are stored up to this; a longer proof is not reported.
MAX_LENGTH = 9000
#: Work (nodes of a subtree) is stored up to this.
MAX_WORK = (1 << 32) - 1
#: Xored into the table key of the question "can seat 1 force going out?" (seat 0: nothing).
Z_ATTACKER = 0x9E3779B97F4A7C15
#: What a child is for the prover: not decided by the move itself, the attacker went out, or a
#: disproof by the move (the defender went out, both out, a repetition, MAX_PLY).
OPEN, PROVED, DISPROVED = 0, 1, 2

MASK64 = (1 << 64) - 1


def _splitmix(state: int) -> tuple[int, int]:
    """One step of SplitMix64: (new state, output), both 64-bit."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def _zobrist() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], int]:
    """The hash tables: a number per (seat, card in hand), per (pile index, card), and the
    seat-1-to-move number, drawn in that order from SplitMix64 seeded with 0x243F6A8885A308D3."""
    state = 0x243F6A8885A308D3
    out = []
    for _ in range(2 * 52 + 64 * 52 + 1):
        state, z = _splitmix(state)
        out.append(z)
    hand = (tuple(out[0:52]), tuple(out[52:104]))
    pile = tuple(tuple(out[104 + 52 * i:156 + 52 * i]) for i in range(64))
    return hand, pile, out[-1]


Z_HAND, Z_PILE, Z_SIDE = _zobrist()


def position_hash(hand0: int, hand1: int, pile: Sequence[int], to_move: int) -> int:
    """The 64-bit hash of a position (both hands, the pile in order, the seat to move) used by
    the transposition table and the repetition test."""
    h = 0
    for seat, hand in ((0, hand0), (1, hand1)):
        z = Z_HAND[seat]
        while hand:
            low = hand & -hand
            h ^= z[low.bit_length() - 1]
            hand ^= low
    for i, c in enumerate(pile):
        h ^= Z_PILE[i][c]
    return h ^ Z_SIDE if to_move else h


def _cost(card: int, trump: int) -> int:
    rank = card % 13 + 2
    return 20 + rank if card // 13 == trump else rank


COST: tuple[tuple[int, ...], ...] = tuple(tuple(_cost(c, t) for c in range(52)) for t in range(4))
TAKE: tuple[tuple[int, ...], ...] = tuple(
    tuple(3 if top // 13 != t else 5 if top % 13 != 12 else 99 for top in range(52)) for t in range(4)
)
NOT_SUIT: tuple[int, ...] = tuple(FULL_MASK & ~m for m in SUIT_MASKS)


def beatable(hand: int, trump: int) -> int:
    """Every card some card of ``hand`` beats for a player with own trump ``trump`` (RULES.md §5)."""
    m = 0
    for s in range(4):
        x = hand >> 13 * s & 0x1FFF
        if x:
            m |= ((1 << x.bit_length() - 1) - 1) << 13 * s
    if hand & SUIT_MASKS[trump]:
        m |= NOT_SUIT[trump]
    return m


def features(hp: int, ho: int, tp: int, to: int, pile_len: int, beaters: int) -> list[int]:
    """The features of the fitted evaluation, for the seat to move holding ``hp`` (own trump ``tp``)
    against the opponent holding ``ho`` (own trump ``to``), with ``pile_len`` cards on the pile and
    ``beaters`` its cards that beat the top (0 when the pile is empty): :data:`N_FEATURES` ints.

    In order: 1; ``hp`` holds at least k cards, for each k of :data:`FIT_SIZES`; the same for ``ho``;
    own trumps held by each seat; own trumps of rank Q, K, A held by each; cards of each that the other
    cannot beat (RULES.md §5); those of them in the other's trump suit (a pick-up of 5 or the whole
    pile, §6); the pile's size when a seat holds the ace of the other's trump (the whole pile), each;
    the seat to move leads; it leads holding a card the opponent cannot beat; it can beat and then play
    a card the opponent cannot beat; the pile's size; each seat holds at most 4 cards, all but at most
    one of them cards the other cannot beat; 64 times the share of each hand the other cannot beat
    (rounded down), and of its own trumps."""
    n_p = hp.bit_count()
    n_o = ho.bit_count()
    t_p = SUIT_MASKS[tp]
    t_o = SUIT_MASKS[to]
    k_p = hp & ~beatable(ho, to)
    k_o = ho & ~beatable(hp, tp)
    kn_p = k_p.bit_count()
    kn_o = k_o.bit_count()
    tr_p = (hp & t_p).bit_count()
    tr_o = (ho & t_o).bit_count()
    f = [1]
    f += [int(n_p >= k) for k in FIT_SIZES]
    f += [int(n_o >= k) for k in FIT_SIZES]
    f += [tr_p, tr_o, (hp & t_p & HIGH_MASK).bit_count(), (ho & t_o & HIGH_MASK).bit_count()]
    f += [kn_p, kn_o, (k_p & t_o).bit_count(), (k_o & t_p).bit_count()]
    f += [pile_len if hp >> (13 * to + 12) & 1 else 0, pile_len if ho >> (13 * tp + 12) & 1 else 0]
    lead = int(pile_len == 0)
    threat = int(beaters != 0 and n_p >= 2 and (k_p & ~(beaters & -beaters) != 0 or k_p & (k_p - 1) != 0))
    f += [lead, int(lead == 1 and k_p != 0), threat, pile_len]
    f += [int(n_p <= 4 and kn_p >= n_p - 1), int(n_o <= 4 and kn_o >= n_o - 1)]
    f += [64 * kn_p // max(1, n_p), 64 * kn_o // max(1, n_o), 64 * tr_p // max(1, n_p), 64 * tr_o // max(1, n_o)]
    return f


class _Stop(Exception):
    """The budget ran out."""


class _Core:
    """One search: the position, its undo stack, the transposition table and the counters."""

    def __init__(self, spec: Sequence[Any], mode: int, max_nodes: int, time_s: float, tt_bits: int,
                 weights: Sequence[int] | None = None) -> None:
        (t0, t1, h0, h1, pile, to_move, turn, voluntary, _repetition, turn_limit, draws, seed) = spec
        # (the caller has turned the repetition count into draw_hashes)
        self.trumps: tuple[int, int] = (int(t0), int(t1))
        self.rows = (BEATERS[self.trumps[0]], BEATERS[self.trumps[1]])
        self.take = (TAKE[self.trumps[0]], TAKE[self.trumps[1]])
        self.costs = (COST[self.trumps[0]], COST[self.trumps[1]])
        self.tmask = (SUIT_MASKS[self.trumps[0]], SUIT_MASKS[self.trumps[1]])
        self.hands: list[int] = [int(h0), int(h1)]
        self.pile: list[int] = [int(c) for c in pile]
        self.p = int(to_move)
        self.root_turn = int(turn)
        self.voluntary = bool(voluntary)
        self.limit = int(turn_limit)
        self.draws = frozenset(int(d) for d in draws)
        self.seed = int(seed) & MASK64
        self.hash = position_hash(self.hands[0], self.hands[1], self.pile, self.p)
        self.mode = mode
        self.weights = tuple(weights) if weights is not None else None
        self.max_nodes = max_nodes
        self.deadline = time.perf_counter() + time_s if time_s > 0 else 0.0
        self.tt_mask = (1 << tt_bits) - 1
        self.tt: dict[int, tuple[int, int, int, int, int]] = {}
        self.killers = [[NO_MOVE, NO_MOVE] for _ in range(MAX_PLY + 2)]
        self.path = [0] * (MAX_PLY + 2)
        self.path[0] = self.hash
        self.stack: list[tuple[int, int, int, int, list[int] | None]] = []
        self.nodes = 0
        self.next_check = CLOCK_EVERY
        self.horizon = False
        self.inexact = False
        self.dep = NO_DEP
        self.prune = mode == SEARCH
        self.partial: tuple[int, int] | None = None
        #: SOLVE_ALL: ``(move, value)`` of the root moves solved so far.
        self.solved: list[tuple[int, int]] = []
        #: PROVE: the table (slot -> (key, pn, dn, length, work, move)), the seat asked about and its key.
        self.ptt: dict[int, tuple[int, int, int, int, int, int]] = {}
        self.attacker = 0
        self.akey = 0

    # ----- the rules ----------------------------------------------------------------

    def make(self, m: int) -> int:
        """Play move ``m`` for the seat to move: :data:`GOES_ON`, :data:`WENT_OUT` or :data:`BOTH_OUT`."""
        p = self.p
        hands = self.hands
        pile = self.pile
        n = len(pile)
        hand = old = hands[p]
        h = old_h = self.hash
        zh = Z_HAND[p]
        taken: list[int] | None = None
        if not n:
            hand ^= 1 << m
            pile.append(m)
            h ^= zh[m] ^ Z_PILE[0][m]
        elif m < 0:
            k = self.take[p][pile[-1]]
            start = n - k if k < n else 0
            taken = pile[start:]
            del pile[start:]
            for i, c in enumerate(taken, start):
                hand |= 1 << c
                h ^= zh[c] ^ Z_PILE[i][c]
        else:
            b = m & 63
            s = m >> 6
            hand ^= 1 << b
            pile.append(b)
            h ^= zh[b] ^ Z_PILE[n][b]
            if s != NONE:
                hand ^= 1 << s
                pile.append(s)
                h ^= zh[s] ^ Z_PILE[n + 1][s]
        hands[p] = hand
        self.stack.append((old, old_h, n, p, taken))
        if not hand:
            o = 1 - p
            oh = hands[o]
            if oh & (oh - 1) == 0 and oh & self.rows[o][pile[-1]]:
                return BOTH_OUT
            return WENT_OUT
        self.p = 1 - p
        self.hash = h ^ Z_SIDE
        return GOES_ON

    def unmake(self) -> None:
        hand, h, n, p, taken = self.stack.pop()
        self.hands[p] = hand
        self.hash = h
        self.p = p
        pile = self.pile
        if taken is not None:
            pile.extend(taken)
        else:
            del pile[n:]

    def draw_after(self, ply: int) -> bool:
        """Whether the position just reached at ``ply`` (the deal going on) is drawn by RULES.md §7:
        a repetition (``self.dep`` lowered to the ply of the repeated position on the path) or the
        turn limit (``self.dep`` lowered to 0).  Otherwise the position is put on the path."""
        h = self.hash
        if h in self.draws:
            return True
        path = self.path
        for j in range(ply - 2, -1, -2):
            if path[j] == h:
                if j < self.dep:
                    self.dep = j
                return True
        if self.limit and self.root_turn + ply >= self.limit:
            self.dep = 0
            return True
        path[ply] = h
        return False

    def tick(self) -> None:
        self.nodes += 1
        if self.max_nodes and self.nodes > self.max_nodes:
            self.nodes -= 1  # the position past the budget is not searched, so not counted: nodes <= max_nodes
            raise _Stop
        if self.nodes >= self.next_check:
            self.next_check = self.nodes + CLOCK_EVERY
            if self.deadline and time.perf_counter() > self.deadline:
                raise _Stop

    # ----- move generation and ordering --------------------------------------------

    def keys(self) -> tuple[list[int], bool]:
        """The beats or leads of the seat to move as ``guess << 12 | move`` (guess: what the
        opponent must pay to beat the card we shed, minus what it is worth to us, minus twice
        the beating card's worth), and whether picking up is legal."""
        p = self.p
        o = 1 - p
        hand = self.hands[p]
        ho = self.hands[o]
        orow = self.rows[o]
        plain = ~self.tmask[o]
        ocost = self.costs[o]
        cost = self.costs[p]
        pile = self.pile

        def guess(c: int) -> int:
            x = ho & orow[c]
            if not x:
                return SAFE_SHED - cost[c]
            y = x & plain
            low = y & -y if y else x & -x
            return ocost[low.bit_length() - 1] - cost[c]

        if not pile:
            return [guess(c) << 12 | c for c in card_list(hand)], False
        beaters = hand & self.rows[p][pile[-1]]
        pickup = not beaters or self.voluntary
        if not beaters:
            return [], pickup
        if hand & (hand - 1) == 0:
            return [hand.bit_length() - 1 | NONE << 6], pickup
        cards = card_list(hand)
        shed = [(guess(c), c) for c in cards]
        keys = []
        for b in card_list(beaters):
            cb = 2 * cost[b]
            keys += [(g - cb) << 12 | b | c << 6 for g, c in shed if c != b]
        return keys, pickup

    def ordered(self, prune: bool) -> tuple[list[int], bool]:
        """The legal moves best guess first (picking up last); with ``prune`` only the
        :data:`BRANCH` best beats or leads.  Returns the moves and whether some were cut."""
        keys, pickup = self.keys()
        keys.sort(reverse=True)
        moves = [k & 4095 for k in keys]
        cut = False
        if prune and len(moves) > BRANCH:
            del moves[BRANCH:]
            cut = True
        if pickup:
            moves.append(PICKUP)
        return moves, cut

    def legal(self, m: int) -> bool:
        """Whether move int ``m`` (a table or killer move from elsewhere) is legal here."""
        p = self.p
        hand = self.hands[p]
        pile = self.pile
        if not pile:
            return 0 <= m < 52 and hand >> m & 1 == 1
        if m < 0:
            return self.voluntary or not hand & self.rows[p][pile[-1]]
        b = m & 63
        c = m >> 6
        if not (hand & self.rows[p][pile[-1]]) >> b & 1:
            return False
        return c != b and hand >> c & 1 == 1 if c != NONE else hand == 1 << b

    def first_moves(self, ply: int, tt_move: int) -> list[int]:
        """The table move and the killer moves of ``ply`` that are legal here, in that order."""
        first: list[int] = []
        for m in (tt_move, *self.killers[ply]):
            if m != NO_MOVE and m not in first and self.legal(m):
                first.append(m)
        return first

    def win_now(self) -> bool:
        """Whether the seat to move can go out at once and win (not a both-out draw)."""
        p = self.p
        o = 1 - p
        hp = self.hands[p]
        if hp & (hp - 1) & (hp & (hp - 1)) - 1:  # three cards or more
            return False
        ho = self.hands[o]
        single_opp = ho & (ho - 1) == 0
        orow = self.rows[o]
        pile = self.pile
        if not pile:
            return hp & (hp - 1) == 0 and not (single_opp and ho & orow[hp.bit_length() - 1])
        beaters = hp & self.rows[p][pile[-1]]
        for b in card_list(beaters):
            rest = hp ^ (1 << b)
            top = rest.bit_length() - 1 if rest else b
            if not (single_opp and ho & orow[top]):
                return True
        return False

    def leaf(self, ply: int, beaters: int) -> int:
        """The static value at the horizon for the seat to move, or a win if it can go out at once to
        a win.  Counts cards (fewer is better), own trumps held, cards the opponent cannot beat, the
        tempo of being to move, and the threat of playing a card the opponent cannot beat next.
        ``beaters``: its cards that beat the top."""
        p = self.p
        o = 1 - p
        hp = self.hands[p]
        ho = self.hands[o]
        n = hp.bit_count()
        if n <= 2 and self.win_now():
            return WIN - ply - 1
        self.horizon = self.inexact = True
        tp, to = self.trumps
        if p:
            tp, to = to, tp
        if self.weights is not None:
            return self.fitted(self.weights, beaters)
        tm = self.tmask
        value = CARD * (ho.bit_count() - n)
        value += TRUMP * ((hp & tm[p]).bit_count() - (ho & tm[o]).bit_count())
        killers = hp & ~beatable(ho, to)
        value += KILLER * (killers.bit_count() - (ho & ~beatable(hp, tp)).bit_count())
        if not self.pile:
            value += TEMPO + (THREAT_LEAD if killers else 0)
        elif beaters:
            value += TEMPO
            if n >= 2 and (killers & ~(beaters & -beaters) or killers & (killers - 1)):
                value += THREAT
        return value

    def fitted(self, weights: tuple[int, ...], beaters: int) -> int:
        """The fitted evaluation (:func:`features` weighted by ``weights``) for the seat to move;
        ``beaters``: its cards that beat the top."""
        p = self.p
        f = features(self.hands[p], self.hands[1 - p], self.trumps[p], self.trumps[1 - p], len(self.pile), beaters)
        return sum(w * x for w, x in zip(weights, f, strict=True)) >> EVAL_SHIFT

    # ----- the transposition table --------------------------------------------------

    def probe(self) -> tuple[int, int, int, int] | None:
        """``(depth, flag, value, move)`` stored for the current position, or None."""
        e = self.tt.get(self.hash & self.tt_mask)
        if e is None or e[0] != self.hash:
            return None
        return e[1], e[2], e[3], e[4]

    def store(self, ply: int, depth: int, flag: int, value: int, move: int) -> None:
        """Store a result (always replacing); a value depending on the path above ``ply`` keeps
        only its move (depth -1)."""
        if self.dep < ply:
            depth, flag, value = -1, EMPTY, 0
        elif value > WIN_BOUND:
            value += ply
        elif value < -WIN_BOUND:
            value -= ply
        self.tt[self.hash & self.tt_mask] = (self.hash, depth, flag, value, move)

    def killer(self, ply: int, m: int) -> None:
        k = self.killers[ply]
        if k[0] != m:
            k[1] = k[0]
            k[0] = m

    # ----- the search ---------------------------------------------------------------

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The value for the seat to move searched ``depth`` plies deep (fail-soft, PVS).

        Sets ``self.dep`` (the ply of the highest position on the path a repetition draw in the
        subtree rests on, :data:`NO_DEP` if none) and ``self.inexact`` (the value rests on the
        horizon, a pruned move list or a depth-limited table entry: it is an estimate unless it
        is a win or loss beyond ``±WIN_BOUND``)."""
        self.tick()
        self.dep = NO_DEP
        self.inexact = False
        p = self.p
        pile = self.pile
        hp = self.hands[p]
        beaters = hp & self.rows[p][pile[-1]] if pile else 0
        if (depth <= 0 or ply >= MAX_PLY) and (not pile or beaters or self.voluntary or ply >= MAX_PLY):
            return self.leaf(ply, beaters)
        n = hp.bit_count()
        if n <= 2 and self.win_now():
            return WIN - ply - 1
        if not self.prune:
            # The distance bounds: a seat holding ``n`` cards goes out on its ``(n + 1) // 2``-th turn
            # at the earliest (a turn sheds at most two cards), the opponent likewise; a window
            # beyond them fails without the search (exact bounds: they rest on no estimate).
            top = WIN - ply - 2 * ((n + 1) >> 1) + 1
            if alpha >= top:
                return top
            bottom = -(WIN - ply - 2 * ((self.hands[1 - p].bit_count() + 1) >> 1))
            if beta <= bottom:
                return bottom
            # A proof test no one can pass within ``depth``: a seat holding ``n`` cards needs at least
            # ``(n - 1) // 2`` moves of its own that use up depth (each sheds at most two cards, and a
            # move is forced, using none, only when it picks up or leaves at most two cards), so a win
            # (a value of ``WIN_BOUND`` or more) or a loss cannot be found below: the test fails as
            # it would at the horizon, without the search.
            if alpha >= WIN_BOUND - 1 and (n - 1) >> 1 > depth:
                self.inexact = self.horizon = True
                return WIN_BOUND - 1
            if beta <= 1 - WIN_BOUND and (self.hands[1 - p].bit_count() - 1) >> 1 > depth:
                self.inexact = self.horizon = True
                return 1 - WIN_BOUND
        tt_move = NO_MOVE
        e = self.probe()
        if e is not None:
            e_depth, flag, value, tt_move = e
            if e_depth >= depth:
                if value > WIN_BOUND:
                    value -= ply
                elif value < -WIN_BOUND:
                    value += ply
                if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
                    if e_depth != EXACT_DEPTH:
                        self.inexact = self.horizon = True
                    return value
        # a single legal move (a forced pick-up, the last beat) uses up no depth
        one_beat = not self.voluntary and n <= 2 and beaters & (beaters - 1) == 0
        single = (not beaters or one_beat) if pile else n == 1
        child_depth = depth if single else depth - 1
        first = self.first_moves(ply, tt_move)
        alpha0 = alpha
        best = -INF
        best_move = NO_MOVE
        dep = NO_DEP
        inexact = False
        cut = False
        rest: list[int] | None = None
        i = 0
        while True:
            if i < len(first):
                m = first[i]
            else:
                if rest is None:
                    ordered, cut = self.ordered(self.prune and n > FULL_WIDTH_CARDS)
                    rest = [m for m in ordered if m not in first]
                if i - len(first) >= len(rest):
                    break
                m = rest[i - len(first)]
            code = self.make(m)
            self.dep = dep
            self.inexact = False
            if code == WENT_OUT:
                v = WIN - ply - 1
            elif code == BOTH_OUT or self.draw_after(ply + 1):
                v = 0
            elif i == 0:
                v = -self.negamax(child_depth, -beta, -alpha, ply + 1)
            else:
                v = -self.negamax(child_depth, -alpha - 1, -alpha, ply + 1)
                if alpha < v < beta:
                    d, x = self.dep, self.inexact
                    v = -self.negamax(child_depth, -beta, -alpha, ply + 1)
                    if d < self.dep:
                        self.dep = d
                    self.inexact |= x
            if self.dep < dep:
                dep = self.dep
            inexact |= self.inexact
            i += 1
            self.unmake()
            if v > best:
                best = v
                best_move = m
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        self.killer(ply, m)
                        break
        if cut and best < beta:
            inexact = True
            if best < -WIN_BOUND:
                best = -LIKELY_LOSS
        self.dep = dep
        self.inexact = inexact
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.store(ply, depth if inexact else EXACT_DEPTH, flag, best, best_move)
        return best

    # ----- the root ----------------------------------------------------------------------

    def root_moves(self) -> list[int]:
        """The root moves best guess first, equal guesses in an order drawn from ``seed``."""
        keys, pickup = self.keys()
        scored = [(k >> 12, k & 4095) for k in keys]
        if pickup:
            scored.append((PICKUP_GUESS, PICKUP))
        state = self.seed
        for i in range(len(scored) - 1, 0, -1):
            state, z = _splitmix(state)
            j = z % (i + 1)
            scored[i], scored[j] = scored[j], scored[i]
        scored.sort(key=lambda gm: -gm[0])  # stable
        return [m for _, m in scored]

    def child_value(self, m: int, depth: int, alpha: int, beta: int) -> int:
        """The value of root move ``m`` for the root's seat, searched to ``depth`` with window
        (alpha, beta); sets ``self.inexact``."""
        code = self.make(m)
        self.dep = NO_DEP
        self.inexact = False
        if code == WENT_OUT:
            v = WIN - 1
        elif code == BOTH_OUT or self.draw_after(1):
            v = 0
        else:
            v = -self.negamax(depth - 1, -beta, -alpha, 1)
        self.unmake()
        return v

    def root_search(self, moves: list[int], depth: int) -> tuple[int, int, list[tuple[int, int]], bool]:
        """One iteration over the root moves (PVS).  Returns (best move, value, (value, move) of
        every move, whether the value rests on an estimate)."""
        alpha = -INF
        best_move = moves[0]
        values = []
        inexact = False
        for i, m in enumerate(moves):
            if i == 0:
                v = self.child_value(m, depth, -INF, INF)
            else:
                v = self.child_value(m, depth, alpha, alpha + 1)
                if v > alpha:
                    v = self.child_value(m, depth, alpha, INF)
            inexact |= self.inexact
            values.append((v, m))
            if v > alpha:
                alpha = v
                best_move = m
                self.partial = (best_move, alpha)
        return best_move, alpha, values, inexact

    def iterate(self, max_depth: int) -> tuple[int, int, int, int]:
        """Iterative deepening: ``(move, value, depth done, proven)``; proven: the value is a win or
        loss beyond ``±WIN_BOUND``, or rests on no estimate."""
        moves = self.root_moves()
        best, value, done, proven = moves[0], 0, 0, 0
        hopeful = NO_MOVE
        for depth in range(1, max_depth + 1):
            self.horizon = False
            self.partial = None
            try:
                best, value, values, inexact = self.root_search(moves, depth)
            except _Stop:
                if self.partial is not None:
                    best, value = self.partial
                break
            done = depth
            if value < -WIN_BOUND and hopeful != NO_MOVE:
                best = hopeful  # lost against best play: keep the move with the most chances
                proven = 1
                break
            if value >= -WIN_BOUND:
                hopeful = best
            if value > WIN_BOUND or value < -WIN_BOUND or not inexact:
                proven = 1
                break
            if not self.horizon:
                break
            order = {m: i for i, (_, m) in enumerate(values)}
            values.sort(key=lambda vm: (-vm[0], order[vm[1]]))
            moves = [best] + [m for _, m in values if m != best]
        return best, value, done, proven

    # ----- the solver -------------------------------------------------------------------

    def solve_here(self, ply: int) -> int:
        """The exact value of the current position (at ``ply`` on the path), no forward pruning.

        Iterative deepening of two null-window tests per depth: is it a win (a value of at least
        ``WIN_BOUND``)?  is it a loss (at most ``-WIN_BOUND``)?  A test that succeeds is proven
        (only going out ends a line with such a value), and a search with the window above
        (below) the bound then gives the length of the fastest win (slowest loss).  That search
        is only as deep as the test, while forced moves use up no depth and the table holds wins
        proven deeper: the first depth that proves a win may see only a longer win than the
        fastest (one with fewer choices on the way, or none of its own within the depth).  So
        when the win known takes ``n`` plies and ``n`` is more than the depth (or the search
        within the depth did not see it), a search ``n`` deep, which holds every line of at most
        ``n`` plies, gives the exact length; likewise for a loss (the opponent's fastest win).  When both
        fail and neither rests on an estimate, the position is a draw.  Raises :class:`_Stop` when
        the budget or :data:`MAX_DEPTH` runs out."""
        for depth in range(1, MAX_DEPTH + 1):
            v = self.negamax(depth, WIN_BOUND - 1, WIN_BOUND, ply)
            if v >= WIN_BOUND:
                w = self.negamax(depth, WIN_BOUND - 1, INF, ply)
                deeper = w < v
                w = max(w, v)  # v is proven (a win found in the table may be longer than the depth)
                plies = WIN - w - ply
                if plies > depth or deeper:  # a faster win may need more choices: forced moves cost no depth
                    if plies > MAX_DEPTH:
                        raise _Stop
                    w = max(w, self.negamax(max(plies, depth), w - 1, INF, ply))
                return w
            not_win = not self.inexact
            v = self.negamax(depth, -WIN_BOUND, -WIN_BOUND + 1, ply)
            if v <= -WIN_BOUND:
                w = self.negamax(depth, -INF, -WIN_BOUND + 1, ply)
                deeper = w > v
                w = min(w, v)
                plies = WIN + w - ply
                if plies > depth or deeper:  # the opponent's fastest win may need more choices
                    if plies > MAX_DEPTH:
                        raise _Stop
                    w = min(w, self.negamax(max(plies, depth), -INF, w + 1, ply))
                return w
            if not_win and not self.inexact:
                return 0
        raise _Stop

    def root_solve(self, every: bool) -> tuple[int, int, list[tuple[int, int]]]:
        """``(best move, value, values)``: the exact value of the root and a best move (the fastest
        win, else the first drawing move in root order, else the slowest loss); with ``every``
        the exact value of each root move, ``(move, value)`` in root order."""
        moves = self.root_moves()
        if not every:
            for m in moves:
                code = self.make(m)
                self.unmake()
                if code == WENT_OUT:
                    return m, WIN - 1, []
            v = self.solve_here(0)
            e = self.probe()
            return (e[3] if e is not None and e[3] != NO_MOVE else moves[0]), v, []
        values = self.solved = []
        for m in moves:
            self.dep = NO_DEP
            code = self.make(m)
            if code == WENT_OUT:
                v = WIN - 1
            elif code == BOTH_OUT or self.draw_after(1):
                v = 0
            else:
                v = -self.solve_here(1)
            self.unmake()
            values.append((m, v))
        best_move, best = values[0]
        for m, v in values:
            if v > best:
                best_move, best = m, v
        return best_move, best, values

    # ----- the prover (df-pn) ---------------------------------------------------------------

    def p_lookup(self, key: int) -> tuple[int, int, int, int, int, int] | None:
        """The prover's entry ``(key, pn, dn, length, work, move)`` of ``key``, or None: the table is
        in buckets of two slots."""
        i = key & self.tt_mask & ~1
        for j in (i, i + 1):
            e = self.ptt.get(j)
            if e is not None and e[0] == key:
                return e
        return None

    def p_store(self, key: int, pn: int, dn: int, length: int, work: int, move: int) -> None:
        """Store a prover entry: in the slot of the same key, else an empty slot, else over the
        entry of the bucket with less work (the first on a tie)."""
        i = key & self.tt_mask & ~1
        a = self.ptt.get(i)
        b = self.ptt.get(i + 1)
        if a is not None and a[0] == key:
            j = i
        elif b is not None and b[0] == key:
            j = i + 1
        elif a is None:
            j = i
        elif b is None:
            j = i + 1
        else:
            j = i if a[4] <= b[4] else i + 1
        self.ptt[j] = (key, pn, dn, min(length, MAX_LENGTH), min(work, MAX_WORK), move)

    def repeats(self, ply: int) -> bool:
        """Whether the position just reached at ``ply`` is one of ``draw_hashes`` or repeats one on the
        path (the prover's disproofs; the turn limit is checked at the root, see :meth:`prove`)."""
        h = self.hash
        if h in self.draws:
            return True
        path = self.path
        return any(path[j] == h for j in range(ply - 2, -1, -2))

    def p_guess(self) -> tuple[int, int]:
        """The first proof and disproof numbers of a position not in the table: the own turns the
        attacker needs at least to shed its hand (a turn sheds at most two cards), and 1."""
        return (self.hands[self.attacker].bit_count() + 1) >> 1, 1

    def p_children(self, ply: int, moves: list[int]) -> list[list[int]]:
        """``[move, kind, key, pn, dn, length]`` of each move of ``moves``: kind :data:`PROVED` (the
        attacker went out, or will at once: pn 0), :data:`DISPROVED` (the defender went out or will at
        once, both out, a repetition, :data:`MAX_PLY`: dn 0) or :data:`OPEN` (pn, dn from the table,
        else from :meth:`p_guess`).  Each child counts as a node (:meth:`tick`)."""
        a = self.attacker
        kids = []
        for m in moves:
            self.tick()
            mover = self.p
            code = self.make(m)
            if code == WENT_OUT and mover == a:
                kids.append([m, PROVED, 0, 0, PN_INF, 0])
            elif code != GOES_ON or ply + 1 >= MAX_PLY or self.repeats(ply + 1):
                kids.append([m, DISPROVED, 0, PN_INF, 0, 0])
            elif self.hands[self.p].bit_count() <= 2 and self.win_now():  # the seat to move goes out next
                kids.append([m, PROVED, 0, 0, PN_INF, 1] if self.p == a else [m, DISPROVED, 0, PN_INF, 0, 0])
            else:
                key = self.hash ^ self.akey
                e = self.p_lookup(key)
                if e is not None:
                    kids.append([m, OPEN, key, e[1], e[2], e[3]])
                else:
                    pn, dn = self.p_guess()
                    kids.append([m, OPEN, key, pn, dn, 0])
            self.unmake()
        return kids

    def mid(self, ply: int, thpn: int, thdn: int) -> tuple[int, int, int]:
        """Df-pn's multiple iterative deepening at the current position (at ``ply`` on the path):
        search until its proof number reaches ``thpn`` or its disproof number ``thdn``, store it and
        return ``(pn, dn, length)`` (length: plies of the proof's strategy when pn is 0).

        An OR node looks at its moves :data:`WIDEN` at a time, best guess first: the moves not yet
        looked at stand as one more child (pn: one more than the attacker's first guess here, dn:
        their number), and choosing it looks at the next ones."""
        self.tick()
        start = self.nodes
        key = self.hash ^ self.akey
        self.path[ply] = self.hash
        or_node = self.p == self.attacker
        hp = self.hands[self.p]
        if ply and hp.bit_count() <= 2 and self.win_now():  # the seat to move goes out at once
            pn, dn, length = (0, PN_INF, 1) if or_node else (PN_INF, 0, 0)
            self.p_store(key, pn, dn, length, 1, NO_MOVE)
            return pn, dn, length
        moves, _ = self.ordered(False)
        cnt = len(moves)
        ngen = WIDEN if or_node and cnt > WIDEN else cnt
        rest_pn = ((hp.bit_count() + 1) >> 1) + 1
        kids = self.p_children(ply, moves[:ngen])
        while True:
            # (or node: pn the least, dn the sum; and node the other way round)
            mine, other = (3, 4) if or_node else (4, 3)
            best = 0
            least = second = PN_INF
            total = 0
            nk = len(kids)
            for i in range(nk + 1):
                if i < nk:
                    x, y = kids[i][mine], kids[i][other]
                elif ngen < cnt:
                    x, y = rest_pn, cnt - ngen
                else:
                    break
                if x < least:
                    second = least
                    least = x
                    best = i
                elif x < second:
                    second = x
                total = PN_INF if y >= PN_INF or total >= PN_INF else min(total + y, PN_INF - 1)
            pn, dn = (least, total) if or_node else (total, least)
            if pn >= thpn or dn >= thdn:
                break
            if best == nk:  # look at the next moves
                to = ngen + WIDEN if cnt - ngen > WIDEN else cnt
                kids += self.p_children(ply, moves[ngen:to])
                ngen = to
                continue
            kid = kids[best]
            child_first = min(thpn if or_node else thdn, second + 1 + (second >> EPS_SHIFT))
            if or_node:
                cpn, cdn = child_first, thdn - dn + kid[4]
            else:
                cpn, cdn = thpn - pn + kid[3], child_first
            self.make(kid[0])
            try:
                kid[3], kid[4], kid[5] = self.mid(ply + 1, cpn, cdn)
            finally:
                self.unmake()
        length = 0
        move = NO_MOVE
        if pn == 0:
            if or_node:
                length = MAX_LENGTH
                for kid in kids:
                    if kid[3] == 0 and kid[5] < length:
                        length, move = kid[5], kid[0]
            else:
                length = max(kid[5] for kid in kids)
            length += 1
        self.p_store(key, pn, dn, length, self.nodes - start + 1, move)
        return pn, dn, length

    def prove(self, attacker: int) -> tuple[int, int]:
        """Df-pn on "can ``attacker`` force going out from the root?": ``(length, move)`` of a proof
        (move: the root move it plays, :data:`NO_MOVE` when the attacker is not to move), or
        ``(0, NO_MOVE)`` when there is none (disproven, or a proof too long for the turn limit).
        Raises :class:`_Stop` when the budget runs out."""
        self.attacker = attacker
        self.akey = Z_ATTACKER if attacker else 0
        pn, _, length = self.mid(0, PN_INF, PN_INF)
        if pn != 0 or length > MAX_LENGTH or (self.limit and self.root_turn + length > self.limit):
            return 0, NO_MOVE
        e = self.p_lookup(self.hash ^ self.akey)
        return length, e[5] if e is not None and attacker == self.p else NO_MOVE


    def prove_both(self, max_nodes: int, time_s: float) -> tuple[int, int, int, int, int, list[tuple[int, int]]]:
        """:data:`PROVE` at the root: a win for the seat to move, then a loss, the first question with
        half the budget (nodes and seconds), the second with the rest; :func:`run`'s answer."""
        deadline = self.deadline
        self.max_nodes = max_nodes // 2
        if time_s > 0:
            self.deadline = deadline - time_s / 2
        me = self.p
        for attacker in (me, 1 - me):
            try:
                length, move = self.prove(attacker)
            except _Stop:
                length, move = 0, NO_MOVE
            if length:
                return move, WIN - length if attacker == me else length - WIN, 0, self.nodes, DONE, []
            self.max_nodes = max_nodes
            self.deadline = deadline
        return NO_MOVE, 0, 0, self.nodes, STOPPED, []


def run(spec: Sequence[Any], mode: int, max_nodes: int = 0, time_s: float = 0.0, max_depth: int = 64,
        tt_bits: int = DEFAULT_TT_BITS, *, weights: Sequence[int] | None = None,
        ) -> tuple[int, int, int, int, int, list[tuple[int, int]]]:
    """Search, solve or prove the position ``spec`` (see the module docstring) for the seat to move.

    Returns ``(move, value, depth, nodes, status, values)``:

    * :data:`SEARCH`: the chosen move, its value (centi-cards; beyond ``±WIN_BOUND`` a proven
      win or loss in ``WIN - |value|`` plies), the deepest finished iteration, the nodes, ``status``
      1 if the value is proven (a win or a loss, or resting on no estimate), else 0, and no values;
    * :data:`SOLVE` / :data:`SOLVE_ALL`: the best move and the exact value (see the module
      docstring), depth 0, the nodes, ``status`` :data:`DONE` or :data:`STOPPED` (the budget ran
      out: move and value mean nothing), and for :data:`SOLVE_ALL` ``(move, value)`` of every
      legal move in root order (when stopped, of the moves solved before the budget ran out);
    * :data:`PROVE`: status :data:`DONE` when the prover proved an outcome: value ``WIN - n`` (the
      seat to move wins within ``n`` plies; move: the proof's first move) or ``-(WIN - n)`` (it
      loses within ``n`` plies; move :data:`NO_MOVE`); else :data:`STOPPED`, value 0, move
      :data:`NO_MOVE` (no proof within the budget: a draw is never proven).  The win question has
      half the budget, the loss question the rest; depth 0, no values.  Give it a budget
      (``max_nodes`` or ``time_s``): a search with repetitions may not end by itself.

    ``weights`` (:data:`N_FEATURES` ints, each at most ``2**40`` in size, or None): the fitted
    evaluation at the search's horizon instead of the hand-made one (:data:`SEARCH`; the other
    modes do not evaluate).

    The position must have a legal move (the deal not over).  Raises ``ValueError`` on a bad
    mode, table size or weights.
    """
    if mode not in (SEARCH, SOLVE, SOLVE_ALL, PROVE):
        raise ValueError(f"unknown mode {mode!r}")
    if not 10 <= tt_bits <= 28:
        raise ValueError(f"tt_bits must be 10..28, not {tt_bits!r}")
    if weights is not None:
        if len(weights) != N_FEATURES:
            raise ValueError(f"weights must be {N_FEATURES} ints, not {len(weights)}")
        if any(abs(int(w)) > 1 << 40 for w in weights):
            raise ValueError("a weight out of range (|w| <= 2**40)")
    core = _Core(spec, mode, max_nodes, time_s, tt_bits, weights)
    if mode == SEARCH:
        move, value, depth, proven = core.iterate(max(1, min(max_depth, MAX_DEPTH)))
        return move, value, depth, core.nodes, proven, []
    if mode == PROVE:
        return core.prove_both(max_nodes, time_s)
    try:
        move, value, values = core.root_solve(mode == SOLVE_ALL)
    except _Stop:
        return NO_MOVE, 0, 0, core.nodes, STOPPED, list(core.solved)
    return move, value, 0, core.nodes, DONE, values
