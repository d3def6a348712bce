"""Meet by code in the network lab (issue 15 item 4), CI-sized: between two carrier-grade-NAT homes (no
direct path: the relay carries the match) and from an open host to a carrier-grade-NAT home (direct), with
the mailbox server and the transit relay in the lab's internet.  The whole matrix (every pair of homes, 5
matches each, join -> first move) is ``bench/net_meet_lab.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2ptrumps.net import lab
from tests.conftest import load_bench

LAB = load_bench("net_meet_lab")


@pytest.mark.timeout(300)
def test_by_code_two_cgnat_homes_meet_through_the_relay_and_an_open_host_directly(tmp_path: Path) -> None:
    why = lab.unavailable(("open", "cgnat"))
    if why is not None:
        pytest.skip(f"network lab unavailable: {why}")
    lab.sweep()
    runs = LAB.matrix(["open", "cgnat", "cgnat-2"], 1, tmp_path, only=[("cgnat", "cgnat-2"), ("open", "cgnat")],
                      say=False)
    (cg,), (op,) = runs
    assert cg.problems == [] and op.problems == []
    assert (cg.host, cg.guest, cg.path) == ("cgnat", "cgnat-2", "relay")
    assert (op.host, op.guest, op.path) == ("open", "cgnat", "direct (direct over the internet (IPv4))")
    for r in (cg, op):
        assert r.verdict.startswith("VALID: two logs of one game, one chain")
        assert r.first_move_s is not None
