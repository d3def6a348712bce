"""The wire vectors in protocol/vectors/ (wire.json, wire/*.log, verdicts.json): exact bytes and exact verdicts,
every member of every verdict, of one log and of two (protocol/verify.md §6-§8)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2ptrumps.commands.main import main
from p2ptrumps.wire import encoding
from p2ptrumps.wire.errors import FAULT_CODES
from p2ptrumps.wire.log import LOG_MAGIC, read_log
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
DOC: dict[str, Any] = json.loads((VECTORS / "wire.json").read_text(encoding="utf-8"))
PRIM = DOC["primitives"]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_wire", VECTORS / "gen_wire.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules["gen_wire"] = gen  # its dataclasses look their module up
    spec.loader.exec_module(gen)
    return gen


GEN = _generator()
INDEX: dict[str, Any] = json.loads((VECTORS / "verdicts.json").read_text(encoding="utf-8"))
CASES = {c["file"]: c for c in INDEX["cases"]}
#: The verdict fields written by hand for every case (the generator's table, not verify's output).
_ALL = GEN.build_all()
HAND = {f"wire/{c.name}.log": c.expect for c in _ALL[0]}
PAIRS = {p["name"]: p for p in INDEX["pairs"]}
HAND_PAIRS = {pc.name: pc for pc in _ALL[1]}


def test_generator_reproduces_every_file_byte_for_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    # The cases built at import (build_all is a pure function of the code): building them again would only
    # double the cost of the same check.
    monkeypatch.setattr(GEN, "build_all", lambda: _ALL)
    files = GEN.build()
    assert sorted(files) == sorted(
        ["wire.json", "verdicts.json"] + [name for name in CASES if not name.startswith("wire/case-")]
    )
    for name, data in files.items():
        assert (VECTORS / name).read_bytes() == data, name
    on_disk = sorted(f"wire/{p.name}" for p in (VECTORS / "wire").glob("*.log"))
    assert on_disk == sorted(CASES)


def test_index_covers_every_fault_code_offender_kind_and_status() -> None:
    verdicts = [c["verdict"] for c in INDEX["cases"]]
    assert {v["code"] for v in verdicts} - {None} == set(FAULT_CODES)
    assert {v["status"] for v in verdicts} == {"valid", "invalid", "unreadable", "unfinished"}
    kinds = {(v["offender"], v["offender_proven"]) for v in verdicts if v["status"] == "invalid"}
    assert kinds == {(None, False), (0, False), (1, False), (0, True), (1, True)}
    assert INDEX["format"] == "p2ptrumps-verdict-vectors" and INDEX["version"] == 1
    assert sorted(HAND) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_verdict_is_exactly_the_index(name: str) -> None:
    entry = CASES[name]
    data = (VECTORS / entry["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == entry["sha256"]
    verdict = verify_log(data).to_json()
    assert verdict == entry["verdict"]
    keys = ("status", "code", "index", "offender", "offender_proven")
    assert tuple(verdict[k] for k in keys) == HAND[name]
    assert verdict["exit_code"] == {"valid": 0, "invalid": 1, "unreadable": 2, "unfinished": 3}[verdict["status"]]


def test_verify_json_command_over_the_whole_index(capsys: pytest.CaptureFixture[str]) -> None:
    """``p2ptrumps verify FILE --json`` gives every case's verdict, member for member (protocol/verify.md §6)."""
    for name, entry in CASES.items():
        path = VECTORS / entry["file"]
        code = main(["verify", str(path), "--json"])
        out = json.loads(capsys.readouterr().out)
        assert out.pop("log") == str(path)
        assert (code, out) == (entry["verdict"]["exit_code"], entry["verdict"]), name


def _pair_of(entry: dict[str, Any]) -> dict[str, Any]:
    a, b = ((VECTORS / name).read_bytes() for name in entry["files"])
    return verify_pair(check_log(a), check_log(b)).to_json()


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_pair_verdict_is_exactly_the_index(name: str) -> None:
    """protocol/verify.md §6-§7: every member of the pair's verdict, the embedded ones included."""
    entry = PAIRS[name]
    hand = HAND_PAIRS[name]
    assert tuple(entry["files"]) == hand.files
    for f, digest in zip(entry["files"], entry["sha256"], strict=True):
        assert hashlib.sha256((VECTORS / f).read_bytes()).hexdigest() == digest
    verdict = _pair_of(entry)
    assert verdict == entry["verdict"]
    evidence = tuple((e["log"], e["index"]) for e in verdict["evidence"])
    assert (verdict["status"], verdict["code"], evidence, verdict["offender"], verdict["offender_proven"],
            verdict["relation"], verdict["leading"]) == hand.expect
    # each embedded verdict is that file's own verdict in the index
    assert verdict["verdicts"] == [CASES[f]["verdict"] for f in entry["files"]]
    assert verdict["exit_code"] == {"valid": 0, "invalid": 1, "unreadable": 2, "different-games": 2, "same-owner": 2,
                                    "unfinished": 3}[verdict["status"]]


def test_pairs_cover_every_step_and_relation() -> None:
    verdicts = [p["verdict"] for p in INDEX["pairs"]]
    assert {v["status"] for v in verdicts} == {"valid", "invalid", "unreadable", "different-games", "same-owner",
                                               "unfinished"}
    assert {v["relation"] for v in verdicts} == {"same", "prefix", "crossing", None}
    between = {(v["offender"], len(v["evidence"])) for v in verdicts if v["code"] == "equivocation"}
    assert {(0, 2), (1, 2), (0, 1)} <= between  # host and guest proven across the logs; one log's own
    own = {v["offender_proven"] for v in verdicts if v["status"] == "invalid" and len(v["evidence"]) == 1}
    assert own == {True, False}
    assert all(set(p) == {"name", "files", "sha256", "about", "spec", "verdict"} for p in INDEX["pairs"])


def test_verify_json_command_over_every_pair(capsys: pytest.CaptureFixture[str]) -> None:
    """``p2ptrumps verify LOG OTHER_LOG --json``: the pair's verdict of the index, member for member
    (protocol/verify.md §7), with the two paths in ``logs`` and in each embedded verdict's ``log``."""
    for name, entry in PAIRS.items():
        paths = [str(VECTORS / f) for f in entry["files"]]
        code = main(["verify", *paths, "--json"])
        out = json.loads(capsys.readouterr().out)
        assert out.pop("logs") == paths
        assert [v.pop("log") for v in out["verdicts"]] == paths
        assert list(out) == [k for k in entry["verdict"]]
        assert (code, out) == (entry["verdict"]["exit_code"], entry["verdict"]), name


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_pair_in_the_other_order_mirrors(name: str) -> None:
    """The pair's finding does not depend on the order of the two logs, only the names of log 0 and log 1."""
    entry = PAIRS[name]
    want = entry["verdict"]
    got = _pair_of({"files": entry["files"][::-1]})
    keys = ("status", "code", "offender", "offender_proven", "game_id", "relation", "common", "messages")
    assert {k: got[k] for k in keys} == {k: want[k] for k in keys}
    assert sorted((1 - e["log"], e["index"]) for e in got["evidence"]) == sorted(
        (e["log"], e["index"]) for e in want["evidence"])
    if want["relation"] in ("prefix", "crossing"):
        assert got["leading"] == 1 - want["leading"]
    assert got["verdicts"] == want["verdicts"][::-1]


def _cuts(frames: list[bytes]) -> list[bytes]:
    """The log cut after every whole frame (from the owner's hello on), and once in the middle of each frame."""
    out = []
    for k in range(1, len(frames) + 1):
        out.append(LOG_MAGIC + b"".join(frames[:k]))
        out.append(LOG_MAGIC + b"".join(frames[:k]) + frames[k % len(frames)][:7])
    return out


def test_honest_logs_cut_anywhere_are_one_chain() -> None:
    """Two honest logs of a match with crossings, each cut after any frame or mid-frame (a crash, a dropped
    connection): never an equivocation, never invalid -- always one chain, and every relation occurs."""
    pair, _ = GEN.crossing_match()
    host = [x.frame for x in pair.host.log]
    guest = [x.frame for x in pair.guest.log]
    hosts = [check_log(d) for d in _cuts(host)]
    guests = [check_log(d) for d in _cuts(guest)]
    seen = set()
    for h in hosts:
        for g in guests:
            v = verify_pair(h, g)
            assert v.status in ("valid", "unfinished"), (v.status, v.reason)
            assert v.relation is not None
            seen.add(v.relation)
            leading = (h, g)[v.leading if v.leading is not None else 0]
            assert v.messages == len(leading.chain) and v.status == leading.verdict.status
    assert seen == {"same", "prefix", "crossing"}


#: The members that describe the log as it stood before an offending frame (protocol/verify.md §5).
_STATE = ("messages", "superseded", "withdrawn", "reconnections", "game_id", "players", "rules", "trumps", "deals",
          "score", "left", "forfeited", "claims")


_RESUME_CASES = {c["file"]: c for c in json.loads((VECTORS / "resume.json").read_text(encoding="utf-8"))["cases"]}
_INVALID = sorted(n for n, c in (CASES | _RESUME_CASES).items() if c["verdict"]["status"] == "invalid")


@pytest.mark.parametrize("name", _INVALID)
def test_the_offending_frame_changes_nothing(name: str) -> None:
    """An invalid log's state members equal those of the same log cut just before its offending frame
    (protocol/verify.md §5) -- also when that frame withdrew guest messages before it failed (D3)."""
    data = (VECTORS / name).read_bytes()
    want = verify_log(data).to_json()
    assert want == (CASES | _RESUME_CASES)[name]["verdict"]
    contents = read_log(data)
    index = want["index"]
    # the offending frame's offset; after a length fault, the end of the whole frames read before it
    cut = contents.offsets[index] if index < len(contents.offsets) else contents.error_offset
    before = verify_log(data[:cut]).to_json()
    assert before["status"] != "invalid"
    assert {k: want[k] for k in _STATE} == {k: before[k] for k in _STATE}


def test_the_settled_withdrawal_cases_keep_the_tentative_messages() -> None:
    """D3: a host message that withdraws guest messages and then fails the match rules: the guest
    messages stay in the chain (the chain two-log checks compare, too)."""
    v = CASES["wire/case-indep-d3-withdraw-then-illegal.log"]["verdict"]
    assert (v["code"], v["index"], v["offender"], v["offender_proven"]) == ("illegal-move", 14, 0, True)
    assert (v["messages"], v["withdrawn"]) == (12, 0)
    check = check_log((VECTORS / "wire/case-indep-d3-withdraw-then-illegal.log").read_bytes())
    assert [r.seat for r in check.chain[-2:]] == [1, 1] and len(check.chain) == 12
    v = CASES["wire/case-indep-d3-withdraw-leave-then-bad.log"]["verdict"]
    assert v["left"] == {"seat": 1, "message": 10} and v["score"] == [1.0, 0.0] and v["forfeited"] == []
    assert CASES["wire/case-indep-d3-withdraw-resign-then-illegal.log"]["verdict"]["deals"][0]["reason"] == "resign"


def test_forfeits_count_from_the_second_deal_end_statement() -> None:
    """D0: wire.md §15 -- a leave in play forfeits the deals after it only with the second deal-end statement."""
    def of(name: str) -> tuple[Any, Any, Any]:
        v = CASES[f"wire/{name}.log"]["verdict"]
        return v["left"], v["forfeited"], v["score"]

    left = {"seat": 1, "message": 8}
    assert of("leave-in-play-cut-at-leave") == (left, [], [1.0, 0.0])
    assert of("leave-in-play-cut-after-host-statement") == (left, [], [1.0, 0.0])
    assert of("leave-in-play-cut-after-statements") == (left, [2], [2.0, 0.0])
    assert of("leave-in-commit") == ({"seat": 1, "message": 4}, [1, 2], [2.0, 0.0])
    assert of("leave-twice")[1:] == ([], [1.0, 0.0])


def test_signature_vectors_follow_the_stated_equation() -> None:
    """wire.md §4.1 by hand, not by the library verify uses: S < L, then the encoding of [S]B - [k]A
    equals R byte for byte; the cofactored check would accept the refused ones."""
    for name in ("sig-torsion-key-valid", "sig-torsion-key-cofactored-only", "sig-r-neutral", "sig-r-with-torsion",
                 "sig-s-plus-l", "sig-r-not-canonical"):
        frames = read_log((VECTORS / f"wire/{name}.log").read_bytes()).frames
        hellos = [encoding.unpack(x[4:]) for x in frames[:2]]
        gid = hashlib.sha256(b"p2ptrumps/game-id/v1" + b"".join(len(x[4:]).to_bytes(4, "big") + x[4:]
                                                               for x in frames[:2])).digest()
        key = hellos[1][4]
        a_pt = _decode_point(key)
        results = []
        for x in frames[2:]:
            v = encoding.unpack(x[4:])
            if v[2] != 1:
                continue
            sig, signed = v[7], b"p2ptrumps/msg-sig/v1" + gid + encoding.pack(v[:7])
            r, s = sig[:32], int.from_bytes(sig[32:], "little")
            k = int.from_bytes(hashlib.sha512(r + key + signed).digest(), "little") % GEN.ED_L
            rhs = GEN._ed_add(GEN._ed_mul(s % GEN.ED_L, GEN.ED_B), GEN._ed_mul(k, (-a_pt[0] % GEN.P, a_pt[1])))
            results.append(s < GEN.ED_L and GEN.ed_encode(rhs) == r)
        want = CASES[f"wire/{name}.log"]["verdict"]
        assert all(results) == (want["code"] is None), name
        assert all(results[:-1]), name  # only the last guest signature is a bad one


def _decode_point(raw: bytes) -> tuple[int, int]:
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    return GEN._ed_x(y, raw[31] >> 7), y


def test_unfinished_vectors_say_who_was_to_act() -> None:
    def reason(name: str) -> str:
        return str(CASES[f"wire/{name}.log"]["verdict"]["reason"])

    assert reason("unfinished-mid-deal") == (
        "the log stops after message 27 (move) in deal 1; seat 1 (guest) was to act: move")
    assert reason("unfinished-handshake") == (
        "the log stops after the handshake (both hellos), before the first message; seat 0 (host) was to act: rules")
    assert reason("unfinished-after-rules") == (
        "the log stops after message 0 (rules) before the first deal; seat 1 (guest) was to act: agree")
    assert "the last frame is cut short" in reason("unfinished-truncated")
    assert CASES["wire/unfinished-forfeit.log"]["verdict"]["forfeit"] == 1


def test_keys_and_signature_independently() -> None:
    for label in ("host", "guest"):
        k = PRIM["keys"][label]
        priv = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(k["seed"]))
        from cryptography.hazmat.primitives import serialization

        raw = priv.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        assert raw.hex() == k["public_key"]
        import base64

        fp = base64.b32encode(hashlib.sha256(raw).digest()[:20]).decode()
        assert k["fingerprint"] == "-".join(fp[i : i + 4] for i in range(0, 32, 4))
    first = PRIM["first_message"]
    frame = bytes.fromhex(first["frame"])
    fields = encoding.unpack(frame)
    assert fields[0] == "msg" and fields[3] == 0 and fields[5] == "rules"
    gid = bytes.fromhex(PRIM["game_id"])
    assert fields[4] == gid  # prev of message 0 is the game id
    signed = b"p2ptrumps/msg-sig/v1" + gid + encoding.pack(fields[:-1])
    assert signed.hex() == first["signed_input"]
    host_pk = Ed25519PublicKey.from_public_bytes(bytes.fromhex(PRIM["keys"]["host"]["public_key"]))
    host_pk.verify(fields[-1], signed)  # raises if wrong
    assert hashlib.sha256(b"p2ptrumps/msg-hash/v1" + frame).hexdigest() == first["hash"]


def test_game_id_commitment_seed_independently() -> None:
    hh = bytes.fromhex(PRIM["hello_host"])[4:]
    hg = bytes.fromhex(PRIM["hello_guest"])[4:]
    gid = hashlib.sha256(
        b"p2ptrumps/game-id/v1" + len(hh).to_bytes(4, "big") + hh + len(hg).to_bytes(4, "big") + hg
    ).digest()
    assert gid.hex() == PRIM["game_id"]
    c = PRIM["commitment"]
    pk = bytes.fromhex(PRIM["keys"]["guest"]["public_key"])
    want = hashlib.sha256(
        b"p2ptrumps/commit/v1" + gid + (1).to_bytes(4, "big") + bytes([1]) + pk + bytes.fromhex(c["secret"])
    ).hexdigest()
    assert c["commitment"] == want
    s = PRIM["seed"]
    seed = hashlib.sha256(
        b"p2ptrumps/seed/v1" + gid + (1).to_bytes(4, "big") + bytes.fromhex(s["secret0"]) + bytes.fromhex(s["secret1"])
    ).hexdigest()
    assert s["seed"] == seed == PRIM["deals"][0]["seed"]


def test_position_hash_vector() -> None:
    p = PRIM["position"]
    raw = bytes.fromhex(p["bytes_after"])
    assert len(raw) == 8 + 8 + 1 + 4 + 1 + raw[21]
    assert raw[16] == 0 and int.from_bytes(raw[17:21], "big") == 1  # seat 0 moves after the elder's lead; turn 1
    assert hashlib.sha256(b"p2ptrumps/position/v1" + raw).hexdigest() == p["hash_after"]


def test_ping_pong_bytes() -> None:
    assert PRIM["ping"] == "92a470696e6707"
    assert PRIM["pong"] == "92a4706f6e6707"


def test_the_kit_example_in_protocol_readme_runs_over_the_whole_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """protocol/README.md's example, with ``p2ptrumps verify … --json`` as the implementer's verifier."""
    import contextlib
    import io
    import re
    import subprocess
    from types import SimpleNamespace

    text = (VECTORS.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1
    calls: list[list[str]] = []

    def run(args: list[Any], capture_output: bool) -> SimpleNamespace:
        assert args[0] == "myverify" and capture_output
        calls.append([str(a) for a in args[1:]])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["verify", *calls[-1], "--json"])
        return SimpleNamespace(stdout=out.getvalue())

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.chdir(VECTORS.parent.parent)
    exec(compile(blocks[0], "protocol/README.md", "exec"), {})
    assert len(calls) == len(CASES) + len(PAIRS)
    assert sum(len(c) == 2 for c in calls) == len(PAIRS)
