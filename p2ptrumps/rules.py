"""The rules engine: rule sets, moves, positions, legal moves, end of a deal.

Source: RULES.md §3-§7.  Pure and deterministic: no I/O, no clock, no module-level
randomness.  Hands are int bitmasks (see :mod:`p2ptrumps.cards`); the pile is a
tuple of card ints from bottom to top.

The central type is :class:`Position`, a mutable deal in progress with
``push``/``pop`` (make/unmake) in the manner of python-chess's ``Board``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, NamedTuple

from .cards import (
    ACE,
    BEATERS,
    PACK_SIZES,
    Card,
    CardParseError,
    card_list,
    card_names,
    cards_in,
    pack_mask,
    rank_of,
    suit_label,
    suit_of,
)
from .message import N_, Message, Nn_, message_of

LEAD, BEAT, PICK_UP = 0, 1, 2
NO_CARD = -1
#: How a pick-up may be written in a move's code (any case): ``"pickup"`` is the canonical one.
PICKUP_SPELLINGS = ("pickup", "pick up", "pick-up")


class InvalidMoveError(ValueError):
    """A move text did not parse; the message quotes the text."""


class IllegalMoveError(ValueError):
    """A well-formed move is not legal in this position; the message says why."""


class RuleSetError(ValueError):
    """A rule set value is out of range or malformed; the message (a lazy message) names the field:
    its argument ``rule`` is :func:`rule_name` of the field (``rules``: two of them), so that the
    command line can name its option instead (``--repetition``)."""


#: The templates of :func:`rule_name` and :func:`rule_pair` (the command line puts its options in their place).
RULE_NAME = "rule %(name)s"
RULE_PAIR = "rules %(first)s and %(second)s"


def rule_name(name: str) -> Message:
    """A rule in an error message: ``"rule turn_limit"`` (``name`` is a field of :class:`RuleSet`)."""
    return N_("rule %(name)s", name=name)


def rule_pair(first: str, second: str) -> Message:
    """Two rules in an error message: ``"rules repetition and turn_limit"``."""
    return N_("rules %(first)s and %(second)s", first=first, second=second)


@dataclass(frozen=True)
class RuleSet:
    """Every variant of RULES.md, with its defaults.

    Attributes:
        pack_size: 36 (default), 32 or 52 cards (RULES.md §1).
        sixes: the sixes rule (RULES.md §3); default on.
        voluntary_pickup: may pick up even when able to beat (RULES.md §4); default off.
        repetition: the n-th occurrence of a position draws the deal; 3 by
            default, 0 turns the rule off (RULES.md §7, house rule).
        turn_limit: a deal reaching this many turns is drawn; 1000 by default,
            0 turns the rule off (RULES.md §7, house rule).
        deals: deals per match, default 1 (RULES.md §8).
    """

    pack_size: int = 36
    sixes: bool = True
    voluntary_pickup: bool = False
    repetition: int = 3
    turn_limit: int = 1000
    deals: int = 1

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            want_bool = f.type in ("bool", bool)
            if want_bool and type(value) is not bool:
                raise RuleSetError(N_("%(rule)s must be true or false, not %(value)s", rule=rule_name(f.name),
                                      value=repr(value)))
            if not want_bool and type(value) is not int:
                raise RuleSetError(N_("%(rule)s must be an integer, not %(value)s", rule=rule_name(f.name),
                                      value=repr(value)))
        if self.pack_size not in PACK_SIZES:
            raise RuleSetError(N_("%(rule)s must be 32, 36 or 52, not %(value)s", rule=rule_name("pack_size"),
                                  value=self.pack_size))
        if self.repetition != 0 and not 2 <= self.repetition <= 100:
            raise RuleSetError(N_("%(rule)s must be 0 (off) or 2..100, not %(value)s", rule=rule_name("repetition"),
                                  value=self.repetition))
        if not 0 <= self.turn_limit <= 1_000_000:
            raise RuleSetError(N_("%(rule)s must be 0 (off) or up to 1000000, not %(value)s",
                                  rule=rule_name("turn_limit"), value=self.turn_limit))
        if self.repetition == 0 and self.turn_limit == 0:
            raise RuleSetError(N_("%(rules)s cannot both be off: a deal could go on for ever",
                                  rules=rule_pair("repetition", "turn_limit")))
        if not 1 <= self.deals <= 1000:
            raise RuleSetError(N_("%(rule)s must be 1..1000, not %(value)s", rule=rule_name("deals"), value=self.deals))

    def to_dict(self) -> dict[str, Any]:
        """The rule set as a plain dict (field name -> int/bool), for records."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Inverse of :meth:`to_dict`; raises :class:`RuleSetError` on unknown or bad fields."""
        if not isinstance(data, Mapping):
            raise RuleSetError(N_("rule set must be a map, not %(kind)s", kind=type(data).__name__))
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise RuleSetError(N_("unknown rule(s): %(names)s", names=", ".join(unknown)))
        return cls(**dict(data))

    @property
    def pack(self) -> int:
        """Bitmask of the cards in the pack."""
        return pack_mask(self.pack_size)

    def describe(self) -> str:
        """One line for people: ``"36 cards, sixes on, must beat, repetition 3, limit 1000 turns, 1 deal"``."""
        return N_(
            "%(pack)s, %(sixes)s, %(pickup)s, %(repetition)s, %(limit)s, %(deals)s",
            pack=Nn_("%(n)d card", "%(n)d cards", self.pack_size),
            sixes=N_("sixes on") if self.sixes else N_("sixes off"),
            pickup=N_("voluntary pick-up") if self.voluntary_pickup else N_("must beat"),
            repetition=N_("repetition %(n)d", n=self.repetition) if self.repetition else N_("repetition off"),
            limit=N_("limit %(n)d turns", n=self.turn_limit) if self.turn_limit else N_("no turn limit"),
            deals=Nn_("%(n)d deal", "%(n)d deals", self.deals),
        )


class Move(NamedTuple):
    """One turn: a lead, a beat (with its second card) or a pick-up.

    ``kind`` is ``LEAD``, ``BEAT`` or ``PICK_UP``; ``card`` is the led or beating
    card; ``second`` is the second card, or ``NO_CARD`` (-1) when the beating
    card was the last card in hand.  Text form (:attr:`code`, round-trips with
    :meth:`parse`): ``"QS"`` (lead), ``"TS/7H"`` (beat, second card),
    ``"TS/"`` (beat with the last card), ``"pickup"``.
    """

    kind: int
    card: int = NO_CARD
    second: int = NO_CARD

    @classmethod
    def lead(cls, card: int) -> Move:
        return cls(LEAD, int(card), NO_CARD)

    @classmethod
    def beat(cls, card: int, second: int = NO_CARD) -> Move:
        return cls(BEAT, int(card), int(second))

    @classmethod
    def pick_up(cls) -> Move:
        return PICKUP_MOVE

    @property
    def code(self) -> str:
        if self.kind == PICK_UP:
            return "pickup"
        if self.kind == LEAD:
            return Card(self.card).code
        return Card(self.card).code + "/" + (Card(self.second).code if self.second >= 0 else "")

    def label(self, ascii_only: bool = False) -> str:
        """For people: ``"lead 10♥"``, ``"beat 10♠, second 7♥"``, ``"beat 10♠ (last card)"`` (the
        beating card was the last in hand) or ``"pick up"``; suits as letters (``"lead 10H"``) when
        ``ascii_only``."""
        if self.kind == PICK_UP:
            return N_("pick up")
        c = _named(self.card, ascii_only)
        if self.kind == LEAD:
            return N_("lead %(card)s", card=c)
        if self.second < 0:
            return N_("beat %(card)s (last card)", card=c)
        return N_("beat %(card)s, second %(second)s", card=c, second=_named(self.second, ascii_only))

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse the :attr:`code` form, in any case and with any card spelling of RULES.md §1
        (``"ts/7h"``, ``"10♠/7♥"``, ``"pick up"``); raises :class:`InvalidMoveError` quoting the text.
        Whether the move is legal is not checked (:meth:`Position.check`)."""
        s = text.strip()
        if s.lower() in PICKUP_SPELLINGS:
            return PICKUP_MOVE
        try:
            if "/" in s:
                a, _, b = s.partition("/")
                first = Card.parse(a)
                second = Card.parse(b) if b.strip() else NO_CARD
                if second == first:
                    raise InvalidMoveError(N_("%(text)s: the second card repeats the beating card", text=repr(text)))
                return cls(BEAT, int(first), int(second))
            return cls(LEAD, int(Card.parse(s)), NO_CARD)
        except CardParseError as exc:
            raise InvalidMoveError(N_("%(text)s is not a move: %(fault)s", text=repr(text),
                                      fault=message_of(exc))) from None

    def __str__(self) -> str:
        return self.code


PICKUP_MOVE = Move(PICK_UP, NO_CARD, NO_CARD)


def _named(card: int, ascii_only: bool) -> Message:
    """One card's name as a lazy message (English ``"10♥"``, or ``"10H"`` with ``ascii_only``)."""
    return Message.cards([card], [Card(card).label(ascii_only)])


@dataclass(frozen=True)
class Outcome:
    """How a deal ended.

    ``winner`` is the winning seat (0/1) or None for a drawn deal.  ``reason`` is
    one of :data:`REASONS`: ``"out"`` (went out), ``"both-out"`` (RULES.md §7
    draw), ``"repetition"``, ``"turn-limit"``, ``"resign"``, ``"agreed-draw"``,
    ``"time"`` (the loser's move clock ran out and the winner claimed the deal: a
    networked match only, protocol/wire.md §16).
    """

    winner: int | None
    reason: str

    def __post_init__(self) -> None:
        if self.reason not in REASONS:
            raise ValueError(N_("unknown end-of-deal reason %(reason)s", reason=repr(self.reason)))
        if self.winner is not None and (type(self.winner) is not int or self.winner not in (0, 1)):
            raise ValueError(N_("winner must be 0, 1 or None, not %(winner)s", winner=repr(self.winner)))
        if (self.winner is None) != (self.reason in DRAW_REASONS):
            raise ValueError(N_("reason %(reason)s does not fit winner %(winner)s", reason=repr(self.reason),
                                winner=repr(self.winner)))

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    def points(self, seat: int) -> int:
        """Half-points this outcome gives ``seat``: 2 for a win, 1 for a draw, 0 for a loss."""
        if self.winner is None:
            return 1
        return 2 if self.winner == seat else 0

    def describe(self, names: tuple[str, str] = ("seat 0", "seat 1")) -> str:
        """One line for people (a lazy message, :mod:`p2ptrumps.message`): ``"Ann went out and won"``,
        ``"drawn by repetition"``; ``names`` are the seats' names."""
        if self.winner is None:
            return {
                "both-out": N_("drawn: both would go out"),
                "repetition": N_("drawn by repetition"),
                "turn-limit": N_("drawn at the turn limit"),
                "agreed-draw": N_("drawn by agreement"),
            }[self.reason]
        w, l = names[self.winner], names[1 - self.winner]
        if self.reason == "out":
            return N_("%(winner)s went out and won", winner=w)
        if self.reason == "resign":
            return N_("%(loser)s resigned; %(winner)s won", winner=w, loser=l)
        return N_("%(loser)s ran out of time; %(winner)s claimed the deal", winner=w, loser=l)


WIN_REASONS = ("out", "resign", "time")
DRAW_REASONS = ("both-out", "repetition", "turn-limit", "agreed-draw")
REASONS = WIN_REASONS + DRAW_REASONS


def pickup_count(pile_len: int, top: int, trump: int) -> int:
    """How many cards a player with own trump ``trump`` picks up (RULES.md §6)."""
    if suit_of(top) != trump:
        k = 3
    elif rank_of(top) != ACE:
        k = 5
    else:
        return pile_len
    return k if k < pile_len else pile_len


@dataclass
class _Undo:
    hands: tuple[int, int]
    pile: tuple[int, ...]
    to_move: int
    turn: int
    outcome: Outcome | None
    key: tuple[int, int, tuple[int, ...], int] | None


@dataclass
class Position:
    """A deal in progress (RULES.md §4-§7).

    Attributes:
        rules: the agreed :class:`RuleSet`.
        trumps: own trump suit of seat 0 and seat 1 (0..3, different).
        hands: card bitmask of each seat.
        pile: the pile, bottom to top, as card ints.
        to_move: seat whose turn it is.
        turn: turns completed so far.
        outcome: None while the deal goes on.
    """

    rules: RuleSet
    trumps: tuple[int, int]
    hands: list[int]
    pile: tuple[int, ...] = ()
    to_move: int = 0
    turn: int = 0
    outcome: Outcome | None = None
    _counts: dict[tuple[int, int, tuple[int, ...], int], int] = field(default_factory=dict, repr=False)
    _stack: list[_Undo] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if len(self.trumps) != 2 or self.trumps[0] == self.trumps[1] or not all(0 <= t <= 3 for t in self.trumps):
            raise ValueError(N_("trumps must be two different suits 0..3, not %(trumps)s", trumps=repr(self.trumps)))
        self.trumps = (int(self.trumps[0]), int(self.trumps[1]))
        self.hands = [int(self.hands[0]), int(self.hands[1])]
        self.pile = tuple(int(c) for c in self.pile)
        if not self._counts:
            self._counts[self.key()] = 1

    @classmethod
    def start(cls, rules: RuleSet, trumps: tuple[int, int], hands: tuple[int, int], dealer: int) -> Position:
        """The position at the start of a deal: elder (``1 - dealer``) to move, empty pile."""
        return cls(rules=rules, trumps=trumps, hands=list(hands), pile=(), to_move=1 - dealer)

    # ----- queries ---------------------------------------------------------

    def key(self) -> tuple[int, int, tuple[int, ...], int]:
        """The position for repetition: both hands, the pile in order, the player to move."""
        return (self.hands[0], self.hands[1], self.pile, self.to_move)

    @property
    def top(self) -> int | None:
        """Top card of the pile, or None when it is empty."""
        return self.pile[-1] if self.pile else None

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def beating_cards(self, seat: int | None = None) -> int:
        """Bitmask of the cards in ``seat``'s hand (default: to move) that beat the top card; 0 if the pile is empty."""
        s = self.to_move if seat is None else seat
        if not self.pile:
            return 0
        return self.hands[s] & BEATERS[self.trumps[s]][self.pile[-1]]

    def can_pick_up(self) -> bool:
        """Whether picking up is legal for the player to move now."""
        if self.outcome is not None or not self.pile:
            return False
        return self.rules.voluntary_pickup or not self.beating_cards()

    def pickup_size(self) -> int:
        """Cards the player to move would take by picking up now (0 if the pile is empty)."""
        if not self.pile:
            return 0
        return pickup_count(len(self.pile), self.pile[-1], self.trumps[self.to_move])

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move, in a fixed order (beats by card then second, then pick-up).

        Empty exactly when the deal is over.
        """
        if self.outcome is not None:
            return []
        p = self.to_move
        hand = self.hands[p]
        if not self.pile:
            return [Move(LEAD, c, NO_CARD) for c in card_list(hand)]
        beaters = hand & BEATERS[self.trumps[p]][self.pile[-1]]
        moves: list[Move] = []
        for b in card_list(beaters):
            rest = hand & ~(1 << b)
            if not rest:
                moves.append(Move(BEAT, b, NO_CARD))
            else:
                moves.extend(Move(BEAT, b, s) for s in card_list(rest))
        if not beaters or self.rules.voluntary_pickup:
            moves.append(PICKUP_MOVE)
        return moves

    def is_legal(self, move: Move) -> bool:
        try:
            self.check(move)
        except IllegalMoveError:
            return False
        return True

    def check(self, move: Move) -> None:
        """Raise :class:`IllegalMoveError` saying why ``move`` is not legal now; return if it is."""
        if self.outcome is not None:
            raise IllegalMoveError(N_("the deal is over"))
        p = self.to_move
        hand = self.hands[p]
        trump = self.trumps[p]
        tl = suit_label(trump)
        if not isinstance(move, Move) or move.kind not in (LEAD, BEAT, PICK_UP):
            raise IllegalMoveError(f"{move!r} is not a move")
        if move.kind == PICK_UP:
            if not self.pile:
                raise IllegalMoveError(N_("the pile is empty: nothing to pick up; lead a card"))
            if not self.rules.voluntary_pickup:
                beaters = hand & BEATERS[trump][self.pile[-1]]
                if beaters:
                    raise IllegalMoveError(N_("you must beat %(top)s when you can (beating cards: %(cards)s)",
                                              top=card_names([self.pile[-1]]), cards=card_names(cards_in(beaters))))
            return
        for c in (move.card, move.second):
            if c != NO_CARD and not (0 <= c < 52):
                raise IllegalMoveError(f"{c!r} is not a card")
        card = move.card
        if card == NO_CARD:
            raise IllegalMoveError(N_("no card given"))
        if not hand >> card & 1:
            raise IllegalMoveError(N_("%(card)s is not in your hand", card=card_names([card])))
        if move.kind == LEAD:
            if self.pile:
                raise IllegalMoveError(N_("the pile is not empty: beat %(top)s or pick up",
                                          top=card_names([self.pile[-1]])))
            if move.second != NO_CARD:
                raise IllegalMoveError(N_("a lead is one card"))
            return
        # BEAT
        if not self.pile:
            raise IllegalMoveError(N_("the pile is empty: lead a card"))
        top = self.pile[-1]
        if not BEATERS[trump][top] >> card & 1:
            raise IllegalMoveError(N_("%(card)s does not beat %(top)s (your trump is %(trump)s)",
                                      card=card_names([card]), top=card_names([top]), trump=tl))
        rest = hand & ~(1 << card)
        if move.second == NO_CARD:
            if rest:
                raise IllegalMoveError(N_("after beating with %(card)s play a second card", card=card_names([card])))
            return
        if move.second == card:
            raise IllegalMoveError(N_("the second card must differ from the beating card"))
        if not rest >> move.second & 1:
            if not rest:
                raise IllegalMoveError(N_("%(card)s is your last card: no second card", card=card_names([card])))
            raise IllegalMoveError(N_("%(card)s is not in your hand", card=card_names([move.second])))

    # ----- make / unmake ---------------------------------------------------

    def push(self, move: Move) -> None:
        """Play ``move`` for the player to move; raises :class:`IllegalMoveError` if it is not legal."""
        self.check(move)
        self.push_unchecked(move)

    def push_unchecked(self, move: Move) -> None:
        """Play a move already known to be legal (for search); no checks."""
        p = self.to_move
        opp = 1 - p
        hands = self.hands
        pile = self.pile
        key = None
        self._stack.append(_Undo((hands[0], hands[1]), pile, p, self.turn, self.outcome, None))
        kind = move[0]
        if kind == LEAD:
            hands[p] &= ~(1 << move[1])
            pile = (*pile, move[1])
        elif kind == BEAT:
            if move[2] >= 0:
                hands[p] &= ~((1 << move[1]) | (1 << move[2]))
                pile = (*pile, move[1], move[2])
            else:
                hands[p] &= ~(1 << move[1])
                pile = (*pile, move[1])
        else:
            k = pickup_count(len(pile), pile[-1], self.trumps[p])
            for c in pile[-k:]:
                hands[p] |= 1 << c
            pile = pile[:-k]
        self.pile = pile
        self.turn += 1
        if hands[p] == 0:
            oh = hands[opp]
            if oh & (oh - 1) == 0 and oh & BEATERS[self.trumps[opp]][pile[-1]]:
                self.outcome = Outcome(None, "both-out")
            else:
                self.outcome = Outcome(p, "out")
            return
        self.to_move = opp
        key = (hands[0], hands[1], pile, opp)
        n = self._counts.get(key, 0) + 1
        self._counts[key] = n
        self._stack[-1].key = key
        rules = self.rules
        if rules.repetition and n >= rules.repetition:
            self.outcome = Outcome(None, "repetition")
        elif rules.turn_limit and self.turn >= rules.turn_limit:
            self.outcome = Outcome(None, "turn-limit")

    def pop(self) -> None:
        """Take back the last move (or end by :meth:`resign`/:meth:`agree_draw`); ``IndexError`` if none."""
        u = self._stack.pop()
        if u.key is not None:
            n = self._counts[u.key] - 1
            if n:
                self._counts[u.key] = n
            else:
                del self._counts[u.key]
        self.hands = [u.hands[0], u.hands[1]]
        self.pile = u.pile
        self.to_move = u.to_move
        self.turn = u.turn
        self.outcome = u.outcome

    def undo_depth(self) -> int:
        """How many steps :meth:`pop` can take back: the moves and ends made on this object (a
        :meth:`copy` starts at 0)."""
        return len(self._stack)

    def pop_to(self, depth: int) -> None:
        """Take back moves and ends until :meth:`undo_depth` is ``depth`` (nothing if it is already)."""
        while len(self._stack) > depth:
            self.pop()

    def resign(self, seat: int) -> None:
        """``seat`` resigns: the opponent wins the deal (RULES.md §7). ``IllegalMoveError`` if over."""
        self._end(Outcome(1 - seat, "resign"))

    def lose_on_time(self, seat: int) -> None:
        """``seat`` ran out of time and the opponent claimed the deal (protocol/wire.md §16): the
        opponent wins, reason ``"time"``.  ``IllegalMoveError`` if the deal is over."""
        self._end(Outcome(1 - seat, "time"))

    def agree_draw(self) -> None:
        """Both players agree a draw (RULES.md §7). ``IllegalMoveError`` if over."""
        self._end(Outcome(None, "agreed-draw"))

    def _end(self, outcome: Outcome) -> None:
        if self.outcome is not None:
            raise IllegalMoveError(N_("the deal is over"))
        self._stack.append(_Undo((self.hands[0], self.hands[1]), self.pile, self.to_move, self.turn, None, None))
        self.outcome = outcome

    def copy(self) -> Position:
        """An independent copy with the same repetition history (no undo stack)."""
        new = object.__new__(Position)  # this position was checked when it was made: no second check
        new.rules, new.trumps, new.hands, new.pile = self.rules, self.trumps, list(self.hands), self.pile
        new.to_move, new.turn, new.outcome = self.to_move, self.turn, self.outcome
        new._counts, new._stack = dict(self._counts), []
        return new

    def repetitions(self) -> int:
        """How many times the current position has occurred so far."""
        return self._counts.get(self.key(), 0)

    # ----- people's input ----------------------------------------------------

    def parse_move(self, text: str) -> Move:
        """Read a move as a person types it, in this position.

        ``"p"``, ``"t"``, ``"take"``, ``"pickup"``, ``"pick up"`` or ``"pick-up"`` (any case) picks up; one card leads
        (empty pile) or beats with the last card; two cards (``"10s 7h"``,
        ``"TS/7H"``) beat then play the second.  Raises
        :class:`InvalidMoveError` if it does not parse, :class:`IllegalMoveError`
        if it parses but is not legal now.
        """
        s = text.strip().lower()
        if s in ("p", "pickup", "pick up", "pick-up", "take", "t"):
            move = PICKUP_MOVE
        else:
            words = s.replace("/", " ").replace(",", " ").split()
            if not words or len(words) > 2:
                raise InvalidMoveError(N_("%(text)s: give one card, two cards (beat and second) or 'p' to pick up",
                                          text=repr(text)))
            try:
                cards = [int(Card.parse(w)) for w in words]
            except CardParseError as exc:
                raise InvalidMoveError(message_of(exc)) from None
            if len(cards) == 1:
                move = Move(LEAD if not self.pile else BEAT, cards[0], NO_CARD)
            else:
                move = Move(BEAT, cards[0], cards[1])
        self.check(move)
        return move

    def __str__(self) -> str:
        def hand(s: int) -> str:
            return " ".join(c.label() for c in cards_in(self.hands[s])) or "-"

        pile = " ".join(Card(c).label() for c in self.pile) or "(empty)"
        lines = [
            f"seat 0 (trump {suit_label(self.trumps[0])}): {hand(0)}",
            f"seat 1 (trump {suit_label(self.trumps[1])}): {hand(1)}",
            f"pile: {pile}",
            f"to move: seat {self.to_move}, turn {self.turn}",
        ]
        if self.outcome:
            lines.append(f"over: {self.outcome.describe()}")
        return "\n".join(lines)


def next_dealer(dealer: int, outcome: Outcome) -> int:
    """Dealer of the next deal (RULES.md §3): the loser deals; after a draw the other player deals."""
    if outcome.winner is None:
        return 1 - dealer
    return 1 - outcome.winner

