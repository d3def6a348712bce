"""Regenerate the wire test vectors (protocol/wire.md, protocol/verify.md) deterministically.

Run from the repository root with the package installed::

    python protocol/vectors/gen_wire.py          # rewrite wire.json, wire/*.log and verdicts.json
    python protocol/vectors/gen_wire.py --check  # exit 1 if any file would change

Everything derives from fixed labels: keys from SHA-256("<label>/key"), nonces
from SHA-256("<label>/nonce"), commit secrets from SHA-256("<label>/secret/<deal>")
(see p2ptrumps/wire/testing.py).  Scripted peers play the first legal move unless
a case says otherwise.  The ``wire/case-*.log`` files are inputs kept as they are
(hand-made logs from an outside implementer); their verdicts are computed here.

Each case below carries, besides its log, the verdict fields written by hand
(status, code, index, offender, offender_proven); the generator refuses to write
an index whose verdict disagrees with them.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2ptrumps.events import DealStarted, Event, MovePlayed
from p2ptrumps.rules import BEAT, LEAD, NO_CARD, PICKUP_MOVE, Move, Position, RuleSet
from p2ptrumps.shuffle import deal_hands, first_dealer
from p2ptrumps.wire import encoding, framing
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.errors import LocalProtocolError
from p2ptrumps.wire.identity import Identity, P
from p2ptrumps.wire.log import LOG_MAGIC
from p2ptrumps.wire.referee import MAX_CHAT_BYTES_PER_MATCH, MAX_CHATS_PER_MATCH, MAX_CHATS_PER_TURN
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import (
    TAMPERS,
    ConnectionPair,
    Script,
    attack,
    fixed_bytes,
    hello_frame,
    raw_msg_frame,
)
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair

HERE = Path(__file__).resolve().parent
RULES = RuleSet(pack_size=32, deals=2)
#: A public key that is not a point of the curve (y = 2 has no x).
OFF_CURVE_KEY = (2).to_bytes(32, "little")


@dataclass(frozen=True)
class Case:
    """One vector: a log, what it shows, the protocol/ section it settles, and the verdict
    fields written by hand: (status, code, index, offender, offender_proven)."""

    name: str
    about: str
    spec: str
    expect: tuple[str, str | None, int | None, int | None, bool]
    data: bytes


@dataclass(frozen=True)
class PairCase:
    """Two logs of the vectors checked against each other (protocol/verify.md §6): a name, the two
    files (``wire/….log``, in that order), what it shows, the section, and the pair verdict's fields
    written by hand: (status, code, evidence, offender, offender_proven, relation, leading)."""

    name: str
    files: tuple[str, str]
    about: str
    spec: str
    expect: tuple[str, str | None, tuple[tuple[int, int], ...], int | None, bool, str | None, int | None]


def log(frames: list[bytes]) -> bytes:
    return LOG_MAGIC + b"".join(frames)


# ----- Ed25519 by hand: signatures only a key's owner can make (wire.md §4.1) -----------------
# Edwards arithmetic in affine coordinates (RFC 8032 §5.1), slow and plain: enough to make the
# few signatures on which verification equations disagree.  Never used to check anything.

ED_L = (1 << 252) + 27742317777372353535851937790883648493  # the group order
_ED_D = -121665 * pow(121666, P - 2, P) % P
_SQRT_M1 = pow(2, (P - 1) // 4, P)
NEUTRAL = (0, 1)


def _ed_add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """The sum of two points (affine x, y)."""
    (x1, y1), (x2, y2) = a, b
    t = _ED_D * x1 * x2 * y1 * y2 % P
    return ((x1 * y2 + x2 * y1) * pow(1 + t, P - 2, P) % P, (y1 * y2 + x1 * x2) * pow(1 - t, P - 2, P) % P)


def _ed_mul(k: int, pt: tuple[int, int]) -> tuple[int, int]:
    """[k]pt, in extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, xy = T/Z (RFC 8032 §5.1.4)."""
    def add(p1: tuple[int, int, int, int], p2: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        x1, y1, z1, t1 = p1
        x2, y2, z2, t2 = p2
        a, b = (y1 - x1) * (y2 - x2) % P, (y1 + x1) * (y2 + x2) % P
        c, d = 2 * _ED_D * t1 * t2 % P, 2 * z1 * z2 % P
        e, f, g, h = b - a, d - c, d + c, b + a
        return e * f % P, g * h % P, f * g % P, e * h % P

    out, q = (0, 1, 1, 0), (pt[0], pt[1], 1, pt[0] * pt[1] % P)
    while k:
        if k & 1:
            out = add(out, q)
        q, k = add(q, q), k >> 1
    zi = pow(out[2], P - 2, P)
    return out[0] * zi % P, out[1] * zi % P


def _ed_x(y: int, sign: int) -> int:
    x2 = (y * y - 1) * pow(_ED_D * y * y + 1, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * _SQRT_M1 % P
    assert (x * x - x2) % P == 0, "not a curve point"
    return P - x if x & 1 != sign else x


def ed_encode(pt: tuple[int, int]) -> bytes:
    """RFC 8032 §5.1.2: y little-endian, the sign of x in the top bit."""
    return (pt[1] | (pt[0] & 1) << 255).to_bytes(32, "little")


ED_B = (_ed_x(4 * pow(5, P - 2, P) % P, 0), 4 * pow(5, P - 2, P) % P)
#: A point of order 8 (its y is one of wire.md §4.2's small-order values).
ED_T8 = (_ed_x(2707385501144840649318225287225658788936804267575313519463743609750303402022, 0),
         2707385501144840649318225287225658788936804267575313519463743609750303402022)
assert _ed_mul(8, ED_T8) == NEUTRAL and _ed_mul(4, ED_T8) != NEUTRAL


class HandSigner:
    """A key made from a known scalar ``a`` (plus, with ``torsion``, the order-8 point: a key
    §4.2 accepts that is not in the prime-order subgroup), signing in one of these ways:

    * ``plain``: R = [r]B, S = r + k*a -- what every verifier accepts for a key without torsion;
    * ``k0``: as plain, r chosen so that k is a multiple of 8 (then a torsion key verifies too);
    * ``k-not-0``: as plain, r chosen so that k is not a multiple of 8 (a torsion key: only a
      check with the cofactor accepts it);
    * ``neutral-r``: R the neutral point, S = k*a (valid: [S]B - [k]A is the neutral point);
    * ``torsion-r``: R = [r]B + T8, S = r + k*a (only a check with the cofactor accepts it);
    * ``s-plus-l``: as plain, then S + L (the same point, S not reduced);
    * ``r-not-canonical``: R the neutral point written with y = p + 1, S = k*a.
    """

    def __init__(self, label: str, torsion: bool = False) -> None:
        self.label = label
        self.a = int.from_bytes(hashlib.sha512(f"{label}/scalar".encode()).digest(), "little") % ED_L
        point = _ed_mul(self.a, ED_B)
        self.public_bytes = ed_encode(_ed_add(point, ED_T8) if torsion else point)
        self.mode = "plain"

    def sign(self, data: bytes) -> bytes:
        for n in range(1000):
            r = int.from_bytes(hashlib.sha512(f"{self.label}/{n}".encode() + data).digest(), "little") % ED_L
            if self.mode in ("neutral-r", "r-not-canonical"):
                rb = ed_encode(NEUTRAL) if self.mode == "neutral-r" else (P + 1).to_bytes(32, "little")
                k = self._k(rb, data)
                return rb + (k * self.a % ED_L).to_bytes(32, "little")
            point = _ed_mul(r, ED_B)
            rb = ed_encode(_ed_add(point, ED_T8) if self.mode == "torsion-r" else point)
            k = self._k(rb, data)
            if (self.mode == "k0" and k % 8) or (self.mode == "k-not-0" and not k % 8):
                continue
            s = (r + k * self.a) % ED_L + (ED_L if self.mode == "s-plus-l" else 0)
            return rb + s.to_bytes(32, "little")
        raise AssertionError("no nonce fits")

    def _k(self, rb: bytes, data: bytes) -> int:
        return int.from_bytes(hashlib.sha512(rb + self.public_bytes + data).digest(), "little") % ED_L


def frame_of(value: Any) -> bytes:
    """A frame holding the canonical encoding of ``value``."""
    return framing.frame(encoding.pack(value))


class Forge:
    """Frames of one honest match, and the keys to sign more of them."""

    def __init__(self, pair: ConnectionPair) -> None:
        gid = pair.host.session.game_id
        assert gid is not None
        self.gid = gid
        self.host = [f.frame for f in pair.host.log]
        self.guest = [f.frame for f in pair.guest.log]
        self.ids = (pair.host.session.identity, pair.guest.session.identity)

    def next(self, frames: list[bytes], seat: int, kind: str, items: list[Any], *,
             seq: int | None = None, prev: bytes | None = None, signer: int | None = None) -> bytes:
        """A message of ``seat`` signed (by ``signer``, default ``seat``) for the place after
        the chain of ``frames`` (which must verify so far)."""
        if seq is None or prev is None:
            chain = verify_log(log(frames))._chain
            assert chain is not None
            seq, prev = (len(chain) if seq is None else seq), (chain.head if prev is None else prev)
        return raw_msg_frame(self.ids[seat if signer is None else signer], self.gid, seat, seq, prev, kind, items)

    @staticmethod
    def where(frames: list[bytes], kind: str, seat: int | None = None) -> int:
        """The index of the first msg frame of ``kind`` (from ``seat``, if given)."""
        for k, x in enumerate(frames):
            v = encoding.unpack(x[4:])
            if v[0] == "msg" and v[5] == kind and seat in (None, v[2]):
                return k
        raise LookupError(kind)

    def body_of(self, frame: bytes) -> tuple[int, int, bytes, list[Any]]:
        """(seat, seq, prev, body items) of a msg frame."""
        v = encoding.unpack(frame[4:])
        return v[2], v[3], v[4], v[6]


def _verdict_json(data: bytes) -> dict[str, Any]:
    return verify_log(data).to_json()


def _honest(rules: RuleSet = RULES, host: Script | None = None, guest: Script | None = None) -> ConnectionPair:
    pair = ConnectionPair(rules, host=host, guest=guest)
    pair.run()
    return pair


# ----- scripted matches -------------------------------------------------------------------


def short_match() -> ConnectionPair:
    """One deal of 32 cards that the host resigns at once: a complete match in 16 frames."""
    def resign_at_once(s: Session, ev: Event) -> None:
        if isinstance(ev, DealStarted):
            s.floor.resign()

    return _honest(RuleSet(pack_size=32, deals=1), host=Script("host", on_event=resign_at_once))


def named_match() -> ConnectionPair:
    """A short match between players whose names are emoji sequences, with a chat line of them."""
    family = "Ann \U0001F469\u200D\U0001F469\u200D\U0001F467"  # woman ZWJ woman ZWJ girl
    flag = "Bo \U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"  # Scotland: tag sequence
    heart = "\u2764\uFE0F \u0645\u0631\u062D\u0628\u0627"  # red heart + VS16, Arabic "marhaba"

    def resign_at_once(s: Session, ev: Event) -> None:
        if isinstance(ev, DealStarted):
            s.floor.chat(heart)
            s.floor.resign()

    pair = ConnectionPair(RuleSet(pack_size=32, deals=1), host=Script("host", on_event=resign_at_once))
    from p2ptrumps.wire.testing import make_side

    pair.host = make_side("host", "host", RuleSet(pack_size=32, deals=1), pair.host.script, name=family)
    pair.guest = make_side("guest", "guest", None, pair.guest.script, name=flag)
    pair.run()
    return pair


def draw_offer_match() -> ConnectionPair:
    """The guest offers a draw as deal 1 starts; the host answers only after the guest's
    second move (the offer stays open across moves) and accepts: the deal is an agreed draw."""
    seen = {"moves": 0}

    def guest_offers(s: Session, ev: Event) -> None:
        if isinstance(ev, DealStarted) and ev.number == 1:
            s.floor.offer_draw()

    def host_waits(s: Session, ev: Event) -> None:
        if isinstance(ev, MovePlayed) and ev.seat == 1 and s.deal_number == 1:
            seen["moves"] += 1
            if seen["moves"] == 2:
                s.floor.answer_draw(True)

    return _honest(RuleSet(pack_size=32, deals=1), host=Script("host", on_event=host_waits),
                   guest=Script("guest", on_event=guest_offers))


def leave_match() -> ConnectionPair:
    """Two deals of 32 cards; the guest leaves as deal 1 starts (protocol/wire.md §15)."""
    def guest_leaves(s: Session, ev: Event) -> None:
        if isinstance(ev, DealStarted) and ev.number == 1:
            s.floor.leave()

    return _honest(RuleSet(pack_size=32, deals=2), guest=Script("guest", on_event=guest_leaves))


def cycle_moves(pos: Position) -> list[Move]:
    """Six moves that bring the start position back (voluntary pick-up needed): the elder E
    leads a, the dealer D beats it with b and puts c, E picks the three up, D leads d, E
    beats it with b and puts c, D picks the three up -- both hands are as dealt, E to move."""
    elder, dealer = pos.to_move, 1 - pos.to_move
    te, td = pos.trumps[elder], pos.trumps[dealer]
    from p2ptrumps.cards import card_list
    from p2ptrumps.rules import BEATERS

    for a in card_list(pos.hands[elder]):
        for b in card_list(pos.hands[dealer] & BEATERS[td][a]):
            for c in card_list(pos.hands[dealer] & ~(1 << b)):
                for d in card_list(pos.hands[dealer] & ~(1 << b) & ~(1 << c)):
                    if BEATERS[te][d] >> b & 1:
                        return [Move(LEAD, a, NO_CARD), Move(BEAT, b, c), PICKUP_MOVE,
                                Move(LEAD, d, NO_CARD), Move(BEAT, b, c), PICKUP_MOVE]
    raise AssertionError("no cycle in this deal")


def cycle_match(rules: RuleSet) -> ConnectionPair:
    """Both seats play :func:`cycle_moves` from the start of the deal, then first legal moves."""
    plan: dict[int, list[Move]] = {}

    def choose(pos: Position, seat: int) -> Move:
        if pos.turn == 0:
            plan[0] = cycle_moves(pos)
        if pos.turn < len(plan.get(0, [])):
            return plan[0][pos.turn]
        return pos.legal_moves()[0]

    return _honest(rules, host=Script("host", choose=choose), guest=Script("guest", choose=choose))


def crossing_match() -> tuple[ConnectionPair, bytes]:
    """A guest chat that crosses a host move (protocol/wire.md §8.3): both claim one place;
    the guest withdraws its chat and re-signs it on top; the host ignores the crossing copy.
    Returns the pair and the crossing (superseded) chat frame."""
    def pause_host(s: Session, ev: Event) -> None:
        if isinstance(ev, DealStarted) and ev.number == 1:
            pair.host.script.paused = True

    rules = RuleSet(pack_size=32, deals=1)
    pair = ConnectionPair(rules, host=Script("host", on_event=pause_host))
    pair.run()
    pos = pair.host.session.position
    assert pos is not None
    if pos.to_move != 0:  # let the guest (elder) lead first: then the host is to move
        raise AssertionError("the host must be the elder here")
    pair.guest.session.floor.chat("good luck")
    crossing = pair.guest.session.data_to_send()
    pair.host.session.floor.play(pos.legal_moves()[0])
    pair.deliver(pair.host, pair.guest)  # the guest withdraws its chat and re-signs it
    pair.host.session.receive_data(crossing)  # superseded at the host
    pair.drain(pair.host)
    pair.host.script.paused = False
    pair.host.session.floor.resign()  # keep the logs short
    pair.drain(pair.host)
    pair.run()
    return pair, crossing


def chatty_match(line: str) -> ConnectionPair:
    """A match in which the guest chats ``line`` as much as the chat limits let it (protocol/wire.md
    §9.7): on each of its events, until its session refuses one; the host chats 'ok' once a deal."""
    def guest_chats(s: Session, ev: Event) -> None:
        if s.rules is None or s.finished:
            return
        for _ in range(MAX_CHATS_PER_TURN + 1):
            try:
                s.floor.chat(line)
            except LocalProtocolError:
                return

    def host_chats(s: Session, ev: Event) -> None:
        if isinstance(ev, DealStarted):
            s.floor.chat("ok")

    return _honest(RuleSet(pack_size=32, deals=1), host=Script("host", on_event=host_chats),
                   guest=Script("guest", on_event=guest_chats))


def guest_chat_frames(frames: list[bytes]) -> list[int]:
    """Indexes of the guest's chat frames."""
    out = []
    for k, x in enumerate(frames):
        v = encoding.unpack(x[4:])
        if v[0] == "msg" and v[5] == "chat" and v[2] == 1:
            out.append(k)
    return out


# ----- the cases ---------------------------------------------------------------------------


def build_cases() -> list[Case]:
    """The single-log cases (:func:`build_all`)."""
    return build_all()[0]


def build_all() -> tuple[list[Case], list[PairCase]]:
    """Every single-log case and every two-log case."""
    cases: list[Case] = []
    pairs: list[PairCase] = []

    def add(name: str, about: str, spec: str, expect: tuple[str, str | None, int | None, int | None, bool],
            data: bytes) -> None:
        cases.append(Case(name, about, spec, expect, data))

    pair = _honest()
    f = Forge(pair)
    H, G = f.host, f.guest
    host_id, guest_id = f.ids
    nonce = {0: fixed_bytes("host/nonce"), 1: fixed_bytes("guest/nonce")}

    # -- the honest match and the hostile guests of the first vectors --
    add("valid-host", "complete 2-deal match (32 cards), the host's log", "verify.md §4",
        ("valid", None, None, None, False), log(H))
    add("valid-guest", "the same match, the guest's log", "verify.md §4", ("valid", None, None, None, False), log(G))
    tampers: dict[str, tuple[str, int, int, bool]] = {
        "bad-signature": ("bad-signature", 12, 1, False),
        "broken-chain": ("broken-chain", 12, 1, False),
        "non-canonical": ("non-canonical", 12, 1, False),
        "map-not-array": ("non-canonical", 12, 1, False),
        "illegal-move": ("illegal-move", 12, 1, True),
        "wrong-position-hash": ("wrong-position-hash", 12, 1, True),
        "bad-reveal": ("bad-reveal", 9, 1, True),
        "oversized-frame": ("oversized-frame", 12, 1, False),
        "garbage-frame": ("garbage-frame", 12, 1, False),
        "sequence-gap": ("sequence-gap", 7, 1, False),
        "wrong-game": ("wrong-game", 12, 1, False),
    }
    assert sorted(tampers) == sorted(TAMPERS)
    for tamper in TAMPERS:
        side, _ = attack(tamper, RULES)
        code, index, offender, proven = tampers[tamper]
        add(f"invalid-{tamper}", f"the host's log of a guest that sent a {tamper} frame (live, replayed)",
            "wire.md §8.2, §11; verify.md §3.1", ("invalid", code, index, offender, proven), side.log_bytes())
    cut = len(log(H)) // 2
    add("unfinished-truncated", f"the valid host log cut at byte {cut} (mid-frame): a torn tail",
        "verify.md §1, §4", ("unfinished", None, None, None, False), log(H)[:cut])
    add("unfinished-mid-deal", "the valid host log, first 30 frames (a dropped connection)", "verify.md §4",
        ("unfinished", None, None, None, False), log(H[:30]))
    # one byte changed on disk: the last byte of a guest message's signature in the middle of the host's log
    hit = next(k for k in range(20, len(H))
               if isinstance(msg := m.decode_frame(H[k][4:]), m.Envelope) and msg.seat == 1)
    flipped = bytearray(log(H))
    flipped[len(log(H[:hit + 1])) - 1] ^= 0x01
    add("damaged-one-byte", f"the valid host log with one byte changed on disk (the last of frame #{hit}, a guest "
        "message's signature): no valid signature of the guest covers that frame, so the log is damaged there -- "
        "or the guest sent it so; the guest is named only by the owner's account, never proven",
        "verify.md §3.1", ("invalid", "bad-signature", hit, 1, False), bytes(flipped))

    # -- reading the file: torn tails, zero tails, unreadable files (verify.md §1) --
    short = short_match()
    S = [x.frame for x in short.host.log]
    add("valid-short", "a complete 1-deal match the host resigns at once, the host's log", "verify.md §4",
        ("valid", None, None, None, False), log(S))
    add("tail-torn-after-complete", "a complete match, then half of another frame: the frames before it are the "
        "log, so still valid", "wire.md §12; verify.md §1, §4", ("valid", None, None, None, False),
        log(S) + S[5][: len(S[5]) // 2])
    add("tail-zero-after-complete", "a complete match, then 4096 zero bytes (a crash on a file system with delayed "
        "allocation): a torn tail, not a length-0 frame, nobody's fault", "wire.md §12; verify.md §1",
        ("valid", None, None, None, False), log(S) + bytes(4096))
    add("tail-zero-3-bytes", "a complete match, then 3 zero bytes", "verify.md §1",
        ("valid", None, None, None, False), log(S) + bytes(3))
    add("tail-zero-unfinished", "the first 30 frames of a match, then 4096 zero bytes", "verify.md §1, §4",
        ("unfinished", None, None, None, False), log(H[:30]) + bytes(4096))
    add("tail-zero-length-then-bytes", "a length-0 prefix followed by bytes that are not all zero: a real "
        "length-0 frame, garbage-frame, received from the peer", "wire.md §2; verify.md §1, §3.1",
        ("invalid", "garbage-frame", 12, 1, False), log(H[:12]) + bytes(4) + b"\x01" + bytes(8))
    add("unreadable-header-only", "the header and nothing else", "verify.md §1",
        ("unreadable", None, None, None, False), LOG_MAGIC)
    add("unreadable-torn-first-frame", "the header and half of the owner's hello: no whole frame", "verify.md §1",
        ("unreadable", None, None, None, False), LOG_MAGIC + H[0][:20])
    add("unreadable-zero-tail-only", "the header and zero bytes: no whole frame", "verify.md §1",
        ("unreadable", None, None, None, False), LOG_MAGIC + bytes(64))
    add("unreadable-not-a-log", "no header", "verify.md §1", ("unreadable", None, None, None, False),
        b"hello world\n")
    add("unreadable-other-version", "the header of version 2", "verify.md §1",
        ("unreadable", None, None, None, False), b"p2ptrumps-log/2\n" + H[0])

    # -- where an unfinished log stops (verify.md §4) --
    add("unfinished-one-hello", "only the owner's hello", "verify.md §4", ("unfinished", None, None, None, False),
        log(H[:1]))
    add("unfinished-handshake", "both hellos, no message: the host was to propose the rules", "verify.md §4",
        ("unfinished", None, None, None, False), log(H[:2]))
    add("unfinished-after-rules", "the rules and nothing more: before the first deal, the guest to agree",
        "verify.md §4", ("unfinished", None, None, None, False), log(H[:3]))
    add("unfinished-forfeit", "deal 1's commitments and the host's reveal, then the guest never reveals: it "
        "forfeits", "wire.md §9.3; verify.md §4", ("unfinished", None, None, None, False), log(H[:9]))

    # -- decoding, one pass, first defect wins (wire.md §3.5) --
    def evidence(name: str, about: str, payload: bytes, code: str) -> None:
        add(name, about + ", sent by the guest as its next frame", "wire.md §3.5; verify.md §3.1",
            ("invalid", code, 12, 1, False), log(H[:12]) + framing.frame(payload))

    evidence("decode-depth-leaf", "[\"ping\", [[[[1]]]]]: the integer sits at depth 5, and leaves count",
             b"\x92\xa4ping\x91\x91\x91\x91\x01", "garbage-frame")
    evidence("decode-depth-4-empty", "[\"ping\", [[[[]]]]]: an empty array at depth 4 decodes; the ping's n is not "
             "a number, so malformed", b"\x92\xa4ping\x91\x91\x91\x90", "malformed")
    evidence("decode-invalid-utf8", "a str whose bytes are not UTF-8", b"\x92\xa3msg\xa2\xff\xfe", "garbage-frame")
    evidence("decode-surrogate-utf8", "a str holding an encoded surrogate (ed a0 80)", b"\x92\xa3msg\xa3\xed\xa0\x80",
             "garbage-frame")
    evidence("decode-map-before-cut", "a map, then a str cut short: the map comes first",
             b"\x92\x81\x01\x02\xa5ab", "non-canonical")
    evidence("decode-array-cut-short", "an array of 3 elements holding 2", b"\x93\xa4ping\x01", "garbage-frame")
    evidence("decode-str-cut-short", "a str of 5 bytes holding 2", b"\x92\xa4ping\xa5ab", "garbage-frame")
    evidence("decode-long-int-before-bad-utf8", "a non-minimal integer, then invalid UTF-8: the integer first",
             b"\x92\xcc\x05\xa2\xff\xfe", "non-canonical")
    evidence("decode-bad-utf8-before-map", "invalid UTF-8, then a map: the UTF-8 first", b"\x92\xa2\xff\xfe\x80",
             "garbage-frame")
    evidence("decode-float-then-trailing", "a float followed by trailing bytes", b"\xcb" + bytes(8) + b"\x01",
             "non-canonical")
    evidence("decode-array-over-limit", "an array of 17 elements", b"\xdc\x00\x11" + b"\x01" * 17, "garbage-frame")
    evidence("decode-array16-short", "an array16 header for 3 elements (not the shortest)",
             b"\xdc\x00\x03\xa4ping\x01\x02", "non-canonical")
    evidence("decode-c1", "the never-used byte c1", b"\x92\xa4ping\xc1", "garbage-frame")
    evidence("decode-not-an-array", "the integer 5", b"\x05", "garbage-frame")
    evidence("decode-unknown-type", "[\"bye\", 1]: not a frame type", b"\x92\xa3bye\x01", "garbage-frame")
    evidence("decode-trailing", "a whole msg frame of the guest followed by one byte", H[12][4:] + b"\x00",
             "non-canonical")

    # -- hellos (wire.md §7.1; verify.md §3: frames 0 and 1 name nobody) --
    host_hello, guest_hello = H[0], H[1]

    def peer_hello(name: str, about: str, frame: bytes, code: str) -> None:
        add(name, about, "wire.md §4.2, §7.1; verify.md §3.1", ("invalid", code, 1, None, False),
            log([host_hello, frame]))

    gk = guest_id.public_bytes
    peer_hello("hello-version-2", "the peer's hello speaks version 2",
               hello_frame(1, "guest", gk, nonce[1], version=2), "version")
    peer_hello("hello-version-before-count", "[\"hello\", 2]: a version other than 1 is `version` whatever the "
               "element count", frame_of(["hello", 2]), "version")
    peer_hello("hello-count", "a version 1 hello with 7 elements", frame_of(["hello", 1, 1, "guest", gk, nonce[1], 0]),
               "malformed")
    peer_hello("hello-version-bool", "a hello whose version is true", frame_of(["hello", True, 1, "guest", gk,
                                                                                 nonce[1]]), "malformed")
    peer_hello("hello-two-hosts", "the peer's hello claims the host's seat too",
               hello_frame(0, "guest", gk, nonce[1]), "version")
    peer_hello("hello-key-off-curve", "the peer's public key is not a point of the curve (y = 2)",
               hello_frame(1, "guest", OFF_CURVE_KEY, nonce[1]), "bad-key")
    peer_hello("hello-key-small-order", "the peer's public key is a point of small order (y = 0)",
               hello_frame(1, "guest", bytes(32), nonce[1]), "bad-key")
    peer_hello("hello-key-not-canonical", "the peer's public key has y >= p",
               hello_frame(1, "guest", (P + 3).to_bytes(32, "little"), nonce[1]), "bad-key")
    peer_hello("hello-same-key", "the peer's hello carries the owner's own key",
               hello_frame(1, "guest", host_id.public_bytes, nonce[1]), "bad-key")
    peer_hello("hello-same-nonce", "the peer's nonce repeats the owner's",
               hello_frame(1, "guest", gk, nonce[0]), "malformed")
    peer_hello("hello-seat-before-key", "two hosts and a bad key: the seat is checked first (check 8 before 9)",
               hello_frame(0, "guest", bytes(32), nonce[1]), "version")
    peer_hello("hello-name-bidi", "the peer's name holds U+202E (right-to-left override)",
               hello_frame(1, "gu\u202eest", gk, nonce[1]), "malformed")
    peer_hello("hello-name-41", "the peer's name has 41 characters (the limit is 40)",
               hello_frame(1, "g" * 41, gk, nonce[1]), "malformed")
    peer_hello("hello-name-empty", "the peer's name is empty", hello_frame(1, "", gk, nonce[1]), "malformed")
    peer_hello("prehello-message", "a message of the guest where its hello should be: nobody is named, nothing is "
               "proven (there is no key yet)", H[3], "out-of-turn")
    peer_hello("prehello-ping", "a ping where the peer's hello should be", frame_of(["ping", 1]), "malformed")
    add("owner-hello-off-curve", "the owner's own hello carries a key that is not a curve point: nobody is named",
        "wire.md §4.2; verify.md §3", ("invalid", "bad-key", 0, None, False),
        log([hello_frame(0, "host", OFF_CURVE_KEY, nonce[0]), guest_hello]))
    add("owner-hello-missing", "the log starts with a message, not its owner's hello", "verify.md §3",
        ("invalid", "out-of-turn", 0, None, False), log([H[2], host_hello, guest_hello]))
    add("third-hello-peer", "the peer's hello again after both hellos: out-of-turn, the peer by the owner's account",
        "wire.md §7.1; verify.md §3.1", ("invalid", "out-of-turn", 2, 1, False), log([*H[:2], guest_hello]))
    add("text-emoji-valid", "names with zero-width-joiner emoji and a flag tag sequence, and a chat line with a "
        "variation selector and Arabic letters: all allowed", "wire.md §5.1", ("valid", None, None, None, False),
        log([x.frame for x in named_match().host.log]))

    # -- reconnections and leaving (wire.md §14, §15) --
    resume = frame_of(["resume", 1, 1, f.gid, fixed_bytes("guest/resume-nonce")])
    add("resume-counted", "a short complete match, the host's log, with the guest's resume frame after message 8: "
        "one reconnection, skipped", "wire.md §14.3; verify.md §3", ("valid", None, None, None, False),
        log([*S[:10], resume, *S[10:]]))
    changed = bytearray(fixed_bytes("guest/resume-nonce"))
    changed[7] ^= 0x01
    add("resume-nonce-changed", "resume-counted with one bit of the resume frame's nonce changed on disk: no "
        "signature in the log covers the nonce, so the verdict is resume-counted's", "wire.md §14.3; verify.md §3",
        ("valid", None, None, None, False), log([*S[:10], frame_of(["resume", 1, 1, f.gid, bytes(changed)]), *S[10:]]))
    add("resume-other-game", "a resume frame for another game id", "wire.md §14.3; verify.md §3.1",
        ("invalid", "malformed", 12, 1, False),
        log([*H[:12], frame_of(["resume", 1, 1, bytes(32), fixed_bytes("guest/resume-nonce")])]))
    add("resume-owner-seat", "a resume frame with the owner's seat in the owner's log", "wire.md §14.3",
        ("invalid", "malformed", 12, 1, False),
        log([*H[:12], frame_of(["resume", 1, 0, f.gid, fixed_bytes("guest/resume-nonce")])]))
    add("resume-before-peer-hello", "a resume frame where the peer's hello should be", "wire.md §14.3; verify.md §3",
        ("invalid", "malformed", 1, None, False), log([H[0], resume]))
    add("resume-version-2", "a resume frame of version 2", "wire.md §14.1", ("invalid", "version", 12, 1, False),
        log([*H[:12], frame_of(["resume", 2, 1, f.gid, fixed_bytes("guest/resume-nonce")])]))
    add("proof-in-log", "a well-formed proof frame in a log: proofs are never logged, nobody is named",
        "wire.md §14.3; verify.md §3.1", ("invalid", "malformed", 12, None, False),
        log([*H[:12], frame_of(["proof", 10, bytes(64)])]))
    add("ticket-in-log", "a well-formed join ticket among the messages: admission frames are never logged, nobody "
        "is named", "wire.md §5, §7.3; verify.md §3, §3.1", ("invalid", "malformed", 12, None, False),
        log([*H[:12], frame_of(["ticket", fixed_bytes("ticket")[:10]])]))
    add("refuse-as-peer-hello", "a host's refuse where the peer's hello is due: never logged, nobody is named",
        "wire.md §7.3; verify.md §3", ("invalid", "malformed", 1, None, False),
        log([H[0], frame_of(["refuse", "ticket"])]))
    add("ticket-too-short", "a ticket frame of 7 bytes: its shape is malformed", "wire.md §5; verify.md §3",
        ("invalid", "malformed", 12, 1, False), log([*H[:12], frame_of(["ticket", bytes(7)])]))
    add("leave-in-play", "the guest leaves during deal 1 of 2: deal 1 is a resignation, deal 2 forfeited, both sign "
        "the score", "wire.md §15", ("valid", None, None, None, False), log([x.frame for x in leave_match().host.log]))
    lv = f.next(H[:12], 1, "leave", [])
    add("leave-twice", "the guest leaves twice", "wire.md §15", ("invalid", "out-of-turn", 13, 1, True),
        log([*H[:12], lv, f.next([*H[:12], lv], 1, "leave", [])]))

    # -- heartbeats in a log (wire.md §10; verify.md §3) --
    add("ping-in-log", "a well-formed ping among the messages: heartbeats are never logged, nobody is named",
        "wire.md §10; verify.md §3.1", ("invalid", "malformed", 12, None, False), log([*H[:12], frame_of(["ping", 7])]))
    add("pong-bad-in-log", "a pong whose n is 2^32: the peer sent a bad frame", "wire.md §5; verify.md §3.1",
        ("invalid", "malformed", 12, 1, False), log([*H[:12], frame_of(["pong", 1 << 32])]))

    # -- the owner's seat and the offender (verify.md §3) --
    _seat, seq, prev, items = f.body_of(H[12])
    add("owner-seat-forged", "a message claiming the owner's (host's) seat signed with the guest's key: the peer sent "
        "it, malformed", "wire.md §8.2; verify.md §3", ("invalid", "malformed", 12, 1, False),
        log([*H[:12], raw_msg_frame(guest_id, f.gid, 0, seq, prev, "move", items)]))
    add("owner-message-back", "the host's own first message again, in the host's log: the peer sent it back",
        "verify.md §3", ("invalid", "malformed", 12, 1, False), log([*H[:12], H[2]]))
    add("owner-message-off-end", "a genuine host message that does not take the end of the chain, in the host's "
        "log", "verify.md §3", ("invalid", "malformed", 11, 1, False), log([*H[:11], H[13]]))
    add("peer-message-repeat", "the guest's move twice in the host's log: a repeat proves nothing (the owner can "
        "copy a frame)", "wire.md §8.3 row e; verify.md §3.1", ("invalid", "sequence-gap", 13, 1, False),
        log([*H[:13], H[12]]))
    add("peer-message-dropped", "the host's log with a guest move and the host's answer left out: the next guest "
        "move is a gap, which proves nothing (the owner can drop a frame)", "wire.md §8.3 row b; verify.md §3.1",
        ("invalid", "sequence-gap", 12, 1, False), log(H[:12] + H[14:20]))
    add("guest-log-host-message-dropped", "the guest's log with a host move and the guest's answer left out: the "
        "next host move is a gap, the peer's by the owner's account", "wire.md §8.3 row b; verify.md §3.1",
        ("invalid", "sequence-gap", 11, 0, False), log(G[:11] + G[13:20]))
    add("peer-message-reordered", "two guest messages swapped in the host's log", "verify.md §3.1",
        ("invalid", "sequence-gap", 12, 1, False), log([*H[:12], H[14], H[13], H[12]]))

    gseat, gseq, gprev, gitems = f.body_of(G[11])  # the host's move, message 9, in the guest's log
    assert (gseat, gseq) == (0, 9)
    add("guest-log-broken-chain", "the guest's log: a host move signed on a prev that is no message of the chain: "
        "broken-chain, which proves nothing", "wire.md §8.3 row c; verify.md §3.1",
        ("invalid", "broken-chain", 11, 0, False),
        log([*G[:11], raw_msg_frame(host_id, f.gid, 0, gseq, bytes(32), "move", gitems)]))
    flipped = G[11][:-1] + bytes([G[11][-1] ^ 1])
    add("guest-log-bad-signature", "the guest's log: a host move whose signature fails (one bit flipped)",
        "wire.md §8.2; verify.md §3.1", ("invalid", "bad-signature", 11, 0, False), log([*G[:11], flipped]))
    add("owner-seat-wrong-game", "the host's log: a message with the host's seat and another game's id",
        "verify.md §3", ("invalid", "malformed", 12, 1, False),
        log([*H[:12], raw_msg_frame(host_id, bytes(32), 0, seq, prev, "chat", ["hi"])]))
    add("oversized-at-frame-1", "the owner's hello, then a length prefix of 2^20: nobody is named in frame 1",
        "verify.md §1, §3.1", ("invalid", "oversized-frame", 1, None, False),
        log([H[0]]) + (1 << 20).to_bytes(4, "big"))
    add("reveal-wrong-deal", "the guest reveals for deal 2 during deal 1", "wire.md §9.2",
        ("invalid", "bad-commitment", 9, 1, True), log([*H[:9], f.next(H[:9], 1, "reveal", [2, bytes(32)])]))

    # equivocation: the guest signs two different chats for one place (host's log)
    chat_a = f.next(H[:12], 1, "chat", ["hi"])
    chat_b = f.next(H[:12], 1, "chat", ["hello"])
    add("equivocation-guest", "two different guest chats for one place on one history: proven equivocation",
        "wire.md §8.3 row f; verify.md §3.1", ("invalid", "equivocation", 13, 1, True), log([*H[:12], chat_a, chat_b]))
    # equivocation: the host signs a message for a place its own later message had built past (guest's log)
    gchat = f.next(G[:12], 1, "chat", ["hi"])
    hchat = f.next([*G[:12], gchat], 0, "chat", ["ack"])
    _, gseq, gprev, _ = f.body_of(gchat)
    past = raw_msg_frame(host_id, f.gid, 0, gseq, gprev, "chat", ["rewrite"])
    add("equivocation-host-built-past", "the guest's log: guest chat at place n, a host chat after it, then a host "
        "chat for place n: the host signed two histories", "wire.md §8.3 row h; verify.md §3.1",
        ("invalid", "equivocation", 14, 0, True), log([*G[:12], gchat, hchat, past]))

    hchat_a = f.next(H[:12], 0, "chat", ["hi"], seq=10)
    hchat_b = f.next(H[:12], 0, "chat", ["hello"], seq=10)
    add("equivocation-owner", "the host's own log holds two different host chats for one place: the owner is "
        "proven at fault by its own signature", "wire.md §8.3 row f; verify.md §3", ("invalid", "equivocation", 13, 0,
                                                                                    True),
        log([*H[:12], hchat_a, hchat_b]))
    add("hellos-swapped", "the host's log with its two hellos swapped: the same signed chain, still valid",
        "verify.md §2", ("valid", None, None, None, False), log([H[1], H[0], *H[2:]]))

    # crossings: superseded and withdrawn messages are never faults
    cross, crossing = crossing_match()
    CH = [x.frame for x in cross.host.log]
    CG = [x.frame for x in cross.guest.log]
    add("crossing-guest-log", "a guest chat crossed a host move: the guest's log holds the withdrawn chat, the "
        "host's move and the re-signed chat; then the host's resignation crosses the guest's next chat and move (the "
        "move is dropped, the chat re-signed) and the host's deal-end crosses the chat once more",
        "wire.md §8.3 row g; verify.md §3", ("valid", None, None, None, False), log(CG))
    add("crossing-guest-log-hellos-swapped", "the guest's log of the crossing with its hellos swapped: the "
        "withdraw rule applies whoever owns the log, still valid", "verify.md §2, §3",
        ("valid", None, None, None, False), log([CG[1], CG[0], *CG[2:]]))
    add("crossing-host-log", "the same match, the host's log (the crossing copy was ignored, not logged)",
        "wire.md §8.3", ("valid", None, None, None, False), log(CH))
    host_move = f.where(CH, "move", 0)
    add("crossing-superseded-copy-in-host-log", "the host's log with the guest's crossing chat inserted after the "
        "host's move for that place: superseded, skipped, still valid", "wire.md §8.3 row a; verify.md §3",
        ("valid", None, None, None, False), log([*CH[:host_move + 1], crossing, *CH[host_move + 1:]]))
    add("crossing-superseded-copy-twice", "the host's log with the guest's crossing chat inserted twice after the "
        "host's move (the same bytes, as a resumed guest re-sends it): superseded both times, still valid",
        "wire.md §8.3 row a, §14.2; verify.md §3 step 4", ("valid", None, None, None, False),
        log([*CH[:host_move + 1], crossing, crossing, *CH[host_move + 1:]]))
    add("crossing-superseded-copy-at-end", "the host's log cut after the host's move, then the guest's crossing "
        "chat: skipped, the log is unfinished, not invalid", "wire.md §8.3 row a; verify.md §3",
        ("unfinished", None, None, None, False), log([*CH[:host_move + 1], crossing]))

    # a guest message superseded at a place another guest message had claimed (verify.md §3 step 4)
    host_chat = f.next(H[:12], 0, "chat", ["ack"])
    add("equivocation-guest-superseded-twice", "the host's log: a host chat at place 10, then two different guest "
        "chats for place 10 on the same history, both crossing it: the first is superseded, the second proves the "
        "guest signed two messages for one place", "wire.md §8.3; verify.md §3 step 4",
        ("invalid", "equivocation", 14, 1, True), log([*H[:12], host_chat, chat_a, chat_b]))
    chat_a2 = f.next([*H[:12], chat_a], 1, "chat", ["how are you"])
    chat_b2 = f.next([*H[:12], chat_a], 1, "chat", ["who are you"])
    add("equivocation-guest-superseded-chain", "the host's log as a host writes it as evidence (wire.md §12): a host "
        "chat at place 10, two guest chats for places 10 and 11 that crossed it (the second built on the first), "
        "then another guest chat for place 11 on the same history", "wire.md §8.3, §12; verify.md §3 step 4",
        ("invalid", "equivocation", 15, 1, True), log([*H[:12], host_chat, chat_a, chat_a2, chat_b2]))
    g_host_chat = f.next(G[:12], 0, "chat", ["ack"])
    g_chat_a = f.next(G[:12], 1, "chat", ["hi"])
    g_chat_b = f.next(G[:12], 1, "chat", ["hello"])
    assert g_chat_a == chat_a and g_host_chat == host_chat
    add("equivocation-guest-withdrawn-then-superseded", "the guest's log: its chat for place 10, withdrawn by the "
        "host's chat for place 10, then another guest chat for place 10 on the same history: the guest signed two "
        "messages for one place", "wire.md §8.3; verify.md §3 step 4", ("invalid", "equivocation", 14, 1, True),
        log([*G[:12], g_chat_a, g_host_chat, g_chat_b]))
    g_chat_a2 = f.next([*G[:12], g_chat_a], 1, "chat", ["how are you"])
    g_chat_a3 = f.next([*G[:12], g_chat_a, g_chat_a2], 1, "chat", ["well?"])
    g_chat_x = f.next([*G[:12], g_chat_a, g_chat_a2], 1, "chat", ["never mind"])
    add("equivocation-guest-withdrawn-beyond-end", "the guest's log: three tentative guest chats for places 10-12, "
        "withdrawn by the host's chat for place 10 (the chain is 11 long), then another guest chat for place 12 on "
        "the withdrawn history: a remembered place is checked before the rows (row b would say sequence-gap, "
        "malformed for the owner's seat)", "wire.md §8.3; verify.md §3 step 4",
        ("invalid", "equivocation", 16, 1, True),
        log([*G[:12], g_chat_a, g_chat_a2, g_chat_a3, g_host_chat, g_chat_x]))

    # bodies: checked after the signature, so a bad body proves its signer
    add("body-trump-out-of-range", "the guest signs trump suit 7", "wire.md §9.2; verify.md §3.1",
        ("invalid", "malformed", 5, 1, True), log([*H[:5], f.next(H[:5], 1, "trump", [7])]))
    add("body-rules-pack-40", "the host's own log: the host signs rules with a pack of 40 cards (the owner can be "
        "proven at fault by its own signature)", "wire.md §9.2; verify.md §3.1",
        ("invalid", "malformed", 2, 0, True), log([*H[:2], f.next(H[:2], 0, "rules", [40, True, False, 3, 1000, 1])]))
    add("body-rules-both-limits-off", "the host signs rules with repetition 0 and turn_limit 0: refused everywhere",
        "wire.md §9.2; record.md §2", ("invalid", "malformed", 2, 0, True),
        log([*H[:2], f.next(H[:2], 0, "rules", [32, True, False, 0, 0, 1])]))
    add("body-rules-repetition-off", "repetition 0 with a turn limit is allowed: unfinished after the rules",
        "wire.md §9.2", ("unfinished", None, None, None, False),
        log([*H[:2], f.next(H[:2], 0, "rules", [32, True, False, 0, 100, 1])]))
    add("body-bad-signature-first", "a guest trump of suit 7 whose signature fails: the signature is checked "
        "before the body, so nothing is proven", "wire.md §8.2; verify.md §3.1", ("invalid", "bad-signature", 5, 1,
                                                                                   False),
        log([*H[:5], f.next(H[:5], 1, "trump", [7], signer=0)]))
    add("body-chat-bidi", "a guest chat holding U+202E", "wire.md §5.1", ("invalid", "malformed", 12, 1, True),
        log([*H[:12], f.next(H[:12], 1, "chat", ["abc\u202edef"])]))
    add("body-chat-501", "a guest chat of 501 characters", "wire.md §5.1", ("invalid", "malformed", 12, 1, True),
        log([*H[:12], f.next(H[:12], 1, "chat", ["x" * 501])]))
    add("body-deal-zero", "a guest move naming deal 0 (outside 1..1000)", "wire.md §9.2",
        ("invalid", "malformed", 12, 1, True), log([*H[:12], f.next(H[:12], 1, "move", [0, *items[1:]])]))
    add("body-move-code-bool", "a move whose code is a boolean", "wire.md §9.2", ("invalid", "malformed", 12, 1, True),
        log([*H[:12], f.next(H[:12], 1, "move", [1, True, items[2]])]))

    # move codes (wire.md §9.5): the guest's real move spelled otherwise
    code = items[1]  # "KC/7D"
    assert code == "KC/7D", code
    spellings = [
        ("kc/7d", "non-canonical"), ("KC/7d", "non-canonical"), ("K\u2663/7\u2666", "non-canonical"),
        ("K\u2667/7\u2662", "non-canonical"),
        ("KC/7D ", "malformed"), (" KC/7D", "malformed"), ("KC / 7D", "malformed"), ("KC/KC", "malformed"),
        ("KC/kc", "malformed"), ("KC//", "malformed"), ("/7D", "malformed"), ("KX/7D", "malformed"), ("", "malformed"),
        ("1C/7D", "malformed"), ("K\uff23/7D", "malformed"),
    ]
    for k, (spelled, want) in enumerate(spellings):
        add(f"move-code-{k:02d}-{want}", f"the guest's move {code} spelled {spelled!r}", "wire.md §9.5",
            ("invalid", want, 12, 1, True), log([*H[:12], f.next(H[:12], 1, "move", [1, spelled, items[2]])]))
    # a pick-up and a lead spelled otherwise need a position where they are due: any position works for the shape
    for k, spelled in enumerate(["PICKUP", "pick up", "Pick-Up", "10C", "tc"]):
        add(f"move-code-variant-{k}", f"a guest move spelled {spelled!r}: another spelling of a move",
            "wire.md §9.5", ("invalid", "non-canonical", 12, 1, True),
            log([*H[:12], f.next(H[:12], 1, "move", [1, spelled, items[2]])]))
    add("move-code-not-in-pack", "a canonical code for a card outside the 32-card pack (2C): illegal-move",
        "wire.md §9.5", ("invalid", "illegal-move", 12, 1, True),
        log([*H[:12], f.next(H[:12], 1, "move", [1, "2C/7D", items[2]])]))

    # -- match rules (wire.md §9.2, §9.6; record.md §5.1) --
    add("trump-equal", "the guest chooses the host's trump suit", "wire.md §9.2",
        ("invalid", "out-of-turn", 5, 1, True), log([*H[:5], f.next(H[:5], 1, "trump", [0])]))
    add("commit-wrong-deal", "the host commits for deal 2 during deal 1", "wire.md §9.2",
        ("invalid", "bad-commitment", 6, 0, True), log([*H[:6], f.next(H[:6], 0, "commit", [2, bytes(32)])]))
    add("move-deal-above-agreed", "a guest move naming deal 3 of 2 agreed", "wire.md §9.2",
        ("invalid", "out-of-turn", 12, 1, True), log([*H[:12], f.next(H[:12], 1, "move", [3, *items[1:]])]))
    sf = Forge(short)
    sf_next = sf.next
    n_de = sf.where(S, "deal-end", 0) + 1
    assert sf.body_of(S[n_de - 1])[3] == [1, 1, "resign", 0, 2]
    for name, body, about in [
        ("deal-end-unknown-reason", [1, 1, "stalemate", 0, 2], "an unknown reason"),
        ("deal-end-winner-unfit", [1, None, "resign", 0, 2], "no winner with reason resign"),
        ("deal-end-wrong-score", [1, 1, "resign", 2, 0], "a wrong score"),
    ]:
        add(name, f"the guest's deal-end states {about}: one fault, wrong-result", "wire.md §9.2",
            ("invalid", "wrong-result", n_de, 1, True),
            log([*S[:n_de], sf.next(S[:n_de], 1, "deal-end", body)]))
    add("deal-end-wrong-deal", "the guest's deal-end names deal 2 during deal 1: its deal field, out-of-turn as in "
        "every body", "wire.md §9.2 (deal fields)", ("invalid", "out-of-turn", n_de, 1, True),
        log([*S[:n_de], sf.next(S[:n_de], 1, "deal-end", [2, 1, "resign", 0, 2])]))
    add("deal-end-winner-2", "a deal-end whose winner is 2 (outside 0, 1, nil): the shape", "wire.md §9.2",
        ("invalid", "malformed", n_de, 1, True),
        log([*S[:n_de], sf.next(S[:n_de], 1, "deal-end", [1, 2, "out", 0, 2])]))
    n_me = sf.where(S, "match-end", 0) + 1
    add("match-end-wrong", "the guest signs the match score 2:0 (half-points)", "wire.md §9.2",
        ("invalid", "wrong-result", n_me, 1, True), log([*S[:n_me], sf.next(S[:n_me], 1, "match-end", [2, 0])]))
    rem = sf.next(S, 1, "rematch", [])
    add("rematch-twice", "the guest sends rematch twice", "wire.md §9.2",
        ("invalid", "out-of-turn", len(S) + 1, 1, True), log([*S, rem, sf.next([*S, rem], 1, "rematch", [])]))
    add("rematch-both", "both send rematch: the session is finished, valid", "wire.md §9.4",
        ("valid", None, None, None, False), log([*S, rem, sf.next([*S, rem], 0, "rematch", [])]))

    # draw offers
    dm = draw_offer_match()
    D = [x.frame for x in dm.host.log]
    add("draw-offer-survives-moves", "the guest offers a draw; two moves later the host accepts it: agreed-draw",
        "wire.md §9.6", ("valid", None, None, None, False), log(D))
    k_end = f.where(D, "deal-end")
    dforge = Forge(dm)
    add("draw-answer-after-deal-end", "an answer-draw after the deal ended: out of its phase", "wire.md §9.6",
        ("invalid", "out-of-turn", k_end, 1, True),
        log([*D[:k_end], dforge.next(D[:k_end], 1, "answer-draw", [1, True])]))
    k_offer = f.where(D, "offer-draw")
    add("draw-offer-while-open", "the host offers a draw while the guest's offer is open", "wire.md §9.6",
        ("invalid", "out-of-turn", k_offer + 1, 0, True),
        log([*D[:k_offer + 1], dforge.next(D[:k_offer + 1], 0, "offer-draw", [1])]))
    decline = dforge.next(D[: k_offer + 1], 0, "answer-draw", [1, False])
    again = dforge.next([*D[:k_offer + 1], decline], 1, "offer-draw", [1])
    add("draw-offer-twice-in-a-turn", "the host declines; the guest offers again in the same turn", "wire.md §9.6",
        ("invalid", "out-of-turn", k_offer + 2, 1, True), log([*D[:k_offer + 1], decline, again]))
    add("draw-answer-own-offer", "the guest answers its own offer", "wire.md §9.2",
        ("invalid", "out-of-turn", k_offer + 1, 1, True),
        log([*D[:k_offer + 1], dforge.next(D[:k_offer + 1], 1, "answer-draw", [1, True])]))

    # how a deal ends (record.md §5.1)
    rep2 = RuleSet(pack_size=32, deals=1, voluntary_pickup=True, repetition=2, turn_limit=1000)
    add("repetition-start-counts", "repetition 2: six moves bring the start position back, its second occurrence: "
        "drawn by repetition", "record.md §5.1", ("valid", None, None, None, False),
        log([x.frame for x in cycle_match(rep2).host.log]))
    both = RuleSet(pack_size=32, deals=1, voluntary_pickup=True, repetition=2, turn_limit=6)
    add("repetition-and-turn-limit", "repetition 2 and turn limit 6: the sixth move repeats the start and reaches "
        "the limit: repetition", "record.md §5.1", ("valid", None, None, None, False),
        log([x.frame for x in cycle_match(both).host.log]))
    limit = RuleSet(pack_size=32, deals=1, voluntary_pickup=True, repetition=3, turn_limit=6)
    add("turn-limit-reached", "repetition 3 and turn limit 6: the same six moves end at the turn limit",
        "record.md §5.1", ("valid", None, None, None, False), log([x.frame for x in cycle_match(limit).host.log]))
    add("refused-rules", "the guest refuses the rules: valid, no match", "wire.md §9.2",
        ("valid", None, None, None, False), log([*H[:2], H[2], f.next(H[:3], 1, "agree", [False])]))
    refused = [*H[:3], f.next(H[:3], 1, "agree", [False])]
    add("message-after-refused", "a chat after the guest refused the rules", "wire.md §9.1",
        ("invalid", "out-of-turn", 4, 1, True), log([*refused, f.next(refused, 1, "chat", ["hi"])]))

    # -- chat limits (wire.md §9.7): per turn, per match, bytes per match --
    turn = [*H[:12]]
    for k in range(MAX_CHATS_PER_TURN):
        turn.append(f.next(turn, 1, "chat", [f"line {k}"]))
    over = f.next(turn, 1, "chat", ["one more"])
    add("chat-limit-turn", f"the guest sends {MAX_CHATS_PER_TURN + 1} chats in one turn (before its move)",
        "wire.md §9.7", ("invalid", "chat-limit", 12 + MAX_CHATS_PER_TURN, 1, True), log([*turn, over]))
    both_seats = [*turn]
    for k in range(MAX_CHATS_PER_TURN):
        both_seats.append(f.next(both_seats, 0, "chat", [f"host line {k}"]))
    add("chat-limit-per-seat", f"{MAX_CHATS_PER_TURN} chats of the guest and then {MAX_CHATS_PER_TURN} of the host "
        "in one turn: each seat has its own limit, unfinished", "wire.md §9.7", ("unfinished", None, None, None, False),
        log(both_seats))
    _, _, _, move_items = f.body_of(H[12])
    next_turn = [*turn, f.next(turn, 1, "move", move_items)]
    for k in range(MAX_CHATS_PER_TURN):
        next_turn.append(f.next(next_turn, 1, "chat", [f"again {k}"]))
    add("chat-limit-new-turn", f"{MAX_CHATS_PER_TURN} guest chats, the guest's move, {MAX_CHATS_PER_TURN} more: a "
        "floor message starts a new turn, unfinished", "wire.md §9.7", ("unfinished", None, None, None, False),
        log(next_turn))
    interj = [*turn, f.next(turn, 1, "offer-draw", [1])]
    add("chat-limit-interjection-same-turn", "10 guest chats, a guest draw offer, one more chat: an interjection "
        "starts no new turn", "wire.md §9.7", ("invalid", "chat-limit", 13 + MAX_CHATS_PER_TURN, 1, True),
        log([*interj, f.next(interj, 1, "chat", ["and one more"])]))
    many = chatty_match("gg")
    MH = [x.frame for x in many.host.log]
    chats = guest_chat_frames(MH)
    assert len(chats) == MAX_CHATS_PER_MATCH, len(chats)
    add("chat-at-the-limits", f"the guest chats {MAX_CHATS_PER_MATCH} times, {MAX_CHATS_PER_TURN} a turn, as "
        "much as the limits allow: the host's log, valid", "wire.md §9.7", ("valid", None, None, None, False),
        log(MH))
    add("chat-at-the-limits-guest", "the same match, the guest's log", "wire.md §9.7",
        ("valid", None, None, None, False), log([x.frame for x in many.guest.log]))
    mforge = Forge(many)
    cut = next(k for k in range(chats[-1] + 1, len(MH)) if encoding.unpack(MH[k][4:])[5] not in ("chat",))
    add("chat-limit-match", f"the host's log of that match up to the first floor message after the guest's "
        f"{MAX_CHATS_PER_MATCH}th chat, then one more guest chat", "wire.md §9.7",
        ("invalid", "chat-limit", cut + 1, 1, True),
        log([*MH[:cut + 1], mforge.next(MH[:cut + 1], 1, "chat", ["one too many"])]))
    wide = "é" * 500  # 500 characters, 1000 bytes
    heavy = chatty_match(wide)
    WH = [x.frame for x in heavy.host.log]
    wchats = guest_chat_frames(WH)
    assert len(wchats) == MAX_CHAT_BYTES_PER_MATCH // 1000, len(wchats)
    wforge = Forge(heavy)
    wcut = wchats[-1] + 1
    add("chat-limit-bytes", f"the guest's {len(wchats)} chats of 1000 bytes each, then one more, in the same turn: "
        f"{MAX_CHAT_BYTES_PER_MATCH} bytes of chat a match are the most", "wire.md §9.7",
        ("invalid", "chat-limit", wcut, 1, True), log([*WH[:wcut], wforge.next(WH[:wcut], 1, "chat", [wide])]))
    add("chat-limit-bytes-short-line-fits", "the same, but the last chat has 700 bytes: it fits, unfinished",
        "wire.md §9.7", ("unfinished", None, None, None, False),
        log([*WH[:wcut], wforge.next(WH[:wcut], 1, "chat", ["é" * 350])]))
    done = [*S]
    for k in range(MAX_CHATS_PER_TURN):
        done.append(sf_next(done, 1, "chat", [f"gg {k}"]))
    add("chat-after-the-match", f"a complete match, then {MAX_CHATS_PER_TURN} guest chats: valid (chat is allowed "
        "in phase done, one turn)", "wire.md §9.7, §12", ("valid", None, None, None, False), log(done))
    add("chat-limit-after-the-match", f"a complete match, then {MAX_CHATS_PER_TURN + 1} guest chats: a log no peer "
        "writes (it drops such a chat, wire.md §12), invalid", "wire.md §9.7, §12; verify.md §3",
        ("invalid", "chat-limit", len(done), 1, True), log([*done, sf_next(done, 1, "chat", ["bye"])]))

    # -- the hand-made logs (kept as they are) --
    for name, expect in [
        ("case-third-hello", ("invalid", "out-of-turn", 2, 1, False)),
        ("case-prehello-forged", ("invalid", "out-of-turn", 1, None, False)),
        ("case-superseded-in-hostlog", ("valid", None, None, None, False)),
        ("case-rules-both-limits-off", ("invalid", "malformed", 2, 0, True)),
        ("case-dealend-wrong-deal", ("invalid", "out-of-turn", 228, 0, True)),
    ]:
        add(name, CASE_NOTES[name], CASE_SPECS[name], expect, (HERE / "wire" / f"{name}.log").read_bytes())

    settled(add, f, H, S, sf, nonce)

    # -- two logs of one game (verify.md §6): the logs made for pairs, then the pairs --
    short_guest = [x.frame for x in short.guest.log]
    add("pair-short-guest", "the guest's log of the short match (valid-short is the host's)", "verify.md §4",
        ("valid", None, None, None, False), log(short_guest))
    add("pair-guest-cut", "the guest's log of the 2-deal match, its first 41 frames", "verify.md §4",
        ("unfinished", None, None, None, False), log(G[:41]))
    tentative = f.where(CG, "chat", 1)
    add("pair-crossing-guest-cut-tentative", "the guest's log of the crossing, cut just after its chat that crossed "
        "the host's move: the chat is still in its chain (tentative)", "wire.md §8.3; verify.md §4",
        ("unfinished", None, None, None, False), log(CG[:tentative + 1]))
    add("pair-crossing-host-cut-before-move", "the host's log of the crossing, cut before the host's move that "
        "displaced the guest's chat", "verify.md §4", ("unfinished", None, None, None, False), log(CH[:host_move]))
    add("pair-host-equivocates-host-log", "the host's log: a host chat 'hi' for place 10", "verify.md §4",
        ("unfinished", None, None, None, False), log([*H[:12], hchat_a]))
    g_hchat_b = f.next(G[:12], 0, "chat", ["hello"])
    assert f.body_of(g_hchat_b)[:3] == f.body_of(hchat_a)[:3]
    add("pair-host-equivocates-guest-log", "the guest's log: a host chat 'hello' for place 10", "verify.md §4",
        ("unfinished", None, None, None, False), log([*G[:12], g_hchat_b]))
    add("pair-host-built-past-host-log", "the host's log: a guest chat at place 10, the host's chat 'ack' after "
        "it", "verify.md §4", ("unfinished", None, None, None, False),
        log([*H[:12], gchat, f.next([*H[:12], gchat], 0, "chat", ["ack"])]))
    assert f.next([*H[:12], gchat], 0, "chat", ["ack"]) == hchat
    add("pair-host-built-past-guest-log", "the guest's log: its chat at place 10, withdrawn by a host chat "
        "'rewrite' for place 10", "wire.md §8.3 row g; verify.md §4", ("unfinished", None, None, None, False),
        log([*G[:12], gchat, past]))
    add("pair-guest-equivocates-host-log", "the host's log: a guest chat 'hi' for place 10", "verify.md §4",
        ("unfinished", None, None, None, False), log([*H[:12], chat_a]))
    add("pair-guest-equivocates-guest-log", "the guest's log: its chat 'hello' for place 10", "verify.md §4",
        ("unfinished", None, None, None, False), log([*G[:12], g_chat_b]))
    add("pair-guest-withdrawn-host-log", "the host's log: a host chat at place 10, then a guest chat 'hello' for "
        "place 10 that crossed it: superseded", "wire.md §8.3 row a; verify.md §4",
        ("unfinished", None, None, None, False), log([*H[:12], host_chat, chat_b]))
    add("pair-guest-withdrawn-guest-log", "the guest's log: its chat 'hi' for place 10, withdrawn by the host's "
        "chat for place 10", "wire.md §8.3 row g; verify.md §4", ("unfinished", None, None, None, False),
        log([*G[:12], g_chat_a, g_host_chat]))

    def pair(name: str, files: tuple[str, str], about: str, spec: str,
             expect: tuple[str, str | None, tuple[tuple[int, int], ...], int | None, bool, str | None, int | None],
             ) -> None:
        pairs.append(PairCase(name, (f"wire/{files[0]}.log", f"wire/{files[1]}.log"), about, spec, expect))

    ok_same = ("valid", None, (), None, False, "same", 0)
    pair("same", ("valid-host", "valid-guest"), "the host's and the guest's log of one complete match",
         "verify.md §6.4", ok_same)
    pair("same-reversed", ("valid-guest", "valid-host"), "the same two logs in the other order", "verify.md §6",
         ok_same)
    pair("same-owner-hellos-swapped", ("valid-host", "hellos-swapped"), "the host's log and a copy of it with its "
         "hellos swapped: two logs of one owner, one chain", "verify.md §6, §6.1", ok_same)
    pair("prefix-host-cut", ("unfinished-mid-deal", "valid-guest"), "the host's log stops mid-deal (28 messages); "
         "the guest's is complete: the host's chain is a prefix", "verify.md §6.4",
         ("valid", None, (), None, False, "prefix", 1))
    pair("prefix-guest-cut", ("valid-host", "pair-guest-cut"), "the guest's log stops mid-deal; the host's is "
         "complete", "verify.md §6.4", ("valid", None, (), None, False, "prefix", 0))
    pair("prefix-one-hello", ("unfinished-one-hello", "valid-guest"), "a host log with only its own hello, the same "
         "hello as in the guest's log: an empty chain, a prefix of any", "verify.md §6.1, §6.4",
         ("valid", None, (), None, False, "prefix", 1))
    pair("prefix-both-unfinished", ("unfinished-mid-deal", "pair-guest-cut"), "both logs stop mid-deal: one "
         "chain, unfinished", "verify.md §6.2", ("unfinished", None, (), None, False, "prefix", 1))
    pair("crossing-same", ("crossing-host-log", "crossing-guest-log"), "a match with crossings: the guest's log "
         "holds its withdrawn messages, the host's does not; the chains are the same", "wire.md §8.3; verify.md §6.1",
         ok_same)
    pair("crossing-superseded-copy", ("crossing-superseded-copy-in-host-log", "crossing-guest-log"), "the host's "
         "log holds the guest's superseded crossing chat, the guest's log the withdrawn one: the same chain",
         "wire.md §8.3; verify.md §6.1", ok_same)
    pair("crossing-tentative-tail", ("crossing-host-log", "pair-crossing-guest-cut-tentative"), "the guest's log "
         "ends with its chat at the place the host's move took: a tentative message displaced, consistent",
         "wire.md §8.3 row g; verify.md §6.4", ("valid", None, (), None, False, "crossing", 0))
    pair("crossing-tentative-tail-reversed", ("pair-crossing-guest-cut-tentative", "crossing-host-log"), "the same "
         "pair in the other order", "verify.md §6.4", ("valid", None, (), None, False, "crossing", 1))
    pair("prefix-past-a-withdrawal", ("pair-crossing-host-cut-before-move", "crossing-guest-log"), "the host's log "
         "stops before its move; the guest's holds the chat that move withdrew, the move and the re-signed chat: "
         "the withdrawn chat is not in the chain, so the host's chain is a prefix", "verify.md §6.1, §6.4",
         ("valid", None, (), None, False, "prefix", 1))
    pair("equivocation-host-one-place", ("pair-host-equivocates-host-log", "pair-host-equivocates-guest-log"),
         "the host signed chat 'hi' for place 10 in one log and chat 'hello' for place 10 in the other",
         "wire.md §8.3; verify.md §6.3 (a)", ("invalid", "equivocation", ((0, 12), (1, 12)), 0, True, None, None))
    pair("equivocation-host-built-past", ("pair-host-built-past-host-log", "pair-host-built-past-guest-log"),
         "the host's log: a guest chat at place 10 and the host's chat after it; the guest's: a host chat for "
         "place 10: the host signed two histories", "wire.md §8.3 row h; verify.md §6.3 (b)",
         ("invalid", "equivocation", ((0, 13), (1, 13)), 0, True, None, None))
    pair("equivocation-host-reused-hello", ("valid-host", "valid-short"), "two matches played on the same two "
         "hellos: the host signed two rule sets for place 0", "wire.md §7.2; verify.md §6.3 (a)",
         ("invalid", "equivocation", ((0, 2), (1, 2)), 0, True, None, None))
    pair("equivocation-guest-one-place", ("pair-guest-equivocates-host-log", "pair-guest-equivocates-guest-log"),
         "the guest signed chat 'hi' for place 10 in one log and chat 'hello' for place 10 in the other",
         "wire.md §8.3; verify.md §6.3 (a)", ("invalid", "equivocation", ((0, 12), (1, 12)), 1, True, None, None))
    pair("equivocation-guest-withdrawn", ("pair-guest-withdrawn-host-log", "pair-guest-withdrawn-guest-log"),
         "the guest's withdrawn chat in its log and a different guest chat for the same place, superseded in the "
         "host's log: both chains are the same, but the guest signed two messages for one place",
         "verify.md §6.3 (a)", ("invalid", "equivocation", ((0, 13), (1, 12)), 1, True, None, None))
    pair("different-games", ("valid-host", "text-emoji-valid"), "two logs of different matches (other hellos)",
         "verify.md §6.2", ("different-games", None, (), None, False, None, None))
    pair("different-games-one-hello", ("unfinished-one-hello", "text-emoji-valid"), "a log with only the host's "
         "hello, and a log of another match whose host hello differs", "verify.md §6.2",
         ("different-games", None, (), None, False, None, None))
    pair("same-owner-host", ("valid-host", "valid-host"), "the host's log given twice: one seat's logs, no pair",
         "verify.md §6, §6.2 step 4", ("same-owner", None, (), None, False, None, None))
    pair("same-owner-guest", ("pair-guest-cut", "valid-guest"), "the guest's log cut mid-deal and the whole of it: "
         "one seat's logs, no pair", "verify.md §6.2 step 4",
         ("same-owner", None, (), None, False, None, None))
    pair("unreadable-one", ("valid-host", "unreadable-not-a-log"), "the second file is not a match log",
         "verify.md §6.2", ("unreadable", None, (), None, False, None, None))
    pair("invalid-one-unproven", ("decode-c1", "valid-guest"), "the host's log ends on a garbage frame it received: "
         "that log's fault, the guest by the host's account, not proven", "verify.md §6.2 step 5",
         ("invalid", "garbage-frame", ((0, 12),), 1, False, "prefix", 1))
    pair("invalid-both-proven-first", ("decode-c1", "equivocation-host-built-past"), "both logs invalid on their "
         "own: the host's unproven, the guest's proven (the host's equivocation in it): the proven one is named",
         "verify.md §6.2 step 5", ("invalid", "equivocation", ((1, 14),), 0, True, "prefix", 1))
    pair("tail-zero", ("tail-zero-unfinished", "valid-guest"), "the host's log stops mid-deal in 4096 zero bytes: "
         "the zeros are not part of it, its chain is a prefix", "verify.md §1, §6.1",
         ("valid", None, (), None, False, "prefix", 1))
    pair("tail-torn", ("unfinished-truncated", "valid-guest"), "the host's log cut in the middle of a frame",
         "verify.md §1, §6.1", ("valid", None, (), None, False, "prefix", 1))
    pair("tail-zero-after-complete", ("tail-zero-after-complete", "pair-short-guest"), "a complete host log with "
         "a zero tail and the guest's log: the same chain", "verify.md §1, §6.1", ok_same)
    pair("tail-torn-after-complete", ("tail-torn-after-complete", "pair-short-guest"), "a complete host log with "
         "half a frame after it and the guest's log: the same chain", "verify.md §1, §6.1", ok_same)
    pair("resume-frame", ("resume-counted", "pair-short-guest"), "the host's log holds a resume frame (one "
         "reconnection), the guest's does not: frames outside the chain are not compared", "wire.md §14.3; "
         "verify.md §6.1", ok_same)
    return cases, pairs


def _next_signed(frames: list[bytes], signer: Any, gid: bytes, seat: int, kind: str, items: list[Any]) -> bytes:
    """A message of ``seat`` signed by ``signer`` for the place after the chain of ``frames``."""
    chain = verify_log(log(frames))._chain
    assert chain is not None
    return raw_msg_frame(signer, gid, seat, len(chain), chain.head, kind, items)


def resigned(f: Forge, frames: list[bytes], rest: list[bytes]) -> list[bytes]:
    """``frames`` (ending with a message, no crossing in flight) followed by the messages of
    ``rest`` signed again, each at the next place (the same seat, kind and body): a history with
    something inserted before ``rest``."""
    out = list(frames)
    seq = f.body_of(out[-1])[1]
    for x in rest:
        seat, _seq, _prev, items = f.body_of(x)
        seq += 1
        out.append(f.next(out, seat, encoding.unpack(x[4:])[5], items, seq=seq, prev=m.message_hash(out[-1][4:])))
    return out


def settled(add: Any, f: Forge, H: list[bytes], S: list[bytes], sf: Forge, nonce: dict[int, bytes]) -> None:
    """The cases of the points settled after an outside implementer's verifier disagreed (D0-D3)
    or had to guess (G1-G14): its reproducing logs, kept as they are (``case-indep-*``), and
    logs made here for each answer."""
    host_id, guest_id = f.ids
    gk = guest_id.public_bytes
    for name, expect in INDEP_CASES.items():
        add(name, INDEP_NOTES[name], INDEP_SPECS[name], expect, (HERE / "wire" / f"{name}.log").read_bytes())

    # D0, G6: when a leave forfeits (wire.md §15)
    L = [x.frame for x in leave_match().host.log]
    lf = Forge(leave_match())
    k = lf.where(L, "leave")
    add("leave-in-play-cut-at-leave", "the guest leaves in play (deal 1 of 2) and the log stops: deal 1 is its "
        "resignation, deal 2 is not forfeited yet (`left` set, `forfeited` [])", "wire.md §15; verify.md §5",
        ("unfinished", None, None, None, False), log(L[:k + 1]))
    add("leave-in-play-cut-after-host-statement", "the same, stopped after the host's deal-end statement: still "
        "nothing forfeited", "wire.md §15; verify.md §5", ("unfinished", None, None, None, False), log(L[:k + 2]))
    add("leave-in-play-cut-after-statements", "the same, stopped after both deal-end statements: deal 2 is "
        "forfeited now, and in the score", "wire.md §15; verify.md §5", ("unfinished", None, None, None, False),
        log(L[:k + 3]))
    de = lf.body_of(L[k + 1])[3]
    assert de == [1, 0, "resign", 2, 0], de
    add("leave-deal-end-counts-forfeits", "after the guest's leave in play the host's deal-end states the score "
        "with the forfeited deal 2 in it (4:0): the statement due has 2:0", "wire.md §9.2, §15",
        ("invalid", "wrong-result", k + 1, 0, True), log([*L[:k + 1], lf.next(L[:k + 1], 0, "deal-end",
                                                                              [1, 0, "resign", 4, 0])]))
    add("leave-in-commit", "the guest leaves in phase commit of deal 1: both deals are forfeited at once",
        "wire.md §15; verify.md §5", ("unfinished", None, None, None, False),
        log([*H[:6], f.next(H[:6], 1, "leave", [])]))
    kd = f.where(H, "deal-end", 0)
    with_leave = [*H[:kd + 1], f.next(H[:kd + 1], 1, "leave", [])]
    add("leave-in-deal-end", "the guest leaves between the two deal-end statements of deal 1, then signs its "
        "statement (the same as due before the leave): deal 2 is forfeited with it", "wire.md §15; verify.md §5",
        ("unfinished", None, None, None, False), log(resigned(f, with_leave, [H[kd + 1]])))
    add("leave-by-both", "the guest leaves in play, then the host leaves too (phase deal-end allows a leave): at "
        "most one leave per match", "wire.md §15", ("invalid", "out-of-turn", k + 1, 0, True),
        log([*L[:k + 1], lf.next(L[:k + 1], 0, "leave", [])]))
    n_me = sf.where(S, "match-end", 0)
    add("leave-in-match-end", "the guest leaves in phase match-end: out of its phases", "wire.md §15",
        ("invalid", "out-of-turn", n_me, 1, True), log([*S[:n_me], sf.next(S[:n_me], 1, "leave", [])]))

    # D1, D2, G10, G14: the shape of every frame first (wire.md §5.2; verify.md §3)
    add("prehello-message-bad-body", "a guest trump of suit 7 where the guest's hello should be: its fields "
        "are right, so out of turn (its body and signature are never looked at)", "wire.md §5.2; verify.md §3",
        ("invalid", "out-of-turn", 1, None, False), log([H[0], f.next(H[:5], 1, "trump", [7])]))
    add("second-hello-key-off-curve", "the peer's hello again with a key that is not a curve point: its shape "
        "is right, so out of turn (check 9 is made only for the first)", "wire.md §5.2, §7.1; verify.md §3",
        ("invalid", "out-of-turn", 12, 1, False), log([*H[:12], hello_frame(1, "guest", OFF_CURVE_KEY, nonce[1])]))
    add("second-hello-version-2", "a hello of version 2 after the messages began: its shape fails first",
        "wire.md §5.2, §7.1; verify.md §3.1", ("invalid", "version", 12, 1, False),
        log([*H[:12], hello_frame(1, "guest", gk, nonce[1], version=2)]))
    resume2 = frame_of(["resume", 2, 1, f.gid, fixed_bytes("guest/resume-nonce")])
    add("resume-version-2-at-frame-0", "a resume of version 2 where the owner's hello should be: its shape "
        "(version) first", "wire.md §5.2, §14.1; verify.md §3", ("invalid", "version", 0, None, False),
        log([resume2, H[1]]))
    add("resume-version-2-at-frame-1", "a resume of version 2 where the peer's hello should be", "wire.md §5.2, "
        "§14.1; verify.md §3", ("invalid", "version", 1, None, False), log([H[0], resume2]))
    add("resume-seat-2", "a resume frame whose seat is 2", "wire.md §14.1", ("invalid", "malformed", 12, 1, False),
        log([*H[:12], frame_of(["resume", 1, 2, f.gid, fixed_bytes("guest/resume-nonce")])]))

    # the thinner fault codes, by the host in the guest's log
    G = f.guest
    _gseat, gseq, gprev, gitems = f.body_of(G[11])  # the host's move, message 9, in the guest's log
    other_gid = hashlib.sha256(b"another game").digest()
    add("guest-log-wrong-game", "the guest's log: a host move made for another game (its game field and "
        "signature): wrong-game, the host by the owner's account", "wire.md §7.2, §8.2; verify.md §3.1",
        ("invalid", "wrong-game", 11, 0, False),
        log([*G[:11], raw_msg_frame(host_id, other_gid, 0, gseq, gprev, "move", gitems)]))
    add("guest-log-wrong-position-hash", "the guest's log: the host's move with another position hash",
        "wire.md §9.2", ("invalid", "wrong-position-hash", 11, 0, True),
        log([*G[:11], f.next(G[:11], 0, "move", [gitems[0], gitems[1], bytes(32)])]))
    add("owner-bad-reveal", "the host's own log: the host reveals a secret that does not open its commitment",
        "wire.md §9.2; verify.md §3.1", ("invalid", "bad-reveal", 8, 0, True),
        log([*H[:8], f.next(H[:8], 0, "reveal", [1, bytes(32)])]))

    # G1: a length fault in the very first frame (verify.md §1 step 3)
    add("unreadable-length-0-first", "the header, then a length-0 prefix and other bytes: no whole frame, "
        "unreadable (not a fault of anyone)", "verify.md §1", ("unreadable", None, None, None, False),
        LOG_MAGIC + bytes(4) + H[0][4:])
    add("unreadable-oversized-first", "the header, then a length prefix of 2^20: no whole frame, unreadable",
        "verify.md §1", ("unreadable", None, None, None, False), LOG_MAGIC + (1 << 20).to_bytes(4, "big") + H[0])

    # G7: the Ed25519 equation (wire.md §4.1)
    for name, torsion, mode, expect, about in [
        ("sig-torsion-key-valid", True, "k0", ("unfinished", None, None, None, False),
         "the guest's key has an order-8 component (§4.2 accepts it) and each of its signatures has k a multiple "
         "of 8: valid"),
        ("sig-torsion-key-cofactored-only", True, "k-not-0", ("invalid", "bad-signature", 5, 1, False),
         "the same key; the guest's trump is signed with k not a multiple of 8: only a check with the cofactor "
         "accepts it"),
        ("sig-r-neutral", False, "neutral-r", ("unfinished", None, None, None, False),
         "every guest signature has R = the neutral point (small order) and S = k*a: the equation holds, valid"),
        ("sig-r-with-torsion", False, "torsion-r", ("invalid", "bad-signature", 5, 1, False),
         "the guest's trump is signed with R = [r]B + an order-8 point: only a check with the cofactor accepts it"),
        ("sig-s-plus-l", False, "s-plus-l", ("invalid", "bad-signature", 5, 1, False),
         "the guest's trump carries S + L for a good S: S >= L is refused"),
        ("sig-r-not-canonical", False, "r-not-canonical", ("invalid", "bad-signature", 5, 1, False),
         "the guest's trump has R = the neutral point written with y = p + 1: the encodings differ"),
    ]:
        signer = HandSigner(f"sig/{'torsion' if torsion else 'plain'}", torsion)
        ghello = hello_frame(1, "guest", signer.public_bytes, nonce[1])
        gid = m.game_id(H[0][4:], ghello[4:])
        frames = [H[0], ghello]
        bad = mode not in ("k0", "neutral-r")
        signer.mode = "k0" if torsion else "plain"
        for seat, kind, items in [(0, "rules", f.body_of(H[2])[3]), (1, "agree", [True]), (0, "trump", [0]),
                                  (1, "trump", [1])]:
            if seat == 1 and (not bad or kind == "trump"):
                signer.mode = mode
            frames.append(_next_signed(frames, host_id if seat == 0 else signer, gid, seat, kind, items))
        add(name, about, "wire.md §4.1", expect, log(frames))

    # G9: deal-end's reason is any str (wire.md §5.1, §9.2)
    n_de = sf.where(S, "deal-end", 0) + 1
    add("deal-end-reason-control", "the guest's deal-end states the reason 'resign' followed by a control "
        "character: not the text rule's, just not the reason due", "wire.md §5.1, §9.2",
        ("invalid", "wrong-result", n_de, 1, True),
        log([*S[:n_de], sf.next(S[:n_de], 1, "deal-end", [1, 1, "resign\u0007", 0, 2])]))

    # G11: draw offers, once per turn per seat, afresh each deal (wire.md §9.6)
    k2 = next(i for i, x in enumerate(H) if encoding.unpack(x[4:])[5:6] == ["move"] and f.body_of(x)[3][0] == 2)
    out = list(H[:12])
    for seat, kind, items in [(1, "offer-draw", [1]), (0, "answer-draw", [1, False]), (0, "offer-draw", [1]),
                              (1, "answer-draw", [1, False])]:
        out.append(f.next(out, seat, kind, items))
    out = resigned(f, out, [H[12]])
    for seat, kind, items in [(1, "offer-draw", [1]), (0, "answer-draw", [1, False])]:
        out.append(f.next(out, seat, kind, items))
    out = resigned(f, out, H[13:k2])
    elder2 = f.body_of(H[k2])[0]
    for seat, kind, items in [(elder2, "offer-draw", [2]), (1 - elder2, "answer-draw", [2, False])]:
        out.append(f.next(out, seat, kind, items))
    out = resigned(f, out, H[k2:])
    add("draw-offers-each-seat-each-deal", "deal 1, turn 0: the guest offers, the host declines, the host offers, "
        "the guest declines; after the guest's move it offers again; in deal 2 the elder offers in turn 0: all "
        "allowed, valid", "wire.md §9.6", ("valid", None, None, None, False), log(out))

    # G12: leave and claim are kinds with bodies of their own (wire.md §8.2, §9.2)
    add("body-leave-not-empty", "a guest leave whose body is [1]", "wire.md §8.2, §9.2, §15",
        ("invalid", "malformed", 12, 1, True), log([*H[:12], f.next(H[:12], 1, "leave", [1])]))
    add("body-claim-no-deal", "a host claim whose body is []", "wire.md §8.2, §9.2, §16",
        ("invalid", "malformed", 12, 0, True), log([*H[:12], f.next(H[:12], 0, "claim", [])]))
    add("claim-in-deal-end", "a guest claim in phase deal-end: not among a claim's phases", "wire.md §16",
        ("invalid", "out-of-turn", n_de - 1, 1, True),
        log([*S[:n_de - 1], sf.next(S[:n_de - 1], 1, "claim", [1])]))


#: The reproducing logs of the outside implementer's four disagreements (D0-D3) and of its observation
#: O1 (a withdrawn guest message's place reused), kept as they are, with the verdict the settled text gives.
INDEP_CASES: dict[str, tuple[str, str | None, int | None, int | None, bool]] = {
    "case-indep-d0-vector-leave-twice": ("invalid", "out-of-turn", 13, 1, True),
    "case-indep-d1-f0-msg-bad-fields": ("invalid", "malformed", 0, None, False),
    "case-indep-d1-f1-msg-bad-fields": ("invalid", "malformed", 1, None, False),
    "case-indep-d1-f1-msg-unknown-kind": ("invalid", "malformed", 1, None, False),
    "case-indep-d2-f2-hello-3-elements": ("invalid", "malformed", 2, 1, False),
    "case-indep-d2-f2-hello-bad-name": ("invalid", "malformed", 2, 1, False),
    "case-indep-d2-f2-hello-version-2": ("invalid", "version", 2, 1, False),
    "case-indep-d2-f2-hello-version-bool": ("invalid", "malformed", 2, 1, False),
    "case-indep-d3-withdraw-leave-then-bad": ("invalid", "out-of-turn", 13, 0, True),
    "case-indep-d3-withdraw-resign-then-illegal": ("invalid", "illegal-move", 13, 0, True),
    "case-indep-d3-withdraw-then-illegal": ("invalid", "illegal-move", 14, 0, True),
    "case-indep-o1-withdrawn-place-reused-guestlog": ("invalid", "equivocation", 16, 1, True),
    "case-indep-o1-withdrawn-place-reused-hostlog": ("invalid", "equivocation", 15, 1, True),
}
INDEP_NOTES = {
    "case-indep-d0-vector-leave-twice": "the same bytes as leave-twice.log: a leave in play, then a second one; "
                                        "deal 2 is not forfeited yet (no deal-end statements), so score 1:0 and "
                                        "forfeited []",
    "case-indep-d1-f0-msg-bad-fields": "[\"msg\", 5] as frame 0: a msg's shape (its fields) is checked before its "
                                       "place, malformed; nobody is named",
    "case-indep-d1-f1-msg-bad-fields": "a good hello, then [\"msg\", game, 1]: malformed (its fields), nobody named",
    "case-indep-d1-f1-msg-unknown-kind": "a good hello, then a signed msg of kind 'bye': an unknown kind is a "
                                         "field fault, malformed, nobody named",
    "case-indep-d2-f2-hello-3-elements": "two good hellos, then a hello of 3 elements: its shape first, malformed",
    "case-indep-d2-f2-hello-bad-name": "two good hellos, then a hello with an empty name: its shape first (check "
                                       "5), malformed",
    "case-indep-d2-f2-hello-version-2": "two good hellos, then a hello of version 2: its shape first (check 1), "
                                        "version",
    "case-indep-d2-f2-hello-version-bool": "two good hellos, then a hello whose version is true: its shape first "
                                           "(check 3), malformed",
    "case-indep-d3-withdraw-leave-then-bad": "a guest log: the guest's tentative leave, then a host resign for its "
                                             "place naming another deal: the host's fault, and the offending frame "
                                             "changes nothing (the leave stays in the chain: left, score 1:0)",
    "case-indep-d3-withdraw-resign-then-illegal": "a guest log: the guest's tentative resign, then an illegal host "
                                                  "move for its place: the resignation stays (deal 1 won by the "
                                                  "host, 1:0), nothing withdrawn",
    "case-indep-d3-withdraw-then-illegal": "a guest log: two tentative guest chats, then an illegal host move for "
                                           "their place: the chats stay in the chain (12 messages, 0 withdrawn)",
    "case-indep-o1-withdrawn-place-reused-guestlog": "a guest log: two tentative guest chats w1, w2 (places 9, 10), "
                                                     "withdrawn by a host chat for place 9 and re-signed at 10, 11; "
                                                     "then another guest chat for w2's place (seq 10, prev the hash "
                                                     "of w1): the guest signed two messages for one place, proven "
                                                     "by its own signature (not malformed blamed on the host)",
    "case-indep-o1-withdrawn-place-reused-hostlog": "the same in a host log (places 8, 9): another guest chat for the "
                                                    "withdrawn w2's place is proven equivocation, not broken-chain",
}
INDEP_SPECS = {
    "case-indep-d0-vector-leave-twice": "wire.md §15; verify.md §5",
    "case-indep-d1-f0-msg-bad-fields": "wire.md §5.2, §8.2; verify.md §3",
    "case-indep-d1-f1-msg-bad-fields": "wire.md §5.2, §8.2; verify.md §3",
    "case-indep-d1-f1-msg-unknown-kind": "wire.md §5.2, §8.2; verify.md §3",
    "case-indep-d2-f2-hello-3-elements": "wire.md §5.2, §7.1; verify.md §3, §3.1",
    "case-indep-d2-f2-hello-bad-name": "wire.md §5.2, §7.1; verify.md §3, §3.1",
    "case-indep-d2-f2-hello-version-2": "wire.md §5.2, §7.1; verify.md §3, §3.1",
    "case-indep-d2-f2-hello-version-bool": "wire.md §5.2, §7.1; verify.md §3, §3.1",
    "case-indep-d3-withdraw-leave-then-bad": "wire.md §8.3 row g; verify.md §5",
    "case-indep-d3-withdraw-resign-then-illegal": "wire.md §8.3 row g; verify.md §5",
    "case-indep-d3-withdraw-then-illegal": "wire.md §8.3 row g; verify.md §5",
    "case-indep-o1-withdrawn-place-reused-guestlog": "wire.md §8.3 (proof of cheating); verify.md §3 step 4, §3.1",
    "case-indep-o1-withdrawn-place-reused-hostlog": "wire.md §8.3 (proof of cheating); verify.md §3 step 4, §3.1",
}


CASE_NOTES = {
    "case-third-hello": "host hello, guest hello, the host's hello again: a second hello from the peer by the "
                        "owner's account; nobody signed a hello, so nothing is proven",
    "case-prehello-forged": "the host's hello, then a guest agree with an all-zero signature and no guest hello: "
                            "frame 1 names nobody",
    "case-superseded-in-hostlog": "a host log with the guest's genuinely signed rematch that crossed the host's "
                                  "rematch: superseded, skipped; the re-signed copy completes the session",
    "case-rules-both-limits-off": "rules [36, true, false, 0, 0, 1] signed by the host, in the host's own log",
    "case-dealend-wrong-deal": "a host deal-end naming deal 2 during deal 1",
}
CASE_SPECS = {
    "case-third-hello": "wire.md §7.1; verify.md §3, §3.1",
    "case-prehello-forged": "verify.md §3, §3.1",
    "case-superseded-in-hostlog": "wire.md §8.3 row a; verify.md §3",
    "case-rules-both-limits-off": "wire.md §9.2; record.md §2",
    "case-dealend-wrong-deal": "wire.md §9.2 (deal fields: out-of-turn, deal-end included)",
}


def _pair_json(pc: PairCase, data: dict[str, bytes]) -> dict[str, Any]:
    verdict = verify_pair(check_log(data[pc.files[0]]), check_log(data[pc.files[1]])).to_json()
    evidence = tuple((e["log"], e["index"]) for e in verdict["evidence"])
    got = (verdict["status"], verdict["code"], evidence, verdict["offender"], verdict["offender_proven"],
           verdict["relation"], verdict["leading"])
    if got != pc.expect:
        raise AssertionError(f"pair {pc.name}: verify says {got}, the case expects {pc.expect}: {verdict['reason']}")
    return {"name": pc.name, "files": list(pc.files),
            "sha256": [hashlib.sha256(data[name]).hexdigest() for name in pc.files], "about": pc.about,
            "spec": pc.spec, "verdict": verdict}


def build() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    cases, pairs = build_all()
    index: list[dict[str, Any]] = []
    for c in cases:
        verdict = _verdict_json(c.data)
        got = (verdict["status"], verdict["code"], verdict["index"], verdict["offender"], verdict["offender_proven"])
        if got != c.expect:
            raise AssertionError(f"{c.name}: verify says {got}, the case expects {c.expect}: {verdict['reason']}")
        if not c.name.startswith("case-"):
            files[f"wire/{c.name}.log"] = c.data
        index.append({"file": f"wire/{c.name}.log", "sha256": hashlib.sha256(c.data).hexdigest(), "about": c.about,
                      "spec": c.spec, "verdict": verdict})
    assert len({c.name for c in cases}) == len(cases), "two cases share a name"
    assert len({pc.name for pc in pairs}) == len(pairs), "two pairs share a name"
    data = {f"wire/{c.name}.log": c.data for c in cases}
    pair_index = [_pair_json(pc, data) for pc in pairs]
    doc = {
        "format": "p2ptrumps-verdict-vectors",
        "version": 1,
        "about": "match logs and the complete verdict each must get, and pairs of them with the complete verdict "
                 "of the pair (protocol/verify.md §8); compare every member of `verdict` except `reason` (and the "
                 "`reason` of each verdict a pair's verdict embeds). Regenerate: python protocol/vectors/gen_wire.py",
        "cases": index,
        "pairs": pair_index,
    }
    files["verdicts.json"] = (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode()
    files["wire.json"] = _primitives()
    return files


def _primitives() -> bytes:
    host_id = Identity.from_seed(fixed_bytes("host/key"))
    guest_id = Identity.from_seed(fixed_bytes("guest/key"))
    pair = _honest()
    gid = pair.host.session.game_id
    chain = pair.host.session.chain
    assert gid is not None and chain is not None
    first = chain.entries[0]
    pos = Position.start(RULES, (0, 1), deal_hands(b"\x01" * 32, RULES, (0, 1), 0), 0)
    before = m.position_hash(pos)
    move = pos.legal_moves()[0]
    pos.push(move)
    prim: dict[str, Any] = {
        "keys": {
            label: {
                "seed": fixed_bytes(f"{label}/key").hex(),
                "public_key": ident.public_bytes.hex(),
                "fingerprint": ident.fingerprint,
                "nonce": fixed_bytes(f"{label}/nonce").hex(),
            }
            for label, ident in (("host", host_id), ("guest", guest_id))
        },
        "hello_host": pair.host.log[0].frame.hex(),
        "hello_guest": pair.guest.log[0].frame.hex(),
        "game_id": gid.hex(),
        "first_message": {
            "frame": first.payload.hex(),
            "signed_input": m.signing_input(gid, first.unsigned()).hex(),
            "signature": first.sig.hex(),
            "hash": first.hash.hex(),
        },
        "commitment": {
            "deal": 1,
            "seat": 1,
            "secret": fixed_bytes("guest/secret/1").hex(),
            "commitment": m.commitment(gid, 1, 1, guest_id.public_bytes, fixed_bytes("guest/secret/1")).hex(),
        },
        "seed": {
            "deal": 1,
            "secret0": fixed_bytes("host/secret/1").hex(),
            "secret1": fixed_bytes("guest/secret/1").hex(),
            "seed": m.deal_seed(gid, 1, fixed_bytes("host/secret/1"), fixed_bytes("guest/secret/1")).hex(),
        },
        "deals": [
            {
                "number": d.number,
                "dealer": d.dealer,
                "seed": d.seed.hex(),
                "hands": [f"{h:016x}" for h in d.hands],
                "first_dealer_of_seed": first_dealer(d.seed),
            }
            for d in (chain.referee.match.deals if chain.referee.match is not None else [])
        ],
        "position": {
            "rules": RULES.to_dict(),
            "trumps": [0, 1],
            "seed": (b"\x01" * 32).hex(),
            "dealer": 0,
            "start_hash": before.hex(),
            "move": move.code,
            "bytes_after": m.position_bytes(pos).hex(),
            "hash_after": m.position_hash(pos).hex(),
        },
        "ping": m.Ping(7).encode().hex(),
        "pong": m.Pong(7).encode().hex(),
    }
    doc = {
        "about": "p2ptrumps wire vectors (protocol/wire.md); regenerate: python protocol/vectors/gen_wire.py; "
                 "the match logs and their verdicts are in verdicts.json",
        "rules": RULES.to_dict(),
        "primitives": prim,
    }
    return (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode()


def main(argv: list[str]) -> int:
    files = build()
    check = "--check" in argv
    stale = []
    for name, data in sorted(files.items()):
        path = HERE / name
        if check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for path in sorted((HERE / "wire").glob("*.log")):
        name = f"wire/{path.name}"
        if name not in files and not path.name.startswith("case-"):
            if check:
                stale.append(name + " (no longer made)")
            else:
                path.unlink()
    if stale:
        print("out of date:", ", ".join(stale))
        return 1
    print("checked" if check else "wrote", len(files), "files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
