"""The network lab itself (p2ptrumps/net/lab.py, issue 14 §1): what each home can reach and what can
reach it, before any port mapping."""

from __future__ import annotations

from p2ptrumps.net.lab import HOMES, Lab


def test_every_home_reaches_the_internet_and_only_the_open_host_is_reachable(netlab: Lab) -> None:
    netlab.listen("inet", "::", 9000)
    out = {h: (netlab.connects(h, netlab.service_address, 9000),
               netlab.address6(h) is not None and netlab.connects(h, netlab.service_address6, 9000))
           for h in HOMES}
    assert out == {"open": (True, True), "upnp": (True, False), "plain": (True, False), "cgnat": (True, False),
                   "v6": (True, True), "v6pin": (True, True)}
    port = 9001
    for h in HOMES:
        netlab.listen(h, "::", port)
    inbound = {h: (netlab.connects("open", netlab.wan_address(h), port, 1.0),
                   netlab.address6(h) is not None and netlab.connects("inet", str(netlab.address6(h)), port, 1.0))
               for h in HOMES}
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
        assert all(n.startswith("netlab") for n in (net.ns("inet"), net.ns("plain")))
    assert not {n for n in lab._netns_names() if n.startswith(net.tag)}
