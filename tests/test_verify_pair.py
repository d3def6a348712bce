"""Two logs of one game checked against each other (protocol/verify.md §6): what an owner can do to its own
file never proves anything against either player; what two signatures of one key prove is always found."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.log import LOG_MAGIC, read_log
from p2ptrumps.wire.testing import ConnectionPair, raw_msg_frame
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair
from tests.test_verify_offender import rearrange

WIRE = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "wire"
EDITS = ("drop", "copy", "move", "insert", "cut")


def _frames(data: bytes) -> list[bytes]:
    return read_log(data).frames


def _logs() -> list[tuple[list[bytes], list[bytes]]]:
    """(host frames, guest frames) of two honest matches: a plain one and one with crossings."""
    plain = ConnectionPair(RuleSet(pack_size=32, deals=1))
    plain.run()
    cross = (_frames((WIRE / "crossing-host-log.log").read_bytes()),
             _frames((WIRE / "crossing-guest-log.log").read_bytes()))
    return [([x.frame for x in plain.host.log], [x.frame for x in plain.guest.log]), cross]


HONEST = _logs()


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_rearranged_honest_logs_never_prove_anything(data: st.DataObject) -> None:
    """Drop, copy, move, cut and mix the genuine frames of both logs of one match, in either log: the pair
    may be inconsistent or invalid, but nobody is ever proven at fault -- an owner holds its peer's
    signatures, never new ones (protocol/verify.md §6.3)."""
    host, guest = data.draw(st.sampled_from(HONEST))
    pool = host + guest
    a = rearrange(data, data.draw(st.sampled_from([host, guest])), pool, 0, EDITS)
    b = rearrange(data, data.draw(st.sampled_from([host, guest])), pool, 0, EDITS)
    v = verify_pair(check_log(LOG_MAGIC + b"".join(a)), check_log(LOG_MAGIC + b"".join(b)))
    assert not (v.status == "invalid" and v.offender_proven), v.reason
    assert v.code != "equivocation", v.reason


def test_every_equivocating_message_is_caught_whichever_log_holds_it() -> None:
    """For every place of an honest match, the seat that signed it signs a second message for that place
    (same seq and prev, another chat): paired with the honest other log, proven equivocation by that seat,
    evidence the two frames -- whichever of the two logs carries the forged message."""
    host, guest = HONEST[0]
    pair = ConnectionPair(RuleSet(pack_size=32, deals=1))
    ids = (pair.host.session.identity, pair.guest.session.identity)
    chain = verify_log(LOG_MAGIC + b"".join(host))._chain
    assert chain is not None and len(chain) == len(host) - 2
    full = {id(host): check_log(LOG_MAGIC + b"".join(host)), id(guest): check_log(LOG_MAGIC + b"".join(guest))}
    places = [*range(2, 24), *range(24, len(chain), 17)]  # the handshake, a deal's start, then samples of play
    for place in places:
        msg = chain.entries[place]
        forged = raw_msg_frame(ids[msg.seat], chain.game_id, msg.seat, place, msg.prev, "chat", ["other"])
        for k, (mine, theirs) in enumerate(((host, guest), (guest, host))):
            cut = [*mine[: place + 2], forged]
            v = verify_pair(full[id(theirs)], check_log(LOG_MAGIC + b"".join(cut)))
            assert (v.status, v.code, v.offender, v.offender_proven) == ("invalid", "equivocation", msg.seat, True)
            assert v.evidence == [(0, place + 2), (1, place + 2)], (place, k)


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_damaged_bytes_never_crash_the_pair_check(data: st.DataObject) -> None:
    """Flip, cut or insert bytes in either honest log: the pair check never raises, and its verdict keeps the
    rules of protocol/verify.md §6.2 and §7 (statuses and exit codes, evidence inside the files, relation
    and leading only with one chain)."""
    host, guest = data.draw(st.sampled_from(HONEST))
    raw = [bytearray(LOG_MAGIC + b"".join(host)), bytearray(LOG_MAGIC + b"".join(guest))]
    for _ in range(data.draw(st.integers(1, 3))):
        buf = raw[data.draw(st.integers(0, 1))]
        if not buf:
            continue
        at = data.draw(st.integers(0, len(buf) - 1))
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if op == "flip":
            buf[at] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "cut":
            del buf[at:]
        else:
            buf[at:at] = data.draw(st.binary(min_size=1, max_size=8))
    order = data.draw(st.permutations([0, 1]))
    checks = [check_log(bytes(raw[k])) for k in order]
    v = verify_pair(checks[0], checks[1])
    assert v.exit_code == {"valid": 0, "invalid": 1, "unreadable": 2, "different-games": 2,
                           "unfinished": 3}[v.status]
    if v.status == "invalid":
        assert v.evidence and all(i <= checks[k].verdict.frames for k, i in v.evidence)
        assert v.offender in (0, 1, None) and (v.code == "equivocation") <= v.offender_proven
    else:
        assert v.evidence == [] and v.code is None and not v.offender_proven
    assert (v.relation is None) == (v.leading is None)
    if v.status in ("valid", "unfinished"):
        assert v.relation is not None and v.leading is not None
        assert v.status == v.verdicts[v.leading].status
    if v.code == "equivocation" and len(v.evidence) == 2:  # two frames that both check out, one key
        assert v.offender_proven and v.evidence[0][0] == 0 and v.evidence[1][0] == 1
