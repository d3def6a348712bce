"""Decided deals stand, in ``verify`` and in ``history`` alike (protocol/verify.md §5, ``decided`` and
``winner``; protocol/files.md, "history.json"): a match whose last deal was claimed on time and disputed
keeps the deals decided before it, and is won when they decide it; one whose disputed deal leaves the result
open is undecided -- never won or drawn -- in both; disputes and outages are counted per opponent."""

from __future__ import annotations

import shutil
import types
from pathlib import Path

import pytest

from p2ptrumps.commands.history import Entry, format_text, load_history, tally
from p2ptrumps.commands.replay import load_match_log
from p2ptrumps.match import MatchEnded
from p2ptrumps.record import MatchRecord, PlayerInfo, match_winner
from p2ptrumps.rules import RuleSet
from p2ptrumps.ui.events import show_end
from p2ptrumps.ui.replay import replay_text
from p2ptrumps.ui.state import TableCore, UIOptions
from p2ptrumps.wire.testing import ConnectionPair, mover, paused_pair
from p2ptrumps.wire.verify import verify_log

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"


def _disputed_in_deal(deal: int, deals: int = 3) -> ConnectionPair:
    """A match of ``deals`` deals with a move clock: the guest resigns every deal before ``deal``; in
    ``deal`` the host claims on time at once, on the guest's move (or its own first move played), and
    the guest, whose own clock has not run out, disputes."""
    pair = paused_pair(RuleSet(pack_size=32, deals=deals), move_time=60)
    pair.guest.session.floor.claim_check = lambda step: False  # our own clock: not run out
    for _ in range(deal - 1):
        pair.guest.session.floor.resign()
        pair.run()
    to_move, _ = mover(pair)
    if to_move is pair.host.session:
        to_move.floor.play(to_move.position.legal_moves()[0])  # type: ignore[union-attr]
        pair.run()
    pair.host.session.floor.claim()
    pair.run()
    return pair


def test_a_last_deal_disputed_leaves_the_two_decided_deals_standing_and_the_match_won() -> None:
    pair = _disputed_in_deal(3)
    for side in pair.sides:
        v = verify_log(side.log_bytes())
        assert (v.status, v.score_halves, v.no_result()) == ("valid", (4, 0), [(3, "disputed")]), v.reason
        assert [(d.number, d.winner, d.reason) for d in v.deals] == [(1, 0, "resign"), (2, 0, "resign"),
                                                                     (3, None, None)]
        assert (v.decided, v.winner) == (True, 0)
        text = v.summary().splitlines()
        assert text[-2] == "result: seat 0 (host) won the match (deal 3 has no result, and cannot change that)"
        assert [ln for ln in text if ln.startswith("deal 3:")] == [
            f"deal 3: dealer seat {v.deals[2].dealer}, disputed: no result (claimed on time, and disputed)"]
        dispute = next(ln for ln in text if ln.startswith("DISPUTED: "))
        assert dispute.endswith("disputed it at message " + dispute.split("message ")[-1].split(":")[0]
                                + ": deal 3 has no result (wire.md §16)")


def test_a_dispute_that_leaves_the_result_open_is_undecided_never_won() -> None:
    pair = _disputed_in_deal(2)
    v = verify_log(pair.host.log_bytes())
    assert (v.status, v.score_halves) == ("valid", (2, 0))
    assert v.no_result() == [(2, "disputed"), (3, "not played")]
    assert (v.decided, v.winner) == (False, None)
    text = v.summary().splitlines()
    assert "deal 3: not played" in text
    assert text[-2] == "result: no winner -- deals 2, 3 have no result, and could change who won"


@pytest.mark.parametrize(("vector", "missing", "result"), [
    ("clock/claim-disputed-between-deals.log", [(1, "disputed"), (2, "not played")],
     "result: no winner -- deals 1, 2 have no result, and could change who won"),
    ("clock/claim-between-deals.log", [], "result: seat 0 (host) won the match"),
    ("clock/claim-in-play-by-guest.log", [], "result: seat 1 (guest) won the match"),
    ("wire/valid-host.log", None, None),
])
def test_the_result_of_each_clock_vector(vector: str, missing: list[tuple[int, str]] | None,
                                         result: str | None) -> None:
    v = verify_log((VECTORS / vector).read_bytes())
    if missing is None:  # any complete match without claims: its result by its score
        assert v.no_result() == [] and v.decided
        return
    assert (v.no_result(), v.result_line()) == (missing, result)
    if missing and missing[0] == (1, "disputed") and not v.deals:
        assert "deal 1: not dealt -- disputed while it was prepared: no result" in v.summary().splitlines()


def test_outages_are_counted_on_the_steps_of_the_seat_awaited() -> None:
    v = verify_log((VECTORS / "resume/cut-host.log").read_bytes())
    assert (v.reconnections, v.outages) == (1, (0, 1))
    assert v.summary().splitlines()[-1].endswith(", 1 reconnection (on seat 0's steps 0, on seat 1's steps 1)")
    none = verify_log((VECTORS / "wire/valid-host.log").read_bytes())
    assert (none.reconnections, none.outages) == (0, (0, 0))


def _history(data: Path, logs: dict[str, bytes]) -> tuple[list[Entry], str]:
    (data / "logs").mkdir(parents=True)
    for name, log in logs.items():
        (data / "logs" / name).write_bytes(log)
    history = load_history(data)
    return history.entries, format_text(history, history.entries, ascii_only=True)


def _result_column(text: str) -> list[str]:
    """The result column of the rows of ``history``'s list (between the rules and the check)."""
    lines = text.splitlines()
    head = next(ln for ln in lines if ln.startswith("date "))
    start, end = head.index("result"), head.index("check")
    rows = lines[lines.index(head) + 1:]
    return [ln[start:end].strip() for ln in rows[:rows.index("")]]


def test_history_says_what_verify_says_for_every_ending(tmp_path: Path) -> None:
    """The two logs of a match whose deal 3 was disputed after a 2-0 lead: won 2-0 and lost 0-2, the deal
    named disputed; a match disputed in deal 2 after 1-0 (in another data directory: the test's fixed keys
    make both matches one game id): undecided 1-0.  Never "decided by no one" beside a result, never on
    time for a claim that was disputed; per opponent, the undecided match and both disputes counted."""
    won, open_ = _disputed_in_deal(3), _disputed_in_deal(2)
    entries, text = _history(tmp_path / "a", {"2025-03-01_1805_host_vs-guest.p2plog": won.host.log_bytes(),
                                              "2025-03-01_1806_guest_vs-host.p2plog": won.guest.log_bytes()})
    by_path = {e.path: e for e in entries}
    host_won = by_path["logs/2025-03-01_1805_host_vs-guest.p2plog"]
    assert (host_won.result, host_won.score, host_won.no_result, host_won.disputes, host_won.claimed) == (
        "won", (2.0, 0.0), [[3, "disputed"]], 1, False)
    guest_lost = by_path["logs/2025-03-01_1806_guest_vs-host.p2plog"]
    assert (guest_lost.result, guest_lost.score) == ("lost", (0.0, 2.0))
    assert _result_column(text) == ["lost 0-2 (deal 3 disputed)", "won 2-0 (deal 3 disputed)"]
    more, text = _history(tmp_path / "b", {"2025-03-02_1805_host_vs-guest.p2plog": open_.host.log_bytes()})
    assert (more[0].result, more[0].score, more[0].no_result) == (
        "undecided", (1.0, 0.0), [[2, "disputed"], [3, "not played"]])
    assert _result_column(text) == ["undecided 1-0 (deal 2 disputed; deal 3 not played)"]
    assert "decided by no one" not in text and "on time" not in text
    host_rows = [t for t in tally([host_won, *more]) if t.opponent.startswith("guest")]
    assert [(t.played, t.won, t.lost, t.undecided, t.disputes, t.streak) for t in host_rows] == [(2, 1, 0, 1, 2, "U1")]


def test_history_counts_outages_on_each_side(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    shutil.copy(VECTORS / "resume" / "cut-host.log", tmp_path / "logs" / "2025-03-01_1805_host_vs-guest.p2plog")
    shutil.copy(VECTORS / "resume" / "cut-guest.log", tmp_path / "logs" / "2025-03-01_1805_guest_vs-host.p2plog")
    by_path = {e.path: e for e in load_history(tmp_path).entries}
    host, guest = (by_path[f"logs/2025-03-01_1805_{r}.p2plog"] for r in ("host_vs-guest", "guest_vs-host"))
    host_v = verify_log((VECTORS / "resume" / "cut-host.log").read_bytes())
    guest_v = verify_log((VECTORS / "resume" / "cut-guest.log").read_bytes())
    assert host.outages == (host_v.outages[0], host_v.outages[1]) == (0, 1)
    assert guest.outages == (guest_v.outages[1], guest_v.outages[0])


@pytest.mark.parametrize(("halves", "deals", "decided", "winner"), [
    ((4, 0), 3, True, 0),  # 2-0, one deal without a result: it cannot change that
    ((2, 0), 3, False, None),  # 1-0, two without: 1-2 was still possible
    ((2, 2), 3, False, None),  # 1-1 and one open: either could have won it
    ((3, 3), 3, True, None),  # every deal played: drawn
    ((0, 6), 3, True, 1),
    ((0, 0), 2, False, None),  # nothing decided at all
])
def test_a_match_is_decided_only_when_the_deals_without_a_result_cannot_change_it(
        halves: tuple[int, int], deals: int, decided: bool, winner: int | None) -> None:
    assert match_winner(halves, deals) == (decided, winner)


@pytest.mark.parametrize(("halves", "deals", "title"), [
    ((4, 0), 3, "You won the match"),
    ((2, 0), 3, "The match has no winner: deals without a result could change it"),
    ((0, 4), 2, "You lost the match"),
])
def test_the_end_screen_names_a_match_the_way_verify_does(halves: tuple[int, int], deals: int, title: str) -> None:
    core = TableCore(UIOptions(ascii_only=True))
    core.attach(types.SimpleNamespace(invalidate=lambda: None))  # type: ignore[arg-type]  # no terminal
    pair = paused_pair(RuleSet(pack_size=32, deals=deals))
    core.state.position, core.state.trumps = pair.host.session.position, (0, 1)
    record = MatchRecord(RuleSet(pack_size=32, deals=deals), (0, 1), (PlayerInfo("Ann"), PlayerInfo("Bob")))
    show_end(core, MatchEnded(halves, record), None, "")
    assert core.state.end is not None and core.state.end.title == title


def test_replay_names_a_disputed_deal_and_the_deals_not_played() -> None:
    record = load_match_log(Path("x.p2plog"), (VECTORS / "clock" / "claim-disputed-in-play-by-host.log").read_bytes())
    assert record is not None
    text = replay_text(record, ascii_only=True)
    assert [ln for ln in text if ln.startswith("  result: ")] == [
        "  result: disputed: no result (a claim on time was disputed)"]
    assert text[-2:] == ["match complete: host 0 : 0 guest",
                         "  without a result: deal 1 disputed; deal 2 not played -- they could change who won: "
                         "no winner"]
