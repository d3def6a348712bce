"""Cards, suits, ranks and card sets as int bitmasks.

Source: RULES.md §1 (cards and their names).

A card is an ``int`` from 0 to 51: ``suit * 13 + (rank - 2)``, with suits in the
order ♣ ♦ ♥ ♠ (0..3) and ranks 2..14 (14 = ace).  :class:`Card` is an ``int``
subclass that adds names; the engine's hot paths use plain ints.  A set of cards
(a hand, a pack) is an ``int`` bitmask with bit ``card`` set for each member.

Text forms:

* ``Card.code`` is the canonical ASCII code: rank character then suit letter,
  ``"TH"``, ``"QS"``, ``"6C"``.  It is what the game record and the wire use.
* ``Card.label()`` is the display form: ``"10♥"`` (or ``"10H"`` in ASCII mode).
* :meth:`Card.parse` accepts every spelling RULES.md §1 lists: ``10H``, ``TH``,
  ``th``, ``10♥``, ``QS``, ``6c`` (surrounding spaces ignored).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .message import N_, Message

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS: tuple[int, ...] = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_CHARS = "23456789TJQKA"  # index = rank - 2
RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
ACE = 14
SIX = 6
#: The lowest rank of each pack size (RULES.md §1): 32 cards are 7..A, 36 are 6..A, 52 are 2..A.
LOWEST_RANK: dict[int, int] = {32: 7, 36: 6, 52: 2}
#: The pack sizes the rules allow, smallest first.
PACK_SIZES: tuple[int, ...] = tuple(LOWEST_RANK)

SUIT_MASKS: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in SUITS)
FULL_MASK = (1 << 52) - 1


class CardParseError(ValueError):
    """A text did not name a card (or a suit); the message quotes the text."""


def card_index(rank: int, suit: int) -> int:
    """The card int of ``rank`` (2..14) and ``suit`` (0..3)."""
    return suit * 13 + rank - 2


def suit_of(card: int) -> int:
    """Suit (0..3) of a card int."""
    return card // 13


def rank_of(card: int) -> int:
    """Rank (2..14) of a card int."""
    return card % 13 + 2


class Card(int):
    """One card, an ``int`` 0..51 with names.

    ``Card(n)`` raises ``ValueError`` outside 0..51.  Equal to (and hashes like)
    the plain int, so cards mix freely with bitmask code.
    """

    __slots__ = ()

    def __new__(cls, value: int) -> Card:
        if not 0 <= int(value) < 52:
            raise ValueError(N_("card index %(value)s is outside 0..51", value=repr(value)))
        return super().__new__(cls, value)

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """The card of ``rank`` (2..14) and ``suit`` (0..3); ``ValueError`` if out of range."""
        if not 2 <= rank <= 14 or not 0 <= suit <= 3:
            raise ValueError(N_("no card of rank %(rank)s and suit %(suit)s", rank=str(rank), suit=str(suit)))
        return cls(card_index(rank, suit))

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a card name (RULES.md §1).

        Accepts ``10H``, ``TH``, ``th``, ``10♥``, ``QS``, ``6c``, ``♥10`` is *not*
        accepted (rank comes first).  Raises :class:`CardParseError` naming the
        text for anything else.
        """
        raw = text
        s = text.strip()
        if parse_rank(s.upper()) is not None:
            r = s.upper()
            raise CardParseError(N_("%(text)s is not a card: the suit is missing (rank then suit, like %(rank)sH or "
                                    "%(rank)s♥)", text=repr(raw), rank=r))
        if len(s) < 2:
            raise CardParseError(N_("%(text)s is not a card: expected rank then suit, like 10H, TH or 10♥",
                                    text=repr(raw)))
        if parse_suit_char(s[0]) is not None and parse_rank(s[1:].strip().upper()) is not None:
            raise CardParseError(N_("%(text)s is not a card: write the rank then the suit, like %(rank)s%(suit)s",
                                    text=repr(raw), rank=s[1:].strip().upper(), suit=s[0]))
        rank_part, suit_part = s[:-1].strip(), s[-1]
        suit = parse_suit_char(suit_part)
        if suit is None:
            raise CardParseError(N_("%(text)s is not a card: %(suit)s is not a suit (use C D H S or ♣ ♦ ♥ ♠)",
                                    text=repr(raw), suit=repr(suit_part)))
        rank = parse_rank(rank_part)
        if rank is None:
            if (run := _split_run(s)) is not None:
                raise CardParseError(N_("%(text)s is not a card: put a space between cards, like %(example)s",
                                        text=repr(raw), example=" ".join(run)))
            raise CardParseError(N_("%(text)s is not a card: %(rank)s is not a rank (use 2-10, T, J, Q, K, A)",
                                    text=repr(raw), rank=repr(rank_part)))
        return cls(card_index(rank, suit))

    @property
    def rank(self) -> int:
        """Rank 2..14 (11 = jack, 12 = queen, 13 = king, 14 = ace)."""
        return rank_of(self)

    @property
    def suit(self) -> int:
        """Suit 0..3 (♣ ♦ ♥ ♠)."""
        return suit_of(self)

    @property
    def code(self) -> str:
        """Canonical ASCII code, e.g. ``"TH"``; ``Card.parse(c.code) == c``."""
        return RANK_CHARS[self % 13] + SUIT_LETTERS[self // 13]

    @property
    def mask(self) -> int:
        """The one-bit card set of this card."""
        return 1 << self

    def label(self, ascii_only: bool = False) -> str:
        """Display name: ``"10♥"``, or ``"10H"`` when ``ascii_only``."""
        suits = SUIT_LETTERS if ascii_only else SUIT_SYMBOLS
        return RANK_LABELS[self % 13] + suits[self // 13]

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    def __str__(self) -> str:
        return self.code


_SUIT_BY_CHAR = {c: i for i, c in enumerate(SUIT_LETTERS)}
_SUIT_BY_CHAR.update({c.lower(): i for i, c in enumerate(SUIT_LETTERS)})
_SUIT_BY_CHAR.update({c: i for i, c in enumerate(SUIT_SYMBOLS)})
_SUIT_BY_CHAR.update({c: i for i, c in enumerate("♧♢♡♤")})
_RANK_BY_TEXT = {c: i + 2 for i, c in enumerate(RANK_CHARS)}
_RANK_BY_TEXT.update({c.lower(): i + 2 for i, c in enumerate(RANK_CHARS)})
_RANK_BY_TEXT["10"] = 10


def _split_run(text: str) -> list[str] | None:
    """Cards written without spaces (``"8H9C"`` -> ``["8H", "9C"]``), or None if ``text``
    is not two or more card codes run together."""
    for size in (2, 3):
        head, rest = text[:size], text[size:]
        if len(head) < 2 or not rest:
            continue
        if parse_suit_char(head[-1]) is None or parse_rank(head[:-1]) is None:
            continue
        if parse_suit_char(rest[-1]) is not None and parse_rank(rest[:-1]) is not None:
            return [head, rest]
        if (more := _split_run(rest)) is not None:
            return [head, *more]
    return None


def parse_suit_char(ch: str) -> int | None:
    """Suit of one character (``H``, ``h``, ``♥``, ``♡``) or None."""
    return _SUIT_BY_CHAR.get(ch)


def parse_suit(text: str) -> int:
    """Parse a suit given as a letter, symbol or English name (``"H"``, ``"♥"``, ``"hearts"``).

    Raises :class:`CardParseError` naming the text otherwise.
    """
    s = text.strip()
    if len(s) == 1 and (suit := parse_suit_char(s)) is not None:
        return suit
    low = s.lower()
    for i, name in enumerate(SUIT_NAMES):
        if low in (name, name[:-1]):
            return i
    raise CardParseError(N_("%(text)s is not a suit: use C D H S, ♣ ♦ ♥ ♠ or clubs/diamonds/hearts/spades",
                            text=repr(text)))


def parse_rank(text: str) -> int | None:
    """Rank 2..14 of a rank text (``"10"``, ``"T"``, ``"q"``) or None."""
    return _RANK_BY_TEXT.get(text)


def card_names(cards: Iterable[int]) -> Message:
    """The names of ``cards`` joined by spaces (``"10♥ Q♠"``) as a lazy message
    (:meth:`p2ptrumps.message.Message.cards`): shown through the catalog, with the language's rank
    letters (``"10♥ Д♠"``)."""
    cards = [int(c) for c in cards]
    return Message.cards(cards, (Card(c).label() for c in cards))


def suit_label(suit: int, ascii_only: bool = False) -> str:
    """``"♥"`` or ``"H"`` for a suit."""
    return (SUIT_LETTERS if ascii_only else SUIT_SYMBOLS)[suit]


# ----- card sets as bitmasks -------------------------------------------------


def mask_of(cards: Iterable[int]) -> int:
    """Bitmask of an iterable of card ints."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_in(mask: int) -> Iterator[Card]:
    """The cards of a bitmask in ascending order (♣ low … ♠ high)."""
    while mask:
        low = mask & -mask
        yield Card(low.bit_length() - 1)
        mask ^= low


def card_list(mask: int) -> list[int]:
    """The card ints of a bitmask in ascending order (plain ints, for hot paths)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def count(mask: int) -> int:
    """Number of cards in a bitmask."""
    return mask.bit_count()


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces or commas: ``"10♠ 7H kc"``.

    Raises :class:`CardParseError` naming the first bad word.
    """
    return [Card.parse(w) for w in text.replace(",", " ").split()]


def codes(cards: Iterable[int]) -> str:
    """Space-separated canonical codes of cards (in the given order)."""
    return " ".join(Card(c).code for c in cards)


def pack_mask(pack_size: int) -> int:
    """The set of cards in a pack of 32 (7..A), 36 (6..A) or 52 (2..A) cards.

    Raises ``ValueError`` for other sizes.  Source: RULES.md §1.
    """
    low = LOWEST_RANK.get(pack_size)
    if low is None:
        raise ValueError(N_("pack size %(size)s is not one of 32, 36, 52", size=str(pack_size)))
    m = 0
    for s in SUITS:
        for r in range(low, 15):
            m |= 1 << card_index(r, s)
    return m


def _higher_in_suit(card: int) -> int:
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


#: ``BEATERS[t][top]`` is the set of cards that beat ``top`` for a player whose
#: own trump is ``t`` (RULES.md §5).
BEATERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        _higher_in_suit(top) if top // 13 == t else _higher_in_suit(top) | SUIT_MASKS[t]
        for top in range(52)
    )
    for t in SUITS
)


def beats(card: int, top: int, trump: int) -> bool:
    """Whether ``card`` beats ``top`` for a player whose own trump is ``trump`` (RULES.md §5)."""
    return bool(BEATERS[trump][top] >> card & 1)
