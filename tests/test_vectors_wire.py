"""The wire vectors in protocol/vectors/ (wire.json, wire/*.log): exact bytes and exact verdicts."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2ptrumps.wire import encoding
from p2ptrumps.wire.verify import verify_log

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
DOC: dict[str, Any] = json.loads((VECTORS / "wire.json").read_text(encoding="utf-8"))
PRIM = DOC["primitives"]

#: What verify must say of each log, written out by hand (not read from the generator).
EXPECTED = {
    "valid-host": ("valid", None, None, None, False),
    "valid-guest": ("valid", None, None, None, False),
    "invalid-bad-signature": ("invalid", "bad-signature", 12, 1, False),
    "invalid-broken-chain": ("invalid", "broken-chain", 12, 1, True),
    "invalid-non-canonical": ("invalid", "non-canonical", 12, 1, False),
    "invalid-map-not-array": ("invalid", "non-canonical", 12, 1, False),
    "invalid-illegal-move": ("invalid", "illegal-move", 12, 1, True),
    "invalid-wrong-position-hash": ("invalid", "wrong-position-hash", 12, 1, True),
    "invalid-bad-reveal": ("invalid", "bad-reveal", 9, 1, True),
    "invalid-oversized-frame": ("invalid", "oversized-frame", 12, 1, False),
    "invalid-garbage-frame": ("invalid", "garbage-frame", 12, 1, False),
    "invalid-sequence-gap": ("invalid", "sequence-gap", 7, 1, True),
    "invalid-wrong-game": ("invalid", "wrong-game", 12, 1, False),
    "unfinished-truncated": ("unfinished", None, None, None, False),
    "unfinished-mid-deal": ("unfinished", None, None, None, False),
}


def test_generator_reproduces_every_file_byte_for_byte() -> None:
    spec = importlib.util.spec_from_file_location("gen_wire", VECTORS / "gen_wire.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    files = gen.build()
    assert sorted(files) == sorted(["wire.json"] + [f"wire/{n}.log" for n in EXPECTED])
    for name, data in files.items():
        assert (VECTORS / name).read_bytes() == data, name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_log_verdict(name: str) -> None:
    entry = DOC["logs"][name]
    data = (VECTORS / entry["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == entry["sha256"]
    v = verify_log(data)
    assert (v.status, v.code, v.index, v.offender, v.offender_proven) == EXPECTED[name]
    assert v.reason == entry["verdict"]["reason"]
    assert (entry["verdict"]["offender"], entry["verdict"]["offender_proven"]) == EXPECTED[name][3:]
    assert v.exit_code == {"valid": 0, "invalid": 1, "unfinished": 3}[v.status]


def test_unfinished_vectors_say_who_was_to_act() -> None:
    v = verify_log((VECTORS / "wire/unfinished-mid-deal.log").read_bytes())
    assert v.reason == "the log stops after message 27 (deal 1); seat 1 (guest) was to act: move"
    t = verify_log((VECTORS / "wire/unfinished-truncated.log").read_bytes())
    assert t.truncated_bytes > 0 and "the last frame is cut short" in t.reason


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
