"""Generate ``tls.json``, the test vectors of ``protocol/wire.md`` §18 (the encrypted connection).

Deterministic: the keys are those of ``wire.json`` (seeds SHA-256("host/key"), SHA-256("guest/key")),
and every certificate is a function of its key (Ed25519 signatures are deterministic).  Usage (from
the repository root)::

    python protocol/vectors/gen_tls.py          # rewrite tls.json
    python protocol/vectors/gen_tls.py --check  # exit 1 if tls.json differs

The certificates come from :mod:`p2ptrumps.net.secure`; ``tests/test_net_secure.py`` checks this
file against that module and against the byte layout that wire.md §18.2 writes out.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from p2ptrumps.net import secure
from p2ptrumps.wire.identity import Identity

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "tls.json"


def build() -> dict[str, Any]:
    issuer = Identity.from_seed(hashlib.sha256(secure.ISSUER_TAG).digest())
    keys = []
    for label in ("host/key", "guest/key"):
        identity = Identity.from_seed(hashlib.sha256(label.encode()).digest())
        der = secure.certificate(identity.public_bytes)
        keys.append({
            "label": label,
            "seed": identity.seed.hex(),
            "public_key": identity.public_bytes.hex(),
            "certificate": der.hex(),
            "certificate_sha256": hashlib.sha256(der).hexdigest(),
        })
    issuer_der = secure.issuer_certificate()
    return {
        "about": "protocol/wire.md §18: the ALPN id, the issuer key (published on purpose), the issuer's "
                 "certificate, the certificates (DER, hex) of the two keys of wire.json, and what a version-2 "
                 "server answers a version-1 peer",
        "alpn": secure.ALPN,
        "issuer": {
            "seed_of": secure.ISSUER_TAG.decode("ascii"),
            "seed": issuer.seed.hex(),
            "public_key": issuer.public_bytes.hex(),
            "certificate": issuer_der.hex(),
            "certificate_sha256": hashlib.sha256(issuer_der).hexdigest(),
        },
        "keys": keys,
        "old_peer_answer": secure.OLD_PEER_ANSWER.hex(),
    }


def render() -> str:
    return json.dumps(build(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} is out of date: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
