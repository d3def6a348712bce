"""Two sessions in memory: a :class:`ConnectionPair` and scripted players.

Source: ``protocol/wire.md`` (the whole match).  For tests, the vector
generator and benchmarks: no sockets, no clock, fully deterministic when the
nonces and secrets are (they are derived from fixed labels here unless given).

Each side is driven by a :class:`Script`: it accepts the peer's key and the
rules, chooses the first free trump (or a given one), commits a secret derived
from its label and reveals at once, and plays the move its ``choose`` function
returns (by default the first legal move).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

import msgpack  # type: ignore[import-untyped]

from ..events import CommitDue, Event, PeerHello, ProtocolViolation, RevealDue, RulesProposed
from ..rules import PICKUP_MOVE, Move, Position, RuleSet
from . import encoding, framing
from .errors import LocalProtocolError
from .identity import Identity
from .messages import Body, MoveMsg, RevealMsg, Signed, build_signed, decode, signing_input
from .session import Direction, Session

Chooser = Callable[[Position, int], Move]


def fixed_bytes(label: str, n: int = 32) -> bytes:
    """Deterministic test bytes: the first ``n`` bytes of SHA-256(label) (n <= 32)."""
    return hashlib.sha256(label.encode()).digest()[:n]


def first_legal(position: Position, seat: int) -> Move:
    """The first of ``position.legal_moves()``."""
    return position.legal_moves()[0]


@dataclass
class Script:
    """How one side plays: ``label`` seeds its secrets; ``trump`` (None: first free suit);
    ``choose`` picks moves; ``on_event`` sees every event first (and may act)."""

    label: str
    trump: int | None = None
    choose: Chooser = first_legal
    on_event: Callable[[Session, Event], None] | None = None
    rematch: bool = False
    paused: bool = False  # when True the side does nothing on its own (tests drive it by hand)

    def secret(self, deal: int) -> bytes:
        return fixed_bytes(f"{self.label}/secret/{deal}")


@dataclass
class LoggedFrame:
    frame: bytes
    direction: Direction


@dataclass
class Side:
    session: Session
    script: Script
    log: list[LoggedFrame] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def log_bytes(self) -> bytes:
        """The match log file this side would have written (protocol/wire.md §12)."""
        from .log import LOG_MAGIC

        return LOG_MAGIC + b"".join(f.frame for f in self.log)


def make_side(
    role: str,
    label: str,
    rules: RuleSet | None = None,
    script: Script | None = None,
    identity: Identity | None = None,
    name: str | None = None,
    move_time: int = 0,
) -> Side:
    """A session with a fixed key (from ``label``), fixed nonce, a list log, and its script
    (``move_time``: the host's proposed move clock, seconds)."""
    ident = identity or Identity.from_seed(fixed_bytes(f"{label}/key"))
    side_log: list[LoggedFrame] = []

    def hook(frame: bytes, direction: Direction) -> None:
        side_log.append(LoggedFrame(frame, direction))

    s = Session(
        "host" if role == "host" else "guest",
        ident,
        name or label,
        nonce=fixed_bytes(f"{label}/nonce"),
        rules=rules if role == "host" else None,
        on_message=hook,
        move_time=move_time if role == "host" else 0,
    )
    return Side(s, script or Script(label), side_log)


def act(side: Side) -> None:
    """Let the script act on what the session waits for (no-op if nothing is due from it)."""
    s, sc = side.session, side.script
    seat, what = s.waiting_for()
    if sc.paused or (s.finished and what != "rematch") or s.catching_up:  # a finished match may be rematched;
        return  # a restored session signs nothing before the peer's messages are in (protocol/wire.md §14.2)
    if seat == s.seat:
        if what == "trump":
            taken = s.chain.referee.match.trumps[0] if s.chain is not None and s.chain.referee.match else None
            suit = sc.trump if sc.trump is not None else next(x for x in range(4) if x != taken)
            s.floor.choose_trump(suit)
        elif what == "move":
            pos = s.position
            assert pos is not None
            s.floor.play(sc.choose(pos, s.seat))
    elif what == "rematch" and sc.rematch and s.chain is not None and s.seat not in s.chain.referee.rematch:
        s.floor.offer_rematch()


def handle(side: Side, ev: Event) -> None:
    """The script's answer to one event."""
    s, sc = side.session, side.script
    side.events.append(ev)
    if sc.on_event is not None:
        sc.on_event(s, ev)
    if s.finished:
        return
    if isinstance(ev, PeerHello):
        s.accept_key()
    elif isinstance(ev, RulesProposed):
        s.floor.accept_rules()
    elif isinstance(ev, CommitDue):
        s.floor.commit(sc.secret(ev.deal))
        s.floor.reveal()
    elif isinstance(ev, RevealDue):  # a session restored after committing (protocol/wire.md §14.4)
        with contextlib.suppress(LocalProtocolError):  # revealed already, with the commitment
            s.floor.reveal()


def answer_due(s: Session, secret: Callable[[int], bytes]) -> None:
    """A scripted peer's answers to every event its session queued (a test peer over a real stream):
    accept the peer's key and the rules, commit to ``secret(deal)`` (32 bytes) and reveal at once.

    Raises:
        AssertionError: the session saw a protocol violation (a scripted peer's tests expect none).
    """
    while (ev := s.next_event()) is not None:
        if isinstance(ev, PeerHello):
            s.accept_key()
        elif isinstance(ev, RulesProposed):
            s.floor.accept_rules()
        elif isinstance(ev, CommitDue):
            s.floor.commit(secret(ev.deal))
            s.floor.reveal()
        elif isinstance(ev, ProtocolViolation):
            raise AssertionError(ev)


class ConnectionPair:
    """A host and a guest session wired together in memory (h11's ConnectionPair idea).

    Args:
        rules: the host's proposal.
        host / guest: their scripts (default: first legal move, labels ``"host"``/``"guest"``).
        chunk: deliver bytes in pieces of this many bytes (tests partial frames); 0 = all at once.
        move_time: the host's proposed move clock, seconds per move (0: none).
    """

    def __init__(
        self,
        rules: RuleSet | None = None,
        host: Script | None = None,
        guest: Script | None = None,
        chunk: int = 0,
        move_time: int = 0,
    ) -> None:
        self.host = make_side("host", host.label if host else "host", rules or RuleSet(), host, move_time=move_time)
        self.guest = make_side("guest", guest.label if guest else "guest", None, guest)
        self.chunk = chunk
        #: Every byte each side wrote, in order (what went over the "socket").
        self.wire: list[tuple[int, bytes]] = []

    @property
    def sides(self) -> tuple[Side, Side]:
        return self.host, self.guest

    def deliver(self, src: Side, dst: Side) -> bool:
        """Move ``src``'s pending bytes to ``dst`` and let ``dst`` handle its events; True if any moved."""
        data = src.session.data_to_send()
        if not data:
            return False
        self.wire.append((src.session.seat, data))
        step = self.chunk or len(data)
        for i in range(0, len(data), step):
            dst.session.receive_data(data[i : i + step])
        self.drain(dst)
        return True

    def drain(self, side: Side) -> None:
        """Hand every queued event of ``side`` to its script, then let it act."""
        drain_side(side)

    def run(self, max_rounds: int = 100000) -> None:
        """Exchange bytes until neither side has anything to send; ``RuntimeError`` if
        ``max_rounds`` is reached (a livelock)."""
        for side in self.sides:
            self.drain(side)
        for _ in range(max_rounds):
            moved = self.deliver(self.host, self.guest)
            moved = self.deliver(self.guest, self.host) or moved
            if not moved:
                return
        raise RuntimeError(f"no quiet state after {max_rounds} rounds")

    def violations(self) -> list[ProtocolViolation]:
        return [e for side in self.sides for e in side.events if isinstance(e, ProtocolViolation)]


def paused_pair(rules: RuleSet, move_time: int = 0) -> ConnectionPair:
    """A pair stopped at the first move of deal 1, host ♣ and guest ♦ (neither side acts on its
    own any more: the test drives both by hand)."""
    pair = ConnectionPair(rules, host=Script("host"), guest=Script("guest"), move_time=move_time)
    pair.host.script.paused = pair.guest.script.paused = True
    # Keys, rules and commit/reveal are event-driven; the trumps are chosen here.
    pair.run()
    pair.host.session.floor.choose_trump(0)
    pair.run()
    pair.guest.session.floor.choose_trump(1)
    pair.run()
    assert pair.host.session.waiting_for()[1] == "move"
    return pair


def mover(pair: ConnectionPair) -> tuple[Session, Session]:
    """(the session to move, the other) of a pair in phase play."""
    seat = pair.host.session.waiting_for()[0]
    a, b = pair.host.session, pair.guest.session
    return (a, b) if seat == 0 else (b, a)


def exchange(a: Side, b: Side, max_rounds: int = 100000) -> None:
    """Like :meth:`ConnectionPair.run` for two sides that are not a pair (e.g. one restored from its
    log, protocol/wire.md §14.4): hand each its events, then move bytes both ways until neither has
    anything to send.  ``RuntimeError`` after ``max_rounds`` (a livelock)."""
    drain_side(a)
    drain_side(b)
    for _ in range(max_rounds):
        moved = False
        for src, dst in ((a, b), (b, a)):
            data = src.session.data_to_send()
            if data:
                dst.session.receive_data(data)
                drain_side(dst)
                moved = True
        if not moved:
            return
    raise RuntimeError(f"no quiet state after {max_rounds} rounds")


# ----- hostile peers -------------------------------------------------------------------


def sent_frames(side: Side) -> list[bytes]:
    """The frames ``side`` sent, in order (hello and chained messages; from its log)."""
    return [f.frame for f in side.log if f.direction == "sent"]


def replay_to_victim(
    victim_role: str,
    frames: list[bytes],
    rules: RuleSet | None = None,
    script: Script | None = None,
) -> Side:
    """A fresh deterministic ``victim_role`` side (label = role) fed ``frames`` one by one,
    its script acting after each; stops after a violation or when the frames run out."""
    victim = make_side(victim_role, script.label if script else victim_role, rules or RuleSet(), script)
    drain_side(victim)
    for f in frames:
        victim.session.data_to_send()
        victim.session.receive_data(f)
        drain_side(victim)
        if victim.session.violation is not None:
            break
    victim.session.data_to_send()
    return victim


def drain_side(side: Side) -> None:
    """Hand every queued event of ``side`` to its script, then let it act."""
    for _ in range(100000):
        ev = side.session.next_event()
        if ev is None:
            break
        handle(side, ev)
    act(side)


def resign_frame(
    frame: bytes,
    identity: Identity,
    game_id: bytes,
    *,
    seq: int | None = None,
    prev: bytes | None = None,
    body: Body | None = None,
) -> bytes:
    """``frame`` (a ``msg``) with fields replaced and signed again by ``identity`` -- a
    validly signed lie, for hostile-peer tests and invalid vectors."""
    msg = decode(frame[4:])
    assert isinstance(msg, Signed)
    new = build_signed(
        game_id,
        msg.seat,
        msg.seq if seq is None else seq,
        msg.prev if prev is None else prev,
        msg.body if body is None else body,
        identity.sign,
    )
    return framing.frame(new.payload)


def raw_msg_frame(
    identity: Identity, game_id: bytes, seat: int, seq: int, prev: bytes, kind: str, items: list[object]
) -> bytes:
    """A ``msg`` frame signed by ``identity`` whose body is the raw ``items`` -- any body at
    all, well-formed or not (for hostile-peer tests and invalid vectors)."""
    unsigned = encoding.pack(["msg", game_id[:8], seat, seq, prev, kind, items])
    sig = identity.sign(signing_input(game_id, unsigned))
    return framing.frame(encoding.pack(["msg", game_id[:8], seat, seq, prev, kind, items, sig]))


def hello_frame(seat: int, name: str, public_key: bytes, nonce: bytes, version: int = 1) -> bytes:
    """A hello frame with the given fields (no checks: keys and names may be bad on purpose)."""
    return framing.frame(encoding.pack(["hello", version, seat, name, public_key, nonce]))


def side_identity(label: str) -> Identity:
    """The fixed identity :func:`make_side` gives ``label``."""
    return Identity.from_seed(fixed_bytes(f"{label}/key"))


def _kind_index(frames: list[bytes], kind: str, nth: int = 0) -> int:
    hits = []
    for i, f in enumerate(frames):
        x = decode(f[4:])
        if isinstance(x, Signed) and x.kind == kind:
            hits.append(i)
    return hits[nth]


#: Every tampering :func:`attack` knows, each named by the fault it must cause.
TAMPERS = (
    "bad-signature",
    "broken-chain",
    "non-canonical",
    "map-not-array",
    "illegal-move",
    "wrong-position-hash",
    "bad-reveal",
    "oversized-frame",
    "garbage-frame",
    "sequence-gap",
    "wrong-game",
)


def attack(tamper: str, rules: RuleSet) -> tuple[Side, int]:
    """An honest match is played, then the guest's frames are tampered with (``tamper``
    from :data:`TAMPERS`) and replayed into a fresh host.  Returns the host side (its
    log ends with the evidence) and the index of the tampered frame among the guest's."""
    pair = ConnectionPair(rules)
    pair.run()
    frames = sent_frames(pair.guest)
    gid = pair.host.session.game_id
    assert gid is not None
    key = side_identity("guest")
    i = _kind_index(frames, "move", 1)
    x = decode(frames[i][4:])
    assert isinstance(x, Signed) and isinstance(x.body, MoveMsg)
    if tamper == "bad-signature":  # one byte flipped (in the signature's last byte)
        f = bytearray(frames[i])
        f[-1] ^= 0x01
        frames[i] = bytes(f)
    elif tamper == "broken-chain":
        frames[i] = resign_frame(frames[i], key, gid, prev=bytes(32))
    elif tamper == "non-canonical":  # seq as uint16 where a shorter form fits
        payload = frames[i][4:]
        short = encoding.pack(x.seq)
        assert x.seq < 256
        payload = payload.replace(
            b"\x01" + short + b"\xc4\x20", b"\x01\xcd" + x.seq.to_bytes(2, "big") + b"\xc4\x20", 1
        )
        frames[i] = framing.frame(payload)
    elif tamper == "map-not-array":  # the same fields as a map {index: value}
        fields = encoding.unpack(frames[i][4:])
        body = msgpack.packb(dict(enumerate(fields)), use_bin_type=True)
        frames[i] = framing.frame(body)
    elif tamper == "illegal-move":
        # picking up is illegal here: the guest can beat (or the pile is empty)
        frames[i] = resign_frame(frames[i], key, gid, body=MoveMsg(x.body.deal, PICKUP_MOVE, bytes(32)))
    elif tamper == "wrong-position-hash":
        frames[i] = resign_frame(frames[i], key, gid, body=MoveMsg(x.body.deal, x.body.move, bytes(32)))
    elif tamper == "bad-reveal":
        i = _kind_index(frames, "reveal")
        frames[i] = resign_frame(frames[i], key, gid, body=RevealMsg(1, bytes(32)))
    elif tamper == "oversized-frame":
        frames[i] = (1 << 20).to_bytes(4, "big") + bytes(16)
    elif tamper == "garbage-frame":
        frames[i] = framing.frame(b"\xc1\xc1")
    elif tamper == "sequence-gap":  # the guest's commitment left out
        i = _kind_index(frames, "commit")
        del frames[i]
    elif tamper == "wrong-game":  # the same guest's message from another game (another host)
        other = ConnectionPair(rules, host=Script("host2"), guest=Script("guest"))
        other.run()
        theirs = sent_frames(other.guest)
        frames[i] = theirs[_kind_index(theirs, "move", 1)]
    else:
        raise ValueError(f"unknown tamper {tamper!r}")
    return replay_to_victim("host", frames, rules), i
