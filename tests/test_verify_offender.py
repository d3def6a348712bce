"""``verify`` blames the right seat and names the same fault as the live receiver (protocol/wire.md §13).

Each case is a log written by an honest session (the victim) that received a
hostile frame; the live session's fault code and ``verify``'s must agree, and the
offender is never the honest owner of the log (tester's defects 5 and 6).
"""

from __future__ import annotations

import pytest

from p2ptrumps.rules import RuleSet
from p2ptrumps.wire import framing
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.events import Event, RulesProposed
from p2ptrumps.wire.log import LOG_MAGIC
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import (
    ConnectionPair,
    Script,
    Side,
    fixed_bytes,
    replay_to_victim,
    sent_frames,
    side_identity,
)
from p2ptrumps.wire.verify import verify_log

RULES = RuleSet(pack_size=32, deals=1)


def honest() -> ConnectionPair:
    pair = ConnectionPair(RULES)
    pair.run()
    return pair


def nth_kind(frames: list[bytes], kind: str) -> int:
    for i, f in enumerate(frames):
        x = m.decode(f[4:])
        if isinstance(x, m.Signed) and x.kind == kind:
            return i
    raise AssertionError(kind)


def hello_frame(seat: int, label: str, nonce: bytes) -> bytes:
    ident = side_identity(label)
    return framing.frame(m.Hello(1, seat, label, ident.public_bytes, nonce).encode())


def live_and_verdict(victim: Side) -> tuple[str | None, tuple[object, ...]]:
    live = victim.session.violation
    v = verify_log(victim.log_bytes())
    return (None if live is None else live.code), (v.status, v.code, v.offender, v.offender_proven, v.exit_code)


def test_guest_message_claiming_the_host_seat() -> None:
    pair = honest()
    frames = sent_frames(pair.guest)
    gid = pair.host.session.game_id
    assert gid is not None
    i = nth_kind(frames, "move")
    x = m.decode(frames[i][4:])
    assert isinstance(x, m.Signed)
    forged = m.build_signed(gid, 0, x.seq, x.prev, x.body, side_identity("guest").sign)  # seat 0, the guest's key
    frames[i] = framing.frame(forged.payload)
    victim = replay_to_victim("host", frames, RULES)
    live, verdict = live_and_verdict(victim)
    assert live == "malformed"
    assert verdict == ("invalid", "malformed", 1, False, 1)  # the guest, never the honest host
    assert "claims to come from seat 0 (host), the log's owner, but is not its message of this game " \
           "(bad-signature): the peer sent it" in verify_log(victim.log_bytes()).reason


def test_host_message_claiming_the_guest_seat_in_the_guests_log() -> None:
    pair = honest()
    frames = sent_frames(pair.host)
    gid = pair.host.session.game_id
    assert gid is not None
    i = nth_kind(frames, "trump")
    x = m.decode(frames[i][4:])
    assert isinstance(x, m.Signed)
    frames[i] = framing.frame(m.build_signed(gid, 1, x.seq, x.prev, x.body, side_identity("host").sign).payload)
    victim = replay_to_victim("guest", frames, RULES)
    live, verdict = live_and_verdict(victim)
    assert (live, verdict) == ("malformed", ("invalid", "malformed", 0, False, 1))


def test_peer_sends_the_owners_own_message_back() -> None:
    pair = honest()
    frames = sent_frames(pair.guest)
    host_rules = sent_frames(pair.host)[nth_kind(sent_frames(pair.host), "rules")]
    i = nth_kind(frames, "trump")
    frames.insert(i, host_rules)  # the host's own (validly signed) message 0, sent back to it
    victim = replay_to_victim("host", frames, RULES)
    live, verdict = live_and_verdict(victim)
    assert (live, verdict) == ("malformed", ("invalid", "malformed", 1, False, 1))


def test_guest_hello_claiming_the_host_seat() -> None:
    victim = replay_to_victim("host", [hello_frame(0, "guest", fixed_bytes("guest/nonce"))], RULES)
    live, verdict = live_and_verdict(victim)
    # Frames 0 and 1 name nobody: a session writes its log only once the peer's hello checked out
    # (protocol/verify.md §3.1), so a log with a bad peer hello says nothing about either seat.
    assert (live, verdict) == ("version", ("invalid", "version", None, False, 1))


def test_repeated_nonce_is_invalid_not_unfinished() -> None:
    victim = replay_to_victim("host", [hello_frame(1, "guest", fixed_bytes("host/nonce"))], RULES)
    live, verdict = live_and_verdict(victim)
    assert (live, verdict) == ("malformed", ("invalid", "malformed", None, False, 1))
    assert verify_log(victim.log_bytes()).reason == "frame #1: the peer's nonce repeats ours"


@pytest.mark.parametrize("tamper", ["flip-signature", "illegal-move"])
def test_peer_seat_faults_blame_the_peer(tamper: str) -> None:
    pair = honest()
    frames = sent_frames(pair.guest)
    i = nth_kind(frames, "move")
    if tamper == "flip-signature":
        frames[i] = frames[i][:-1] + bytes([frames[i][-1] ^ 1])
        want = ("invalid", "bad-signature", 1, False, 1)
    else:
        gid = pair.host.session.game_id
        assert gid is not None
        x = m.decode(frames[i][4:])
        assert isinstance(x, m.Signed) and isinstance(x.body, m.MoveMsg)
        bad = m.MoveMsg(x.body.deal, x.body.move, bytes(32))
        frames[i] = framing.frame(m.build_signed(gid, 1, x.seq, x.prev, bad, side_identity("guest").sign).payload)
        want = ("invalid", "wrong-position-hash", 1, True, 1)
    victim = replay_to_victim("host", frames, RULES)
    live, verdict = live_and_verdict(victim)
    assert (live, verdict) == (want[1], want)


def test_swapped_hellos_still_verify() -> None:
    """The game id binds the hellos by seat, not by their order in the log: a log whose two
    hellos are swapped holds the same signed chain and verifies the same (protocol/wire.md §13);
    only the owner used to attribute an unsigned fault changes."""
    pair = honest()
    frames = [f.frame for f in pair.host.log]
    assert verify_log(pair.host.log_bytes()).status == "valid"
    swapped = LOG_MAGIC + frames[1] + frames[0] + b"".join(frames[2:])
    v = verify_log(swapped)
    assert (v.status, v.game_id) == ("valid", pair.host.session.game_id.hex())  # type: ignore[union-attr]


def test_refused_rules_verdict_says_no_match_was_played() -> None:
    def refuse(session: Session, event: Event) -> None:
        if isinstance(event, RulesProposed):
            session.refuse_rules()

    pair = ConnectionPair(RULES, guest=Script("guest", on_event=refuse))
    pair.run()
    v = verify_log(pair.host.log_bytes())
    assert (v.status, v.reason, v.score_halves) == ("valid", "the guest refused the rules: no match was played",
                                                    (0, 0))
    assert v.summary().splitlines()[0] == (
        "VALID: the guest refused the rules, so no match was played; every message checks.")
