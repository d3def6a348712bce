"""A lost link is never a slow player (protocol/wire.md §14, §15.1, §16, §16.1): real sessions on
loopback through a relay (``CuttingProxy``), with a move clock, shortened so the suite stays fast -- a
6 s clock where §16.1 says 60 s.

* A relay that holds the bytes with TCP open longer than the silence timeout: the connection is dropped
  and taken up again, and the same deal goes on; no claim, no dispute.
* A link down for longer than both sides' reconnect wait: each side ends the match as abandoned and
  stops; both ``resume``: the host's abandonment holds its place (the guest's, crossing it, is
  withdrawn), the host continues, and the same deal is played to the end; no claim, no dispute.
* A guest that walks away (its process stops, the connection closes) in deal 2: the host waits its
  reconnect wait, ends the match as abandoned by the guest -- signed and logged, deal 1 kept, deal 2
  without a result -- and keeps it resumable (the resume file's ``abandoned_at``, files.md); the guest
  comes back within the period and both ``resume``: the host sends ``continue`` once the guest has
  proven itself, and the match is played to its signed end."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import trio

from p2ptrumps.net import config, dial, lobby, resume
from p2ptrumps.net.resumefile import ResumeFile, path_for
from p2ptrumps.net.testing import CuttingProxy
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair

HOST_KEY = Identity.from_seed(fixed_bytes("outage-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("outage-test/guest"))
MOVE_TIME = 6


def configs(tmp_path: Path, reconnect_wait_s: float, timeout_s: float = 10) -> tuple[config.NetConfig,
                                                                                     config.NetConfig]:
    h = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h", move_time=MOVE_TIME,
                         rules=RuleSet(pack_size=32, deals=2, turn_limit=60), ai="random", think_s=0.01,
                         out=io.StringIO(), timeout_s=timeout_s, reconnect_wait_s=reconnect_wait_s)
    g = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path / "g", ai="random",
                         think_s=0.01, accept_new=True, out=io.StringIO(), timeout_s=timeout_s,
                         reconnect_wait_s=reconnect_wait_s)
    return h, g


async def serve_host(h: config.NetConfig, got: dict[str, Any],
                     task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    try:
        got["h"] = await lobby.host(h, "127.0.0.1", 0, task_status=task_status)
    except config.NetplayError as exc:
        got["h"] = exc


async def join(g: config.NetConfig, port: int, got: dict[str, Any]) -> None:
    try:
        got["g"] = await dial.join(g, f"127.0.0.1:{port}")
    except config.NetplayError as exc:
        got["g"] = exc


def _log(data: Path) -> Path:
    logs = sorted((data / "logs").glob("*.p2plog"))
    assert len(logs) == 1, logs
    return logs[0]


def no_claim_no_dispute(*logs: Path) -> list[Any]:
    verdicts = [verify_log(p.read_bytes()) for p in logs]
    for v in verdicts:
        assert v.status == "valid", v.reason
        assert (v.claims, v.disputed_deals) == ([], []), v.summary()
        assert all(d.reason not in (None, "time", "disputed", "abandoned") for d in v.deals), v.summary()
    pair = verify_pair(check_log(logs[0].read_bytes()), check_log(logs[1].read_bytes()))
    assert pair.status == "valid", pair.reason
    return verdicts


async def test_a_relay_holding_the_bytes_delays_the_match_and_never_decides_it(tmp_path: Path) -> None:
    h, g = configs(tmp_path, reconnect_wait_s=20, timeout_s=1.5)
    got: dict[str, Any] = {}
    with trio.fail_after(60):
        async with trio.open_nursery() as n:
            port = await n.start(serve_host, h, got)
            proxy = CuttingProxy(port)
            await n.start(proxy.serve)

            async def hold() -> None:  # mid-deal, the relay swallows everything for 3 s, TCP open
                while proxy.bytes < 6000:
                    await trio.sleep(0.005)
                proxy.freeze()

            n.start_soon(hold)
            await join(g, proxy.port, got)
            while "h" not in got:
                await trio.sleep(0.01)
            n.cancel_scope.cancel()
    assert isinstance(got["h"], config.NetResult) and isinstance(got["g"], config.NetResult), got
    verdicts = no_claim_no_dispute(_log(h.data), _log(g.data))
    assert [v.reconnections for v in verdicts] == [1, 1]
    assert "no word from the peer" in h.out.getvalue() + g.out.getvalue()  # type: ignore[attr-defined]


async def test_a_link_down_past_the_reconnect_wait_is_abandoned_and_continued(tmp_path: Path) -> None:
    h, g = configs(tmp_path, reconnect_wait_s=1)
    got: dict[str, Any] = {}
    out: dict[str, config.NetResult] = {}
    with trio.fail_after(60):
        async with trio.open_nursery() as relay:
            first: dict[str, Any] = {}
            async with trio.open_nursery() as n:
                port = await n.start(serve_host, h, got)
                proxy = CuttingProxy(port)
                await relay.start(proxy.serve)

                async def outage() -> None:  # mid-deal the link goes down, for longer than both waits
                    while proxy.bytes < 6000:
                        await trio.sleep(0.005)
                    proxy.down = True
                    proxy.cut()

                n.start_soon(outage)
                await join(g, proxy.port, got)
                while "h" not in got:
                    await trio.sleep(0.01)
            for side in ("h", "g"):
                err = got[side]
                assert isinstance(err, config.NetplayError) and err.status == config.EXIT_PEER_GONE, err
                assert "you ended the match as abandoned by the opponent" in str(err), err
            host_log, guest_log = _log(h.data), _log(g.data)
            for log, seat in ((host_log, 0), (guest_log, 1)):
                v = verify_log(log.read_bytes())
                assert (v.status, [s for s, _, _, c in v.abandonments if c is None]) == ("valid", [seat]), v.reason
            first["deal"] = verify_log(host_log.read_bytes()).abandonments[0][2]

            # The link is back; both resume within the period: the host's abandonment takes the place, it
            # continues, and the same deal goes on.
            proxy.down = False
            h2, g2 = configs(tmp_path, reconnect_wait_s=20)
            async with trio.open_nursery() as n:
                restored = resume.load(h2, host_log)

                async def host_again(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
                    out["h"] = await resume.resume_match(h2, restored, task_status=task_status)

                assert await n.start(host_again) == port  # the host listens again where it did
                out["g"] = await resume.resume_match(g2, resume.load(g2, guest_log))
            relay.cancel_scope.cancel()
    verdicts = no_claim_no_dispute(host_log, guest_log)
    for v in verdicts:
        assert [(s, d, c is not None) for s, _, d, c in v.abandonments] == [(0, first["deal"], True)], v.summary()
        assert len(v.deals) == 2
    assert verdicts[1].withdrawn >= 1  # the guest's own abandonment (and what crossed with it), withdrawn (§8.3)
    assert not path_for(host_log).exists() and not path_for(guest_log).exists()


def in_deal_2(data: Path) -> bool:
    """Whether the match log under ``data`` shows deal 1 decided and deal 2 dealt."""
    logs = list((data / "logs").glob("*.p2plog")) if (data / "logs").exists() else []
    if not logs:
        return False
    v = verify_log(logs[0].read_bytes())
    return len(v.deals) == 2 and v.deals[0].reason is not None


async def test_an_abandoned_match_is_continued_when_the_peer_comes_back(tmp_path: Path) -> None:
    h, g = configs(tmp_path, reconnect_wait_s=1)
    got: dict[str, Any] = {}
    with trio.fail_after(60):
        async with trio.open_nursery() as n:
            port = await n.start(serve_host, h, got)
            with trio.CancelScope() as guest:
                async def walk_away() -> None:  # the guest's process stops in deal 2 (deal 1 decided)
                    while not in_deal_2(g.data):
                        await trio.sleep(0.005)
                    guest.cancel()

                async with trio.open_nursery() as gn:
                    gn.start_soon(walk_away)
                    await dial.join(g, f"127.0.0.1:{port}")
            while "h" not in got:
                await trio.sleep(0.01)
    err = got["h"]
    assert isinstance(err, config.NetplayError) and err.status == config.EXIT_PEER_GONE, err
    assert "; you ended the match as abandoned by the opponent (your log keeps it signed): the decided deals " \
        "stand, " in str(err)
    host_log, guest_log = _log(h.data), _log(g.data)
    gone = verify_log(host_log.read_bytes())
    assert (gone.status, [(s, d, c) for s, _, d, c in gone.abandonments]) == ("valid", [(0, 2, None)]), gone.reason
    assert gone.deals[0].reason not in (None, "abandoned") and gone.deals[1].reason == "abandoned"
    assert ResumeFile.load(path_for(host_log)).abandoned_at is not None

    # Both come back within the period: the host continues once the guest is proven; play goes on.
    h2, g2 = configs(tmp_path, reconnect_wait_s=20)
    out: dict[str, config.NetResult] = {}
    with trio.fail_after(60):
        async with trio.open_nursery() as n:
            restored_host = resume.load(h2, host_log)

            async def host_again(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
                out["h"] = await resume.resume_match(h2, restored_host, task_status=task_status)

            await n.start(host_again)
            out["g"] = await resume.resume_match(g2, resume.load(g2, guest_log))
    said = h2.out.getvalue()  # type: ignore[attr-defined]
    assert "the opponent is back: you took your abandonment back, and the match goes on where it stood" in said
    verdicts = [verify_log(p.read_bytes()) for p in (host_log, guest_log)]
    assert [v.status for v in verdicts] == ["valid", "valid"], [v.reason for v in verdicts]
    for v in verdicts:
        assert [(s, d, c is not None) for s, _, d, c in v.abandonments] == [(0, 2, True)]
        assert [d.reason not in (None, "abandoned") for d in v.deals] == [True, True]
        assert v.decided and v.summary().splitlines()[0] == "VALID: the match is complete and every message checks."
    pair = verify_pair(check_log(host_log.read_bytes()), check_log(guest_log.read_bytes()))
    assert pair.status == "valid", pair.reason
    assert not path_for(host_log).exists() and not path_for(guest_log).exists()  # complete: nothing to resume
