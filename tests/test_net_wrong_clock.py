"""A wrong wall clock does not matter (protocol/wire.md §18.2: a receiver does not check a certificate's
validity against its clock): a host whose clock reads 1999 and a guest whose clock reads 1970 (a board
before it reached a time server) play a whole match, and the two logs verify as one chain.

The clocks are shimmed with libfaketime (Debian's ``faketime``; ``.ci/run`` installs it as root), preloaded
into the program itself (so that the process a test stops is the program, not a wrapper): only the wall
clock is moved, the monotonic clock that times moves (§16) stays the machine's.  Skipped where libfaketime
is not installed."""

from __future__ import annotations

import glob
import os
import subprocess
import time
from pathlib import Path

import pytest

from p2ptrumps.net import secure
from p2ptrumps.net.testing import free_port, peer_command, peer_env

#: The shim's library (Debian's package puts it in its multiarch folder).
LIBFAKETIME = next(iter(sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1")
                               + glob.glob("/usr/lib/faketime/libfaketime.so.1"))), None)

pytestmark = pytest.mark.skipif(LIBFAKETIME is None,
                                reason="libfaketime is not installed: apt-get install faketime")

PLAY = ("--headless", "--ai", "random", "--think", "0.01", "--timeout", "20")
RULES = ("--deals", "1", "--pack", "32", "--turn-limit", "30")


def _env(home: Path, when: str) -> dict[str, str]:
    """The environment of a program whose wall clock starts at ``when`` (``"1970-01-02 00:00:00"``) and runs
    on from there, its monotonic clock real."""
    assert LIBFAKETIME is not None
    return {**peer_env(home), "LD_PRELOAD": LIBFAKETIME, "FAKETIME": f"@{when}", "FAKETIME_DONT_FAKE_MONOTONIC": "1"}


def test_the_clock_is_checked_by_no_side() -> None:
    """Our TLS contexts carry OpenSSL's X509_V_FLAG_NO_CHECK_TIME, host and guest alike."""
    from p2ptrumps.wire.identity import Identity

    me = Identity.from_seed(bytes(32))
    for server in (True, False):
        assert int(secure._context(me, server).verify_flags) & secure.NO_CHECK_TIME == 0x200000


def play_two(tmp_path: Path, host: list[str], guest: list[str], host_env: dict[str, str],
             guest_env: dict[str, str]) -> tuple[bytes, subprocess.CompletedProcess[str]]:
    """A headless host (``host``: its argv, ``{port}`` for a free port) started and waiting, then a guest
    (``guest``, the same) that plays it to the end: what the host printed (bytes) and the guest's run.
    Both must end with status 0; the host is killed if it outlives the test."""
    port = str(free_port())
    out = tmp_path / "host.out"
    with open(out, "wb") as f:
        proc = subprocess.Popen([a.replace("{port}", port) for a in host], stdout=f, stderr=subprocess.STDOUT,
                                env=host_env)
    try:
        for _ in range(600):
            if "waiting for a guest" in out.read_text(errors="replace") or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert "waiting for a guest" in out.read_text(errors="replace"), out.read_text(errors="replace")
        run = subprocess.run([a.replace("{port}", port) for a in guest], capture_output=True, text=True,
                             env=guest_env, timeout=90)
        assert run.returncode == 0, run.stderr
        assert proc.wait(30) == 0, out.read_text(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    return out.read_bytes(), run


@pytest.mark.timeout(120)
def test_a_host_at_1999_and_a_guest_at_1970_play_a_match_that_verifies(tmp_path: Path) -> None:
    said, guest = play_two(
        tmp_path,
        peer_command("host", "--bind", "127.0.0.1", "--port", "{port}", "--open", "--name", "Hana", "--no-map", *PLAY,
                     *RULES),
        peer_command("join", "127.0.0.1:{port}", "--accept-new", "--name", "Gus", *PLAY),
        _env(tmp_path / "host", "1999-06-01 12:00:00"), _env(tmp_path / "guest", "1970-01-02 00:00:00"))
    text = said.decode(errors="replace") + guest.stderr
    assert "certificate" not in text and "without a word" not in text
    # The shim took: each side named its log by its own clock (protocol/files.md's log names).
    [host_log] = (tmp_path / "host" / "p2ptrumps" / "logs").glob("*.p2plog")
    [guest_log] = (tmp_path / "guest" / "p2ptrumps" / "logs").glob("*.p2plog")
    assert host_log.name.startswith("1999-06-01_") and guest_log.name.startswith("1970-01-02_")
    pair = subprocess.run(peer_command("verify", str(host_log), str(guest_log)), capture_output=True, text=True,
                          timeout=60, env={**os.environ})
    assert pair.returncode == 0, pair.stdout + pair.stderr
