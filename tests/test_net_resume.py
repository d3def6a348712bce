"""A match that survives a dropped connection (issue 6 §2, protocol/wire.md §14): a TCP proxy between
host and guest cuts every connection; the guest reconnects by itself, both prove their keys, the
missing messages are sent again exactly as signed, and both logs verify as one complete match."""

from __future__ import annotations

import io
from pathlib import Path

import trio

from p2ptrumps.net import config, dial, lobby
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log

HOST_KEY = Identity.from_seed(fixed_bytes("resume-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("resume-test/guest"))


class CuttingProxy:
    """Forwards 127.0.0.1:``port`` to the host; :meth:`cut` resets every open connection."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.scopes: list[trio.CancelScope] = []
        self.port = 0
        self.connections = 0
        self.bytes = 0

    async def serve(self, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        self.port = listener.socket.getsockname()[1]
        task_status.started(self.port)
        try:
            async with trio.open_nursery() as n:
                while True:
                    down = await listener.accept()
                    self.connections += 1
                    n.start_soon(self._pair, down)
        finally:
            await trio.aclose_forcefully(listener)

    async def _pair(self, down: trio.SocketStream) -> None:
        try:
            up = await trio.open_tcp_stream("127.0.0.1", self.target_port)
        except OSError:
            await down.aclose()
            return
        with trio.CancelScope() as scope:
            self.scopes.append(scope)

            async def pipe(a: trio.SocketStream, b: trio.SocketStream) -> None:
                while data := await a.receive_some(65536):
                    self.bytes += len(data)
                    await b.send_all(data)

            try:
                async with trio.open_nursery() as n:
                    n.start_soon(pipe, down, up)
                    n.start_soon(pipe, up, down)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError, BaseExceptionGroup):
                pass
        for s in (down, up):
            await trio.aclose_forcefully(s)

    def cut(self) -> None:
        for scope in self.scopes:
            scope.cancel()
        self.scopes.clear()


def configs(tmp_path: Path, deals: int) -> tuple[config.NetConfig, config.NetConfig]:
    h = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h",
                         rules=RuleSet(pack_size=32, deals=deals), ai="random", think_s=0.02, out=io.StringIO(),
                         timeout_s=10, reconnect_wait_s=20)
    g = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path / "g", ai="random",
                         think_s=0.02, accept_new=True, out=io.StringIO(), timeout_s=10, reconnect_wait_s=20)
    return h, g


async def test_a_cut_connection_resumes_with_no_command(tmp_path: Path) -> None:
    h, g = configs(tmp_path, deals=3)
    got: dict[str, config.NetResult] = {}
    cuts = 0

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        got["h"] = await lobby.host(h, "127.0.0.1", 0, task_status=task_status)

    with trio.fail_after(90):
        async with trio.open_nursery() as n:
            port = await n.start(run_host)
            proxy = CuttingProxy(port)
            await n.start(proxy.serve)

            async def cutter() -> None:
                nonlocal cuts
                for threshold in (3000, 9000, 16000):  # cut three times, at different points of the match
                    while proxy.bytes < threshold:
                        await trio.sleep(0.005)
                    proxy.cut()
                    cuts += 1

            n.start_soon(cutter)
            got["g"] = await dial.join(g, f"127.0.0.1:{proxy.port}")
            while "h" not in got:
                await trio.sleep(0.01)
            n.cancel_scope.cancel()
    assert cuts == 3 and proxy.connections >= 4
    verdicts = [verify_log(got[s].log_path.read_bytes()) for s in ("h", "g")]  # type: ignore[union-attr]
    assert [v.status for v in verdicts] == ["valid", "valid"], [v.reason for v in verdicts]
    assert [v.reconnections for v in verdicts] == [3, 3]
    assert verdicts[0].messages == verdicts[1].messages and len(verdicts[0].deals) == 3
    assert got["h"].score_halves == got["g"].score_halves
    assert "connection lost (" in g.out.getvalue()  # type: ignore[attr-defined]


async def test_leaving_resigns_the_match_and_both_logs_are_complete(tmp_path: Path) -> None:
    h, g = configs(tmp_path, deals=3)
    got: dict[str, object] = {}

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        got["h"] = await lobby.host(h, "127.0.0.1", 0, task_status=task_status)

    async def run_guest(port: int) -> None:
        g.leave_requested = trio.Event()
        try:
            got["g"] = await dial.join(g, f"127.0.0.1:{port}")
        except config.NetplayError as exc:
            got["g"] = exc

    with trio.fail_after(60):
        async with trio.open_nursery() as n:
            port = await n.start(run_host)
            n.start_soon(run_guest, port)
            while "deal 1: " not in h.out.getvalue():  # type: ignore[attr-defined]
                await trio.sleep(0.005)
            assert g.leave_requested is not None
            g.leave_requested.set()  # the guest quits during deal 1
            while "h" not in got or "g" not in got:
                await trio.sleep(0.01)
    rg, rh = got["g"], got["h"]
    assert isinstance(rg, config.NetplayError) and rg.status == config.EXIT_LEFT
    assert str(rg) == "you resigned and left the match (both signed the final score)"
    assert isinstance(rh, config.NetResult) and rh.score_halves == (6, 0)
    assert "note: Gus resigned and left the match" in h.out.getvalue()  # type: ignore[attr-defined]
    for path in (rh.log_path, rg.result.log_path):  # type: ignore[attr-defined]
        v = verify_log(path.read_bytes())
        assert (v.status, v.score_halves, v.forfeited) == ("valid", (6, 0), [2, 3])
        assert v.left is not None and v.left[0] == 1
