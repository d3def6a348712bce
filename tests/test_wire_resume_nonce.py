"""The nonce of a ``resume`` frame (protocol/wire.md §14.1-§14.3): live, a nonce changed on the way fails the
proof check and the connection is refused with nothing logged, on whichever side checks the proof over it;
in a log, nothing signs it, so a changed nonce changes no verdict and no restart (vector
``wire/resume-nonce-changed.log``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2ptrumps import events as ev
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire import encoding, framing
from p2ptrumps.wire.log import read_log
from p2ptrumps.wire.session import Direction, Session
from p2ptrumps.wire.testing import ConnectionPair, LoggedFrame, side_identity
from p2ptrumps.wire.verify import verify_log

WIRE = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "wire"
SHORT = RuleSet(pack_size=32, deals=2)
HOST_NONCE, GUEST_NONCE = bytes([1]) * 32, bytes([2]) * 32


def _restored(role: str, frames: list[bytes]) -> tuple[Session, list[LoggedFrame]]:
    """``role``'s session taken up from its complete log (wire.md §14.4), and what it logs from then on."""
    logged: list[LoggedFrame] = []

    def hook(frame: bytes, direction: Direction) -> None:
        logged.append(LoggedFrame(frame, direction))

    return Session.restore(side_identity(role), frames, {}, on_message=hook), logged


def _changed_nonce(data: bytes) -> bytes:
    """``data`` (frames) with one bit of the first ``resume`` frame's nonce flipped."""
    out, rest = b"", data
    done = False
    while rest:
        n = int.from_bytes(rest[:4], "big")
        frame, rest = rest[:4 + n], rest[4 + n:]
        value = encoding.unpack(frame[4:])
        if not done and isinstance(value, list) and value and value[0] == "resume":
            nonce = bytearray(value[4])
            nonce[0] ^= 0x80
            frame = framing.frame(encoding.pack([*value[:4], bytes(nonce)]))
            done = True
        out += frame
    assert done
    return out


@pytest.fixture(scope="module")
def logs() -> tuple[list[bytes], list[bytes]]:
    pair = ConnectionPair(SHORT)
    pair.run()
    return read_log(pair.host.log_bytes()).frames, read_log(pair.guest.log_bytes()).frames


@pytest.mark.parametrize("changed", ["guest", "host"])
def test_a_resume_nonce_changed_on_the_way_is_refused_by_the_proof_check_and_nothing_is_logged(
        logs: tuple[list[bytes], list[bytes]], changed: str) -> None:
    (host, host_logged), (guest, guest_logged) = _restored("host", logs[0]), _restored("guest", logs[1])
    host.begin_resume(HOST_NONCE)
    guest.begin_resume(GUEST_NONCE)
    sides = {"host": host, "guest": guest}
    for _ in range(4):
        for sender, receiver in (("guest", "host"), ("host", "guest")):
            data = sides[sender].data_to_send()
            if data and sender == changed and b"resume" in data:
                data = _changed_nonce(data)
            if data:
                sides[receiver].receive_data(data)
    refusals = {role: [e.reason for e in iter(s.next_event, None) if isinstance(e, ev.ResumeRefused)]
                for role, s in sides.items()}
    # Each side signs the nonce it received and checks the peer's proof over the nonces it knows: with one
    # nonce changed on the way, neither proof verifies where it is checked (wire.md §14.2 step 3).
    why = "the proof does not verify with the key of this match's peer (a stranger?)"
    assert refusals == {"host": [why], "guest": [why]}
    assert host_logged == guest_logged == []  # nothing written for a connection that did not prove itself
    assert host.reconnections == guest.reconnections == 0


def test_a_changed_nonce_in_a_log_changes_no_verdict_and_no_restart() -> None:
    original, changed = (WIRE / "resume-counted.log").read_bytes(), (WIRE / "resume-nonce-changed.log").read_bytes()
    assert len(original) == len(changed) and sum(a != b for a, b in zip(original, changed, strict=True)) == 1
    a, b = verify_log(original), verify_log(changed)
    assert (b.status, b.reconnections, b.messages, b.reason) == (a.status, a.reconnections, a.messages, a.reason)
    assert (b.status, b.reconnections) == ("valid", 1)
    # The host takes up the match from the changed log as from the original: the logged resume counts one
    # reconnection and is never sent or compared; the next exchange proves itself with fresh nonces.
    host_frames = read_log(changed).frames
    host, logged = _restored("host", host_frames)
    assert host.reconnections == 1
    guest_frames = [f for f in read_log(original).frames if encoding.unpack(f[4:])[0] != "resume"]
    guest_frames[0], guest_frames[1] = guest_frames[1], guest_frames[0]  # the guest's log: its own hello first
    guest, _ = _restored("guest", guest_frames)
    host.begin_resume(HOST_NONCE)
    guest.begin_resume(GUEST_NONCE)
    for _ in range(4):
        for x, y in ((guest, host), (host, guest)):
            if data := x.data_to_send():
                y.receive_data(data)
    assert [type(e).__name__ for e in iter(host.next_event, None)] == ["Resumed"]
    assert host.reconnections == 2
    assert [encoding.unpack(f.frame[4:])[:5] for f in logged] == [["resume", 1, 1, host.game_id, GUEST_NONCE]]
