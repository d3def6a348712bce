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

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cards import SUIT_LETTERS, Card, CardParseError, card_list, mask_of, parse_suit
from .rules import IllegalMoveError, InvalidMoveError, Move, Outcome, Position, RuleSet, RuleSetError
from .shuffle import deal_hands

FORMAT = "p2ptrumps-record"
VERSION = 1


class RecordError(ValueError):
    """A record is unreadable or inconsistent; the message names the field or the move."""


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
    (bitmasks, after sixes), the ``moves`` played, and the ``outcome`` (None if unfinished)."""

    number: int
    dealer: int
    seed: bytes
    hands: tuple[int, int]
    moves: list[Move] = field(default_factory=list)
    outcome: Outcome | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "dealer": self.dealer,
            "seed": self.seed.hex(),
            "hands": [[Card(c).code for c in card_list(h)] for h in self.hands],
            "moves": [m.code for m in self.moves],
            "result": None
            if self.outcome is None
            else {"winner": self.outcome.winner, "reason": self.outcome.reason},
        }


@dataclass
class MatchRecord:
    """A whole match: rules, trumps (suit of seat 0, seat 1), players, deals, start time (ISO 8601 text)."""

    rules: RuleSet
    trumps: tuple[int, int]
    players: tuple[PlayerInfo, PlayerInfo]
    deals: list[DealRecord] = field(default_factory=list)
    started: str = ""
    source: str = "offline"

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
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.dumps())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    @classmethod
    def from_json(cls, data: Any) -> MatchRecord:
        """Read a parsed JSON record; raises :class:`RecordError` naming the bad field.

        Checks only the shape; :meth:`replay_deal` checks the deal and the moves.
        """
        try:
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise RecordError(f"not a {FORMAT} file")
            if data.get("version") != VERSION:
                raise RecordError(f"unsupported record version {data.get('version')!r} (this program reads {VERSION})")
            rules = RuleSet.from_dict(data["rules"])
            trumps_raw = data["trumps"]
            if not isinstance(trumps_raw, list) or len(trumps_raw) != 2:
                raise RecordError("trumps: expected two suits")
            trumps = (parse_suit(str(trumps_raw[0])), parse_suit(str(trumps_raw[1])))
            if trumps[0] == trumps[1]:
                raise RecordError("trumps: the two suits must differ")
            players_raw = data["players"]
            if not isinstance(players_raw, list) or len(players_raw) != 2:
                raise RecordError("players: expected two")
            players = tuple(
                PlayerInfo(str(p["name"]), str(p.get("kind", "human")), p.get("fingerprint")) for p in players_raw
            )
            deals = [cls._deal_from_json(i, d) for i, d in enumerate(data["deals"])]
            return cls(
                rules=rules,
                trumps=trumps,
                players=(players[0], players[1]),
                deals=deals,
                started=str(data.get("started", "")),
                source=str(data.get("source", "offline")),
            )
        except RecordError:
            raise
        except (KeyError, TypeError, AttributeError) as exc:
            raise RecordError(f"malformed record: missing or bad field {exc}") from None
        except (RuleSetError, CardParseError, InvalidMoveError, ValueError) as exc:
            raise RecordError(f"malformed record: {exc}") from None

    @staticmethod
    def _deal_from_json(i: int, d: Any) -> DealRecord:
        where = f"deal {i + 1}"
        if not isinstance(d, dict):
            raise RecordError(f"{where}: not an object")
        dealer = d["dealer"]
        if type(dealer) is not int or dealer not in (0, 1):
            raise RecordError(f"{where}: dealer must be 0 or 1")
        hands = d["hands"]
        if not isinstance(hands, list) or len(hands) != 2:
            raise RecordError(f"{where}: hands must be two lists of cards")
        try:
            masks = (mask_of(Card.parse(str(c)) for c in hands[0]), mask_of(Card.parse(str(c)) for c in hands[1]))
        except CardParseError as exc:
            raise RecordError(f"{where}, hands: {exc}") from None
        moves = []
        for j, m in enumerate(d["moves"]):
            try:
                moves.append(Move.parse(str(m)))
            except InvalidMoveError as exc:
                raise RecordError(f"{where}, move {j + 1}: {exc}") from None
        result = d.get("result")
        outcome = None
        if result is not None:
            try:
                outcome = Outcome(result["winner"], str(result["reason"]))
            except ValueError as exc:
                raise RecordError(f"{where}: bad result: {exc}") from None
        try:
            seed = bytes.fromhex(str(d["seed"]))
        except ValueError:
            raise RecordError(f"{where}: seed {d['seed']!r} is not hex") from None
        if len(seed) > 65535:
            raise RecordError(f"{where}: seed is longer than 65535 bytes")
        return DealRecord(
            number=int(d.get("number", i + 1)),
            dealer=dealer,
            seed=seed,
            hands=masks,
            moves=moves,
            outcome=outcome,
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MatchRecord:
        """Read a record file; raises :class:`RecordError` (unreadable, not JSON, bad shape)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordError(f"cannot read {path}: {exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path} is not JSON: {exc}") from None
        return cls.from_json(data)

    # ----- replay ------------------------------------------------------------

    def start_of(self, deal: DealRecord) -> Position:
        """The starting position of ``deal``; :class:`RecordError` if the hands are not what the seed deals
        (or, for an explicit deal with an empty seed, do not split the pack between them)."""
        expected = deal_hands(deal.seed, self.rules, self.trumps, deal.dealer) if deal.seed else None
        if expected is not None and expected != tuple(deal.hands):
            raise RecordError(f"deal {deal.number}: the hands are not the deal of its seed")
        a, b = deal.hands
        if a & b or a | b != self.rules.pack:
            raise RecordError(f"deal {deal.number}: the hands do not split the {self.rules.pack_size}-card pack")
        return Position.start(self.rules, self.trumps, deal.hands, deal.dealer)

    def replay_deal(self, deal: DealRecord) -> Iterator[tuple[Move | None, Position]]:
        """Yield ``(None, start)`` then ``(move, position after it)`` for each move of ``deal``.

        Each yielded position is a fresh copy.  Raises :class:`RecordError` naming
        the first illegal move, or a result that differs from the one the moves reach.
        """
        pos = self.start_of(deal)
        yield None, pos.copy()
        for j, move in enumerate(deal.moves):
            try:
                pos.push(move)
            except IllegalMoveError as exc:
                raise RecordError(f"deal {deal.number}, move {j + 1} ({move.code}): {exc}") from None
            yield move, pos.copy()
        reached = pos.outcome
        if reached is not None and deal.outcome != reached:
            raise RecordError(f"deal {deal.number}: recorded result {deal.outcome} but the moves reach {reached}")
        if reached is None and deal.outcome is not None and deal.outcome.reason not in ("resign", "agreed-draw"):
            raise RecordError(f"deal {deal.number}: result {deal.outcome.reason} recorded but the deal is not over")
