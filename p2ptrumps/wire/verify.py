"""Verify a match log: a pure function from log bytes to a verdict.

Source: ``protocol/wire.md`` §12-§13.

:func:`verify_log` reads the frames of a log (:mod:`p2ptrumps.wire.log`), takes
the two hellos, computes the game id, and feeds every chained message to the
same :class:`~p2ptrumps.wire.chain.JointChain` and
:class:`~p2ptrumps.wire.chain.Referee` the live session runs -- for *both*
seats.  The verdict says:

* ``valid`` -- complete: the match ended and both sides signed the score (or the
  guest refused the rules);
* ``invalid`` -- the first offending frame (0-based index in the log), its fault
  code and why, and which seat sent it;
* ``unreadable`` -- not a match log (no header), or no usable handshake;
* ``unfinished`` -- everything checks, but the log stops before the end: where,
  and who was to act (and what).

:meth:`Verdict.to_record` turns the checked chain into a
:class:`~p2ptrumps.record.MatchRecord` so ``replay`` can show a network log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cards import SUIT_LETTERS
from ..record import DealRecord, MatchRecord, PlayerInfo
from ..rules import Move, RuleSet
from . import messages as m
from .chain import DONE, REFUSED, REMATCHED, SEAT_NAMES, JointChain
from .errors import RemoteProtocolError
from .identity import PublicKey
from .log import LogUnreadable, read_log

EXIT_CODES = {"valid": 0, "invalid": 1, "unreadable": 2, "unfinished": 3}


@dataclass(frozen=True)
class DealResult:
    """One dealt deal: number, dealer seat, seed (hex), winner (0/1/None), reason (None if unfinished)."""

    number: int
    dealer: int
    seed: str
    winner: int | None
    reason: str | None


@dataclass
class Verdict:
    """The result of :func:`verify_log`.

    Attributes:
        status: ``"valid"``, ``"invalid"``, ``"unreadable"`` or ``"unfinished"``.
        reason: a sentence (why invalid / unreadable / where it stops; "" when valid).
        code: the fault code when invalid (protocol/wire.md §11), else None.
        index: 0-based index of the offending frame in the log (invalid), else None.
        offender: seat (0 host, 1 guest) to blame for the offending frame (protocol/wire.md §13):
            the signer when its signature proves it (``offender_proven``), else the peer
            of the log's owner (the seat of the log's first hello); None if unknown.
        offender_proven: True when the offender's own valid signature is on the offending message.
        frames: number of whole frames read.
        messages: number of chained messages accepted into the chain.
        players: ``(name, fingerprint)`` of seat 0 and seat 1 (empty if unknown).
        game_id: hex, or "".
        rules: the agreed rules, or None.
        trumps: own trump of seat 0 and seat 1, or None.
        deals: each dealt deal.
        score_halves: half-points of seat 0 and seat 1.
        waiting: ``(seat, what)`` the match waited for where an unfinished log stops.
        forfeit: the seat that committed but did not reveal where the log stops
            (protocol/wire.md §9.2: not revealing forfeits the match), else None.
        truncated_bytes: bytes of an incomplete last frame (a crash mid-write).
        reconnections: how many times the match changed connection (``resume`` frames, wire.md §14.3).
        left: ``(seat, message index)`` of a ``leave`` (wire.md §15), else None.
        forfeited: the deal numbers forfeited by the seat that left.
    """

    status: str
    reason: str = ""
    code: str | None = None
    index: int | None = None
    offender: int | None = None
    offender_proven: bool = False
    frames: int = 0
    messages: int = 0
    players: list[tuple[str, str]] = field(default_factory=list)
    game_id: str = ""
    rules: RuleSet | None = None
    trumps: tuple[int, int] | None = None
    deals: list[DealResult] = field(default_factory=list)
    score_halves: tuple[int, int] = (0, 0)
    waiting: tuple[int | None, str] | None = None
    forfeit: int | None = None
    truncated_bytes: int = 0
    reconnections: int = 0
    left: tuple[int, int] | None = None
    forfeited: list[int] = field(default_factory=list)
    _chain: JointChain | None = field(default=None, repr=False, compare=False)

    @property
    def exit_code(self) -> int:
        """0 valid, 1 invalid, 2 unreadable, 3 unfinished."""
        return EXIT_CODES[self.status]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (stable field names, for ``verify --json``)."""
        return {
            "status": self.status,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "code": self.code,
            "index": self.index,
            "offender": self.offender,
            "offender_proven": self.offender_proven,
            "frames": self.frames,
            "messages": self.messages,
            "game_id": self.game_id,
            "players": [{"seat": i, "name": n, "fingerprint": f} for i, (n, f) in enumerate(self.players)],
            "rules": None if self.rules is None else self.rules.to_dict(),
            "trumps": None if self.trumps is None else [SUIT_LETTERS[t] for t in self.trumps],
            "deals": [
                {"number": d.number, "dealer": d.dealer, "seed": d.seed, "winner": d.winner, "reason": d.reason}
                for d in self.deals
            ],
            "score": [self.score_halves[0] / 2, self.score_halves[1] / 2],
            "waiting": None if self.waiting is None else {"seat": self.waiting[0], "what": self.waiting[1]},
            "forfeit": self.forfeit,
            "truncated_bytes": self.truncated_bytes,
            "reconnections": self.reconnections,
            "left": None if self.left is None else {"seat": self.left[0], "message": self.left[1]},
            "forfeited": list(self.forfeited),
        }

    def to_record(self) -> MatchRecord:
        """The checked part of the match as a game record (``source="network"``).

        ``ValueError`` if the log got no further than the rules and trumps.
        """
        ch = self._chain
        if ch is None or self.rules is None or self.trumps is None:
            raise ValueError("the log holds no agreed rules and trumps: nothing to replay")
        names = self.players or [("host", ""), ("guest", "")]
        rec = MatchRecord(
            rules=self.rules,
            trumps=self.trumps,
            players=(
                PlayerInfo(names[0][0], "remote", names[0][1] or None),
                PlayerInfo(names[1][0], "remote", names[1][1] or None),
            ),
            source="network",
        )
        moves: dict[int, list[Move]] = {}
        for e in ch.entries:
            if isinstance(e.body, m.MoveMsg):
                moves.setdefault(e.body.deal, []).append(e.body.move)
        for d in ch.referee.deals:
            rec.deals.append(DealRecord(d.number, d.dealer, d.seed, d.hands, moves.get(d.number, []), d.outcome))
        return rec

    def summary(self, ascii_only: bool = True) -> str:
        """The report ``p2ptrumps verify`` prints (several lines, no trailing newline)."""
        from ..cards import suit_label

        lines = []
        head = {
            "valid": (
                "VALID: the guest refused the rules, so no match was played; every message checks."
                if self.reason else "VALID: the match is complete and every message checks."
            ),
            "invalid": "INVALID: " + self.reason,
            "unreadable": "UNREADABLE: " + self.reason,
            "unfinished": "VALID SO FAR, UNFINISHED: " + self.reason,
        }[self.status]
        lines.append(head)
        if self.status == "unreadable" and not self.frames:
            return head
        if self.status == "invalid" and self.index is not None:
            how = "signed by" if self.offender_proven else "received from"
            who = "" if self.offender is None else f", {how} seat {self.offender} ({SEAT_NAMES[self.offender]})"
            lines.append(f"  first offending frame: #{self.index} in the log{who}; fault: {self.code}")
        if self.game_id:
            lines.append(f"game id: {self.game_id}")
        for i, (name, fp) in enumerate(self.players):
            lines.append(f"seat {i} ({SEAT_NAMES[i]}): {name}  fingerprint {fp}")
        if self.rules is not None:
            lines.append(f"rules: {self.rules.describe()}")
        if self.trumps is not None:
            t = self.trumps
            lines.append(f"trumps: seat 0 {suit_label(t[0], ascii_only)}, seat 1 {suit_label(t[1], ascii_only)}")
        for d in self.deals:
            if d.reason is None:
                res = "unfinished"
            elif d.winner is None:
                res = f"drawn ({d.reason})"
            else:
                res = f"won by seat {d.winner} ({d.reason})"
            lines.append(f"deal {d.number}: dealer seat {d.dealer}, {res}")
        if self.left is not None:
            gone = f"; deals {', '.join(map(str, self.forfeited))} forfeited" if self.forfeited else ""
            lines.append(f"seat {self.left[0]} ({SEAT_NAMES[self.left[0]]}) left the match at message "
                         f"{self.left[1]}{gone}")
        a, b = self.score_halves
        lines.append(f"score: {_half(a)} - {_half(b)}")
        lines.append(f"{self.frames} frames, {self.messages} chained messages"
                     + (f", {self.reconnections} reconnection{'s' if self.reconnections != 1 else ''}"
                        if self.reconnections else ""))
        return "\n".join(lines)


def _half(h: int) -> str:
    return f"{h // 2}" + ("½" if h % 2 else "") if h != 1 else "½"


#: Faults found only after the message's signature checked out: the signer is proven.
_AFTER_SIGNATURE = frozenset({
    "sequence-gap", "broken-chain", "equivocation", "out-of-turn", "illegal-move", "wrong-position-hash",
    "bad-commitment", "bad-reveal", "wrong-result",
})


def verify_log(data: bytes) -> Verdict:
    """Check a whole match log (bytes of the file).  Never raises for bad input.

    The log's owner (the side that wrote it) is the seat of its first hello
    (protocol/wire.md §12); the offender of a fault is found as in §13.
    """
    try:
        contents = read_log(data)
    except LogUnreadable as exc:
        return Verdict("unreadable", str(exc))
    frames = contents.frames
    v = Verdict("unfinished", frames=len(frames), truncated_bytes=contents.truncated_bytes)
    hellos: list[m.Hello | None] = [None, None]
    payloads: list[bytes | None] = [None, None]
    keys: list[PublicKey | None] = [None, None]
    chain: JointChain | None = None
    owner: int | None = None
    for i, frame in enumerate(frames):
        payload = frame[4:]
        claimed: int | None = None
        try:
            msg = m.decode(payload)
            if isinstance(msg, (m.Ping, m.Pong)):
                raise RemoteProtocolError(
                    "malformed", f"a {type(msg).__name__.lower()} in a log (heartbeats are never logged)"
                )
            if isinstance(msg, m.Proof):
                raise RemoteProtocolError("malformed", "a proof in a log (proofs are never logged, wire.md §14.2)")
            if isinstance(msg, m.Resume):
                if chain is None or owner is None or msg.game_id != chain.game_id or msg.seat != 1 - owner:
                    raise RemoteProtocolError(
                        "malformed", "a resume frame before both hellos, or for another game or seat (wire.md §14.3)")
                v.reconnections += 1
                continue
            if isinstance(msg, m.Hello):
                claimed = msg.seat
                if owner is None:
                    owner = msg.seat  # the owner's own hello comes first
                elif msg.seat == owner:
                    if hellos[1 - owner] is None:
                        raise RemoteProtocolError(
                            "version", f"the peer's hello claims seat {msg.seat} ({SEAT_NAMES[msg.seat]}) too: "
                            f"two {SEAT_NAMES[msg.seat]}s")
                    raise RemoteProtocolError("out-of-turn", f"a second hello for seat {msg.seat}")
                if hellos[msg.seat] is not None:
                    raise RemoteProtocolError("out-of-turn", f"a second hello from seat {msg.seat}")
                keys[msg.seat] = PublicKey.from_bytes(msg.public_key)
                hellos[msg.seat] = msg
                payloads[msg.seat] = payload
                if hellos[0] is not None and hellos[1] is not None:
                    h0, h1 = hellos[0], hellos[1]
                    if h0.public_key == h1.public_key:
                        raise RemoteProtocolError("bad-key", "both seats use the same public key")
                    if h0.nonce == h1.nonce:
                        raise RemoteProtocolError("malformed", "the two hellos carry the same nonce "
                                                  "(the peer's nonce repeats the log owner's)")
                    p0, p1, k0, k1 = payloads[0], payloads[1], keys[0], keys[1]
                    assert p0 is not None and p1 is not None and k0 is not None and k1 is not None
                    chain = JointChain(m.game_id(p0, p1), (k0, k1), None)
                    v.game_id = chain.game_id.hex()
                    v.players = [(h0.name, k0.fingerprint), (h1.name, k1.fingerprint)]
                continue
            claimed = msg.seat
            if chain is None:
                raise RemoteProtocolError("out-of-turn", f"message {msg.seq} ({msg.kind}) comes before both hellos")
            if msg.seat == owner:
                _check_owner_message(chain, msg)
            chain.receive(msg)
        except RemoteProtocolError as exc:
            _fill(v, chain)
            v.status, v.code, v.index = "invalid", exc.code, i
            v.offender, v.offender_proven = _offender(exc.code, claimed, owner)
            v.reason = f"frame #{i}: {exc.reason}"
            return v
    _fill(v, chain)
    if contents.error is not None:
        v.status, v.code, v.index = "invalid", contents.error.code, len(frames)
        v.offender = None if owner is None else 1 - owner
        v.reason = contents.error.reason
        return v
    if chain is None:
        if not frames:
            return Verdict(
                "unreadable",
                "the log holds no handshake (no frames after the header)",
                truncated_bytes=contents.truncated_bytes,
            )
        v.reason = "the log stops during the handshake (only one hello)"
        v.waiting = (1 if hellos[0] is not None else 0, "hello")
        return v
    ref = chain.referee
    if ref.phase in (DONE, REMATCHED, REFUSED) and not contents.truncated_bytes:
        v.status = "valid"
        v.reason = "the guest refused the rules: no match was played" if ref.phase == REFUSED else ""
        return v
    seat, what = ref.waiting_for()
    v.waiting = (seat, what)
    where = f"after message {len(chain) - 1}" if len(chain) else "after the handshake"
    who = "either seat" if seat is None else f"seat {seat} ({SEAT_NAMES[seat]})"
    v.reason = f"the log stops {where} (deal {ref.deal}); {who} was to act: {what}"
    if ref.phase == "reveal" and seat is not None and seat in ref.commits:
        v.forfeit = seat
        v.reason += f"; seat {seat} committed but never revealed, which forfeits the match"
    if contents.truncated_bytes:
        v.reason += f"; the last frame is cut short ({contents.truncated_bytes} bytes)"
    return v


def _check_owner_message(chain: JointChain, msg: m.Signed) -> None:
    """A message claiming the log owner's seat is either the owner's own (signed by it for
    this game, at a new place) or a forgery or replay the owner received from its peer,
    which the owner's session refused as ``malformed`` (protocol/wire.md §8.2, §13)."""
    who = SEAT_NAMES[msg.seat]
    try:
        chain.check_signature(msg)
    except RemoteProtocolError as exc:
        raise RemoteProtocolError(
            "malformed", f"message {msg.seq} ({msg.kind}) claims to come from seat {msg.seat} ({who}), the log's "
            f"owner, but is not its message of this game ({exc.code}): the peer sent it") from None
    if msg.seq < len(chain) and chain.entries[msg.seq].hash == msg.hash:
        raise RemoteProtocolError(
            "malformed", f"message {msg.seq} ({msg.kind}) of seat {msg.seat} ({who}), the log's owner, comes "
            "again: the peer sent the owner's own message back")


def _offender(code: str, claimed: int | None, owner: int | None) -> tuple[int | None, bool]:
    """(seat to blame, proven by its signature) for a fault (protocol/wire.md §13).

    A fault found after the signature checked out is the signer's, proven.  Anything
    else (a frame that does not decode, names no seat, fails its signature, or claims
    the owner's seat without being its message) is blamed on the owner's peer: a
    session logs only its own valid messages and what it received.
    """
    if claimed is not None and code in _AFTER_SIGNATURE:
        return claimed, True
    if owner is not None:
        return 1 - owner, False
    return claimed, False


def _fill(v: Verdict, chain: JointChain | None) -> None:
    if chain is None:
        return
    ref = chain.referee
    v._chain = chain
    v.messages = len(chain)
    v.rules = ref.rules
    v.trumps = ref.trumps_pair
    v.score_halves = (ref.score[0], ref.score[1])
    if ref.left is not None:
        at = next((i for i, e in enumerate(chain.entries) if isinstance(e.body, m.LeaveMsg)), len(chain.entries))
        v.left = (ref.left, at)
        v.forfeited = list(ref.forfeited)
    v.deals = [
        DealResult(
            d.number,
            d.dealer,
            d.seed.hex(),
            None if d.outcome is None else d.outcome.winner,
            None if d.outcome is None else d.outcome.reason,
        )
        for d in ref.deals
    ]
