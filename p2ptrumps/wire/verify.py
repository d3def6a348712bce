"""Verify a match log: a pure function from log bytes to a verdict.

Source: ``protocol/verify.md`` (the verifier and its JSON verdict, version 1), with
``protocol/wire.md`` (the checks it runs) and §12 there (the log file).

:func:`verify_log` reads the frames of a log (:mod:`p2ptrumps.wire.log`), takes
the two hellos, computes the game id, and feeds every chained message to the
same :class:`~p2ptrumps.wire.chain.JointChain` and
:class:`~p2ptrumps.wire.chain.Referee` the live session runs -- for *both*
seats.  The verdict says:

* ``valid`` -- complete: the match ended and both sides signed the score (or the
  guest refused the rules);
* ``invalid`` -- the first offending frame (0-based index in the log), its fault
  code and why, which seat is blamed and whether its own signature proves it;
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
from .log import LogContents, LogUnreadable, read_log

EXIT_CODES = {"valid": 0, "invalid": 1, "unreadable": 2, "unfinished": 3}
#: The ``format`` and ``version`` of the JSON verdict (protocol/verify.md §5).
VERDICT_FORMAT = "p2ptrumps-verdict"
VERDICT_VERSION = 1


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
        offender: seat (0 host, 1 guest) to blame for the offending frame (protocol/verify.md
            §3.1): the signer when its signature proves it (``offender_proven``), else the peer
            of the log's owner (the seat of the log's first hello); None when nobody is named.
        offender_proven: True when the offender's own signature, checked over the offending
            message, proves the fault.
        frames: number of whole frames read.
        messages: number of messages in the chain when the check ended.
        superseded: guest messages ignored as superseded (protocol/wire.md §8.3 row a).
        withdrawn: guest messages withdrawn by a host message (row g).
        players: ``(name, fingerprint)`` of seat 0 and seat 1 (empty if unknown).
        game_id: hex, or "".
        rules: the agreed rules, or None.
        trumps: own trump of seat 0 and seat 1, or None.
        deals: each dealt deal.
        score_halves: half-points of seat 0 and seat 1.
        waiting: ``(seat, what)`` the match waited for where an unfinished log stops.
        forfeit: the seat that committed but did not reveal where the log stops
            (protocol/wire.md §9.2: not revealing forfeits the match), else None.
        truncated_bytes: bytes of the torn tail (an incomplete last frame or zero bytes).
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
    superseded: int = 0
    withdrawn: int = 0
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

    def to_json(self, log: str | None = None) -> dict[str, Any]:
        """The JSON verdict, version 1 (protocol/verify.md §5), member order as there;
        ``log`` (the path) is included when given."""
        head: dict[str, Any] = {"format": VERDICT_FORMAT, "version": VERDICT_VERSION}
        if log is not None:
            head["log"] = log
        return head | {
            "status": self.status,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "code": self.code,
            "index": self.index,
            "offender": self.offender,
            "offender_proven": self.offender_proven,
            "frames": self.frames,
            "messages": self.messages,
            "superseded": self.superseded,
            "withdrawn": self.withdrawn,
            "truncated_bytes": self.truncated_bytes,
            "game_id": self.game_id or None,
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
                if self.rules is None else "VALID: the match is complete and every message checks."
            ),
            "invalid": "INVALID: " + self.reason,
            "unreadable": "UNREADABLE: " + self.reason,
            "unfinished": "VALID SO FAR, UNFINISHED: " + self.reason,
        }[self.status]
        lines.append(head)
        if self.status == "valid" and self.truncated_bytes:
            lines.append(f"  after it, a torn tail of {self.truncated_bytes} bytes (a crash while writing): "
                         "not part of the log, nobody's fault")
        if self.status == "unreadable" and not self.frames:
            return head
        if self.status == "invalid" and self.index is not None:
            if self.offender is None:
                who = ", which names neither seat"
            elif self.offender_proven:
                who = f", signed by seat {self.offender} ({SEAT_NAMES[self.offender]}): proven"
            else:
                who = f", received from seat {self.offender} ({SEAT_NAMES[self.offender]}) by the log owner's account"
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
        counts = f"{self.frames} frames, {self.messages} chained messages"
        if self.superseded or self.withdrawn:
            counts += f" ({self.superseded} superseded, {self.withdrawn} withdrawn)"
        if self.reconnections:
            counts += f", {self.reconnections} reconnection{'s' if self.reconnections != 1 else ''}"
        lines.append(counts)
        return "\n".join(lines)


def _half(h: int) -> str:
    return f"{h // 2}" + ("½" if h % 2 else "") if h != 1 else "½"


def verify_log(data: bytes) -> Verdict:
    """Check a whole match log (bytes of the file).  Never raises for bad input.

    Follows protocol/verify.md: the file is read (§1), frame 0 is the owner's hello,
    frame 1 the peer's, then every message is checked in order (§3); the first fault
    names the offending frame, and the offender is found as §3.1 says.
    """
    try:
        contents = read_log(data)
    except LogUnreadable as exc:
        return Verdict("unreadable", str(exc))
    frames = contents.frames
    if not frames:
        return Verdict(
            "unreadable",
            "the log holds no handshake (no whole frame after the header)" + _tail_note(contents),
            truncated_bytes=contents.truncated_bytes,
        )
    check = _Checker()
    v = Verdict("unfinished", frames=len(frames), truncated_bytes=contents.truncated_bytes)
    for i, frame in enumerate(frames):
        try:
            check.frame(i, frame[4:])
        except RemoteProtocolError as exc:
            _fill(v, check)
            v.status, v.code, v.index = "invalid", exc.code, i
            if i < 2 or check.nobody:
                v.offender, v.offender_proven = None, False
            elif exc.proven_by is not None:
                v.offender, v.offender_proven = exc.proven_by, True
            else:
                v.offender, v.offender_proven = check.peer, False
            v.reason = f"frame #{i}: {exc.reason}"
            return v
    _fill(v, check)
    if contents.error is not None:
        v.status, v.code, v.index = "invalid", contents.error.code, len(frames)
        v.offender = check.peer if len(frames) >= 2 else None
        v.reason = contents.error.reason
        return v
    chain = check.chain
    if chain is None:
        peer = check.peer
        v.reason = f"the log stops after the owner's hello: the peer's hello (seat {peer}) never came"
        v.waiting = (peer, "hello")
        v.reason += _tail_note(contents)
        return v
    ref = chain.referee
    if ref.phase in (DONE, REMATCHED, REFUSED):
        v.status = "valid"
        v.reason = "the guest refused the rules: no match was played" if ref.phase == REFUSED else ""
        v.reason += _tail_note(contents).lstrip("; ")
        return v
    seat, what = ref.waiting_for()
    v.waiting = (seat, what)
    if not len(chain):
        where = "after the handshake (both hellos), before the first message"
    else:
        last = chain.entries[-1]
        when = (
            "before the first deal" if ref.deal == 0
            else "after the last deal" if ref.phase == "match-end"
            else f"in deal {ref.deal}"
        )
        where = f"after message {last.seq} ({last.kind}) {when}"
    who = "either seat" if seat is None else f"seat {seat} ({SEAT_NAMES[seat]})"
    v.reason = f"the log stops {where}; {who} was to act: {what}"
    if ref.phase == "reveal" and seat is not None and seat in ref.commits:
        v.forfeit = seat
        v.reason += f"; seat {seat} committed but never revealed, which forfeits the match"
    v.reason += _tail_note(contents)
    return v


def _tail_note(contents: LogContents) -> str:
    if not contents.truncated_bytes:
        return ""
    if contents.zero_tail:
        return (f"; the file ends in {contents.truncated_bytes} zero bytes after the last whole frame "
                "(a torn tail, as a crash can leave: not part of the log)")
    return f"; the last frame is cut short ({contents.truncated_bytes} bytes: a torn tail, not part of the log)"


class _Checker:
    """The frames of one log, checked one by one (protocol/verify.md §3)."""

    def __init__(self) -> None:
        self.own: m.Hello | None = None
        self.own_payload = b""
        self.chain: JointChain | None = None
        self.players: list[tuple[str, str]] = []
        self.nobody = False  # the fault found names nobody (a well-formed heartbeat)
        self.reconnections = 0  # resume frames of the peer (wire.md §14.3)

    @property
    def owner(self) -> int | None:
        return None if self.own is None else self.own.seat

    @property
    def peer(self) -> int | None:
        return None if self.own is None else 1 - self.own.seat

    def frame(self, i: int, payload: bytes) -> None:
        """Check frame ``i``; ``RemoteProtocolError`` on a fault."""
        msg = m.decode_frame(payload)
        if isinstance(msg, (m.Ping, m.Pong, m.Proof)):
            self.nobody = True
            kind = type(msg).__name__.lower()
            never = "proofs are never logged (wire.md §14.2)" if kind == "proof" else "heartbeats are never logged"
            raise RemoteProtocolError("malformed", f"a {kind} in a log: {never}")
        if isinstance(msg, m.Resume):
            chain = self.chain
            if chain is None or msg.game_id != chain.game_id or msg.seat != self.peer:
                raise RemoteProtocolError(
                    "malformed", "a resume frame before both hellos, or for another game or seat than the "
                    "owner's peer (wire.md §14.3)")
            self.reconnections += 1
            return
        if i == 0:
            self._owner_hello(msg, payload)
        elif i == 1:
            self._peer_hello(msg, payload)
        elif isinstance(msg, m.Hello):
            raise RemoteProtocolError(
                "out-of-turn", f"a second hello from the peer (it claims seat {msg.seat}, "
                f"{SEAT_NAMES[msg.seat]}): a session sends one hello")
        else:
            assert self.chain is not None
            self.chain.receive(msg, own=msg.seat == self.owner)

    def _owner_hello(self, msg: m.Hello | m.Envelope, payload: bytes) -> None:
        if not isinstance(msg, m.Hello):
            raise RemoteProtocolError(
                "out-of-turn", f"the log starts with message {msg.seq} ({msg.kind}), not with its owner's hello")
        PublicKey.from_bytes(msg.public_key)
        self.own, self.own_payload = msg, payload

    def _peer_hello(self, msg: m.Hello | m.Envelope, payload: bytes) -> None:
        own = self.own
        assert own is not None
        if not isinstance(msg, m.Hello):
            raise RemoteProtocolError(
                "out-of-turn", f"message {msg.seq} ({msg.kind}) comes before the peer's hello")
        m.check_peer_hello(msg, own)
        key = PublicKey.from_bytes(msg.public_key)
        own_key = PublicKey.from_bytes(own.public_key)
        hellos = {own.seat: (own, self.own_payload, own_key), msg.seat: (msg, payload, key)}
        (h0, p0, k0), (h1, p1, k1) = hellos[0], hellos[1]
        self.chain = JointChain(m.game_id(p0, p1), (k0, k1), None)  # both sides' placement rules
        self.players = [(h0.name, k0.fingerprint), (h1.name, k1.fingerprint)]


def _fill(v: Verdict, check: _Checker) -> None:
    v.reconnections = check.reconnections
    chain = check.chain
    if chain is None:
        return
    ref = chain.referee
    v._chain = chain
    v.game_id = chain.game_id.hex()
    v.players = list(check.players)
    v.messages = len(chain)
    v.superseded = chain.superseded
    v.withdrawn = chain.withdrawn
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
