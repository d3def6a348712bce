"""The kill -9 trial (README.md "When a process dies"): a headless AI peer killed at a chosen phase, taken up again with
``p2ptrumps resume``; the match completes, both logs verify and hold the same chain, and nothing the
victim had logged is lost.  The trial itself lives in ``bench/net_kill.py`` (which also reports the
figures); CI runs two kills at chosen phases, the ``slow`` marker runs 24 (both roles, every phase)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from tests.conftest import load_bench

KILL = load_bench("net_kill")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL/SIGSTOP are POSIX")


@pytest.mark.timeout(150)
@pytest.mark.parametrize("victim, target, deal", [("guest", "reveal", 2), ("host", "commit", 2)])
def test_a_peer_killed_mid_commit_reveal_resumes_and_the_match_completes(
        tmp_path: Path, victim: str, target: str, deal: int) -> None:
    r = KILL.aimed_trial(tmp_path, victim, target, deal, random.Random(1))
    assert r.problems == [] and r.ok
    # Killed exactly there: its log ended with its own or the peer's commit/reveal of that deal.
    assert (r.phase_at_death, r.deal_at_death) in {(target, deal), ("reveal" if target == "commit" else "move", deal)}
    assert r.resume_s is not None


@pytest.mark.timeout(150)
@pytest.mark.parametrize("victim", ["guest", "host"])
def test_a_peer_whose_log_lost_its_tail_takes_its_own_messages_back_and_the_match_completes(
        tmp_path: Path, victim: str) -> None:
    """wire.md §14.2 step 5: killed mid-deal, the victim's log then loses its last 7 frames
    (a restored backup) -- messages of its own among them that the survivor holds.  Resumed, it takes them
    back from the survivor instead of signing others for those places: both exit 0, both logs verify and
    hold one chain (no equivocation), and the cut log is the start of the victim's final log."""
    r = KILL.aimed_trial(tmp_path, victim, "move", 2, random.Random(3), lose=7)
    assert r.problems == [] and r.ok
    assert r.lost == 7 and r.resume_s is not None


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_twenty_four_kills_both_roles_every_phase(tmp_path: Path) -> None:
    rng = random.Random(24)
    results = []
    for i, (victim, target, deal) in enumerate(KILL.plan(24, rng)):
        work = tmp_path / f"t{i}"
        work.mkdir()
        results.append(KILL.aimed_trial(work, victim, target, deal, rng))
    assert [r.line() for r in results if not r.ok] == []
    for role in ("host", "guest"):
        last = {r.last_at_death for r in results if r.victim == role}
        assert {"trump", "commit", "reveal", "move", "deal-end", "match-end"} <= last, (role, last)
        assert "ack" in {r.phase_at_death for r in results if r.victim == role}
