"""The position text: one line that names a deal in progress (like FEN for chess).

Source: ``protocol/position.md`` (the format, its fields and its checks);
RULES.md §7 for the end of a deal a text can show.

``position_text(position)`` writes the canonical text and
``parse_position(text)`` reads it back: ``parse_position(position_text(p))``
has the same rules, trumps, hands, pile, seat to move, turn and outcome as
``p``.  A text carries no repetition history: the position it gives has
occurred once (as the start of a deal does, RULES.md §7).

Example: ``v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000``.
"""

from __future__ import annotations

import re

from .cards import BEATERS, SUIT_LETTERS, Card, CardParseError, card_list, parse_suit_char
from .message import N_, message_of
from .rules import Outcome, Position, RuleSet, RuleSetError

VERSION_TAG = "v1"

#: The longest text read (a 52-card position is about 130 characters).
MAX_TEXT_CHARS = 400


class PositionTextError(ValueError):
    """A text is not a valid position; the message (a lazy message) names the field and quotes it."""


def rules_text(rules: RuleSet) -> str:
    """The rules field: ``36.sixes.must.r3.t1000`` (pack, sixes, pick-up, repetition, turn limit)."""
    return ".".join([
        str(rules.pack_size),
        "sixes" if rules.sixes else "nosixes",
        "voluntary" if rules.voluntary_pickup else "must",
        f"r{rules.repetition}",
        f"t{rules.turn_limit}",
    ])


def _cards_text(cards: list[int]) -> str:
    return "".join(Card(c).code for c in cards) or "-"


def position_text(position: Position) -> str:
    """The canonical position text of ``position``: its eight fields (protocol/position.md §1, the rules
    field §2), the trumps and cards in capitals, the hands in ascending card order."""
    return "/".join([
        VERSION_TAG,
        SUIT_LETTERS[position.trumps[0]] + SUIT_LETTERS[position.trumps[1]],
        _cards_text(card_list(position.hands[0])),
        _cards_text(card_list(position.hands[1])),
        _cards_text(list(position.pile)),
        str(position.to_move),
        str(position.turn),
        rules_text(position.rules),
    ])


_RULES_RE = re.compile(r"(32|36|52)\.(sixes|nosixes)\.(must|voluntary)\.r(0|[1-9][0-9]*)\.t(0|[1-9][0-9]*)")


def _parse_rules(field: str) -> RuleSet:
    m = _RULES_RE.fullmatch(field.lower())
    if m is None:
        raise PositionTextError(N_("rules %(field)s: expected PACK.SIXES.PICKUP.rN.tN, like 36.sixes.must.r3.t1000",
                                   field=repr(field)))
    pack, sixes, pickup, rep, limit = m.groups()
    if len(rep) > 7 or len(limit) > 7:
        raise PositionTextError(N_("rules %(field)s: a number is out of range", field=repr(field)))
    try:
        return RuleSet(pack_size=int(pack), sixes=sixes == "sixes", voluntary_pickup=pickup == "voluntary",
                       repetition=int(rep), turn_limit=int(limit))
    except RuleSetError as exc:
        raise PositionTextError(N_("rules %(field)s: %(fault)s", field=repr(field), fault=message_of(exc))) from None


def _parse_cards(name: str, field: str, pack: int, seen: int) -> tuple[list[int], int]:
    """The cards of a hand or pile field (two characters each, ``-`` for none) and the cards seen so far."""
    if field == "-":
        return [], seen
    if "10" in field:
        raise PositionTextError(N_("%(name)s %(field)s: write the ten as T (TS, not 10S)", name=name,
                                   field=repr(field)))
    if not field or len(field) % 2:
        raise PositionTextError(N_("%(name)s %(field)s: cards are two characters each (rank then suit, like TS), "
                                   "or '-' for none", name=name, field=repr(field)))
    out = []
    for i in range(0, len(field), 2):
        code = field[i:i + 2]
        try:
            if not code.isascii():  # only the letters of position.md §1, never a suit symbol
                raise CardParseError(code)
            card = int(Card.parse(code))
        except CardParseError:
            raise PositionTextError(N_("%(name)s %(field)s: %(code)s is not a card (rank 2-9 T J Q K A, suit C D H S)",
                                       name=name, field=repr(field), code=repr(code))) from None
        if not pack >> card & 1:
            raise PositionTextError(N_("%(name)s %(field)s: %(code)s is not in the pack of these rules", name=name,
                                       field=repr(field), code=Card(card).code))
        if seen >> card & 1:
            raise PositionTextError(N_("%(name)s %(field)s: %(code)s appears twice in the position", name=name,
                                       field=repr(field), code=Card(card).code))
        seen |= 1 << card
        out.append(card)
    return out, seen


def _number(name: str, field: str, high: int) -> int:
    if not field.isascii() or not field.isdigit() or (len(field) > 1 and field[0] == "0"):
        raise PositionTextError(N_("%(name)s %(field)s: expected a whole number without leading zeros", name=name,
                                   field=repr(field)))
    if len(field) > 7 or int(field) > high:  # more digits than any turn has: never read as a number (no huge int)
        raise PositionTextError(N_("%(name)s %(field)s: at most %(most)d", name=name, field=repr(field), most=high))
    value = int(field)
    return value


def parse_position(text: str) -> Position:
    """Read a position text (protocol/position.md): the :class:`Position` it names, which has
    occurred once.  Letters may be in either case; spaces and line breaks around the text and
    around each ``/`` are ignored (a text broken into lines after a ``/`` reads whole); the rules field
    may be left out (then the default rules).

    Raises :class:`PositionTextError` naming the field for any fault (protocol/position.md §3).
    """
    if not isinstance(text, str):
        raise PositionTextError(N_("a position text must be text"))
    s = text.strip(" \t\r\n")  # ASCII spaces, tabs and line breaks around it (position.md §3)
    if len(s) > MAX_TEXT_CHARS:
        raise PositionTextError(N_("length: a position text is at most %(most)d characters, not %(length)d",
                                   most=MAX_TEXT_CHARS, length=len(s)))
    fields = [f.strip(" \t\r\n") for f in s.split("/")]  # and around each / (position.md §3)
    if not fields or fields[0].lower() != VERSION_TAG:
        if fields and re.fullmatch(r"v[0-9]+", fields[0].lower()):
            raise PositionTextError(N_("version %(field)s: unsupported position text version (this program reads "
                                       "v1)", field=repr(fields[0])))
        raise PositionTextError(N_("version: %(text)s is not a position text, which starts with v1/ (like "
                                   "v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000)", text=repr(s[:40])))
    if len(fields) not in (7, 8):
        raise PositionTextError(N_("fields: a position text has 8 fields separated by '/' (7 without the rules), "
                                   "not %(count)d", count=len(fields)))
    rules = _parse_rules(fields[7]) if len(fields) == 8 else RuleSet()
    trumps_field = fields[1]
    suits = [parse_suit_char(ch.upper()) if ch.upper() in SUIT_LETTERS else None for ch in trumps_field] \
        if len(trumps_field) == 2 else []
    if len(suits) != 2 or suits[0] is None or suits[1] is None:
        raise PositionTextError(N_("trumps %(field)s: two suit letters (C D H S), seat 0's then seat 1's",
                                   field=repr(trumps_field)))
    t0, t1 = suits[0], suits[1]
    if t0 == t1:
        raise PositionTextError(N_("trumps %(field)s: the two trumps must differ (RULES.md §2)",
                                   field=repr(trumps_field)))
    pack = rules.pack
    seen = 0
    # TRANSLATORS: the fields of a position text (protocol/position.md), named in its errors.
    hand0, seen = _parse_cards(N_("hand of seat %(seat)d", seat=0), fields[2].upper(), pack, seen)
    hand1, seen = _parse_cards(N_("hand of seat %(seat)d", seat=1), fields[3].upper(), pack, seen)
    # TRANSLATORS: the field of a position text that holds the pile (protocol/position.md).
    pile, seen = _parse_cards(N_("pile"), fields[4].upper(), pack, seen)
    if fields[5] not in ("0", "1"):
        raise PositionTextError(N_("seat to move %(field)s: 0 or 1", field=repr(fields[5])))
    to_move = int(fields[5])
    # TRANSLATORS: the field of a position text that holds the turn number (protocol/position.md).
    turn = _number(N_("turn"), fields[6], rules.turn_limit or 10**6)
    hands = [sum(1 << c for c in hand0), sum(1 << c for c in hand1)]
    outcome = _outcome(hands, pile, to_move, (t0, t1), rules, turn)
    return Position(rules=rules, trumps=(t0, t1), hands=hands, pile=tuple(pile), to_move=to_move, turn=turn,
                    outcome=outcome)


def _outcome(hands: list[int], pile: list[int], to_move: int, trumps: tuple[int, int], rules: RuleSet,
             turn: int) -> Outcome | None:
    """The end a position shows by itself (protocol/position.md §3): an empty hand (the seat to move
    went out, RULES.md §7) or the turn limit reached; else None."""
    empty = [seat for seat in (0, 1) if not hands[seat]]
    if len(empty) == 2:
        raise PositionTextError(N_("hands: both are empty; a deal ends when the first hand empties"))
    if empty:
        seat = empty[0]
        if to_move != seat:
            raise PositionTextError(N_("hands: seat %(seat)d's hand is empty but seat %(to_move)d is to move; a deal "
                                       "ends when a hand empties, with the seat that went out still to move",
                                       seat=seat, to_move=to_move))
        if not pile:
            raise PositionTextError(N_("hands: seat %(seat)d's hand and the pile are empty; who goes out leaves "
                                       "their last card on the pile", seat=seat))
        other = hands[1 - seat]
        if other & (other - 1) == 0 and other & BEATERS[trumps[1 - seat]][pile[-1]]:
            return Outcome(None, "both-out")
        return Outcome(seat, "out")
    if rules.turn_limit and turn >= rules.turn_limit:
        return Outcome(None, "turn-limit")
    return None
