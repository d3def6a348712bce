"""Property tests of the rules engine (hypothesis): random deals played with random legal moves.

Each example deals from a random seed under a random rule set and plays a whole
deal, checking at every turn (RULES.md §3-§7):

* the cards are conserved: the two hands and the pile are disjoint and make the pack;
* ``legal_moves`` equals an independent enumeration written from RULES.md §4-§5;
* every listed move passes ``check`` and applies; every other move of a sample is refused;
* a position has no legal moves exactly when the deal is over;
* push then pop is the identity, repetition counts included;
* a pick-up takes the number of cards RULES.md §6 says; going out ends the deal
  with the win or the draw of §7;
* the deal ends within the turn limit, and popping every move returns to the start.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2ptrumps.cards import SUIT_MASKS, card_list, rank_of, suit_of
from p2ptrumps.rules import BEAT, LEAD, NO_CARD, PICK_UP, PICKUP_MOVE, Move, Outcome, Position, RuleSet
from p2ptrumps.shuffle import start_position

# Random games draw many choices: on a loaded machine hypothesis may call them slow or large.
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
GAME_SETTINGS = settings(SETTINGS, max_examples=60)


@st.composite
def deals(draw: st.DrawFn) -> tuple[Position, random.Random]:
    rules = RuleSet(
        pack_size=draw(st.sampled_from([36, 32, 52])),
        sixes=draw(st.booleans()),
        voluntary_pickup=draw(st.booleans()),
        repetition=draw(st.sampled_from([3, 2, 0, 5])),
        turn_limit=draw(st.sampled_from([1000, 1, 7, 60, 300])),
    )
    t0 = draw(st.integers(0, 3))
    t1 = draw(st.integers(0, 3).filter(lambda t: t != t0))
    seed = draw(st.binary(min_size=1, max_size=32))
    dealer = draw(st.integers(0, 1))
    rng = draw(st.randoms(use_true_random=False))
    return start_position(seed, rules, (t0, t1), dealer), rng


def state(pos: Position) -> tuple[Any, ...]:
    return (tuple(pos.hands), pos.pile, pos.to_move, pos.turn, pos.outcome, dict(pos._counts), pos.repetitions())


def beats_by_the_book(card: int, top: int, trump: int) -> bool:
    """RULES.md §5, literally."""
    if suit_of(top) != trump:
        return (suit_of(card) == suit_of(top) and rank_of(card) > rank_of(top)) or suit_of(card) == trump
    return suit_of(card) == trump and rank_of(card) > rank_of(top)


def legal_by_the_book(pos: Position) -> set[Move]:
    """RULES.md §4, literally."""
    if pos.outcome is not None:
        return set()
    me = pos.to_move
    hand = card_list(pos.hands[me])
    if not pos.pile:
        return {Move(LEAD, c, NO_CARD) for c in hand}
    top = pos.pile[-1]
    beaters = [c for c in hand if beats_by_the_book(c, top, pos.trumps[me])]
    moves: set[Move] = set()
    for b in beaters:
        rest = [c for c in hand if c != b]
        if rest:
            moves.update(Move(BEAT, b, s) for s in rest)
        else:
            moves.add(Move(BEAT, b, NO_CARD))
    if not beaters or pos.rules.voluntary_pickup:
        moves.add(PICKUP_MOVE)
    return moves


def pickup_by_the_book(pos: Position) -> int:
    """RULES.md §6, literally."""
    top = pos.pile[-1]
    trump = pos.trumps[pos.to_move]
    if suit_of(top) == trump and rank_of(top) == 14:
        return len(pos.pile)
    return min(len(pos.pile), 5 if suit_of(top) == trump else 3)


def sample_moves(rng: random.Random, n: int) -> list[Move]:
    """Well-formed moves of every kind, legal or not."""
    out = [PICKUP_MOVE]
    for _ in range(n):
        a = rng.randrange(52)
        b = rng.randrange(52)
        kind = rng.randrange(3)
        if kind == 0:
            out.append(Move(LEAD, a, NO_CARD))
        elif kind == 1:
            out.append(Move(BEAT, a, NO_CARD))
        elif a != b:
            out.append(Move(BEAT, a, b))
    return out


def check_conserved(pos: Position) -> None:
    h0, h1 = pos.hands
    pile_mask = 0
    for c in pos.pile:
        assert not pile_mask >> c & 1, "a card twice on the pile"
        pile_mask |= 1 << c
    assert h0 & h1 == 0
    assert (h0 | h1) & pile_mask == 0
    assert h0 | h1 | pile_mask == pos.rules.pack


def check_going_out(before: Position, after: Position, move: Move) -> None:
    """If the mover's hand is empty, the deal ended by RULES.md §7."""
    me = before.to_move
    if after.hands[me]:
        return
    opp_hand = card_list(after.hands[1 - me])
    top = after.pile[-1]
    draw = len(opp_hand) == 1 and beats_by_the_book(opp_hand[0], top, after.trumps[1 - me])
    assert after.outcome == (Outcome(None, "both-out") if draw else Outcome(me, "out"))


@GAME_SETTINGS
@given(deals())
def test_random_games(deal: tuple[Position, random.Random]) -> None:
    pos, rng = deal
    start = state(pos)
    limit = pos.rules.turn_limit
    for _ in range(limit + 1):
        check_conserved(pos)
        legal = pos.legal_moves()
        assert (legal == []) == pos.is_over
        if pos.is_over:
            break
        assert set(legal) == legal_by_the_book(pos)
        assert len(set(legal)) == len(legal)
        legal_set = set(legal)
        for m in rng.sample(legal, min(len(legal), 25)):
            pos.check(m)  # never raises for a listed move
        for m in sample_moves(rng, 25):
            assert pos.is_legal(m) == (m in legal_set), m
        # push then pop is the identity, for a few legal moves.
        before = state(pos)
        for m in rng.sample(legal, min(len(legal), 3)):
            pos.push(m)
            pos.pop()
            assert state(pos) == before
        move = rng.choice(legal)
        snapshot = pos.copy()
        expected_take = pickup_by_the_book(pos) if move.kind == PICK_UP else 0
        pos.push(move)
        assert pos.turn == snapshot.turn + 1
        me = snapshot.to_move
        if move.kind == PICK_UP:
            assert pos.hands[me].bit_count() == snapshot.hands[me].bit_count() + expected_take
            assert pos.pile == snapshot.pile[: len(snapshot.pile) - expected_take]
        else:
            played = 1 if move.kind == LEAD or move.second == NO_CARD else 2
            assert pos.hands[me].bit_count() == snapshot.hands[me].bit_count() - played
            assert pos.pile[-played:] == tuple(c for c in (move.card, move.second) if c != NO_CARD)
        check_going_out(snapshot, pos, move)
        if pos.outcome is None:
            assert pos.to_move == 1 - me
    assert pos.is_over, "the deal did not end within the turn limit"
    assert pos.turn <= limit
    if pos.outcome is not None and pos.outcome.reason == "turn-limit":
        assert pos.turn == limit
    if pos.outcome is not None and pos.outcome.reason == "repetition":
        assert pos.repetitions() == pos.rules.repetition
    assert pos.legal_moves() == []
    # Unwind the whole deal.
    for _ in range(pos.turn):
        pos.pop()
    assert state(pos) == start


@SETTINGS
@given(deals())
def test_the_opponents_trump_does_not_matter_to_the_mover(deal: tuple[Position, random.Random]) -> None:
    """RULES.md §2, §5: only the top card and the mover's own trump decide what beats.

    Positions that differ only in the opponent's trump have the same legal moves.
    """
    pos, rng = deal
    for _step in range(40):
        if pos.is_over:
            break
        me = pos.to_move
        mine = pos.trumps[me]
        for other in range(4):
            if other == mine:
                continue
            twin = pos.copy()
            trumps = [0, 0]
            trumps[me], trumps[1 - me] = mine, other
            twin.trumps = (trumps[0], trumps[1])
            assert twin.legal_moves() == pos.legal_moves()
        pos.push(rng.choice(pos.legal_moves()))


@SETTINGS
@given(deals())
def test_dealt_hands(deal: tuple[Position, random.Random]) -> None:
    """RULES.md §3: the whole pack is dealt, 18/18 (or 17/19 after sixes) with 36 cards, elder to move."""
    pos, _ = deal
    size = pos.rules.pack_size
    a, b = pos.hands[0].bit_count(), pos.hands[1].bit_count()
    assert a + b == size
    if pos.rules.sixes and size != 32:
        for seat in (0, 1):
            six = pos.trumps[seat] * 13 + 4
            assert pos.hands[seat] >> six & 1
        assert abs(a - b) in (0, 2)
    else:
        assert a == b == size // 2
    assert pos.pile == ()
    assert pos.turn == 0
    assert pos.repetitions() == 1
    assert all(pos.hands[s] & ~pos.rules.pack == 0 for s in (0, 1))
    assert sum((pos.hands[0] | pos.hands[1]) & m != 0 for m in SUIT_MASKS) == 4


def play_policies(games: int) -> dict[str, int]:
    """Play ``games`` seeded deals; game i uses policy i % 3 (first legal move, last legal
    move, random) and a 200-turn limit.  Returns the count of each end reason."""
    reasons: dict[str, int] = {}
    for i in range(games):
        rng = random.Random(i)
        rules = RuleSet(voluntary_pickup=i % 2 == 1, turn_limit=200)
        pos = start_position(i.to_bytes(2, "big"), rules, (i % 4, (i + 1) % 4), i % 2)
        for _ in range(rules.turn_limit):
            if pos.is_over:
                break
            moves = pos.legal_moves()
            pos.push((moves[0], moves[-1], rng.choice(moves))[i % 3])
        assert pos.outcome is not None
        reasons[pos.outcome.reason] = reasons.get(pos.outcome.reason, 0) + 1
    return reasons


def test_seeded_play_reaches_every_kind_of_end() -> None:
    """Every end of RULES.md §7 that moves can reach is reached (pinned counts: a change in
    the engine's rules or move order shows up here)."""
    assert play_policies(90) == {"out": 33, "both-out": 1, "repetition": 15, "turn-limit": 41}
