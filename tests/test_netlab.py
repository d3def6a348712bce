"""The network lab itself (p2ptrumps/net/lab.py): what each home can reach and what can
reach it, before any port mapping."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from p2ptrumps.net.lab import HOMES, Lab, until


def _at_once(probes: dict[str, Callable[[], tuple[bool, bool]]]) -> dict[str, tuple[bool, bool]]:
    """Each probe run in its own thread (the unreachable ones each wait out their timeout)."""
    with ThreadPoolExecutor(len(probes)) as pool:
        futures = {h: pool.submit(f) for h, f in probes.items()}
        return {h: f.result(timeout=30) for h, f in futures.items()}


def test_every_home_reaches_the_internet_and_only_the_open_host_is_reachable(netlab: Lab) -> None:
    netlab.listen("inet", "::", 9000)
    out = _at_once({h: (lambda h=h: (netlab.connects(h, netlab.service_address, 9000),
                                     netlab.address6(h) is not None
                                     and netlab.connects(h, netlab.service_address6, 9000))) for h in HOMES})
    assert out == {"open": (True, True), "upnp": (True, False), "plain": (True, False), "cgnat": (True, False),
                   "v6": (True, True), "v6pin": (True, True)}
    port = 9001
    for h in HOMES:
        netlab.listen(h, "::", port)
    inbound = _at_once({h: (lambda h=h: (netlab.connects("open", netlab.wan_address(h), port, 1.0),
                                         netlab.address6(h) is not None
                                         and netlab.connects("inet", str(netlab.address6(h)), port, 1.0)))
                        for h in HOMES})
    assert inbound == {"open": (True, True), "upnp": (False, False), "plain": (False, False),
                       "cgnat": (False, False), "v6": (False, False), "v6pin": (False, False)}


def test_the_lab_names_its_namespaces_and_removes_them() -> None:
    from p2ptrumps.net import lab

    if (why := lab.unavailable(("plain",))) is not None:
        import pytest

        pytest.skip(f"network lab unavailable: {why}")
    with Lab(homes=("plain",)) as net:
        names = set(lab._netns_names())
        assert {net.ns("inet"), net.ns("plain"), net.ns("plain-r")} <= names
        assert all(n.startswith(lab.PREFIX) for n in (net.ns("inet"), net.ns("plain")))
    assert not {n for n in lab._netns_names() if n.startswith(net.tag)}


ASK = """
import json, sys, trio
from p2ptrumps.net import portmap
from p2ptrumps.net.addresses import local_addresses

async def main():
    async with portmap.port_mapping(4816, local_addresses(), wanted=True) as reach:
        print(json.dumps({"case": reach.case, "lines": reach.lines(), "given": reach.public_addresses(),
                          "pinhole": reach.pinhole.address if reach.pinhole else None}), flush=True)
        sys.stdin.readline()
    print("released", flush=True)

trio.run(main)
"""


def test_each_home_s_router_is_asked_and_left_clean(netlab: Lab) -> None:
    """In every kind of home at once: what the host learns of its router, the rules miniupnpd holds while
    it hosts (a DNAT and a forward rule for the mapping, one for a pinhole), and none once it stopped."""
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "P2PTRUMPS_NO_MAP"}
    got, held, procs = {}, {}, {}
    for h in HOMES:  # one after the other: six at once on a loaded machine could outrun the 2 s budget
        p = procs[h] = netlab.popen(h, [sys.executable, "-c", ASK], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    env=env)
        assert p.stdout is not None
        got[h] = json.loads(p.stdout.readline())
        held[h] = len(netlab.mappings(h))
    for p in procs.values():
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(b"\n")
        p.stdin.flush()
        assert p.stdout.readline() == b"released\n"
        p.wait(10)
    assert {h: g["case"] for h, g in got.items()} == {"open": "public", "upnp": "mapped", "plain": "no-service",
                                                    "cgnat": "double-nat", "v6": "no-service", "v6pin": "mapped"}
    assert {h: g["given"] for h, g in got.items()} == {
        "open": [], "upnp": [f"{netlab.wan_address('upnp')}:4816"], "plain": [], "cgnat": [], "v6": [],
        "v6pin": [f"{netlab.wan_address('v6pin')}:4816"]}
    assert got["v6pin"]["pinhole"] == netlab.address6("v6pin")
    assert got["cgnat"]["lines"] == ["port mapping: your router is behind another NAT: a guest on the internet "
                                     "cannot reach this address (double or carrier-grade NAT); a guest on your "
                                     "local network can"]
    assert got["plain"]["lines"] == [
        "port mapping: your router answered no port mapping request (UPnP-IGD, NAT-PMP): a guest on the internet "
        f"cannot reach this machine over IPv4 unless you forward TCP port 4816 to {netlab.address('plain')} on "
        "your router (or turn UPnP on there)"]
    assert got["v6"]["lines"][1] == (f"IPv6: your router offered no pinhole; if its firewall drops inbound "
                                     f"connections (most do), allow TCP to [{netlab.address6('v6')}] port 4816 there")
    assert held == {"open": 0, "upnp": 2, "plain": 0, "cgnat": 0, "v6": 0, "v6pin": 3}
    assert {h: netlab.mappings(h) for h in HOMES if netlab.mappings(h)} == {}


def test_a_guest_from_another_home_plays_through_the_router_s_mapping(netlab: Lab) -> None:
    """``p2ptrumps host`` behind the UPnP router, ``join`` from behind a plain NAT: the mapped address is
    given out before the LAN one, the match gets to its first move, both sides name the path, and the
    router holds no mapping once the host has stopped."""
    import tempfile
    from pathlib import Path

    from tests.conftest import load_bench

    bench = load_bench("netlab")
    with tempfile.TemporaryDirectory() as tmp:
        pair = bench.Pair("upnp", "plain-2")
        assert bench.one_run(netlab, pair, Path(tmp), 0)
    assert (pair.address, pair.path_guest, pair.path_host) == (
        f"{netlab.wan_address('upnp')}:4816", "direct over the internet (IPv4)", "through your router's port mapping")
    assert pair.left_on_router == []


def test_a_host_behind_carrier_grade_nat_says_so_and_cannot_be_reached(netlab: Lab) -> None:
    import tempfile
    from pathlib import Path

    from tests.conftest import load_bench

    bench = load_bench("netlab")
    with tempfile.TemporaryDirectory() as tmp:
        pair = bench.Pair("cgnat", "upnp-2")
        assert not bench.one_run(netlab, pair, Path(tmp), 0)
    assert pair.router == ["port mapping: your router is behind another NAT: a guest on the internet cannot reach "
                           "this address (double or carrier-grade NAT); a guest on your local network can"]
    assert pair.why.endswith(f"cannot connect to {netlab.address('cgnat')}:4816: network unreachable (that is a "
                             "local-network address: from outside the host's home, use the public address the "
                             "host printed)")


def _ask(net: Lab, home: str) -> tuple[dict[str, object], list[str], str]:
    """Run :data:`ASK` in ``home``: what the host learned, the router's rules while hosting, what it said last."""
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "P2PTRUMPS_NO_MAP"}
    p = net.popen(home, [sys.executable, "-c", ASK], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert p.stdout is not None and p.stdin is not None
    got = json.loads(p.stdout.readline())
    held = net.mappings(home)
    p.stdin.write(b"\n")
    p.stdin.flush()
    last = p.stdout.readline().decode()
    p.wait(10)
    return got, held, last


def test_an_igd_v1_router_and_a_nat_pmp_only_router_map_too() -> None:
    from p2ptrumps.net import lab

    if (why := lab.unavailable(("upnp",))) is not None:
        import pytest

        pytest.skip(f"network lab unavailable: {why}")
    with Lab(("upnp", "upnp-2"), services={"upnp": "igd1", "upnp-2": "natpmp"}) as net:
        v1, v1_held, v1_last = _ask(net, "upnp")
        pmp, pmp_held, pmp_last = _ask(net, "upnp-2")
        assert (v1["lines"], len(v1_held), v1_last) == (
            [f"port mapping: your router (UPnP-IGD v1) forwards {net.wan_address('upnp')}:4816 to this machine "
             "(renewed while hosting, removed when you stop)"], 2, "released\n")
        assert (pmp["lines"], len(pmp_held), pmp_last) == (
            [f"port mapping: your router (NAT-PMP) forwards {net.wan_address('upnp-2')}:4816 to this machine "
             "(renewed while hosting, removed when you stop)"], 2, "released\n")
        assert (net.mappings("upnp"), net.mappings("upnp-2")) == ([], [])


def test_a_killed_host_resumes_across_its_nat_and_maps_again(netlab: Lab) -> None:
    """``kill -9`` of the host behind the UPnP router mid-match: its mapping is still on the router (until
    its lease ends), ``p2ptrumps resume`` maps the port again, the guest behind a plain NAT comes back, the
    match ends for both sides with status 0, and nothing is left on the router."""
    import tempfile
    from pathlib import Path

    from tests.conftest import load_bench

    bench = load_bench("netlab")
    with tempfile.TemporaryDirectory() as tmp:
        got = bench.resume_trial(netlab, "upnp", "plain-2", "kill", Path(tmp))
    assert "error" not in got, got
    assert (got["guest_status"], got["host_status"], len(got["left_after_kill"]), got["left_on_router"]) == (
        0, 0, 2, [])
    assert got["host_said"][0] == (f"port mapping: your router (UPnP-IGD v2) forwards "
                                   f"{netlab.wan_address('upnp')}:4816 to this machine (renewed while hosting, "
                                   "removed when you stop)")


KEEP = """
import json, sys, trio
from p2ptrumps.net import portmap
from p2ptrumps.net.addresses import local_addresses
portmap.CHECK_S, portmap.MIN_RENEW_S = 1.0, 0.5  # the router asked again every second (30 s in a match)

async def main():
    async with portmap.port_mapping(4816, local_addresses(), wanted=True, note=lambda l: print(l, flush=True)) as r:
        print(json.dumps({"given": r.public_addresses(), "pinhole": r.pinhole.address if r.pinhole else None}),
              flush=True)
        await trio.to_thread.run_sync(sys.stdin.readline)  # trio's loop runs on: the router is asked again
    print("released", flush=True)

trio.run(main)
"""


def _line(p: object, timeout_s: float = 60.0) -> str:
    """The next line ``p`` (a Popen with a stdout pipe) prints, or '' when none comes within ``timeout_s``."""
    import select

    out = p.stdout  # type: ignore[attr-defined]
    ready, _, _ = select.select([out], [], [], timeout_s)
    return out.readline().decode() if ready else ""


def test_a_router_that_restarts_or_stops_answering_gets_the_mapping_and_pinhole_back(netlab: Lab) -> None:
    """The router grants the mapping and the pinhole, then reboots (miniupnpd restarted on a new port, its
    rules gone): the host finds it again and maps again, silently.  Then the service stops for a while:
    the host says so in one line, and once it is back, one line that the mapping is back.  At the end
    nothing is left on the router (the removal goes to the router of now, not the one that restarted)."""
    import json
    import os
    import subprocess
    import sys

    home = "v6pin-2"
    env = {k: v for k, v in os.environ.items() if k != "P2PTRUMPS_NO_MAP"}
    p = netlab.popen(home, [sys.executable, "-c", KEEP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert p.stdin is not None
    got = json.loads(_line(p))
    public = f"{netlab.wan_address(home)}:4816"
    assert (got["given"], got["pinhole"]) == ([public], netlab.address6(home))
    held = sorted(netlab.mappings(home))
    assert len(held) == 3  # the DNAT and its forward rule, the pinhole
    netlab.reboot_router(home)
    assert netlab.mappings(home) == []
    assert until(lambda: sorted(netlab.mappings(home)) == held, 60), netlab.mappings(home)
    netlab.stop_miniupnpd(home, forget=True)
    assert _line(p) == (f"port mapping: your router stopped answering for {public}: a guest elsewhere cannot "
                        "connect until it answers again (asked every 1 s)\n")
    netlab.start_miniupnpd(home)
    assert _line(p) == f"port mapping: your router forwards {public} to this machine again\n"
    assert sorted(netlab.mappings(home)) == held
    p.stdin.write(b"\n")
    p.stdin.flush()
    assert _line(p) == "released\n"
    p.wait(10)
    assert netlab.mappings(home) == []


def test_a_nat_pmp_router_that_maps_another_port_has_that_mapping_removed_when_the_host_stops() -> None:
    """External port 4816 is taken on the router (another mapping of this machine's, to its port 5000), so
    miniupnpd's NAT-PMP maps the host's 4816 to another external port: the host gives that port out, and on
    stop removes that very mapping (by its internal port, RFC 6886 §3.4) -- the other one stays."""
    import sys

    from p2ptrumps.net import lab

    if (why := lab.unavailable(("upnp",))) is not None:
        import pytest

        pytest.skip(f"network lab unavailable: {why}")
    with Lab(("upnp",), services={"upnp": "natpmp"}) as net:
        taken = net.run("upnp", [sys.executable, "-c", "from p2ptrumps.net import natpmp; "
                                 "print(natpmp.map_tcp(natpmp.default_gateway(), 5000, 4816, 600).external_port)"])
        assert taken.stdout.strip() == "4816", taken.stdout + taken.stderr
        before = net.mappings("upnp")
        got, held, last = _ask(net, "upnp")
        assert isinstance(got["given"], list) and len(got["given"]) == 1
        external = int(str(got["given"][0]).rsplit(":", 1)[1])
        assert external != 4816 and got["given"] == [f"{net.wan_address('upnp')}:{external}"]
        assert len(held) == len(before) + 2 and any(f"dport {external}" in rule for rule in held), held
        assert (last, net.mappings("upnp")) == ("released\n", before)
