"""The vectors of reconnecting, restarting and the move clock (protocol/vectors/resume.json, resume/*.log,
clock/*.log; protocol/wire.md §14, §16): exact bytes, exact verdicts, the resume exchange's exact
frames, and a stranger's proof refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2ptrumps.wire import encoding
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair
from tests.conftest import load_script

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
DOC: dict[str, Any] = json.loads((VECTORS / "resume.json").read_text(encoding="utf-8"))
CASES = {c["file"]: c for c in DOC["cases"]}

#: What verify must say of each log, written out by hand: (status, code, index, offender, offender proven,
#: reconnections, [(claimant, deals won)]).
EXPECTED: dict[str, tuple[Any, ...]] = {
    "resume/cut-host.log": ("valid", None, None, None, False, 1, []),
    "resume/cut-guest.log": ("valid", None, None, None, False, 1, []),
    "resume/crossing-cut-host.log": ("valid", None, None, None, False, 1, []),
    "resume/crossing-cut-guest.log": ("valid", None, None, None, False, 1, []),
    "resume/restart-host.log": ("valid", None, None, None, False, 1, []),
    "resume/restart-guest.log": ("valid", None, None, None, False, 1, []),
    "resume/restart-committed-host.log": ("valid", None, None, None, False, 1, []),
    "resume/restart-committed-guest.log": ("valid", None, None, None, False, 1, []),
    "resume/stopped-after-resume.log": ("unfinished", None, None, None, False, 1, []),
    "resume/host-lost-tail-host.log": ("valid", None, None, None, False, 1, []),
    "resume/host-lost-tail-guest.log": ("valid", None, None, None, False, 1, []),
    "resume/guest-lost-tail-host.log": ("valid", None, None, None, False, 1, []),
    "resume/guest-lost-tail-guest.log": ("valid", None, None, None, False, 1, []),
    "clock/claim-in-play-by-host.log": ("valid", None, None, None, False, 0, [(0, [1])]),
    "clock/claim-in-play-by-guest.log": ("valid", None, None, None, False, 0, [(1, [1])]),
    "clock/claim-between-deals.log": ("valid", None, None, None, False, 0, [(0, [1, 2])]),
    "clock/claim-disputed-in-play-by-host.log": ("valid", None, None, None, False, 0, [(0, [1])]),
    "clock/claim-disputed-in-play-by-guest.log": ("valid", None, None, None, False, 0, [(1, [1])]),
    "clock/claim-disputed-between-deals.log": ("valid", None, None, None, False, 0, [(0, [1, 2])]),
    "clock/claim-displaced-guest.log": ("valid", None, None, None, False, 0, []),
    "clock/claim-displaced-host.log": ("valid", None, None, None, False, 0, []),
    "clock/claim-crossing-the-end.log": ("valid", None, None, None, False, 0, []),
    "clock/claim-crossing-trump-accepted.log": ("valid", None, None, None, False, 0, [(0, [1, 2])]),
    "clock/claim-crossing-trump-disputed.log": ("valid", None, None, None, False, 0, [(0, [1, 2])]),
    "clock/claim-by-stayer.log": ("unfinished", None, None, None, False, 0, [(0, [1])]),
    "clock/claim-by-mover.log": ("invalid", "out-of-turn", 10, 1, True, 0, []),
    "clock/claim-wrong-deal.log": ("invalid", "out-of-turn", 10, 0, True, 0, []),
    "clock/rules-move-time-zero.log": ("invalid", "malformed", 2, 0, True, 0, []),
    "clock/claim-disputed-twice-in-play-by-host.log": ("valid", None, None, None, False, 0, [(0, [1]), (0, [1])]),
    "clock/claim-disputed-twice-in-play-by-guest.log": ("valid", None, None, None, False, 0, [(1, [1]), (1, [1])]),
    "clock/claim-disputed-twice-between-deals.log": ("valid", None, None, None, False, 0,
                                                     [(0, [1, 2]), (0, [1, 2])]),
    "clock/dispute-before-host-statement.log": ("invalid", "out-of-turn", 11, 1, True, 0, [(0, [1])]),
    "abandon/abandoned-in-play.log": ("valid", None, None, None, False, 0, []),
    "abandon/continued-host.log": ("valid", None, None, None, False, 1, []),
    "abandon/continued-guest.log": ("valid", None, None, None, False, 1, []),
    "abandon/continue-by-other-seat.log": ("invalid", "out-of-turn", 58, 1, True, 0, []),
    "abandon/abandon-wrong-deal.log": ("invalid", "out-of-turn", 57, 0, True, 0, []),
    "abandon/abandon-again.log": ("invalid", "out-of-turn", 60, 0, True, 1, []),
}


def test_generator_reproduces_every_file_byte_for_byte() -> None:
    gen = load_script(VECTORS / "gen_resume.py")
    files = gen.build()
    assert sorted(files) == sorted(["resume.json", *EXPECTED])
    for name, data in files.items():
        assert (VECTORS / name).read_bytes() == data, name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_log_verdict_is_exactly_the_index(name: str) -> None:
    entry = CASES[name]
    data = (VECTORS / name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == entry["sha256"]
    verdict = verify_log(data).to_json()
    assert verdict == entry["verdict"]
    got = (verdict["status"], verdict["code"], verdict["index"], verdict["offender"], verdict["offender_proven"],
           verdict["reconnections"], [(c["seat"], c["deals"]) for c in verdict["claims"]])
    assert got == EXPECTED[name]


def test_a_claimed_deal_is_reported_as_claimed_never_proven() -> None:
    v = verify_log((VECTORS / "clock/claim-in-play-by-guest.log").read_bytes())
    assert (v.deals[0].winner, v.deals[0].reason, v.score_halves) == (1, "time", (1, 3))
    assert v.move_time == 30
    summary = v.summary()
    assert "deal 1: dealer seat" in summary and "claimed by seat 1 on time (a claim: the log cannot prove time)" \
        in summary
    assert "CLAIMED, not proven: seat 1 (guest) claimed deal 1 on time at message 9" in summary


def test_a_first_dispute_takes_the_claim_back_and_the_deal_goes_on() -> None:
    v = verify_log((VECTORS / "clock/claim-disputed-in-play-by-guest.log").read_bytes())
    assert (v.status, v.score_halves, [(d.winner, d.reason) for d in v.deals]) == (
        "valid", (2, 2), [(None, "turn-limit"), (None, "turn-limit")])
    js = v.to_json()
    assert js["claims"] == [{"seat": 1, "message": 9, "deals": [1], "disputed": {"seat": 0, "message": 10}}]
    assert (js["disputed_deals"], js["winner"], js["decided"]) == ([], None, True)
    assert "DISPUTED: seat 1 (guest) claimed deal 1 on time at message 9; seat 0 (host) disputed it at message " \
        "10: the deal went on (its first dispute)" in v.summary()
    between = verify_log((VECTORS / "clock/claim-disputed-between-deals.log").read_bytes()).to_json()
    assert (between["status"], between["score"], between["trumps"], between["claims"]) == (
        "valid", [1.0, 1.0], ["C", "D"],
        [{"seat": 0, "message": 3, "deals": [1, 2], "disputed": {"seat": 1, "message": 5}}])


@pytest.mark.parametrize("who, seat", [("host", 0), ("guest", 1)])
def test_a_second_dispute_settles_the_deal_and_the_next_is_dealt_as_after_a_draw(who: str, seat: int) -> None:
    v = verify_log((VECTORS / f"clock/claim-disputed-twice-in-play-by-{who}.log").read_bytes())
    js = v.to_json()
    assert [(d["number"], d["dealer"], d["winner"], d["reason"]) for d in js["deals"]] == [
        (1, 0, None, "disputed"), (2, 1, None, "turn-limit")]
    assert (js["disputed_deals"], js["score"], js["winner"], js["decided"]) == ([1], [0.5, 0.5], None, False)
    assert [c["disputed"]["seat"] for c in js["claims"]] == [1 - seat, 1 - seat]
    lines = v.summary().splitlines()
    assert "deal 1: dealer seat 0, disputed: no result (claimed on time and disputed twice)" in lines
    assert lines[-2] == "result: no winner -- deal 1 has no result, and could change who won"
    prepared = verify_log((VECTORS / "clock/claim-disputed-twice-between-deals.log").read_bytes()).to_json()
    assert (prepared["status"], prepared["deals"], prepared["disputed_deals"], prepared["score"]) == (
        "valid", [], [1], [0.0, 0.0])


def test_an_abandonment_keeps_the_decided_deals_and_a_continue_takes_it_back() -> None:
    gone = verify_log((VECTORS / "abandon/abandoned-in-play.log").read_bytes())
    js = gone.to_json()
    assert [(d["number"], d["winner"], d["reason"]) for d in js["deals"]] == [(1, None, "turn-limit"),
                                                                              (2, None, "abandoned")]
    assert js["abandonments"] == [{"seat": 0, "message": 55, "deal": 2, "continued": None}]
    assert (js["score"], js["decided"], js["winner"], js["disputed_deals"]) == ([0.5, 0.5], False, None, [])
    assert gone.summary().splitlines()[0].endswith(
        "VALID: the match ended as abandoned: seat 0 (host) said that seat 1 (guest) stayed away -- a statement, "
        "not a proof; every message checks.")
    back = verify_log((VECTORS / "abandon/continued-guest.log").read_bytes()).to_json()
    assert back["abandonments"] == [{"seat": 0, "message": 55, "deal": 2, "continued": 56}]
    assert ([d["reason"] for d in back["deals"]], back["outages"], back["decided"]) == (
        ["turn-limit", "turn-limit"], [0, 1], True)
    honest = verify_log((VECTORS / "clock/claim-in-play-by-guest.log").read_bytes()).to_json()
    assert honest["claims"] == [{"seat": 1, "message": 9, "deals": [1], "disputed": None}]


def test_the_claim_races_settle_as_wire_md_16_says() -> None:
    displaced = verify_log((VECTORS / "clock/claim-displaced-guest.log").read_bytes())
    assert (displaced.withdrawn, displaced.claims, len(displaced.deals)) == (1, [], 2)
    end = verify_log((VECTORS / "clock/claim-crossing-the-end.log").read_bytes())
    assert (end.status, end.withdrawn, end.claims, end.score_halves) == ("valid", 1, [], (1, 3))
    assert [(d.winner, d.reason) for d in end.deals] == [(None, "turn-limit"), (1, "resign")]
    for name, disputed, trumps, score in (("accepted", None, None, [2.0, 0.0]),
                                          ("disputed", {"seat": 1, "message": 5}, ["C", "S"], [0.5, 1.5])):
        v = verify_log((VECTORS / f"clock/claim-crossing-trump-{name}.log").read_bytes()).to_json()
        assert (v["withdrawn"], v["trumps"], v["score"]) == (1, trumps, score)
        assert v["claims"] == [{"seat": 0, "message": 3, "deals": [1, 2], "disputed": disputed}]


@pytest.mark.parametrize("pair", DOC["pairs"], ids=lambda p: p["files"][0])
def test_pair_verdict_is_exactly_the_index(pair: dict[str, Any]) -> None:
    a, b = (check_log((VECTORS / f).read_bytes()) for f in pair["files"])
    verdict = verify_pair(a, b).to_json()
    assert verdict == pair["verdict"]
    assert (verdict["status"], verdict["relation"]) == ("valid", "same")


def _frame_value(hex_frame: str) -> list[Any]:
    data = bytes.fromhex(hex_frame)
    assert int.from_bytes(data[:4], "big") == len(data) - 4
    value = encoding.unpack(data[4:])
    assert isinstance(value, list)
    return value


def _verifies(key_hex: str, sig: bytes, signed: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key_hex)).verify(sig, signed)
    except InvalidSignature:
        return False
    return True


def test_the_resume_exchange_frames_and_proofs() -> None:
    x = DOC["exchange"]
    gid = bytes.fromhex(x["game_id"])
    g_resume, h_resume = _frame_value(x["guest_resume"]), _frame_value(x["host_resume"])
    assert g_resume[:4] == ["resume", 1, 1, gid] and h_resume[:4] == ["resume", 1, 0, gid]
    g_nonce, h_nonce = g_resume[4], h_resume[4]
    assert len(g_nonce) == len(h_nonce) == 32 and g_nonce != h_nonce
    tag = x["resume_tag"].encode()
    assert tag == b"p2ptrumps/resume/v1"
    assert 10 < x["guest_confirmed"] <= x["host_confirmed"] < 30
    for who, proof_hex, signs, seat, own, peer in (
            ("host", x["host_proof"], x["host_proof_signs"], 0, h_nonce, g_nonce),
            ("guest", x["guest_proof"], x["guest_proof_signs"], 1, g_nonce, h_nonce)):
        kind, confirmed, sig = _frame_value(proof_hex)
        assert (kind, confirmed) == ("proof", x[f"{who}_confirmed"])
        signed = bytes.fromhex(signs)
        assert signed == tag + gid + bytes([seat]) + confirmed.to_bytes(4, "big") + own + peer  # wire.md §14.1
        assert _verifies(x["keys"][who], sig, signed)
        assert not _verifies(x["keys"]["guest" if who == "host" else "host"], sig, signed)


def test_a_strangers_proof_does_not_verify_with_the_guest_key() -> None:
    x = DOC["exchange"]
    attempt = bytes.fromhex(x["stranger_attempt"]["frames"])
    first = 4 + int.from_bytes(attempt[:4], "big")
    resume, proof = encoding.unpack(attempt[4:first]), encoding.unpack(attempt[first + 4:])
    assert resume[0] == "resume" and proof[0] == "proof"
    host_nonce = _frame_value(x["host_resume"])[4]
    signed = b"p2ptrumps/resume/v1" + bytes.fromhex(x["game_id"]) + b"\x01" + proof[1].to_bytes(4, "big") + \
        resume[4] + host_nonce
    assert not _verifies(x["keys"]["guest"], proof[2], signed)
    assert _verifies(x["keys"]["stranger"], proof[2], signed)
    assert x["stranger_attempt"]["refusal"] == (
        "the proof does not verify with the key of this match's peer (a stranger?)")


@pytest.mark.parametrize("victim, seat", [("host", 0), ("guest", 1)])
def test_a_side_whose_log_lost_its_tail_took_its_own_messages_back(victim: str, seat: int) -> None:
    """wire.md §14.2 step 5: in the victim's log the first messages after the resume frame are copies of
    messages the other side's log holds at the same places, its own among them (adopted, not signed
    again), and the two logs hold one chain."""
    from p2ptrumps.wire import messages as m
    from p2ptrumps.wire.log import read_log

    own = read_log((VECTORS / f"resume/{victim}-lost-tail-{victim}.log").read_bytes()).frames
    other = read_log((VECTORS / f"resume/{victim}-lost-tail-{'guest' if victim == 'host' else 'host'}.log")
                     .read_bytes()).frames
    at = next(i for i, f in enumerate(own) if isinstance(m.decode(f[4:]), m.Resume))
    after = [m.decode(f[4:]) for f in own[at + 1:]]
    other_chain = {d.hash: d for f in other[2:] if isinstance(d := m.decode(f[4:]), m.Signed)}
    adopted = [d for d in after[:4] if isinstance(d, m.Signed) and d.seat == seat]
    assert adopted and all(d.hash in other_chain for d in adopted)
    pair = [p for p in DOC["pairs"] if p["files"] == [f"resume/{victim}-lost-tail-host.log",
                                                       f"resume/{victim}-lost-tail-guest.log"]]
    assert [(p["verdict"]["status"], p["verdict"]["relation"]) for p in pair] == [("valid", "same")]
