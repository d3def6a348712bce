"""A local TLS policy is named as local (protocol/wire.md §18.1 needs TLS 1.3 and Ed25519 certificates).

* a guest or a host whose OpenSSL policy forbids Ed25519 (an ``OPENSSL_CONF`` whose
  ``SignatureAlgorithms`` leaves it out, as a FIPS-like policy does) says so in one line before it
  listens or dials, exit status 1 -- it never blames the peer;
* a peer that answers our ClientHello with a TLS alert (its own policy refused it) is named as
  refusing the handshake, with the alert, not as "not an encrypted p2ptrumps connection".
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import trio

from p2ptrumps.net import secure
from p2ptrumps.net.testing import free_port, peer_command, peer_env
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import fixed_bytes

#: An OpenSSL configuration whose signature algorithms leave out Ed25519 (as a FIPS-like policy does).
NO_ED25519 = """openssl_conf = openssl_init
[openssl_init]
ssl_conf = ssl_sect
[ssl_sect]
system_default = system_default_sect
[system_default_sect]
SignatureAlgorithms = ecdsa_secp256r1_sha256:rsa_pss_rsae_sha256
"""

LOCAL = ("this machine's TLS library refuses the encrypted connection p2ptrumps needs (TLS 1.3 with Ed25519 "
         "certificates): no suitable signature algorithm. A local OpenSSL policy forbids it (OPENSSL_CONF, a "
         "system-wide crypto policy or FIPS mode); no peer can help: allow Ed25519 and TLS 1.3 for this program, "
         "or play from another machine")


def test_this_machine_can_make_the_connection() -> None:
    from p2ptrumps.net.tlscheck import local_tls_problem

    assert local_tls_problem() is None


@pytest.mark.parametrize("command", [["join", "127.0.0.1:{port}", "--accept-new"],
                                     ["host", "--bind", "127.0.0.1", "--port", "{port}", "--no-map"]])
def test_a_policy_without_ed25519_is_named_as_local_before_anything(tmp_path: Path, command: list[str]) -> None:
    conf = tmp_path / "openssl.cnf"
    conf.write_text(NO_ED25519)
    port = str(free_port())
    argv = [a.replace("{port}", port) for a in command]
    run = subprocess.run(peer_command(*argv, "--headless", "--ai", "random", "--name", "Gus"),
                         capture_output=True, text=True, timeout=60,
                         env={**peer_env(tmp_path / "home"), "OPENSSL_CONF": str(conf)})
    assert (run.returncode, run.stdout, run.stderr) == (1, "", f"p2ptrumps {argv[0]}: {LOCAL}\n")
    assert not (tmp_path / "home").exists()  # nothing written: no key, no log


async def test_a_peer_that_answers_with_an_alert_is_named_as_refusing() -> None:
    a, b = trio.socket.socketpair()
    guest = secure.secure(trio.SocketStream(a), Identity.from_seed(fixed_bytes("policy/guest")), server=False)
    peer = trio.SocketStream(b)
    async with trio.open_nursery() as n:
        async def refuse() -> None:
            await peer.receive_some(65536)  # the ClientHello
            await peer.send_all(bytes.fromhex("15030300020228"))  # fatal alert 40, handshake_failure
            await peer.aclose()
        n.start_soon(refuse)
        with trio.fail_after(20), pytest.raises(secure.SecureError) as info:
            await guest.handshake()
    assert str(info.value) == "the peer refused the encrypted handshake (TLS sslv3 alert handshake failure)"
    await guest.aclose()
