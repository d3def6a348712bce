"""The resume file goes when nothing needs resuming (protocol/files.md: the match complete and our last
statement acknowledged, wire.md §14.5) -- not when the process ends: a person who quits at the end screen,
while the other person stays there, leaves no ``.resume`` behind; and a rematch still works, each match
with its own resume file while it runs."""

from __future__ import annotations

import io
from pathlib import Path

import trio

from p2ptrumps.net import config, dial, lobby
from p2ptrumps.net.resumefile import path_for
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log

HOST_KEY = Identity.from_seed(fixed_bytes("resume-end/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("resume-end/guest"))


def configs(tmp_path: Path) -> tuple[config.NetConfig, config.NetConfig]:
    h = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h",
                         rules=RuleSet(pack_size=32, deals=1, turn_limit=60), ai="random", think_s=0.01,
                         out=io.StringIO(), timeout_s=20, log_path=tmp_path / "host.p2plog")
    g = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path / "g", ai="random",
                         think_s=0.01, accept_new=True, out=io.StringIO(), timeout_s=20,
                         log_path=tmp_path / "guest.p2plog")
    return h, g


def test_quitting_at_the_end_screen_leaves_no_resume_file(tmp_path: Path) -> None:
    h, g = configs(tmp_path)
    seen: dict[str, tuple[bool, bool]] = {}
    host_at_end = trio.Event()

    async def host_asked(peer: str, offered: bool) -> bool:  # the host's person at the end screen ...
        seen["host"] = (h.log_path is not None and h.log_path.exists(), path_for(tmp_path / "host.p2plog").exists())
        host_at_end.set()
        await trio.sleep_forever()  # ... quits there (the test cancels the run, as `q` cancels the trio side)
        return False

    async def guest_asked(peer: str, offered: bool) -> bool:  # the guest's person stays on the end screen
        seen["guest"] = (True, path_for(tmp_path / "guest.p2plog").exists())
        await trio.sleep_forever()
        return False

    h.hooks.ask_rematch, g.hooks.ask_rematch = host_asked, guest_asked

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        await lobby.host(h, "127.0.0.1", 0, task_status=task_status)

    async def main() -> None:
        with trio.fail_after(120):
            async with trio.open_nursery() as n:
                port = await n.start(run_host)
                n.start_soon(dial.join, g, f"127.0.0.1:{port}")
                await host_at_end.wait()
                with trio.fail_after(60):  # the guest reaches its end screen too (a state, not a time)
                    while "guest" not in seen:
                        await trio.sleep(0.05)
                n.cancel_scope.cancel()  # the host quits: its trio side is cancelled mid-question

    trio.run(main)
    assert seen == {"host": (True, False), "guest": (True, False)}  # gone before the end screen asked anything
    for name in ("host", "guest"):
        log = tmp_path / f"{name}.p2plog"
        assert verify_log(log.read_bytes()).status == "valid"
        assert not path_for(log).exists()


def test_a_rematch_still_works_and_each_match_keeps_its_file_only_while_it_runs(tmp_path: Path) -> None:
    h, g = configs(tmp_path)
    h.rematches = g.rematches = 1  # the AIs play one rematch
    got: dict[str, config.NetResult] = {}

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        got["h"] = await lobby.host(h, "127.0.0.1", 0, task_status=task_status)

    async def main() -> None:
        with trio.fail_after(120):
            async with trio.open_nursery() as n:
                port = await n.start(run_host)
                got["g"] = await dial.join(g, f"127.0.0.1:{port}")

    trio.run(main)
    for side in ("h", "g"):
        result = got[side]
        logs = [result.log_path, *(r.log_path for r in result.rematches)]
        assert len(logs) == 2
        for log in logs:
            assert log is not None and verify_log(log.read_bytes()).status == "valid"
            assert not path_for(log).exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [
        "guest-rematch1.p2plog", "guest.p2plog", "host-rematch1.p2plog", "host.p2plog"]
