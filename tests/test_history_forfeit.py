"""history and verify agree on a match nobody dealt: the guest leaves at the trump choice (wire.md §15, a
leave in phase ``trump``), both deals are forfeited at once, both sides sign 2-0 -- ``verify`` calls it
complete, and history said "unfinished log (no deal was played)"; now it lists it won 2-0, verified,
and counts it."""

from __future__ import annotations

from pathlib import Path

from p2ptrumps import events as ev
from p2ptrumps.commands.history import load_history
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import ConnectionPair, Script
from p2ptrumps.wire.verify import verify_log


def _leaves_at_the_trump_choice(s: Session, e: ev.Event) -> None:
    if isinstance(e, ev.TrumpChosen) and e.seat == 0:  # the host chose; the guest leaves instead of choosing
        s.floor.leave()


def test_a_match_left_at_the_trump_choice_is_listed_as_verify_calls_it(tmp_path: Path) -> None:
    pair = ConnectionPair(RuleSet(pack_size=32, deals=2), guest=Script("guest", on_event=_leaves_at_the_trump_choice))
    pair.run()
    for side, name, result in zip(pair.sides, ("host_vs-guest", "guest_vs-host"), (("won", (2.0, 0.0)),
                                                                                    ("lost", (0.0, 2.0))), strict=True):
        log = side.log_bytes()
        v = verify_log(log)
        assert (v.status, v.score_halves, v.trumps) == ("valid", (4, 0), None)
        data = tmp_path / name
        (data / "logs").mkdir(parents=True)
        (data / "logs" / f"2025-03-01_1805_{name}.p2plog").write_bytes(log)
        [entry] = load_history(data).entries
        assert (entry.check, entry.result, entry.score, entry.rules, entry.counts) == (
            "verified", result[0], result[1], "32 cards, 2 deals", True)
