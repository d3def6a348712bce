"""IPv6 privacy addresses (p2ptrumps.net.addresses.local_addresses): the host hands out its stable IPv6
address, never a temporary one (RFC 8981: it changes daily and vanishes, and a guest that redials it
after a cut finds nobody -- the match stopped, both sides exit 4) nor a deprecated one (its preferred
lifetime over), even where the system's own choice of a source address is the temporary one.

In a network namespace of the test's own (root and ``ip``; skipped otherwise): one interface with a
stable address whose prefix makes temporary ones (``mngtmpaddr``, ``use_tempaddr=2``), and a deprecated
address (``preferred_lft 0``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest

STABLE = "2a0b:bd40:5::2"
DEPRECATED = "2a0b:bd40:5::3"

if sys.platform != "linux":
    pytest.skip("network namespaces are Linux's", allow_module_level=True)


def _ip(*args: str) -> str:
    return subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=20).stdout


@pytest.fixture
def privacy_home() -> Iterator[str]:
    """The namespace's name, once its temporary address exists."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("a network namespace of the test's own needs root and ip")
    ns = f"fieldv6{os.getpid()}x{uuid.uuid4().hex[:4]}"
    _ip("netns", "add", ns)
    try:
        _ip("-n", ns, "link", "set", "lo", "up")
        _ip("-n", ns, "link", "add", "home0", "type", "veth", "peer", "name", "home1")  # the home's network
        _ip("-n", ns, "link", "set", "home1", "up")
        subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.home0.use_tempaddr=2"],
                       check=True, capture_output=True, timeout=20)
        _ip("-n", ns, "link", "set", "home0", "up")
        _ip("-n", ns, "-6", "addr", "add", f"{STABLE}/64", "dev", "home0", "mngtmpaddr", "nodad")
        _ip("-n", ns, "-6", "addr", "add", f"{DEPRECATED}/64", "dev", "home0", "nodad", "preferred_lft", "0",
            "valid_lft", "3600")
        _ip("-n", ns, "-6", "route", "add", "default", "dev", "home0")
        yield ns
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20, check=False)


def _temporary(ns: str) -> list[str]:
    out = json.loads(_ip("-n", ns, "-j", "-6", "addr", "show", "dev", "home0"))
    return [a["local"] for i in out for a in i.get("addr_info", []) if a.get("temporary") and not a.get("tentative")]


def test_the_stable_ipv6_address_is_handed_out_never_a_temporary_or_deprecated_one(privacy_home: str) -> None:
    from tests.test_ui_tmux import wait_for

    wait_for("the kernel's temporary address", lambda: bool(_temporary(privacy_home)), 20)
    temporary = _temporary(privacy_home)
    # The system itself picks the temporary address as the source towards the internet (use_tempaddr=2).
    picked = subprocess.run(["ip", "netns", "exec", privacy_home, sys.executable, "-c",
                             "import socket; s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); "
                             "s.connect(('2001:db8::1', 9)); print(s.getsockname()[0])"],
                            capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    assert picked in temporary
    given = subprocess.run(["ip", "netns", "exec", privacy_home, sys.executable, "-c",
                            "from p2ptrumps.net.addresses import local_addresses; print(' '.join(local_addresses()))"],
                           capture_output=True, text=True, timeout=60, check=True).stdout.split()
    assert given == [STABLE, "::1", "127.0.0.1"]
