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

from .cards import SUIT_LETTERS, Card, CardParseError, card_list, parse_suit
from .files import write_atomic
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
    :data:`MAX_MESSAGE_CHARS` characters) names the field or the move."""

    def __init__(self, message: str) -> None:
        text = " ".join(message.split())
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[: MAX_MESSAGE_CHARS - 1] + "…"
        super().__init__(text)


def _short(value: Any) -> str:
    """A short, safe description of a JSON value for an error message."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value) if abs(value) < 10**15 else "a very large number"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value if len(value) <= 20 else value[:20] + "…")
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _is_number(value: Any) -> bool:
    return (type(value) is int and abs(value) <= 10**9) or (isinstance(value, float) and math.isfinite(value))


def _member(data: dict[str, Any], key: str, kind: type, what: str) -> Any:
    """``data[key]`` if it is a ``kind``; else :class:`RecordError` naming the field."""
    if key not in data:
        raise RecordError(f"missing field {key!r}")
    value = data[key]
    if not isinstance(value, kind):
        raise RecordError(f"{key}: expected {what}, not {_short(value)}")
    return value


def _player_from_json(seat: int, p: Any) -> PlayerInfo:
    where = f"players, seat {seat}"
    if not isinstance(p, dict):
        raise RecordError(f"{where}: expected an object with a name")
    name = p.get("name")
    if not isinstance(name, str):
        raise RecordError(f"{where}: name must be text, not {_short(name)}")
    kind = p.get("kind", "human")
    if not isinstance(kind, str):
        raise RecordError(f"{where}: kind must be text, not {_short(kind)}")
    fingerprint = p.get("fingerprint")
    if fingerprint is not None and not isinstance(fingerprint, str):
        raise RecordError(f"{where}: fingerprint must be text or null, not {_short(fingerprint)}")
    return PlayerInfo(name, kind, fingerprint)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(text: str, name: str = "the record") -> Any:
    """Parse strict JSON text (no ``NaN``/``Infinity``); raises :class:`RecordError` naming
    ``name`` for anything unparseable (bad syntax, an over-long integer, too deep nesting)."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise RecordError(f"{name} is not JSON: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, and int() beyond the digit limit
        raise RecordError(f"{name} is not JSON: {exc}") from None


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
            return "disputed: no result (a claim on time was disputed)"
        return "unfinished (not played to its end)"

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
            raise RecordError(f"malformed record: {exc}") from None
        except (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
            # A safety net: the checks below name the field; this names the kind of fault.
            raise RecordError(f"malformed record: {type(exc).__name__} while reading the fields") from None

    @classmethod
    def _from_json(cls, data: Any) -> MatchRecord:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f"not a {FORMAT} file")
        if "version" not in data:
            raise RecordError("missing field 'version'")
        version = data["version"]
        if type(version) is not int or version != VERSION:
            raise RecordError(f"unsupported record version {_short(version)} (this program reads {VERSION})")
        rules = RuleSet.from_dict(_member(data, "rules", dict, "an object"))
        trumps_raw = _member(data, "trumps", list, "two suits")
        if len(trumps_raw) != 2 or not all(isinstance(t, str) for t in trumps_raw):
            raise RecordError("trumps: expected two suits")
        trumps = (parse_suit(trumps_raw[0]), parse_suit(trumps_raw[1]))
        if trumps[0] == trumps[1]:
            raise RecordError("trumps: the two suits must differ")
        players_raw = _member(data, "players", list, "two players")
        if len(players_raw) != 2:
            raise RecordError("players: expected two")
        players = tuple(_player_from_json(i, p) for i, p in enumerate(players_raw))
        deals_raw = _member(data, "deals", list, "a list of deals")
        deals = [cls._deal_from_json(i, d) for i, d in enumerate(deals_raw)]
        started = data.get("started", "")
        if not isinstance(started, str):
            raise RecordError(f"started: expected a time as text, not {_short(started)}")
        source = data.get("source", "offline")
        if not isinstance(source, str):
            raise RecordError(f"source: expected text, not {_short(source)}")
        claimed_score: tuple[float, float] | None = None
        if "score" in data:
            score = data["score"]
            if not (isinstance(score, list) and len(score) == 2 and all(_is_number(x) for x in score)):
                raise RecordError(f"score: expected two numbers, not {_short(score)}")
            claimed_score = (float(score[0]), float(score[1]))
        claimed_finished = data.get("finished")
        if claimed_finished is not None and type(claimed_finished) is not bool:
            raise RecordError(f"finished: expected true or false, not {_short(claimed_finished)}")
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
        where = f"deal {i + 1}"
        if not isinstance(d, dict):
            raise RecordError(f"{where}: not an object")
        number = d.get("number", i + 1)
        if type(number) is not int:
            raise RecordError(f"{where}: number must be an integer, not {_short(number)}")
        dealer = d.get("dealer")
        if type(dealer) is not int or dealer not in (0, 1):
            raise RecordError(f"{where}: dealer must be 0 or 1")
        hands = d.get("hands")
        if not (isinstance(hands, list) and len(hands) == 2 and all(isinstance(h, list) for h in hands)):
            raise RecordError(f"{where}: hands must be two lists of cards")
        masks = []
        for hand in hands:
            mask = 0
            for c in hand:
                if not isinstance(c, str):
                    raise RecordError(f"{where}, hands: {_short(c)} is not a card")
                try:
                    card = Card.parse(c)
                except CardParseError as exc:
                    raise RecordError(f"{where}, hands: {exc}") from None
                if mask >> card & 1:
                    raise RecordError(f"{where}, hands: {card.label()} appears twice")
                mask |= 1 << card
            masks.append(mask)
        moves_raw = d.get("moves")
        if not isinstance(moves_raw, list):
            raise RecordError(f"{where}: moves must be a list of moves")
        moves = []
        for j, m in enumerate(moves_raw):
            if not isinstance(m, str):
                raise RecordError(f"{where}, move {j + 1}: {_short(m)} is not a move")
            try:
                moves.append(Move.parse(m))
            except InvalidMoveError as exc:
                raise RecordError(f"{where}, move {j + 1}: {exc}") from None
        result = d.get("result")
        outcome = None
        if result is not None:
            if not isinstance(result, dict) or not isinstance(result.get("reason"), str):
                raise RecordError(f"{where}: result must be null or {{\"winner\": 0, 1 or null, \"reason\": text}}")
            try:
                outcome = Outcome(result.get("winner"), result["reason"])
            except ValueError as exc:
                raise RecordError(f"{where}: bad result: {exc}") from None
        seed_text = d.get("seed")
        if not isinstance(seed_text, str):
            raise RecordError(f"{where}: seed must be hex text")
        if len(seed_text) > 2 * 65535:
            raise RecordError(f"{where}: seed is longer than 65535 bytes")
        try:
            seed = bytes.fromhex(seed_text)
        except ValueError:
            seed = b""
        if seed.hex() != seed_text.lower():
            raise RecordError(f"{where}: seed {_short(seed_text)} is not hex")
        start = d.get("start")
        if start is not None:
            if not isinstance(start, str):
                raise RecordError(f"{where}: start must be a position text, not {_short(start)}")
            if seed:
                raise RecordError(f"{where}: a deal with a start position has the seed \"\"")
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
            raise RecordError(f"cannot read {path}: {exc}") from None
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
            raise RecordError(f"deals: {len(self.deals)} deals recorded but the rules agree {self.rules.deals}")
        for i, deal in enumerate(self.deals):
            if deal.number != i + 1:
                raise RecordError(f"deal {i + 1}: numbered {deal.number}; deals are numbered 1, 2, 3, ... in order")
            if not i:
                continue
            prev = self.deals[i - 1]
            if prev.outcome is None:
                raise RecordError(
                    f"deal {i + 1}: deal {i} before it has no result (only the last deal may be unfinished)"
                )
            dealer = next_dealer(prev.dealer, prev.outcome)
            if deal.dealer != dealer:
                raise RecordError(
                    f"deal {i + 1}: dealt by seat {deal.dealer}, but after deal {i} seat {dealer} deals "
                    "(RULES.md §3: the loser deals; after a draw the other player)"
                )
        a, b = self.score_halves()
        if self.claimed_score is not None and self.claimed_score != (a / 2, b / 2):
            c0, c1 = self.claimed_score
            raise RecordError(f"score: recorded [{c0:g}, {c1:g}] but the deals give [{a / 2:g}, {b / 2:g}]")
        if self.claimed_finished is not None and self.claimed_finished != self.finished:
            open_last = bool(self.deals) and self.deals[-1].outcome is None
            raise RecordError(
                f"finished: recorded {str(self.claimed_finished).lower()} but the match is "
                f"{'finished' if self.finished else 'not finished'} ({len(self.deals)} of {self.rules.deals} "
                f"deals recorded{', the last without a result' if open_last else ''})"
            )

    # ----- replay ------------------------------------------------------------

    def start_of(self, deal: DealRecord) -> Position:
        """The starting position of ``deal``; :class:`RecordError` if the hands are not what the seed deals
        (or, for an explicit deal with an empty seed, do not split the pack between them; or, for a deal
        with a start position, do not fit it: protocol/record.md §6 item 3)."""
        if deal.start is not None:
            return self._start_position(deal)
        expected = deal_hands(deal.seed, self.rules, self.trumps, deal.dealer) if deal.seed else None
        if expected is not None and expected != tuple(deal.hands):
            raise RecordError(f"deal {deal.number}: the hands are not the deal of its seed")
        a, b = deal.hands
        if a & b or a | b != self.rules.pack:
            raise RecordError(f"deal {deal.number}: the hands do not split the {self.rules.pack_size}-card pack")
        return Position.start(self.rules, self.trumps, deal.hands, deal.dealer)

    def _start_position(self, deal: DealRecord) -> Position:
        where = f"deal {deal.number}, start"
        try:
            pos = parse_position(deal.start or "")
        except PositionTextError as exc:
            raise RecordError(f"{where}: {exc}") from None
        if replace(pos.rules, deals=self.rules.deals) != self.rules:
            raise RecordError(f"{where}: its rules ({pos.rules.describe()}) are not the record's")
        if pos.trumps != self.trumps:
            raise RecordError(f"{where}: its trumps are not the record's")
        if tuple(pos.hands) != tuple(deal.hands):
            raise RecordError(f"{where}: its hands are not the deal's hands")
        if deal.dealer != 1 - pos.to_move:
            raise RecordError(f"{where}: the dealer of a deal with a start position is the seat not to move "
                              f"(seat {1 - pos.to_move})")
        if pos.outcome is not None:
            raise RecordError(f"{where}: the deal is already over in its start position")
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
                why = str(exc)
                for yours in ("your trump", "your hand", "your last card"):
                    why = why.replace(yours, yours.replace("your", f"seat {seat}'s"))
                raise RecordError(f"deal {deal.number}, move {j + 1} ({move.code}): {why}") from None
            yield move, pos.copy()
        reached = pos.outcome
        if reached is not None and deal.outcome != reached:
            raise RecordError(
                f"deal {deal.number}: recorded result {result_json(deal.outcome)} "
                f"but the moves reach {result_json(reached)}"
            )
        if reached is None and deal.outcome is not None and deal.outcome.reason not in (
                "resign", "agreed-draw", "time"):
            raise RecordError(f"deal {deal.number}: result {deal.outcome.reason} recorded but the deal is not over")
