"""Meet by code in the network lab, CI-sized: between two carrier-grade-NAT homes (no
direct path: the relay carries the match), with the mailbox server and the transit relay in the lab's
internet.  The whole matrix (every host home x every guest home, by address and by code, to a complete
match verified as a pair) is ``bench/lab_matrix.py``; what goes wrong (router reboot, lease expiry, relay
gone, wrong or spent code, no mailbox) is ``bench/lab_unhappy.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2ptrumps.net import lab
from tests.conftest import load_bench

LAB = load_bench("net_meet_lab")


@pytest.mark.timeout(300)
def test_by_code_two_cgnat_homes_meet_through_the_relay(tmp_path: Path) -> None:
    why = lab.unavailable(("cgnat",))
    if why is not None:
        pytest.skip(f"network lab unavailable: {why}")
    lab.sweep()
    (runs,) = LAB.matrix(["cgnat", "cgnat-2"], 1, tmp_path, only=[("cgnat", "cgnat-2")], say=False)
    (cg,) = runs
    assert cg.problems == []
    assert (cg.host, cg.guest, cg.path) == ("cgnat", "cgnat-2", "relay")
    assert cg.verdict.startswith("VALID: two logs of one game, one chain")
    assert cg.first_move_s is not None
    # While it waited, the guest said where it looked and which paths it tried, in that order.
    said = [ln.removeprefix("guest: ") for ln in cg.said
            if ln.startswith(("guest: looking", "guest: trying", "guest: no direct", "guest: connected"))]
    assert said[0].startswith("looking for the host of code ")
    assert said[1].startswith("trying the host directly at 192.168.1.2:")
    assert said[2].startswith("no direct answer yet: trying through relay 11.47.0.1:")
    assert said[3].startswith("connected through relay 11.47.0.1:")
