"""The person's full-screen seat over the network (p2ptrumps/net/table.py), driven by keys.

The table reads a prompt_toolkit pipe input and writes to ``DummyOutput``; the
person joins a headless AI host (a real ``lobby.host`` in its own trio run on
another thread) over 127.0.0.1, chooses a trump, types a few moves, resigns the
deal, declines the rematch, and leaves.  Both match logs must verify, and the
table's moves must be the ones in the signed chain.
"""

from __future__ import annotations

import asyncio
import io
import threading
from collections.abc import Callable
from pathlib import Path

import trio
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2ptrumps.cards import Card
from p2ptrumps.net import config, lobby
from p2ptrumps.net.table import display_name, play_in_table
from p2ptrumps.rules import BEAT, PICK_UP, Move, RuleSet
from p2ptrumps.ui.app import Mode, TableApp
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log

HOST_KEY = Identity.from_seed(fixed_bytes("netui-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("netui-test/guest"))
ENTER = "\r"


class AIHost:
    """A headless AI host in its own thread (its own trio run)."""

    def __init__(self, tmp_path: Path) -> None:
        self.cfg = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h",
                                     rules=RuleSet(pack_size=32, deals=1), ai="random", think_s=0.01, trump=0,
                                     out=io.StringIO(), timeout_s=10)
        self.port: int | None = None
        self.started = threading.Event()
        self.outcome: list[object] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def main() -> None:
            async def serve(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
                try:
                    self.outcome.append(await lobby.host(self.cfg, "127.0.0.1", 0, task_status=task_status))
                except config.NetplayError as exc:
                    self.outcome.append(exc)

            with trio.fail_after(40):
                async with trio.open_nursery() as n:
                    self.port = await n.start(serve)
                    self.started.set()

        trio.run(main)


def typed(move: Move) -> str:
    if move.kind == PICK_UP:
        return "p"
    if move.kind == BEAT and move.second >= 0:
        return f"{Card(move.card).code} {Card(move.second).label(ascii_only=True).lower()}"
    return Card(move.card).label(ascii_only=True)


def moved(table: TableApp, before: int) -> Callable[[], bool]:
    return lambda: len(table.state.history) > before or table.state.mode != Mode.TURN


async def wait_until(pred: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while not pred():
        if loop.time() > deadline:
            raise AssertionError(f"the table never reached: {what}")
        await asyncio.sleep(0.005)


def test_person_plays_moves_in_the_table_against_an_ai_host(tmp_path: Path) -> None:
    ai = AIHost(tmp_path)
    ai.thread.start()
    assert ai.started.wait(10) and ai.port is not None
    cfg = config.NetConfig(role="guest", identity=GUEST_KEY, name="Tess", data=tmp_path / "g", accept_new=True,
                            out=io.StringIO(), timeout_s=10, ascii_only=True)
    tables: list[TableApp] = []
    played: list[Move] = []
    out, err = io.StringIO(), io.StringIO()

    async def person(inp: PipeInput) -> None:
        await wait_until(lambda: bool(tables) and tables[0].state.mode == Mode.TRUMP, "the trump choice")
        table = tables[0]
        assert table.state.names == ("Hana", "Tess") and table.state.connection == "connected"
        inp.send_text("h")  # hearts (the host took clubs)
        for _ in range(3):
            await wait_until(lambda: table.state.mode == Mode.TURN, "my turn")
            pos = table.state.position
            assert pos is not None
            move = pos.legal_moves()[0]
            n = len(table.state.history)
            inp.send_text(":" + typed(move) + ENTER)
            played.append(move)
            await wait_until(moved(table, n), "my move")
        await wait_until(lambda: table.state.mode in (Mode.TURN, Mode.DEAL_END, Mode.MATCH_END), "my turn or the end")
        if table.state.mode == Mode.TURN:
            inp.send_text("R")
            await asyncio.sleep(0.05)
            inp.send_text("y")  # resign the deal: the one-deal match ends
        await wait_until(lambda: table.state.mode == Mode.MATCH_END, "the end of the match")
        inp.send_text(ENTER)  # leave (the AI host wants no rematch: it closes, so no question stays open)

    async def main() -> int:
        with create_pipe_input() as inp:
            task = asyncio.ensure_future(play_in_table(
                cfg, "guest", address=f"127.0.0.1:{ai.port}", input=inp, output=DummyOutput(),
                on_table=tables.append, stdout=out, stderr=err))
            try:
                await person(inp)
                await wait_until(lambda: task.done() or tables[0].state.confirm is not None, "the end")
                if not task.done():
                    inp.send_text("n")  # no rematch
                return await asyncio.wait_for(task, 20)
            finally:
                if not task.done():
                    task.cancel()

    status = asyncio.run(main())
    ai.thread.join(20)
    assert status == config.EXIT_OK, err.getvalue()
    host_result = ai.outcome[0]
    assert isinstance(host_result, config.NetResult) and host_result.log_path is not None
    logs = [line.removeprefix("match log: ") for line in out.getvalue().splitlines() if line.startswith("match log: ")]
    assert len(logs) == 1 and out.getvalue().startswith("Score: ")
    guest_v = verify_log(Path(logs[0]).read_bytes())
    host_v = verify_log(host_result.log_path.read_bytes())
    assert (guest_v.status, host_v.status) == ("valid", "valid")
    chain_moves = guest_v.to_record().deals[0].moves
    mine = [mv for i, mv in enumerate(chain_moves) if mv in played]
    assert len(played) == 3 and mine[: len(played)] == played  # our typed moves are in the signed chain, in order
    assert tables[0].state.end is not None and tables[0].state.end.record_label == "Match log saved"


def test_display_name_cuts_wide_names() -> None:
    assert display_name("bob") == "bob"
    wide = "名" * 64
    cut = display_name(wide)
    assert cut == "名" * 9 + "…"  # 9 wide characters = 18 columns, then the ellipsis
