"""The game record: every deal of a match, saved as it is played.

Source: ``protocol/record.md`` (format ``p2ptrumps-record`` version 1).

A record is UTF-8 JSON.  It holds the rule set, both trumps, the players, and
for each deal the dealer, the shuffle seed, the explicit deal (both hands after
the sixes rule), every move in :attr:`Move.code` form and the result (``null``
while the deal is unfinished or if it was abandoned).  The networked match log
(``protocol/wire.md``) is a different file; ``verify`` turns one into a
:class:`MatchRecord` of this shape.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .cards import SUIT_LETTERS, Card, CardParseError, card_list, card_names, parse_suit
from .files import write_atomic
from .message import N_, Message, Nn_, message_of
from .notation import PositionTextError, parse_position
from .rules import (
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Outcome,
    Position,
    RuleSet,
    RuleSetError,
    next_dealer,
)
from .shuffle import deal_hands

FORMAT = "p2ptrumps-record"
VERSION = 1


#: Longest error message kept (a hostile file must not make a megabyte-long line).
MAX_MESSAGE_CHARS = 400


class RecordError(ValueError):
    """A record is unreadable or inconsistent; the message (one line, at most
    :data:`MAX_MESSAGE_CHARS` characters) names the field or the move.  A lazy message
    (:mod:`p2ptrumps.message`) that is already one short line is kept as it is, to be shown in
    the person's language."""

    def __init__(self, message: str) -> None:
        text = " ".join(message.split())
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[: MAX_MESSAGE_CHARS - 1] + "…"
        super().__init__(message if text == message and isinstance(message, Message) else text)


def _short(value: Any) -> str:
    """A short, safe description of a JSON value for an error message."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value) if abs(value) < 10**15 else N_("a very large number")
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value if len(value) <= 20 else value[:20] + "…")
    if isinstance(value, list):
        return Nn_("a list of %(n)d", "a list of %(n)d", len(value))
    if isinstance(value, dict):
        return AN_OBJECT
    return type(value).__name__


#: The faults of :meth:`Position.check` said to the player ("your hand"), as said of a seat in a record.
_OF_A_SEAT: dict[str, Message] = {
    "%(card)s is not in your hand": N_("%(card)s is not in seat %(seat)d's hand"),
    "%(card)s does not beat %(top)s (your trump is %(trump)s)": N_(
        "%(card)s does not beat %(top)s (seat %(seat)d's trump is %(trump)s)"),
    "%(card)s is your last card: no second card": N_("%(card)s is seat %(seat)d's last card: no second card"),
}


def seats_words(fault: str, seat: int) -> str:
    """An illegal move's fault (:meth:`Position.check`, said to the player) said of ``seat``:
    ``"7♠ is not in your hand"`` -> ``"7♠ is not in seat 1's hand"``; another fault as it is."""
    if isinstance(fault, Message) and fault.template in _OF_A_SEAT:
        return _OF_A_SEAT[fault.template].with_args(**fault.args, seat=seat)
    return fault


def _is_number(value: Any) -> bool:
    return (type(value) is int and abs(value) <= 10**9) or (isinstance(value, float) and math.isfinite(value))


#: What a field of a record should hold, for the messages (lazy messages).
AN_OBJECT = N_("an object")


def _member(data: dict[str, Any], key: str, kind: type, what: str) -> Any:
    """``data[key]`` if it is a ``kind``; else :class:`RecordError` naming the field."""
    if key not in data:
        raise RecordError(N_("missing field %(field)s", field=repr(key)))
    value = data[key]
    if not isinstance(value, kind):
        raise RecordError(N_("%(field)s: expected %(what)s, not %(value)s", field=key, what=what, value=_short(value)))
    return value


def _player_from_json(seat: int, p: Any) -> PlayerInfo:
    where = N_("players, seat %(seat)d", seat=seat)
    if not isinstance(p, dict):
        raise RecordError(N_("%(where)s: expected an object with a name", where=where))
    name = p.get("name")
    if not isinstance(name, str):
        raise RecordError(N_("%(where)s: %(field)s must be text, not %(value)s", where=where, field="name",
                             value=_short(name)))
    kind = p.get("kind", "human")
    if not isinstance(kind, str):
        raise RecordError(N_("%(where)s: %(field)s must be text, not %(value)s", where=where, field="kind",
                             value=_short(kind)))
    fingerprint = p.get("fingerprint")
    if fingerprint is not None and not isinstance(fingerprint, str):
        raise RecordError(N_("%(where)s: %(field)s must be text or null, not %(value)s", where=where,
                             field="fingerprint", value=_short(fingerprint)))
    return PlayerInfo(name, kind, fingerprint)


def _no_constant(name: str) -> Any:
    raise ValueError(N_("%(name)s is not JSON", name=name))


#: What :func:`parse_json` calls the text it reads, unless told otherwise.
THE_RECORD = N_("the record")


def parse_json(text: str, name: str = THE_RECORD) -> Any:
    """Parse strict JSON text (no ``NaN``/``Infinity``); raises :class:`RecordError` naming
    ``name`` for anything unparseable (bad syntax, an over-long integer, too deep nesting)."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise RecordError(N_("%(name)s is not JSON: nested too deeply", name=name)) from None
    except ValueError as exc:  # JSONDecodeError, and int() beyond the digit limit
        raise RecordError(N_("%(name)s is not JSON: %(fault)s", name=name, fault=message_of(exc))) from None


def result_json(outcome: Outcome | None) -> str:
    """A deal result as it is written in a record: ``{"winner": 1, "reason": "out"}`` or ``null``."""
    if outcome is None:
        return "null"
    return json.dumps({"winner": outcome.winner, "reason": outcome.reason})


@dataclass
class PlayerInfo:
    """Who sat in a seat: a display name, a kind (``"human"``, ``"ai:normal"``, ``"remote"``)
    and, in a networked match, the Ed25519 key fingerprint."""

    name: str
    kind: str = "human"
    fingerprint: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "fingerprint": self.fingerprint}


@dataclass
class DealRecord:
    """One deal: ``number`` (1-based), ``dealer`` seat, ``seed`` bytes, the dealt ``hands``
    (bitmasks, after sixes), the ``moves`` played, and the ``outcome`` (None if unfinished).
    ``start`` is the position text (protocol/position.md) a deal set up from a position starts
    from (protocol/record.md §3), None for a dealt deal."""

    number: int
    dealer: int
    seed: bytes
    hands: tuple[int, int]
    moves: list[Move] = field(default_factory=list)
    outcome: Outcome | None = None
    start: str | None = None

    def to_json(self) -> dict[str, Any]:
        start = {"start": self.start} if self.start is not None else {}
        return {
            "number": self.number,
            "dealer": self.dealer,
            "seed": self.seed.hex(),
            **start,
            "hands": [[Card(c).code for c in card_list(h)] for h in self.hands],
            "moves": [m.code for m in self.moves],
            "result": None
            if self.outcome is None
            else {"winner": self.outcome.winner, "reason": self.outcome.reason},
        }


def match_winner(score_halves: tuple[int, int], deals: int) -> tuple[bool, int | None]:
    """How a match of ``deals`` deals that ended with ``score_halves`` (half-points of seat 0 and seat 1:
    win 2, draw 1, a deal forfeited or won by a claim 2) was decided (protocol/verify.md §5, ``decided``
    and ``winner``): ``(decided, winner)``.  Every deal with a result gives 2 half-points in all, so the
    deals without one (disputed, abandoned, not played) are ``2 * deals - a - b`` half-points; the match
    is decided when there are none, or when the lead is larger than they are -- each could have gone to
    either seat.  ``winner`` is the seat ahead when decided, None for a draw or a match not decided."""
    a, b = score_halves
    without = 2 * deals - a - b
    decided = without <= 0 or abs(a - b) > without
    return decided, (None if not decided or a == b else 0 if a > b else 1)


@dataclass
class MatchRecord:
    """A whole match: rules, trumps (suit of seat 0, seat 1), players, deals, start time (ISO 8601 text)."""

    rules: RuleSet
    trumps: tuple[int, int]
    players: tuple[PlayerInfo, PlayerInfo]
    deals: list[DealRecord] = field(default_factory=list)
    started: str = ""
    source: str = "offline"
    #: The ``score`` and ``finished`` a file stored (None if not read from a file); :meth:`check` compares them.
    claimed_score: tuple[float, float] | None = field(default=None, compare=False, repr=False)
    claimed_finished: bool | None = field(default=None, compare=False, repr=False)
    #: Of a match read from a match log that verifies complete (``verify``): the deals without a result
    #: and why (``"disputed"``, ``"not played"``: protocol/verify.md §5), so that what shows the record
    #: names them as such; not written to a record file.  Empty otherwise.
    no_result: dict[int, str] = field(default_factory=dict, compare=False, repr=False)
    #: True for a match read from a match log that verifies complete (its end signed, or disputed).
    complete: bool = field(default=False, compare=False, repr=False)

    def deal_result_text(self, index: int, names: tuple[str, str]) -> str:
        """How deal ``index`` (0-based) ended, in words: its outcome described with ``names``, or
        ``"disputed: no result (a claim on time was disputed)"``, or ``"unfinished (not played to its end)"``."""
        deal = self.deals[index]
        if deal.outcome is not None:
            return deal.outcome.describe(names)
        if self.no_result.get(deal.number) == "disputed":
            return N_("disputed: no result (a claim on time was disputed)")
        if self.no_result.get(deal.number) == "abandoned":
            return N_("abandoned: no result (the match was abandoned)")
        return N_("unfinished (not played to its end)")

    # ----- derived ---------------------------------------------------------

    def score_halves(self) -> tuple[int, int]:
        """Half-points of seat 0 and seat 1 over the finished deals (win 2, draw 1)."""
        a = sum(d.outcome.points(0) for d in self.deals if d.outcome)
        b = sum(d.outcome.points(1) for d in self.deals if d.outcome)
        return a, b

    @property
    def finished(self) -> bool:
        """All agreed deals played to an end."""
        return len(self.deals) >= self.rules.deals and all(d.outcome for d in self.deals)

    # ----- JSON --------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        a, b = self.score_halves()
        return {
            "format": FORMAT,
            "version": VERSION,
            "source": self.source,
            "started": self.started,
            "rules": self.rules.to_dict(),
            "trumps": [SUIT_LETTERS[t] for t in self.trumps],
            "players": [p.to_json() for p in self.players],
            "deals": [d.to_json() for d in self.deals],
            "score": [a / 2, b / 2],
            "finished": self.finished,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically (temp file, fsync, rename) so a crash never leaves half a record."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, self.dumps())

    @classmethod
    def from_json(cls, data: Any) -> MatchRecord:
        """Read a parsed JSON record; raises :class:`RecordError` naming the bad field, and nothing else.

        Checks the shape only (protocol/record.md §6 items 1-2); :meth:`check`
        replays the deals and checks how they fit together (items 3-6).
        """
        try:
            return cls._from_json(data)
        except RecordError:
            raise
        except (RuleSetError, CardParseError, InvalidMoveError) as exc:
            raise RecordError(N_("malformed record: %(fault)s", fault=message_of(exc))) from None
        except (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
            # A safety net: the checks below name the field; this names the kind of fault.
            raise RecordError(N_("malformed record: %(error)s while reading the fields",
                                 error=type(exc).__name__)) from None

    @classmethod
    def _from_json(cls, data: Any) -> MatchRecord:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(N_("not a %(format)s file", format=FORMAT))
        if "version" not in data:
            raise RecordError(N_("missing field %(field)s", field=repr("version")))
        version = data["version"]
        if type(version) is not int or version != VERSION:
            raise RecordError(N_("unsupported record version %(version)s (this program reads %(known)d)",
                                 version=_short(version), known=VERSION))
        rules = RuleSet.from_dict(_member(data, "rules", dict, AN_OBJECT))
        two_suits = N_("two suits")
        trumps_raw = _member(data, "trumps", list, two_suits)
        if len(trumps_raw) != 2 or not all(isinstance(t, str) for t in trumps_raw):
            raise RecordError(N_("%(field)s: expected %(what)s", field="trumps", what=two_suits))
        trumps = (parse_suit(trumps_raw[0]), parse_suit(trumps_raw[1]))
        if trumps[0] == trumps[1]:
            raise RecordError(N_("%(field)s: the two suits must differ", field="trumps"))
        players_raw = _member(data, "players", list, N_("two players"))
        if len(players_raw) != 2:
            raise RecordError(N_("%(field)s: expected two", field="players"))
        players = tuple(_player_from_json(i, p) for i, p in enumerate(players_raw))
        deals_raw = _member(data, "deals", list, N_("a list of deals"))
        deals = [cls._deal_from_json(i, d) for i, d in enumerate(deals_raw)]
        started = data.get("started", "")
        if not isinstance(started, str):
            raise RecordError(N_("%(field)s: expected %(what)s, not %(value)s", field="started",
                                 what=N_("a time as text"), value=_short(started)))
        source = data.get("source", "offline")
        if not isinstance(source, str):
            raise RecordError(N_("%(field)s: expected %(what)s, not %(value)s", field="source", what=N_("text"),
                                 value=_short(source)))
        claimed_score: tuple[float, float] | None = None
        if "score" in data:
            score = data["score"]
            if not (isinstance(score, list) and len(score) == 2 and all(_is_number(x) for x in score)):
                raise RecordError(N_("%(field)s: expected %(what)s, not %(value)s", field="score",
                                     what=N_("two numbers"), value=_short(score)))
            claimed_score = (float(score[0]), float(score[1]))
        claimed_finished = data.get("finished")
        if claimed_finished is not None and type(claimed_finished) is not bool:
            raise RecordError(N_("%(field)s: expected %(what)s, not %(value)s", field="finished",
                                 what=N_("true or false"), value=_short(claimed_finished)))
        return cls(
            rules=rules,
            trumps=trumps,
            players=(players[0], players[1]),
            deals=deals,
            started=started,
            source=source,
            claimed_score=claimed_score,
            claimed_finished=claimed_finished,
        )

    @staticmethod
    def _deal_from_json(i: int, d: Any) -> DealRecord:
        where = N_("deal %(number)d", number=i + 1)
        if not isinstance(d, dict):
            raise RecordError(N_("%(where)s: not an object", where=where))
        number = d.get("number", i + 1)
        if type(number) is not int:
            raise RecordError(N_("%(where)s: %(field)s must be an integer, not %(value)s", where=where, field="number",
                                 value=_short(number)))
        dealer = d.get("dealer")
        if type(dealer) is not int or dealer not in (0, 1):
            raise RecordError(N_("%(where)s: %(field)s must be 0 or 1", where=where, field="dealer"))
        hands = d.get("hands")
        if not (isinstance(hands, list) and len(hands) == 2 and all(isinstance(h, list) for h in hands)):
            raise RecordError(N_("%(where)s: %(field)s must be two lists of cards", where=where, field="hands"))
        masks = []
        for hand in hands:
            mask = 0
            for c in hand:
                if not isinstance(c, str):
                    raise RecordError(N_("%(where)s, %(field)s: %(value)s is not a card", where=where, field="hands",
                                         value=_short(c)))
                try:
                    card = Card.parse(c)
                except CardParseError as exc:
                    raise RecordError(N_("%(where)s, %(field)s: %(fault)s", where=where, field="hands",
                                         fault=message_of(exc))) from None
                if mask >> card & 1:
                    raise RecordError(N_("%(where)s, %(field)s: %(card)s appears twice", where=where, field="hands",
                                         card=card_names([card])))
                mask |= 1 << card
            masks.append(mask)
        moves_raw = d.get("moves")
        if not isinstance(moves_raw, list):
            raise RecordError(N_("%(where)s: %(field)s must be a list of moves", where=where, field="moves"))
        moves = []
        for j, m in enumerate(moves_raw):
            if not isinstance(m, str):
                raise RecordError(N_("%(where)s, move %(move)d: %(value)s is not a move", where=where, move=j + 1,
                                     value=_short(m)))
            try:
                moves.append(Move.parse(m))
            except InvalidMoveError as exc:
                raise RecordError(N_("%(where)s, move %(move)d: %(fault)s", where=where, move=j + 1,
                                     fault=message_of(exc))) from None
        result = d.get("result")
        outcome = None
        if result is not None:
            if not isinstance(result, dict) or not isinstance(result.get("reason"), str):
                raise RecordError(N_("%(where)s: %(field)s must be null or %(shape)s", where=where, field="result",
                                     shape='{"winner": 0, 1 or null, "reason": text}'))
            try:
                outcome = Outcome(result.get("winner"), result["reason"])
            except ValueError as exc:
                raise RecordError(N_("%(where)s: bad result: %(fault)s", where=where, fault=message_of(exc))) from None
        seed_text = d.get("seed")
        if not isinstance(seed_text, str):
            raise RecordError(N_("%(where)s: %(field)s must be hex text", where=where, field="seed"))
        if len(seed_text) > 2 * 65535:
            raise RecordError(N_("%(where)s: %(field)s is longer than 65535 bytes", where=where, field="seed"))
        try:
            seed = bytes.fromhex(seed_text)
        except ValueError:
            seed = b""
        if seed.hex() != seed_text.lower():
            raise RecordError(N_("%(where)s: %(field)s %(value)s is not hex", where=where, field="seed",
                                 value=_short(seed_text)))
        start = d.get("start")
        if start is not None:
            if not isinstance(start, str):
                raise RecordError(N_("%(where)s: %(field)s must be a position text, not %(value)s", where=where,
                                     field="start", value=_short(start)))
            if seed:
                raise RecordError(N_("%(where)s: a deal with a start position has the seed %(empty)s", where=where,
                                     empty='""'))
        return DealRecord(
            number=number,
            dealer=dealer,
            seed=seed,
            hands=(masks[0], masks[1]),
            moves=moves,
            outcome=outcome,
            start=start,
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MatchRecord:
        """Read a record file (shape only, see :meth:`from_json`; a UTF-8 byte order mark is skipped).

        Raises :class:`RecordError` (unreadable, not JSON, bad shape) and nothing else.
        """
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordError(N_("cannot read %(path)s: %(fault)s", path=str(path), fault=str(exc))) from None
        return cls.from_json(parse_json(text, str(path)))

    # ----- whole-record consistency -----------------------------------------------------

    def check(self, *, replay: bool = True) -> None:
        """Check the whole record (protocol/record.md §6); raises :class:`RecordError` naming the first fault.

        With ``replay`` (the default) every deal is first replayed with
        :meth:`replay_deal` (hands, moves, results); pass ``replay=False`` when
        the caller has just done that.  Then: at most ``rules.deals`` deals,
        numbered 1, 2, … in order; only the last deal may be without a result;
        each later deal dealt as RULES.md §3 says (the loser deals; after a draw
        the other player); and the stored ``score`` and ``finished``, when the
        record came from a file holding them, equal what the deals give.
        """
        if replay:
            for deal in self.deals:
                for _ in self.replay_deal(deal):
                    pass
        if len(self.deals) > self.rules.deals:
            raise RecordError(N_("%(field)s: %(recorded)d deals recorded but the rules agree %(agreed)d", field="deals",
                                 recorded=len(self.deals), agreed=self.rules.deals))
        for i, deal in enumerate(self.deals):
            if deal.number != i + 1:
                raise RecordError(N_("deal %(number)d: numbered %(numbered)d; deals are numbered 1, 2, 3, ... in order",
                                     number=i + 1, numbered=deal.number))
            if not i:
                continue
            prev = self.deals[i - 1]
            if prev.outcome is None and prev.number not in self.no_result:
                raise RecordError(N_("deal %(number)d: deal %(before)d before it has no result (only the last deal "
                                     "may be unfinished)", number=i + 1, before=i))
            # A deal settled without a result (a match log's, protocol/wire.md §9.3): as after a draw.
            dealer = 1 - prev.dealer if prev.outcome is None else next_dealer(prev.dealer, prev.outcome)
            if deal.dealer != dealer:
                raise RecordError(N_("deal %(number)d: dealt by seat %(seat)d, but after deal %(before)d seat "
                                     "%(dealer)d deals (RULES.md §3: the loser deals; after a draw the other player)",
                                     number=i + 1, seat=deal.dealer, before=i, dealer=dealer))
        a, b = self.score_halves()
        if self.claimed_score is not None and self.claimed_score != (a / 2, b / 2):
            c0, c1 = self.claimed_score
            recorded, given = f"[{c0:g}, {c1:g}]", f"[{a / 2:g}, {b / 2:g}]"
            raise RecordError(N_("%(field)s: recorded %(recorded)s but the deals give %(given)s", field="score",
                                 recorded=recorded, given=given))
        if self.claimed_finished is not None and self.claimed_finished != self.finished:
            args = {"field": "finished", "recorded": str(self.claimed_finished).lower(), "played": len(self.deals),
                    "agreed": self.rules.deals}
            if self.finished:
                why = N_("%(field)s: recorded %(recorded)s but the match is finished (%(played)d of %(agreed)d deals "
                         "recorded)")
            elif self.deals and self.deals[-1].outcome is None:
                why = N_("%(field)s: recorded %(recorded)s but the match is not finished (%(played)d of %(agreed)d "
                         "deals recorded, the last without a result)")
            else:
                why = N_("%(field)s: recorded %(recorded)s but the match is not finished (%(played)d of %(agreed)d "
                         "deals recorded)")
            raise RecordError(why.with_args(**args))

    # ----- replay ------------------------------------------------------------

    def start_of(self, deal: DealRecord) -> Position:
        """The starting position of ``deal``; :class:`RecordError` if the hands are not what the seed deals
        (or, for an explicit deal with an empty seed, do not split the pack between them; or, for a deal
        with a start position, do not fit it: protocol/record.md §6 item 3)."""
        if deal.start is not None:
            return self._start_position(deal)
        expected = deal_hands(deal.seed, self.rules, self.trumps, deal.dealer) if deal.seed else None
        if expected is not None and expected != tuple(deal.hands):
            raise RecordError(N_("deal %(number)d: the hands are not the deal of its seed", number=deal.number))
        a, b = deal.hands
        if a & b or a | b != self.rules.pack:
            raise RecordError(N_("deal %(number)d: the hands do not split the %(size)d-card pack", number=deal.number,
                                 size=self.rules.pack_size))
        return Position.start(self.rules, self.trumps, deal.hands, deal.dealer)

    def _start_position(self, deal: DealRecord) -> Position:
        where = N_("deal %(number)d, start", number=deal.number)
        try:
            pos = parse_position(deal.start or "")
        except PositionTextError as exc:
            raise RecordError(N_("deal %(number)d, start: %(fault)s", number=deal.number,
                                 fault=message_of(exc))) from None
        if replace(pos.rules, deals=self.rules.deals) != self.rules:
            raise RecordError(N_("%(where)s: its rules (%(rules)s) are not the record's", where=where,
                                 rules=pos.rules.describe()))
        if pos.trumps != self.trumps:
            raise RecordError(N_("%(where)s: its trumps are not the record's", where=where))
        if tuple(pos.hands) != tuple(deal.hands):
            raise RecordError(N_("%(where)s: its hands are not the deal's hands", where=where))
        if deal.dealer != 1 - pos.to_move:
            raise RecordError(N_("%(where)s: the dealer of a deal with a start position is the seat not to move "
                                 "(seat %(seat)d)", where=where, seat=1 - pos.to_move))
        if pos.outcome is not None:
            raise RecordError(N_("%(where)s: the deal is already over in its start position", where=where))
        return Position(self.rules, pos.trumps, list(pos.hands), pos.pile, pos.to_move, pos.turn)

    def replay_deal(self, deal: DealRecord) -> Iterator[tuple[Move | None, Position]]:
        """Yield ``(None, start)`` then ``(move, position after it)`` for each move of ``deal``.

        Each yielded position is a fresh copy.  Raises :class:`RecordError` (as :meth:`start_of` does for
        the hands) naming the first illegal move, a result that differs from the one the moves reach, or
        a result for a deal the moves leave open that is not a resignation, an agreed draw or a claim on time.
        """
        pos = self.start_of(deal)
        yield None, pos.copy()
        for j, move in enumerate(deal.moves):
            seat = pos.to_move
            try:
                pos.push(move)
            except IllegalMoveError as exc:
                raise RecordError(N_("deal %(number)d, move %(move)d (%(code)s): %(fault)s", number=deal.number,
                                     move=j + 1, code=move.code, fault=seats_words(message_of(exc), seat))) from None
            yield move, pos.copy()
        reached = pos.outcome
        if reached is not None and deal.outcome != reached:
            raise RecordError(N_("deal %(number)d: recorded result %(recorded)s but the moves reach %(reached)s",
                                 number=deal.number, recorded=result_json(deal.outcome), reached=result_json(reached)))
        if reached is None and deal.outcome is not None and deal.outcome.reason not in (
                "resign", "agreed-draw", "time"):
            raise RecordError(N_("deal %(number)d: result %(reason)s recorded but the deal is not over",
                                 number=deal.number, reason=deal.outcome.reason))
