"""Rematch (protocol/wire.md §9.4): a new session on the same TCP connection, new game id, new log."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2ptrumps.net import config
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.verify import verify_log
from tests.test_net_match import configs, play_pair

SHORT = RuleSet(pack_size=32, deals=1, turn_limit=60)  # random AIs can take hundreds of turns otherwise


async def test_rematch_over_loopback_four_logs_valid(tmp_path: Path) -> None:
    h, g = configs(tmp_path, deals=1)
    h.rules = SHORT
    h.rematches = g.rematches = 1
    rh, rg = await play_pair(h, g)
    assert isinstance(rh, config.NetResult) and isinstance(rg, config.NetResult)
    assert len(rh.rematches) == 1 and len(rg.rematches) == 1
    paths = config.log_paths(rh) + config.log_paths(rg)
    assert len(set(paths)) == 4
    verdicts = [verify_log(p.read_bytes()) for p in paths]
    assert [(v.status, v.reason, len(v.deals)) for v in verdicts] == [("valid", "", 1)] * 4
    # The host's and the guest's log of one match hold the same chain; the two matches differ.
    first = {v.game_id for v in (verdicts[0], verdicts[2])}
    second = {v.game_id for v in (verdicts[1], verdicts[3])}
    assert len(first) == 1 and len(second) == 1 and first != second
    assert rh.score_halves == rg.score_halves and rh.rematches[0].score_halves == rg.rematches[0].score_halves
    for res in (rh, rh.rematches[0], rg, rg.rematches[0]):
        assert res.record is not None and res.score_halves == res.record.score_halves()
    assert "rematch agreed: a new match on the same connection" in h.out.getvalue()  # type: ignore[attr-defined]


async def test_rematch_declined_by_leaving(tmp_path: Path) -> None:
    h, g = configs(tmp_path, deals=1)
    h.rules = SHORT
    h.rematches = 1  # the guest (rematches 0) declines by closing
    rh, rg = await play_pair(h, g)
    assert isinstance(rh, config.NetResult) and isinstance(rg, config.NetResult)
    assert rh.rematches == [] and rg.rematches == []
    out = h.out.getvalue()  # type: ignore[attr-defined]
    assert "Gus declined the rematch" in out or "Gus left: no rematch" in out, out
    assert verify_log(rh.log_path.read_bytes()).status == "valid"  # type: ignore[union-attr]


def test_bytes_after_the_last_rematch_belong_to_the_new_session() -> None:
    from p2ptrumps import events as wev
    from p2ptrumps.wire.session import Session
    from p2ptrumps.wire.testing import ConnectionPair, Script, fixed_bytes, side_identity

    pair = ConnectionPair(SHORT, host=Script("host", rematch=True), guest=Script("guest"))
    pair.run()
    host, guest = pair.host.session, pair.guest.session
    assert host.waiting_for() == (None, "rematch") and guest.waiting_for() == (None, "rematch")
    guest.floor.offer_rematch()  # the guest agrees and at once says hello for the next game, in one write
    new_guest = Session("guest", side_identity("guest"), "guest", fixed_bytes("guest/nonce2"))
    hello = new_guest.data_to_send()
    host.receive_data(guest.data_to_send() + hello)
    events = []
    while (e := host.next_event()) is not None:
        events.append(e)
    assert events == [wev.RematchOffered(1), wev.RematchAgreed()]
    assert host.finished and host.trailing_data == hello
    new_host = Session("host", side_identity("host"), "host", fixed_bytes("host/nonce2"), rules=SHORT)
    new_host.receive_data(host.trailing_data)
    got = new_host.next_event()
    assert isinstance(got, wev.PeerHello) and got.name == "guest" and new_host.game_id != host.game_id


async def test_a_rematch_log_is_named_by_the_rematch_s_start_so_history_orders_it_last(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rematch's log used to take the connection's start in its name (``…_1805_host_vs-Gus-2``),
    so `history` dated it with the first match and, the names sorting ``-2`` before ``.``, listed
    it as the older one (a wrong streak).  Now each match's log is named by its own start."""
    from datetime import datetime

    from p2ptrumps.commands.history import load_history
    from p2ptrumps.net import driver

    calls: list[int] = []

    class Clock(datetime):
        @classmethod
        def now(cls, tz: object = None) -> Clock:
            calls.append(1)  # the two connections start first; the rematch is agreed later
            return cls(2026, 11, 29, 18, 5) if len(calls) <= 2 else cls(2026, 11, 29, 18, 31)

    monkeypatch.setattr(driver, "datetime", Clock)
    h, g = configs(tmp_path, deals=1)
    h.rules = SHORT
    h.rematches = g.rematches = 1
    rh, rg = await play_pair(h, g)
    assert isinstance(rh, config.NetResult) and isinstance(rg, config.NetResult)
    assert [p.name for p in config.log_paths(rh)] == ["2026-11-29_1805_host_vs-Gus.p2plog",
                                                     "2026-11-29_1831_host_vs-Gus.p2plog"]
    assert [p.name for p in config.log_paths(rg)] == ["2026-11-29_1805_guest_vs-Hana.p2plog",
                                                     "2026-11-29_1831_guest_vs-Hana.p2plog"]
    newest_first = [e.path for e in load_history(tmp_path / "h", write_index=False).entries]
    assert newest_first == ["logs/2026-11-29_1831_host_vs-Gus.p2plog", "logs/2026-11-29_1805_host_vs-Gus.p2plog"]
