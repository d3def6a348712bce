"""Messages: the frame payloads, each a msgpack array with a fixed field order.

Source: ``protocol/wire.md`` §5 (frames), §6 (hashes, tags), §9 (bodies).

Frame payloads (the first element names the type):

* ``["hello", version, seat, name, public_key, nonce]`` -- :class:`Hello`, unsigned,
  the root of the chain;
* ``["ping", n]`` / ``["pong", n]`` -- :class:`Ping` / :class:`Pong`, heartbeats,
  unsigned, outside the chain, never logged;
* ``["msg", game, seat, seq, prev, kind, body, sig]`` -- :class:`Signed`, a chained
  message; ``body`` is the array of one of the body classes below, chosen by ``kind``.

All decoding raises :class:`~p2ptrumps.wire.errors.RemoteProtocolError` (or
:class:`~p2ptrumps.wire.errors.NonCanonical`) naming the fault.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from ..cards import PACK_SIZES, RANK_CHARS, SUIT_LETTERS, Card, parse_rank, parse_suit_char
from ..message import N_
from ..rules import BEAT, LEAD, NO_CARD, PICKUP_MOVE, PICKUP_SPELLINGS, Move, Outcome, Position, RuleSet
from ..text import A_CHAT_LINE, MAX_CHAT_CHARS, MAX_NAME_CHARS, counted, text_problem
from . import encoding
from .errors import RemoteProtocolError
from .identity import PublicKey

VERSION = 1

# ----- tags (protocol/wire.md §6) ------------------------------------------------
GAME_ID_TAG = b"p2ptrumps/game-id/v1"
SIGN_TAG = b"p2ptrumps/msg-sig/v1"
HASH_TAG = b"p2ptrumps/msg-hash/v1"
COMMIT_TAG = b"p2ptrumps/commit/v1"
SEED_TAG = b"p2ptrumps/seed/v1"
POSITION_TAG = b"p2ptrumps/position/v1"
RESUME_TAG = b"p2ptrumps/resume/v1"

REASONS = ("out", "resign", "time", "both-out", "repetition", "turn-limit", "agreed-draw")
#: A seat's steps (protocol/wire.md §16): what a move clock times -- its trump, one commitment, one
#: reveal, one move.
STEPS = ("trump", "commit", "reveal", "move")


def _bad(reason: str) -> RemoteProtocolError:
    return RemoteProtocolError("malformed", reason)


def check_name(name: str) -> None:
    """``ValueError`` unless ``name`` follows the text rule, 1..40 characters (protocol/wire.md §5.1)."""
    why = text_problem(name, "a name", MAX_NAME_CHARS)
    if why:
        raise ValueError(why)


def check_chat(text: str) -> None:
    """``ValueError`` unless ``text`` follows the text rule, 1..500 characters (protocol/wire.md §5.1)."""
    why = text_problem(text, A_CHAT_LINE, MAX_CHAT_CHARS)
    if why:
        raise ValueError(why)


# ----- derived values (protocol/wire.md §6) ---------------------------------------


def game_id(host_hello: bytes, guest_hello: bytes) -> bytes:
    """SHA-256(GAME_ID_TAG || u32 len || host hello payload || u32 len || guest hello payload)."""
    return hashlib.sha256(
        GAME_ID_TAG
        + len(host_hello).to_bytes(4, "big")
        + host_hello
        + len(guest_hello).to_bytes(4, "big")
        + guest_hello
    ).digest()


def message_hash(payload: bytes) -> bytes:
    """SHA-256(HASH_TAG || payload) of a ``msg`` frame payload (signature included)."""
    return hashlib.sha256(HASH_TAG + payload).digest()


def commitment(gid: bytes, deal: int, seat: int, public_key: bytes, secret: bytes) -> bytes:
    """SHA-256(COMMIT_TAG || game id || u32 deal || u8 seat || public key || secret)."""
    return hashlib.sha256(COMMIT_TAG + gid + deal.to_bytes(4, "big") + bytes([seat]) + public_key + secret).digest()


def deal_seed(gid: bytes, deal: int, secret0: bytes, secret1: bytes) -> bytes:
    """SHA-256(SEED_TAG || game id || u32 deal || seat 0's secret || seat 1's secret)."""
    return hashlib.sha256(SEED_TAG + gid + deal.to_bytes(4, "big") + secret0 + secret1).digest()


def position_bytes(pos: Position) -> bytes:
    """u64 hand0 || u64 hand1 || u8 to_move || u32 turn || u8 pile length || pile cards (u8, bottom first)."""
    return (
        pos.hands[0].to_bytes(8, "big")
        + pos.hands[1].to_bytes(8, "big")
        + bytes([pos.to_move])
        + pos.turn.to_bytes(4, "big")
        + bytes([len(pos.pile)])
        + bytes(pos.pile)
    )


def position_hash(pos: Position) -> bytes:
    """SHA-256(POSITION_TAG || :func:`position_bytes`)."""
    return hashlib.sha256(POSITION_TAG + position_bytes(pos)).digest()


# ----- frame types -----------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    """``["hello", version, seat, name, public_key(32), nonce(32)]``."""

    version: int
    seat: int
    name: str
    public_key: bytes
    nonce: bytes

    def encode(self) -> bytes:
        return encoding.pack(["hello", self.version, self.seat, self.name, self.public_key, self.nonce])


@dataclass(frozen=True)
class Ping:
    """``["ping", n]``, n in 0..2**32-1; answered by ``["pong", n]``."""

    n: int

    def encode(self) -> bytes:
        return encoding.pack(["ping", self.n])


@dataclass(frozen=True)
class Pong:
    """``["pong", n]``."""

    n: int

    def encode(self) -> bytes:
        return encoding.pack(["pong", self.n])


@dataclass(frozen=True)
class Resume:
    """``["resume", version, seat, game_id(32), nonce(32)]``: the first frame of a new connection
    for a match in progress (protocol/wire.md §14)."""

    version: int
    seat: int
    game_id: bytes
    nonce: bytes

    def encode(self) -> bytes:
        return encoding.pack(["resume", self.version, self.seat, self.game_id, self.nonce])


@dataclass(frozen=True)
class Proof:
    """``["proof", confirmed, sig(64)]``: proves the key of the match to the peer's fresh nonce (§14)."""

    confirmed: int
    sig: bytes

    def encode(self) -> bytes:
        return encoding.pack(["proof", self.confirmed, self.sig])


#: Join ticket sizes, bytes (protocol/wire.md §5, §7.3).
MIN_TICKET_BYTES = 8
MAX_TICKET_BYTES = 32
#: Most bytes of a refusal's reason (protocol/wire.md §5).
MAX_REFUSE_BYTES = 64


@dataclass(frozen=True)
class Ticket:
    """``["ticket", ticket]``: the guest's join ticket, its first frame to a host that requires
    one (protocol/wire.md §7.3); 8..32 bytes.  Unsigned, never logged."""

    ticket: bytes

    def encode(self) -> bytes:
        return encoding.pack(["ticket", self.ticket])


@dataclass(frozen=True)
class Refuse:
    """``["refuse", reason]``: the host will not play with this connection (protocol/wire.md
    §7.3): ``reason`` is ``"ticket"``, ``"key"``, ``"blocked"`` or ``"busy"`` (1..64 bytes of UTF-8);
    or, as a guest's first frame, ``"blocked"``: the guest will not play with this host.  Unsigned,
    never logged; its sender closes the connection after it."""

    reason: str

    def encode(self) -> bytes:
        return encoding.pack(["refuse", self.reason])


def proof_input(gid: bytes, seat: int, confirmed: int, own_nonce: bytes, peer_nonce: bytes) -> bytes:
    """RESUME_TAG || game id || u8 seat || u32 confirmed || own nonce || peer nonce (§14.1)."""
    return RESUME_TAG + gid + bytes([seat]) + confirmed.to_bytes(4, "big") + own_nonce + peer_nonce


# ----- bodies ------------------------------------------------------------------------


class Body:
    """A message body; ``KIND`` is its kind string.  ``fields()`` is the body array."""

    KIND: ClassVar[str] = ""

    def fields(self) -> list[Any]:
        raise NotImplementedError

    @classmethod
    def parse(cls, items: list[Any]) -> Body:
        raise NotImplementedError


# ----- element checks (protocol/wire.md §3.4, §9.2): count first, then each element in order -----


def _type_name(v: object) -> str:
    """What a msgpack value is, in a reason: a lazy word (``nil`` stays msgpack's own name)."""
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return N_("a boolean")
    if isinstance(v, int):
        return N_("an integer")
    if isinstance(v, str):
        return N_("text")
    if isinstance(v, bytes):
        return N_("bytes")
    return N_("an array")


def _count(items: list[Any], n: int, kind: str) -> None:
    if len(items) != n:
        raise _bad(N_("a %(kind)s body has %(elements)s, not %(n)d", kind=kind, elements=counted(n, "element"),
                      n=len(items)))


def _uint(v: object, kind: str, what: str, lo: int, hi: int) -> int:
    if type(v) is not int:
        raise _bad(N_("%(kind)s: %(what)s must be an integer, not %(type)s", kind=kind, what=what, type=_type_name(v)))
    if not lo <= v <= hi:
        raise _bad(N_("%(kind)s: %(what)s %(value)d is outside %(low)d..%(high)d", kind=kind, what=what, value=v,
                      low=lo, high=hi))
    return v


def _uint_any(v: object, kind: str, what: str) -> int:
    if type(v) is not int:
        raise _bad(N_("%(kind)s: %(what)s must be an integer, not %(type)s", kind=kind, what=what, type=_type_name(v)))
    if v < 0:
        raise _bad(N_("%(kind)s: %(what)s %(value)d is negative", kind=kind, what=what, value=v))
    return v


def _bool(v: object, kind: str, what: str) -> bool:
    if type(v) is not bool:
        raise _bad(N_("%(kind)s: %(what)s must be true or false, not %(type)s", kind=kind, what=what,
                      type=_type_name(v)))
    return v


def _bin(v: object, kind: str, what: str, n: int) -> bytes:
    if not isinstance(v, bytes):
        raise _bad(N_("%(kind)s: %(what)s must be bytes, not %(type)s", kind=kind, what=what, type=_type_name(v)))
    if len(v) != n:
        raise _bad(N_("%(kind)s: %(what)s must be %(n)d bytes, not %(length)d", kind=kind, what=what, n=n,
                      length=len(v)))
    return v


def _text(v: object, kind: str, what: str) -> str:
    if not isinstance(v, str):
        raise _bad(N_("%(kind)s: %(what)s must be text, not %(type)s", kind=kind, what=what, type=_type_name(v)))
    return v


#: Deal numbers on the wire (protocol/wire.md §9.2: 1..1000 at shape).
MAX_DEALS = 1000
#: The largest score in half-points (1000 deals won).
MAX_SCORE_HALVES = 2 * MAX_DEALS


def _deal_no(v: object, kind: str) -> int:
    return _uint(v, kind, N_("the deal number"), 1, MAX_DEALS)


#: The move clock's range, seconds per move (protocol/wire.md §9.2; 0 = no clock).
MIN_MOVE_TIME_S = 5
MAX_MOVE_TIME_S = 3600


def check_move_time(seconds: int) -> None:
    """``ValueError`` unless ``seconds`` is 0 (no move clock) or 5..3600 (protocol/wire.md §9.2)."""
    if type(seconds) is not int or not (seconds == 0 or MIN_MOVE_TIME_S <= seconds <= MAX_MOVE_TIME_S):
        raise ValueError(N_("the move time must be 0 (no clock) or %(low)d..%(high)d seconds, not %(value)s",
                            low=MIN_MOVE_TIME_S, high=MAX_MOVE_TIME_S, value=repr(seconds)))


@dataclass(frozen=True)
class RulesMsg(Body):
    """``rules``: ``[pack_size, sixes, voluntary_pickup, repetition, turn_limit, deals]``, with a 7th
    element ``move_time`` (seconds per move, protocol/wire.md §9.2, §16) only when it is not 0."""

    KIND: ClassVar[str] = "rules"
    rules: RuleSet
    move_time: int = 0

    def fields(self) -> list[Any]:
        r = self.rules
        out: list[Any] = [r.pack_size, r.sixes, r.voluntary_pickup, r.repetition, r.turn_limit, r.deals]
        return [*out, self.move_time] if self.move_time else out

    @classmethod
    def parse(cls, items: list[Any]) -> RulesMsg:
        k = cls.KIND
        if len(items) != 7:
            _count(items, 6, k)
        pack = _uint_any(items[0], k, "pack_size")
        if pack not in PACK_SIZES:
            raise _bad(N_("rules: %(field)s %(value)d is not 32, 36 or 52", field="pack_size", value=pack))
        sixes = _bool(items[1], k, "sixes")
        voluntary = _bool(items[2], k, "voluntary_pickup")
        repetition = _uint_any(items[3], k, "repetition")
        if repetition == 1 or repetition > 100:
            raise _bad(N_("rules: %(field)s %(value)d is not 0 (off) or 2..100", field="repetition", value=repetition))
        turn_limit = _uint(items[4], k, "turn_limit", 0, 1_000_000)
        deals = _uint(items[5], k, "deals", 1, MAX_DEALS)
        move_time = 0
        if len(items) == 7:
            move_time = _uint_any(items[6], k, "move_time")
            if move_time == 0:
                raise _bad(N_("rules: a 7th element (%(field)s) 0 must be left out (one encoding per rule set)",
                              field="move_time"))
            if not MIN_MOVE_TIME_S <= move_time <= MAX_MOVE_TIME_S:
                raise _bad(N_("rules: %(field)s %(value)d is not %(low)d..%(high)d seconds", field="move_time",
                              value=move_time, low=MIN_MOVE_TIME_S, high=MAX_MOVE_TIME_S))
        if repetition == 0 and turn_limit == 0:
            raise _bad(N_("rules: %(repetition)s 0 and %(turn_limit)s 0 turn both limits off, which is refused (a deal "
                          "could go on for ever)", repetition="repetition", turn_limit="turn_limit"))
        return cls(RuleSet(pack, sixes, voluntary, repetition, turn_limit, deals), move_time)


@dataclass(frozen=True)
class AgreeMsg(Body):
    """``agree``: ``[accept]``."""

    KIND: ClassVar[str] = "agree"
    accept: bool

    def fields(self) -> list[Any]:
        return [self.accept]

    @classmethod
    def parse(cls, items: list[Any]) -> AgreeMsg:
        _count(items, 1, cls.KIND)
        return cls(_bool(items[0], cls.KIND, "accept"))


@dataclass(frozen=True)
class TrumpMsg(Body):
    """``trump``: ``[suit]`` (0..3, ♣ ♦ ♥ ♠)."""

    KIND: ClassVar[str] = "trump"
    suit: int

    def fields(self) -> list[Any]:
        return [self.suit]

    @classmethod
    def parse(cls, items: list[Any]) -> TrumpMsg:
        _count(items, 1, cls.KIND)
        return cls(_uint(items[0], cls.KIND, N_("the suit"), 0, 3))


@dataclass(frozen=True)
class CommitMsg(Body):
    """``commit``: ``[deal, commitment(32)]``."""

    KIND: ClassVar[str] = "commit"
    deal: int
    commitment: bytes

    def fields(self) -> list[Any]:
        return [self.deal, self.commitment]

    @classmethod
    def parse(cls, items: list[Any]) -> CommitMsg:
        _count(items, 2, cls.KIND)
        return cls(_deal_no(items[0], cls.KIND), _bin(items[1], cls.KIND, N_("the commitment"), 32))


@dataclass(frozen=True)
class RevealMsg(Body):
    """``reveal``: ``[deal, secret(32)]``."""

    KIND: ClassVar[str] = "reveal"
    deal: int
    secret: bytes

    def fields(self) -> list[Any]:
        return [self.deal, self.secret]

    @classmethod
    def parse(cls, items: list[Any]) -> RevealMsg:
        _count(items, 2, cls.KIND)
        return cls(_deal_no(items[0], cls.KIND), _bin(items[1], cls.KIND, N_("the secret"), 32))


# ----- move codes (protocol/wire.md §9.5) -------------------------------------------



def _card_spelling(text: str) -> str | None:
    """The canonical code of a card spelled as protocol/wire.md §9.5 allows (the spellings of
    RULES.md §1, read by :mod:`p2ptrumps.cards`), else None."""
    rank = parse_rank(text[:-1])
    suit = parse_suit_char(text[-1:])
    return None if rank is None or suit is None else RANK_CHARS[rank - 2] + SUIT_LETTERS[suit]


def canonical_move_code(code: str) -> str | None:
    """The canonical move code that ``code`` spells (``code`` itself when it is canonical),
    or None when it spells no move (protocol/wire.md §9.5: ``non-canonical`` vs ``malformed``)."""
    if code.isascii() and code.lower() in PICKUP_SPELLINGS:
        return "pickup"
    first, slash, second = code.partition("/")
    beat = _card_spelling(first)
    if beat is None:
        return None
    if not slash:
        return beat
    if second == "":
        return beat + "/"
    other = _card_spelling(second)
    if other is None or other == beat:
        return None
    return beat + "/" + other


def _move_of_code(code: str) -> Move:
    """The move of a canonical code."""
    if code == "pickup":
        return PICKUP_MOVE
    first, slash, second = code.partition("/")
    card = int(Card.parse(first))
    if not slash:
        return Move(LEAD, card, NO_CARD)
    return Move(BEAT, card, int(Card.parse(second)) if second else NO_CARD)


#: Each canonical move code met so far -> its move: a received code is looked up, not parsed again.
#: Only canonical codes enter, so it never holds more than the 2757 there are (``pickup``; 52 leads,
#: 52 beats with the last card, 52 x 51 beats with a second card).
_MOVES: dict[str, Move] = {}


def _move_of_text(code: object) -> Move:
    """The move of the code ``code`` received in a ``move`` body (protocol/wire.md §9.5).

    Raises ``RemoteProtocolError``: ``malformed`` (not text, or no move), ``non-canonical``
    (a move spelled another way)."""
    code = _text(code, MoveMsg.KIND, N_("the move code"))
    canon = canonical_move_code(code)
    if canon is None:
        raise _bad(N_("move: %(code)s is not a move code (like QS, TS/7H, TS/ or pickup)", code=repr(code)))
    if canon != code:
        raise RemoteProtocolError("non-canonical", N_("move code %(code)s is not canonical (write %(canon)s)",
                                                      code=repr(code), canon=repr(canon)))
    move = _MOVES[code] = _move_of_code(code)
    return move


@dataclass(frozen=True)
class MoveMsg(Body):
    """``move``: ``[deal, move code, position hash(32)]``; the code is canonical
    (``"QS"``, ``"TS/7H"``, ``"TS/"``, ``"pickup"``; protocol/wire.md §9.5)."""

    KIND: ClassVar[str] = "move"
    deal: int
    move: Move
    position: bytes

    def fields(self) -> list[Any]:
        return [self.deal, self.move.code, self.position]

    @classmethod
    def parse(cls, items: list[Any]) -> MoveMsg:
        if len(items) == 3:  # the common case in one test; anything else is checked in order below
            deal, code, position = items
            move = _MOVES.get(code) if type(code) is str else None
            if (move is not None and type(deal) is int and 1 <= deal <= MAX_DEALS and type(position) is bytes
                    and len(position) == 32):
                return cls(deal, move, position)
        k = cls.KIND
        _count(items, 3, k)
        deal = _deal_no(items[0], k)
        return cls(deal, _move_of_text(items[1]), _bin(items[2], k, N_("the position hash"), 32))


@dataclass(frozen=True)
class ResignMsg(Body):
    """``resign``: ``[deal]``."""

    KIND: ClassVar[str] = "resign"
    deal: int

    def fields(self) -> list[Any]:
        return [self.deal]

    @classmethod
    def parse(cls, items: list[Any]) -> ResignMsg:
        _count(items, 1, cls.KIND)
        return cls(_deal_no(items[0], cls.KIND))


@dataclass(frozen=True)
class OfferDrawMsg(Body):
    """``offer-draw``: ``[deal]``."""

    KIND: ClassVar[str] = "offer-draw"
    deal: int

    def fields(self) -> list[Any]:
        return [self.deal]

    @classmethod
    def parse(cls, items: list[Any]) -> OfferDrawMsg:
        _count(items, 1, cls.KIND)
        return cls(_deal_no(items[0], cls.KIND))


@dataclass(frozen=True)
class AnswerDrawMsg(Body):
    """``answer-draw``: ``[deal, accept]``."""

    KIND: ClassVar[str] = "answer-draw"
    deal: int
    accept: bool

    def fields(self) -> list[Any]:
        return [self.deal, self.accept]

    @classmethod
    def parse(cls, items: list[Any]) -> AnswerDrawMsg:
        _count(items, 2, cls.KIND)
        return cls(_deal_no(items[0], cls.KIND), _bool(items[1], cls.KIND, "accept"))


@dataclass(frozen=True)
class ChatMsg(Body):
    """``chat``: ``[text]`` (the text rule, 1..500 characters; protocol/wire.md §5.1)."""

    KIND: ClassVar[str] = "chat"
    text: str

    def fields(self) -> list[Any]:
        return [self.text]

    @classmethod
    def parse(cls, items: list[Any]) -> ChatMsg:
        _count(items, 1, cls.KIND)
        text = _text(items[0], cls.KIND, N_("the line"))
        why = text_problem(text, A_CHAT_LINE, MAX_CHAT_CHARS)
        if why:
            raise _bad(N_("chat: %(why)s", why=why))
        return cls(text)


@dataclass(frozen=True)
class DealEndMsg(Body):
    """``deal-end``: ``[deal, winner (0, 1 or nil), reason, score0, score1]`` (half-points after the deal).

    The reason is any text here: whether it (and the winner) is the one due is a match
    rule, ``wrong-result`` (protocol/wire.md §9.2).  :meth:`of` builds the statement due.
    """

    KIND: ClassVar[str] = "deal-end"
    deal: int
    winner: int | None
    reason: str
    score: tuple[int, int]

    @classmethod
    def of(cls, deal: int, outcome: Outcome, score: tuple[int, int]) -> DealEndMsg:
        """The statement of ``outcome`` for ``deal`` with the match ``score`` after it (half-points)."""
        return cls(deal, outcome.winner, outcome.reason, score)

    def fields(self) -> list[Any]:
        return [self.deal, self.winner, self.reason, self.score[0], self.score[1]]

    @classmethod
    def parse(cls, items: list[Any]) -> DealEndMsg:
        k = cls.KIND
        _count(items, 5, k)
        deal = _deal_no(items[0], k)
        winner = None if items[1] is None else _uint(items[1], k, N_("the winner (or nil)"), 0, 1)
        reason = _text(items[2], k, N_("the reason"))
        s0 = _uint(items[3], k, "score0", 0, MAX_SCORE_HALVES)
        s1 = _uint(items[4], k, "score1", 0, MAX_SCORE_HALVES)
        return cls(deal, winner, reason, (s0, s1))


@dataclass(frozen=True)
class MatchEndMsg(Body):
    """``match-end``: ``[score0, score1]`` (half-points)."""

    KIND: ClassVar[str] = "match-end"
    score: tuple[int, int]

    def fields(self) -> list[Any]:
        return [self.score[0], self.score[1]]

    @classmethod
    def parse(cls, items: list[Any]) -> MatchEndMsg:
        k = cls.KIND
        _count(items, 2, k)
        s0 = _uint(items[0], k, "score0", 0, MAX_SCORE_HALVES)
        return cls((s0, _uint(items[1], k, "score1", 0, MAX_SCORE_HALVES)))


@dataclass(frozen=True)
class RematchMsg(Body):
    """``rematch``: ``[]``."""

    KIND: ClassVar[str] = "rematch"

    def fields(self) -> list[Any]:
        return []

    @classmethod
    def parse(cls, items: list[Any]) -> RematchMsg:
        _count(items, 0, cls.KIND)
        return cls()


@dataclass(frozen=True)
class LeaveMsg(Body):
    """``leave``: ``[]`` -- the sender resigns the rest of the match (protocol/wire.md §15)."""

    KIND: ClassVar[str] = "leave"

    def fields(self) -> list[Any]:
        return []

    @classmethod
    def parse(cls, items: list[Any]) -> LeaveMsg:
        _count(items, 0, cls.KIND)
        return cls()


@dataclass(frozen=True)
class ClaimMsg(Body):
    """``claim``: ``[deal]`` -- the other seat's move clock ran out (or it stayed away): the sender
    claims the deal in play, or outside play the deals not yet dealt (protocol/wire.md §16)."""

    KIND: ClassVar[str] = "claim"
    deal: int

    def fields(self) -> list[Any]:
        return [self.deal]

    @classmethod
    def parse(cls, items: list[Any]) -> ClaimMsg:
        _count(items, 1, cls.KIND)
        return cls(_deal_no(items[0], cls.KIND))


@dataclass(frozen=True)
class DisputeMsg(Body):
    """``dispute``: ``[deal]`` -- the sender refuses the open claim made against it: its own clock
    had not run out (protocol/wire.md §16).  A deal's first dispute takes the claim back and the deal
    goes on; its second settles the deal as disputed (no result)."""

    KIND: ClassVar[str] = "dispute"
    deal: int

    def fields(self) -> list[Any]:
        return [self.deal]

    @classmethod
    def parse(cls, items: list[Any]) -> DisputeMsg:
        _count(items, 1, cls.KIND)
        return cls(_deal_no(items[0], cls.KIND))


@dataclass(frozen=True)
class AbandonMsg(Body):
    """``abandon``: ``[deal]`` -- the sender ends the match as abandoned by the other seat, which stayed
    away (a statement, never a proof); ``deal`` is the deal at stake (protocol/wire.md §15.1)."""

    KIND: ClassVar[str] = "abandon"
    deal: int

    def fields(self) -> list[Any]:
        return [self.deal]

    @classmethod
    def parse(cls, items: list[Any]) -> AbandonMsg:
        _count(items, 1, cls.KIND)
        return cls(_deal_no(items[0], cls.KIND))


@dataclass(frozen=True)
class ContinueMsg(Body):
    """``continue``: ``[deal]`` -- the seat that abandoned the match takes its abandonment back (the
    absent seat came back): play goes on where it stood; ``deal`` is the abandonment's
    (protocol/wire.md §15.1)."""

    KIND: ClassVar[str] = "continue"
    deal: int

    def fields(self) -> list[Any]:
        return [self.deal]

    @classmethod
    def parse(cls, items: list[Any]) -> ContinueMsg:
        _count(items, 1, cls.KIND)
        return cls(_deal_no(items[0], cls.KIND))


BODY_TYPES: dict[str, type[Body]] = {
    c.KIND: c
    for c in (
        RulesMsg,
        AgreeMsg,
        TrumpMsg,
        CommitMsg,
        RevealMsg,
        MoveMsg,
        ResignMsg,
        OfferDrawMsg,
        AnswerDrawMsg,
        ChatMsg,
        DealEndMsg,
        MatchEndMsg,
        RematchMsg,
        LeaveMsg,
        ClaimMsg,
        DisputeMsg,
        AbandonMsg,
        ContinueMsg,
    )
}


class Signed(NamedTuple):
    """A chained message ``["msg", game(8), seat, seq, prev(32), kind, body, sig(64)]``.

    ``game`` is the first 8 bytes of the game id; ``sig`` is Ed25519 over
    ``SIGN_TAG || game id (32) || pack(the array without sig)``.  ``payload`` is the
    exact received/sent bytes; ``hash`` their :func:`message_hash`.  A named tuple: one is
    made for every message sent, received or read (a third of the cost of a frozen dataclass).
    """

    game: bytes
    seat: int
    seq: int
    prev: bytes
    body: Body
    payload: bytes
    hash: bytes

    def __repr__(self) -> str:
        return f"Signed(game={self.game!r}, seat={self.seat}, seq={self.seq}, prev={self.prev!r}, body={self.body!r})"

    @property
    def kind(self) -> str:
        return self.body.KIND

    @property
    def sig(self) -> bytes:
        """The 64-byte signature: the last element of the canonical payload (a bin8 of 64 bytes), cut
        from it rather than kept twice (a long log keeps every message)."""
        return self.payload[-64:]

    def unsigned(self) -> bytes:
        """The bytes the signature covers after the tags: ``pack`` of the array without ``sig``.

        Cut from :attr:`payload` (canonical: a fixarray of 8 ending in a 64-byte bin8),
        not re-encoded: the header ``0x98`` becomes ``0x97`` and the last 66 bytes go.
        """
        p = self.payload
        if p[:1] == b"\x98" and p[-66:-64] == b"\xc4\x40":
            return b"\x97" + p[1:-66]
        return unsigned_bytes(self.game, self.seat, self.seq, self.prev, self.body)


def unsigned_bytes(game: bytes, seat: int, seq: int, prev: bytes, body: Body) -> bytes:
    """pack(["msg", game, seat, seq, prev, kind, body]) -- the array the signature covers."""
    return encoding.pack(["msg", game, seat, seq, prev, body.KIND, body.fields()])


def signing_input(gid: bytes, unsigned: bytes) -> bytes:
    """SIGN_TAG || game id || unsigned bytes."""
    return SIGN_TAG + gid + unsigned


def build_signed(gid: bytes, seat: int, seq: int, prev: bytes, body: Body, sign: Any) -> Signed:
    """Make and sign a message; ``sign`` is ``Identity.sign``."""
    game = gid[:8]
    unsigned = unsigned_bytes(game, seat, seq, prev, body)
    sig: bytes = sign(signing_input(gid, unsigned))
    if len(sig) != 64 or unsigned[:1] != b"\x97":
        raise ValueError("an Ed25519 signature is 64 bytes")
    # The same array with sig appended: fixarray 7 -> fixarray 8, then bin8 of 64 bytes.
    payload = b"\x98" + unsigned[1:] + b"\xc4\x40" + sig
    return Signed(game, seat, seq, prev, body, payload, message_hash(payload))


class Envelope(NamedTuple):
    """A ``msg`` frame whose eight fields have their types (protocol/wire.md §8.2 step 2) but
    whose body is not checked yet: the signature is checked first (step 5), then
    :meth:`open` checks the body (step 6) -- so that a signed bad body proves its signer.

    A named tuple (one is made for every frame received or read, a third of the cost of a
    frozen dataclass); ``payload`` is the frame's bytes, ``hash`` their :func:`message_hash`."""

    game: bytes
    seat: int
    seq: int
    prev: bytes
    kind: str
    items: list[Any]
    sig: bytes
    payload: bytes
    hash: bytes

    def __repr__(self) -> str:
        return f"Envelope(game={self.game!r}, seat={self.seat}, seq={self.seq}, kind={self.kind!r})"

    def unsigned(self) -> bytes:
        """The bytes the signature covers after the tags (see :meth:`Signed.unsigned`)."""
        p = self.payload
        if p[:1] == b"\x98" and p[-66:-64] == b"\xc4\x40":
            return b"\x97" + p[1:-66]
        return encoding.pack(["msg", self.game, self.seat, self.seq, self.prev, self.kind, self.items])

    def open(self) -> Signed:
        """Check the body (protocol/wire.md §9.2 shape) and return the whole message.

        Raises ``RemoteProtocolError`` ``malformed`` (or ``non-canonical`` for a move code).
        """
        body = BODY_TYPES[self.kind].parse(self.items)
        return Signed(self.game, self.seat, self.seq, self.prev, body, self.payload, self.hash)


Frame = Hello | Ping | Pong | Signed | Resume | Proof | Ticket | Refuse
RawFrame = Hello | Ping | Pong | Envelope | Resume | Proof | Ticket | Refuse


def decode(payload: bytes) -> Frame:
    """Decode one frame payload completely (:func:`decode_frame`, then a msg's body).

    Raises ``RemoteProtocolError``: ``garbage-frame``, ``non-canonical``, ``malformed``,
    ``version`` (protocol/wire.md §3.5, §5, §7.1, §9.2).
    """
    frame = decode_frame(payload)
    return frame.open() if isinstance(frame, Envelope) else frame


def decode_frame(payload: bytes) -> RawFrame:
    """Decode one frame payload and check its fields, in the order protocol/wire.md gives:
    §3.5 (decoding), then a hello's checks 1-7 (§7.1), a ping's or pong's shape (§5), or a
    msg's eight fields (§8.2 step 2; the body only needs to be an array).

    Raises ``RemoteProtocolError``: ``garbage-frame`` (not msgpack / not an array naming a
    type), ``non-canonical``, ``malformed`` (wrong fields), ``version``.  The checks against
    the receiver's own hello, signatures, bodies and the chain come later.
    """
    v = encoding.unpack(payload)
    if type(v) is list and len(v) == 8 and v[0] == "msg":  # nearly every frame: straight to its fields
        return _decode_msg(v, payload)
    if not isinstance(v, list) or not v or not isinstance(v[0], str) or v[0] not in FRAME_TYPES:
        what = repr(v[0]) if isinstance(v, list) and v and isinstance(v[0], str) else N_("nothing")
        raise RemoteProtocolError(
            "garbage-frame", N_("a frame must be an array whose first element names its type (%(types)s), not %(what)s",
                                types=", ".join(FRAME_TYPES), what=what))
    t = v[0]
    if t == "msg":
        return _decode_msg(v, payload)
    if t == "hello":
        return _decode_hello(v)
    if t == "resume":
        return _decode_resume(v)
    if t == "proof":
        if len(v) != 3 or type(v[1]) is not int or not 0 <= v[1] < (1 << 32) or not isinstance(v[2], bytes) \
                or len(v[2]) != 64:
            raise _bad(N_("proof: expected ['proof', confirmed (0..2**32-1), sig (64 bytes)]"))
        return Proof(v[1], v[2])
    if t == "ticket":
        if len(v) != 2 or not isinstance(v[1], bytes) or not MIN_TICKET_BYTES <= len(v[1]) <= MAX_TICKET_BYTES:
            raise _bad(N_("ticket: expected ['ticket', ticket (%(low)d..%(high)d bytes)]", low=MIN_TICKET_BYTES,
                          high=MAX_TICKET_BYTES))
        return Ticket(v[1])
    if t == "refuse":
        if len(v) != 2 or not isinstance(v[1], str) or not 1 <= len(v[1].encode()) <= MAX_REFUSE_BYTES:
            raise _bad(N_("refuse: expected ['refuse', reason (1..%(most)d bytes of text)]", most=MAX_REFUSE_BYTES))
        return Refuse(v[1])
    if len(v) != 2 or type(v[1]) is not int or not 0 <= v[1] < (1 << 32):
        raise _bad(N_("%(type)s: expected [%(quoted)s, n] with n in 0..2**32-1", type=t, quoted=repr(t)))
    return Ping(v[1]) if t == "ping" else Pong(v[1])


FRAME_TYPES = ("hello", "ping", "pong", "msg", "resume", "proof", "ticket", "refuse")


def _decode_resume(v: list[Any]) -> Resume:
    """A resume frame, checked in the order of a hello's checks (protocol/wire.md §14.1, §7.1)."""
    if len(v) >= 2 and type(v[1]) is int and v[1] != VERSION:
        raise RemoteProtocolError("version", N_("the resume speaks protocol version %(theirs)d, this program "
                                                "%(ours)d", theirs=v[1], ours=VERSION))
    if len(v) != 5:
        raise _bad(N_("a resume frame has 5 elements, not %(n)d", n=len(v)))
    _, version, seat, gid, nonce = v
    if type(version) is not int:
        raise _bad(N_("resume: the version must be an integer, not %(type)s", type=_type_name(version)))
    if type(seat) is not int or seat not in (0, 1):
        raise _bad(N_("resume: the seat must be 0 or 1"))
    if not isinstance(gid, bytes) or len(gid) != 32:
        raise _bad(N_("resume: the game id must be 32 bytes"))
    if not isinstance(nonce, bytes) or len(nonce) != 32:
        raise _bad(N_("resume: the nonce must be 32 bytes"))
    return Resume(version, seat, gid, nonce)


def _decode_msg(v: list[Any], payload: bytes) -> Envelope:
    if len(v) != 8:
        raise _bad(N_("a msg frame has 8 elements, not %(n)d", n=len(v)))
    _, game, seat, seq, prev, kind, body, sig = v
    if not isinstance(game, bytes) or len(game) != 8:
        raise _bad(N_("msg: game must be 8 bytes"))
    if type(seat) is not int or seat not in (0, 1):
        raise _bad(N_("msg: seat must be 0 or 1"))
    if type(seq) is not int or not 0 <= seq < (1 << 32):
        raise _bad(N_("msg: seq must be an integer 0..2**32-1"))
    if not isinstance(prev, bytes) or len(prev) != 32:
        raise _bad(N_("msg: prev must be 32 bytes"))
    if not isinstance(kind, str) or kind not in BODY_TYPES:
        raise _bad(N_("msg: unknown kind %(kind)s", kind=repr(kind)))
    if not isinstance(body, list):
        raise _bad(N_("msg: the %(kind)s body must be an array, not %(type)s", kind=kind, type=_type_name(body)))
    if not isinstance(sig, bytes) or len(sig) != 64:
        raise _bad(N_("msg: sig must be 64 bytes"))
    # One object for values every message of a game repeats (a long log keeps them all).
    kind = _KIND_NAMES[kind]
    game = _GAMES.setdefault(game, game) if len(_GAMES) < 64 else game
    return Envelope(game, seat, seq, prev, kind, body, sig, payload, message_hash(payload))


_KIND_NAMES = {k: k for k in BODY_TYPES}
_GAMES: dict[bytes, bytes] = {}


def _decode_hello(v: list[Any]) -> Hello:
    if len(v) >= 2 and type(v[1]) is int and v[1] != VERSION:
        raise RemoteProtocolError("version", N_("the hello speaks protocol version %(theirs)d, this program "
                                                "%(ours)d", theirs=v[1], ours=VERSION))
    if len(v) != 6:
        raise _bad(N_("a hello frame has 6 elements, not %(n)d", n=len(v)))
    _, version, seat, name, pk, nonce = v
    if type(version) is not int:
        raise _bad(N_("hello: the version must be an integer, not %(type)s", type=_type_name(version)))
    if type(seat) is not int or seat not in (0, 1):
        raise _bad(N_("hello: the seat must be 0 or 1"))
    why = text_problem(name, N_("the name"), MAX_NAME_CHARS)
    if why:
        raise _bad(N_("hello: %(why)s", why=why))
    if not isinstance(pk, bytes) or len(pk) != 32:
        raise _bad(N_("hello: the public key must be 32 bytes"))
    if not isinstance(nonce, bytes) or len(nonce) != 32:
        raise _bad(N_("hello: the nonce must be 32 bytes"))
    return Hello(version, seat, name, pk, nonce)


def check_peer_hello(hello: Hello, own: Hello | None) -> None:
    """Checks 8-11 of protocol/wire.md §7.1: the peer's ``hello`` against the receiver's ``own``.

    Raises ``RemoteProtocolError``: ``version`` (the same seat), ``bad-key`` (a key refused
    by §4.2, or ours), ``malformed`` (our nonce).
    """
    assert own is not None
    if hello.seat == own.seat:
        raise RemoteProtocolError("version", N_("the peer's hello says it is the host too: two hosts")
                                  if hello.seat == 0 else N_("the peer's hello says it is the guest too: two guests"))
    PublicKey.from_bytes(hello.public_key)
    if hello.public_key == own.public_key:
        raise RemoteProtocolError("bad-key", N_("the peer uses our own public key"))
    if hello.nonce == own.nonce:
        raise RemoteProtocolError("malformed", N_("the peer's nonce repeats ours"))


def card_code(c: int) -> str:
    """Canonical code of a card int, ``"-"`` for NO_CARD (for messages)."""
    return "-" if c == NO_CARD else Card(c).code
