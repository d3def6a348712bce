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
import unicodedata
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..cards import Card
from ..rules import NO_CARD, Move, Outcome, Position, RuleSet, RuleSetError
from . import encoding
from .errors import RemoteProtocolError

VERSION = 1

# ----- tags (protocol/wire.md §6) ------------------------------------------------
GAME_ID_TAG = b"p2ptrumps/game-id/v1"
SIGN_TAG = b"p2ptrumps/msg-sig/v1"
HASH_TAG = b"p2ptrumps/msg-hash/v1"
COMMIT_TAG = b"p2ptrumps/commit/v1"
SEED_TAG = b"p2ptrumps/seed/v1"
POSITION_TAG = b"p2ptrumps/position/v1"
RESUME_TAG = b"p2ptrumps/resume/v1"

MAX_NAME_CHARS = 64
MAX_CHAT_CHARS = 500
REASONS = ("out", "resign", "both-out", "repetition", "turn-limit", "agreed-draw")


def _bad(reason: str) -> RemoteProtocolError:
    return RemoteProtocolError("malformed", reason)


def _printable(text: str, what: str, max_chars: int) -> str | None:
    """None if ``text`` is fine, else why not."""
    if not 1 <= len(text) <= max_chars:
        return f"{what} must be 1..{max_chars} characters"
    for ch in text:
        if unicodedata.category(ch)[0] == "C":
            return f"{what} contains the control character U+{ord(ch):04X}"
    return None


def check_name(name: str) -> None:
    """``ValueError`` unless ``name`` is 1..64 characters with no control characters."""
    why = _printable(name, "a name", MAX_NAME_CHARS) if isinstance(name, str) else "a name must be text"
    if why:
        raise ValueError(why)


def check_chat(text: str) -> None:
    """``ValueError`` unless ``text`` is 1..500 characters with no control characters."""
    why = _printable(text, "a chat line", MAX_CHAT_CHARS) if isinstance(text, str) else "chat must be text"
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


def _want(items: list[Any], types: tuple[type | tuple[type, ...], ...], kind: str) -> None:
    if len(items) != len(types):
        raise _bad(f"a {kind} body has {len(types)} fields, not {len(items)}")
    for i, (v, t) in enumerate(zip(items, types, strict=True)):
        if t is int and isinstance(v, bool):
            raise _bad(f"{kind} field {i} must be an integer, not a boolean")
        if not isinstance(v, t):
            raise _bad(f"{kind} field {i} has the wrong type ({type(v).__name__})")


def _deal_no(v: int, kind: str) -> int:
    if not 1 <= v <= 1000:
        raise _bad(f"{kind}: deal number {v} is outside 1..1000")
    return v


def _b32(v: bytes, kind: str, what: str) -> bytes:
    if len(v) != 32:
        raise _bad(f"{kind}: {what} must be 32 bytes, not {len(v)}")
    return v


@dataclass(frozen=True)
class RulesMsg(Body):
    """``rules``: ``[pack_size, sixes, voluntary_pickup, repetition, turn_limit, deals]``."""

    KIND: ClassVar[str] = "rules"
    rules: RuleSet

    def fields(self) -> list[Any]:
        r = self.rules
        return [r.pack_size, r.sixes, r.voluntary_pickup, r.repetition, r.turn_limit, r.deals]

    @classmethod
    def parse(cls, items: list[Any]) -> RulesMsg:
        _want(items, (int, bool, bool, int, int, int), cls.KIND)
        try:
            return cls(RuleSet(items[0], items[1], items[2], items[3], items[4], items[5]))
        except RuleSetError as exc:
            raise _bad(f"rules: {exc}") from None


@dataclass(frozen=True)
class AgreeMsg(Body):
    """``agree``: ``[accept]``."""

    KIND: ClassVar[str] = "agree"
    accept: bool

    def fields(self) -> list[Any]:
        return [self.accept]

    @classmethod
    def parse(cls, items: list[Any]) -> AgreeMsg:
        _want(items, (bool,), cls.KIND)
        return cls(items[0])


@dataclass(frozen=True)
class TrumpMsg(Body):
    """``trump``: ``[suit]`` (0..3, ♣ ♦ ♥ ♠)."""

    KIND: ClassVar[str] = "trump"
    suit: int

    def fields(self) -> list[Any]:
        return [self.suit]

    @classmethod
    def parse(cls, items: list[Any]) -> TrumpMsg:
        _want(items, (int,), cls.KIND)
        if not 0 <= items[0] <= 3:
            raise _bad(f"trump: suit {items[0]} is outside 0..3")
        return cls(items[0])


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
        _want(items, (int, bytes), cls.KIND)
        return cls(_deal_no(items[0], cls.KIND), _b32(items[1], cls.KIND, "the commitment"))


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
        _want(items, (int, bytes), cls.KIND)
        return cls(_deal_no(items[0], cls.KIND), _b32(items[1], cls.KIND, "the secret"))


@dataclass(frozen=True)
class MoveMsg(Body):
    """``move``: ``[deal, move code, position hash(32)]``; the code is canonical
    (``"QS"``, ``"TS/7H"``, ``"TS/"``, ``"pickup"``: ``Move.parse(code).code == code``)."""

    KIND: ClassVar[str] = "move"
    deal: int
    move: Move
    position: bytes

    def fields(self) -> list[Any]:
        return [self.deal, self.move.code, self.position]

    @classmethod
    def parse(cls, items: list[Any]) -> MoveMsg:
        _want(items, (int, str, bytes), cls.KIND)
        code = items[1]
        try:
            move = Move.parse(code)
        except ValueError as exc:
            raise _bad(f"move: {exc}") from None
        if move.code != code:
            raise RemoteProtocolError("non-canonical", f"move code {code!r} is not canonical (write {move.code!r})")
        return cls(_deal_no(items[0], cls.KIND), move, _b32(items[2], cls.KIND, "the position hash"))


@dataclass(frozen=True)
class ResignMsg(Body):
    """``resign``: ``[deal]``."""

    KIND: ClassVar[str] = "resign"
    deal: int

    def fields(self) -> list[Any]:
        return [self.deal]

    @classmethod
    def parse(cls, items: list[Any]) -> ResignMsg:
        _want(items, (int,), cls.KIND)
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
        _want(items, (int,), cls.KIND)
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
        _want(items, (int, bool), cls.KIND)
        return cls(_deal_no(items[0], cls.KIND), items[1])


@dataclass(frozen=True)
class ChatMsg(Body):
    """``chat``: ``[text]`` (1..500 characters, no control characters)."""

    KIND: ClassVar[str] = "chat"
    text: str

    def fields(self) -> list[Any]:
        return [self.text]

    @classmethod
    def parse(cls, items: list[Any]) -> ChatMsg:
        _want(items, (str,), cls.KIND)
        why = _printable(items[0], "a chat line", MAX_CHAT_CHARS)
        if why:
            raise _bad(f"chat: {why}")
        return cls(items[0])


@dataclass(frozen=True)
class DealEndMsg(Body):
    """``deal-end``: ``[deal, winner (0, 1 or nil), reason, score0, score1]`` (half-points after the deal)."""

    KIND: ClassVar[str] = "deal-end"
    deal: int
    outcome: Outcome
    score: tuple[int, int]

    def fields(self) -> list[Any]:
        return [self.deal, self.outcome.winner, self.outcome.reason, self.score[0], self.score[1]]

    @classmethod
    def parse(cls, items: list[Any]) -> DealEndMsg:
        _want(items, (int, (int, type(None)), str, int, int), cls.KIND)
        try:
            outcome = Outcome(items[1], items[2])
        except ValueError as exc:
            raise _bad(f"deal-end: {exc}") from None
        if not (0 <= items[3] <= 2000 and 0 <= items[4] <= 2000):
            raise _bad("deal-end: score out of range")
        return cls(_deal_no(items[0], cls.KIND), outcome, (items[3], items[4]))


@dataclass(frozen=True)
class MatchEndMsg(Body):
    """``match-end``: ``[score0, score1]`` (half-points)."""

    KIND: ClassVar[str] = "match-end"
    score: tuple[int, int]

    def fields(self) -> list[Any]:
        return [self.score[0], self.score[1]]

    @classmethod
    def parse(cls, items: list[Any]) -> MatchEndMsg:
        _want(items, (int, int), cls.KIND)
        if not (0 <= items[0] <= 2000 and 0 <= items[1] <= 2000):
            raise _bad("match-end: score out of range")
        return cls((items[0], items[1]))


@dataclass(frozen=True)
class RematchMsg(Body):
    """``rematch``: ``[]``."""

    KIND: ClassVar[str] = "rematch"

    def fields(self) -> list[Any]:
        return []

    @classmethod
    def parse(cls, items: list[Any]) -> RematchMsg:
        _want(items, (), cls.KIND)
        return cls()


@dataclass(frozen=True)
class LeaveMsg(Body):
    """``leave``: ``[]`` -- the sender resigns the rest of the match (protocol/wire.md §15)."""

    KIND: ClassVar[str] = "leave"

    def fields(self) -> list[Any]:
        return []

    @classmethod
    def parse(cls, items: list[Any]) -> LeaveMsg:
        _want(items, (), cls.KIND)
        return cls()


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
    )
}


@dataclass(frozen=True)
class Signed:
    """A chained message ``["msg", game(8), seat, seq, prev(32), kind, body, sig(64)]``.

    ``game`` is the first 8 bytes of the game id; ``sig`` is Ed25519 over
    ``SIGN_TAG || game id (32) || pack(the array without sig)``.  ``payload`` is the
    exact received/sent bytes; ``hash`` their :func:`message_hash`.
    """

    game: bytes
    seat: int
    seq: int
    prev: bytes
    body: Body
    sig: bytes
    payload: bytes = field(repr=False)
    hash: bytes = field(repr=False)

    @property
    def kind(self) -> str:
        return self.body.KIND

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
    return Signed(game, seat, seq, prev, body, sig, payload, message_hash(payload))


Frame = Hello | Ping | Pong | Signed | Resume | Proof


def decode(payload: bytes) -> Frame:
    """Decode and check the shape of one frame payload.

    Raises ``RemoteProtocolError``: ``garbage-frame`` (not msgpack / not an array
    naming a type), ``non-canonical``, ``malformed`` (wrong fields), ``version``.
    Signatures and the chain are checked elsewhere (:mod:`p2ptrumps.wire.chain`).
    """
    v = encoding.unpack(payload)
    if not isinstance(v, list) or not v or not isinstance(v[0], str):
        raise RemoteProtocolError("garbage-frame", "a frame must be an array whose first element names its type")
    t = v[0]
    if t == "msg":
        if len(v) != 8:
            raise _bad(f"a msg frame has 8 fields, not {len(v)}")
        _, game, seat, seq, prev, kind, body, sig = v
        if not isinstance(game, bytes) or len(game) != 8:
            raise _bad("msg: game must be 8 bytes")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in (0, 1):
            raise _bad("msg: seat must be 0 or 1")
        if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq < (1 << 32):
            raise _bad("msg: seq must be an integer 0..2**32-1")
        if not isinstance(prev, bytes) or len(prev) != 32:
            raise _bad("msg: prev must be 32 bytes")
        if not isinstance(sig, bytes) or len(sig) != 64:
            raise _bad("msg: sig must be 64 bytes")
        if not isinstance(kind, str) or kind not in BODY_TYPES:
            raise _bad(f"msg: unknown kind {kind!r}")
        if not isinstance(body, list):
            raise _bad(f"msg: the {kind} body must be an array")
        parsed = BODY_TYPES[kind].parse(body)
        return Signed(game, seat, seq, prev, parsed, sig, payload, message_hash(payload))
    if t == "hello":
        if len(v) != 6:
            raise _bad(f"a hello frame has 6 fields, not {len(v)}")
        _, version, seat, name, pk, nonce = v
        if not isinstance(version, int) or isinstance(version, bool):
            raise _bad("hello: version must be an integer")
        if version != VERSION:
            raise RemoteProtocolError("version", f"peer speaks protocol version {version}, this program {VERSION}")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in (0, 1):
            raise _bad("hello: seat must be 0 or 1")
        if not isinstance(name, str):
            raise _bad("hello: the name must be text")
        why = _printable(name, "hello: the name", MAX_NAME_CHARS)
        if why:
            raise _bad(why)
        if not isinstance(pk, bytes) or len(pk) != 32:
            raise _bad("hello: public key must be 32 bytes")
        if not isinstance(nonce, bytes) or len(nonce) != 32:
            raise _bad("hello: nonce must be 32 bytes")
        return Hello(version, seat, name, pk, nonce)
    if t == "resume":
        if len(v) != 5:
            raise _bad(f"a resume frame has 5 fields, not {len(v)}")
        _, version, seat, gid, nonce = v
        if not isinstance(version, int) or isinstance(version, bool):
            raise _bad("resume: version must be an integer")
        if version != VERSION:
            raise RemoteProtocolError("version", f"peer speaks protocol version {version}, this program {VERSION}")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in (0, 1):
            raise _bad("resume: seat must be 0 or 1")
        if not isinstance(gid, bytes) or len(gid) != 32 or not isinstance(nonce, bytes) or len(nonce) != 32:
            raise _bad("resume: game id and nonce must be 32 bytes")
        return Resume(version, seat, gid, nonce)
    if t == "proof":
        if (len(v) != 3 or not isinstance(v[1], int) or isinstance(v[1], bool) or not 0 <= v[1] < (1 << 32)
                or not isinstance(v[2], bytes) or len(v[2]) != 64):
            raise _bad("proof: expected ['proof', confirmed (0..2**32-1), sig (64 bytes)]")
        return Proof(v[1], v[2])
    if t in ("ping", "pong"):
        if len(v) != 2 or not isinstance(v[1], int) or isinstance(v[1], bool) or not 0 <= v[1] < (1 << 32):
            raise _bad(f"{t}: expected [{t!r}, n] with n in 0..2**32-1")
        return Ping(v[1]) if t == "ping" else Pong(v[1])
    raise RemoteProtocolError("garbage-frame", f"unknown frame type {t!r}")


def card_code(c: int) -> str:
    """Canonical code of a card int, ``"-"`` for NO_CARD (for messages)."""
    return "-" if c == NO_CARD else Card(c).code
