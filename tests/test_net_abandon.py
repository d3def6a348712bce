"""A peer that walks away meets an abandonment, and one that comes back within the period plays on
(protocol/wire.md §15.1; files.md, the resume file's ``abandoned_at``): the real networked stack on
loopback.  The guest's process stops in the middle of the match (its task cancelled: the connection
closes); the host waits its reconnect wait, ends the match as abandoned by the guest -- signed and
logged, the decided deals kept, the deal in play without a result -- and keeps the match resumable.
Then both take it up again with ``resume``: the host, once the guest has proven itself, sends
``continue`` and the match is played to its signed end; both logs are one chain."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import trio

from p2ptrumps.net import config, dial, lobby, resume
from p2ptrumps.net.resumefile import ResumeFile, path_for
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair

HOST_KEY = Identity.from_seed(fixed_bytes("abandon-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("abandon-test/guest"))


def configs(tmp_path: Path) -> tuple[config.NetConfig, config.NetConfig]:
    h = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h",
                         rules=RuleSet(pack_size=32, deals=2, turn_limit=60), ai="random", think_s=0.01,
                         out=io.StringIO(), timeout_s=10, reconnect_wait_s=1)
    g = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path / "g", ai="random",
                         think_s=0.01, accept_new=True, out=io.StringIO(), timeout_s=10, reconnect_wait_s=10)
    return h, g


def _log(data: Path) -> Path:
    logs = sorted((data / "logs").glob("*.p2plog"))
    assert len(logs) == 1, logs
    return logs[0]


async def serve_host(h: config.NetConfig, got: dict[str, Any],
                     task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """``lobby.host`` on 127.0.0.1, any port; its result (or the NetplayError it ended with) in ``got["h"]``."""
    try:
        got["h"] = await lobby.host(h, "127.0.0.1", 0, task_status=task_status)
    except config.NetplayError as exc:
        got["h"] = exc


def in_deal_2(data: Path) -> bool:
    """Whether the match log under ``data`` shows deal 1 decided and deal 2 dealt."""
    logs = list((data / "logs").glob("*.p2plog")) if (data / "logs").exists() else []
    if not logs:
        return False
    v = verify_log(logs[0].read_bytes())
    return len(v.deals) == 2 and v.deals[0].reason is not None


async def test_an_abandoned_match_is_continued_when_the_peer_comes_back(tmp_path: Path) -> None:
    h, g = configs(tmp_path)
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
    h2, g2 = configs(tmp_path)
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
