"""``verify X X``: a pair is the two seats' logs of one match (protocol/verify.md §6.2 step 4); a log given
twice, or two logs of one seat, is said to be no pair -- while an equivocation between two logs of one
seat is still proven (two signatures of one key, whoever holds them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2ptrumps.commands.main import main

WIRE = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "wire"
HOST, GUEST, GUEST_CUT, SHORT = (str(WIRE / f"{n}.log") for n in ("valid-host", "valid-guest", "pair-guest-cut",
                                                                    "valid-short"))
VALID = "VALID: the match is complete and every message checks."
GAME = "game id: 2ac4dd8724441656e0d4fe8975f372fa27cf2ea13decca88f3589a516dabb903"


def test_the_host_log_twice_is_not_a_pair(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", HOST, HOST]) == 2
    assert capsys.readouterr().out.splitlines() == [
        "NOT A PAIR: both are the host's log (seat 0): a pair is the two seats' logs of one match; give the guest's "
        "log as the other",
        f"  {HOST} (the host's log): {VALID}",
        f"  {HOST} (the host's log): {VALID}",
        GAME,
    ]


def test_two_guest_logs_are_not_a_pair_in_either_order(capsys: pytest.CaptureFixture[str]) -> None:
    for pair in ([GUEST_CUT, GUEST], [GUEST, GUEST_CUT]):
        assert main(["verify", *pair, "--json"]) == 2
        out = json.loads(capsys.readouterr().out)
        assert (out["status"], out["exit_code"], out["reason"], out["relation"], out["leading"], out["messages"]) == (
            "same-owner", 2, "both are the guest's log (seat 1): a pair is the two seats' logs of one match; give "
            "the host's log as the other", None, None, 0)


def test_the_two_seats_logs_are_still_a_pair_and_one_seats_equivocation_still_proven(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", HOST, GUEST]) == 0
    assert capsys.readouterr().out.startswith("VALID: two logs of one game, one chain: both hold the same chain of "
                                              "362 messages")
    assert main(["verify", HOST, SHORT]) == 1  # two host logs: the host signed two rule sets for place 0
    assert capsys.readouterr().out.startswith("INVALID: equivocation: the host (seat 0) signed two different "
                                              "messages for place 0 on one history")
