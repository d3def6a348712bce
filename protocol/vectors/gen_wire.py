"""Regenerate the wire test vectors (protocol/wire.md) deterministically.

Run from the repository root with the package installed::

    python protocol/vectors/gen_wire.py          # rewrite wire.json and wire/*.log
    python protocol/vectors/gen_wire.py --check  # exit 1 if any file would change

Everything derives from fixed labels: keys from SHA-256("<label>/key"), nonces
from SHA-256("<label>/nonce"), commit secrets from SHA-256("<label>/secret/<deal>")
(see p2ptrumps/wire/testing.py).  Both scripted peers play the first legal move.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from p2ptrumps.rules import Position, RuleSet
from p2ptrumps.shuffle import deal_hands, first_dealer
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import TAMPERS, ConnectionPair, attack, fixed_bytes
from p2ptrumps.wire.verify import verify_log

HERE = Path(__file__).resolve().parent
RULES = RuleSet(pack_size=32, deals=2)


def _verdict(data: bytes) -> dict[str, Any]:
    v = verify_log(data)
    return {"status": v.status, "exit_code": v.exit_code, "code": v.code, "index": v.index,
            "offender": v.offender, "offender_proven": v.offender_proven, "reason": v.reason}


def build() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    host_id = Identity.from_seed(fixed_bytes("host/key"))
    guest_id = Identity.from_seed(fixed_bytes("guest/key"))
    pair = ConnectionPair(RULES)
    pair.run()
    gid = pair.host.session.game_id
    assert gid is not None
    host_log, guest_log = pair.host.log_bytes(), pair.guest.log_bytes()
    chain = pair.host.session.chain
    assert chain is not None
    first = chain.entries[0]
    logs: dict[str, dict[str, Any]] = {}

    def add_log(name: str, data: bytes, note: str) -> None:
        files[f"wire/{name}.log"] = data
        logs[name] = {
            "file": f"wire/{name}.log",
            "sha256": hashlib.sha256(data).hexdigest(),
            "note": note,
            "verdict": _verdict(data),
        }

    add_log("valid-host", host_log, "complete 2-deal match (32 cards), the host's log")
    add_log("valid-guest", guest_log, "the same match, the guest's log")
    for tamper in TAMPERS:
        side, _ = attack(tamper, RULES)
        add_log(f"invalid-{tamper}", side.log_bytes(), f"the host's log of a guest that sent a {tamper} frame")
    cut = len(host_log) // 2
    add_log("unfinished-truncated", host_log[:cut], f"the valid host log cut at byte {cut} (mid-frame)")
    # a clean stop at a frame boundary in the middle of deal 1
    boundary = 16 + sum(len(f.frame) for f in pair.host.log[:30])
    add_log("unfinished-mid-deal", host_log[:boundary], "the valid host log, first 30 frames (a dropped connection)")

    # primitives
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
        "hello_host": framing_hex(pair.host.log[0].frame),
        "hello_guest": framing_hex(pair.guest.log[0].frame),
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
            for d in chain.referee.deals
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
        "about": "p2ptrumps wire vectors (protocol/wire.md); regenerate: python protocol/vectors/gen_wire.py",
        "rules": RULES.to_dict(),
        "primitives": prim,
        "logs": logs,
    }
    files["wire.json"] = (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode()
    return files


def framing_hex(frame: bytes) -> str:
    return frame.hex()


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
    if stale:
        print("out of date:", ", ".join(stale))
        return 1
    print("checked" if check else "wrote", len(files), "files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
