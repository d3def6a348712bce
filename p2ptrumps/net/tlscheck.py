"""Can this machine's TLS library make our encrypted connection at all? (``protocol/wire.md`` §18.1)

A local OpenSSL policy can forbid what the connection needs -- an ``OPENSSL_CONF`` whose
``SignatureAlgorithms`` leaves out ``ed25519``, a FIPS-like provider without Ed25519, a
``MinProtocol``/``MaxProtocol`` without TLS 1.3.  The peer then sees only a TLS alert, and we would
blame it ("not an encrypted p2ptrumps connection").  :func:`local_tls_problem` finds it out before any
connection is made: one handshake of this process with itself through memory (no socket, about a
millisecond), its answer kept for the process.
"""

from __future__ import annotations

import hashlib
import ssl
from functools import lru_cache

from ..wire.identity import Identity
from . import secure

#: Handshake steps of the self-test (a TLS 1.3 handshake takes three flights).
_STEPS = 8


@lru_cache(maxsize=1)
def local_tls_problem() -> str | None:
    """None when this machine's TLS library completes the handshake of wire.md §18.1 with itself
    (TLS 1.3, Ed25519 certificates both ways, ALPN); else one line naming the local cause, for the
    user: ``"this machine's TLS library refuses the encrypted connection p2ptrumps needs (TLS 1.3 with
    Ed25519 certificates): no suitable signature algorithm. A local OpenSSL policy forbids it ..."``.
    Never raises."""
    try:
        why = _self_handshake()
    except Exception as exc:  # a library that cannot even build the contexts
        why = str(exc) or type(exc).__name__
    if why is None:
        return None
    return (f"this machine's TLS library refuses the encrypted connection p2ptrumps needs (TLS 1.3 with Ed25519 "
            f"certificates): {why}. A local OpenSSL policy forbids it (OPENSSL_CONF, a system-wide crypto policy "
            "or FIPS mode); no peer can help: allow Ed25519 and TLS 1.3 for this program, or play from another "
            "machine")


def _self_handshake() -> str | None:
    """Run one handshake between a server and a client context of a throwaway key (wire.md §18.2
    certificates); the TLS library's reason when it fails, else None."""
    me = Identity.from_seed(hashlib.sha256(b"p2ptrumps/tls-self-test").digest())
    server_in, server_out, client_in, client_out = (ssl.MemoryBIO() for _ in range(4))
    server = secure._context(me, True).wrap_bio(server_in, server_out, server_side=True)
    client = secure._context(me, False).wrap_bio(client_in, client_out, server_side=False)
    done = {id(server): False, id(client): False}
    for _ in range(_STEPS):
        for side, out, into in ((client, client_out, server_in), (server, server_out, client_in)):
            try:
                side.do_handshake()
                done[id(side)] = True
            except ssl.SSLWantReadError:
                pass
            except ssl.SSLError as exc:
                return str(exc.reason or exc).lower().replace("_", " ")
            data = out.read()
            if data:
                into.write(data)
        if all(done.values()):
            return None
    return "the handshake does not end"
