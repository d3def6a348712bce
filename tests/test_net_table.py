"""The person's full-screen seat over the network (p2ptrumps/net/table.py), driven by keys.

The table reads a prompt_toolkit pipe input and writes to ``DummyOutput``; the
person joins a headless AI host (a real ``lobby.host`` in its own trio run on
another thread) over 127.0.0.1, chooses a trump, types a few moves, resigns the
deal, declines the rematch, and leaves.  Both match logs must verify, and the
table's moves must be the ones in the signed chain.
"""

from __future__ import annotations

import asyncio
import errno
import io
import os
import re
import tempfile
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2ptrumps.ai import AIPlayer
from p2ptrumps.cards import Card
from p2ptrumps.events import DealStarted
from p2ptrumps.events import MatchEvent as Event
from p2ptrumps.match import Action
from p2ptrumps.net import clock, config, dial, lobby, resume, seat
from p2ptrumps.net.driver import Restored
from p2ptrumps.net.table import display_name, play_in_table
from p2ptrumps.rules import BEAT, PICK_UP, Move, Position, RuleSet
from p2ptrumps.ui.app import Mode, TableApp
from p2ptrumps.ui.view import StatusView, expect_text, plain, render_end, render_table
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log

HOST_KEY = Identity.from_seed(fixed_bytes("netui-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("netui-test/guest"))
ENTER = "\r"


class AIHost:
    """A headless AI host in its own thread (its own trio run)."""

    def __init__(self, tmp_path: Path, deals: int = 1, move_time: int = 0, leavable: bool = False) -> None:
        self.leavable = leavable  # the host may leave: its trio run gets a cfg.hooks.leave_requested event
        # A turn limit of 120: random play may run a deal to 1000 turns, and no test here is about that.
        self.cfg = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h",
                                     rules=RuleSet(pack_size=32, deals=deals, turn_limit=120), ai="random",
                                     think_s=0.01, trump=0, out=io.StringIO(), timeout_s=10, move_time=move_time)
        self.port: int | None = None
        self.started = threading.Event()
        self.outcome: list[object] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        """Start the host's thread and wait until it listens (``port`` set)."""
        self.thread.start()
        assert self.started.wait(10) and self.port is not None

    def _run(self) -> None:
        async def main() -> None:
            async def serve(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
                if self.leavable:
                    self.cfg.hooks.leave_requested = trio.Event()
                try:
                    self.outcome.append(await lobby.host(self.cfg, "127.0.0.1", 0, task_status=task_status))
                except config.NetplayError as exc:
                    self.outcome.append(exc)

            with trio.fail_after(40):
                async with trio.open_nursery() as n:
                    self.port = await n.start(serve)
                    self.started.set()

        trio.run(main)


def seat_config(tmp_path: Path, **changes: Any) -> config.NetConfig:
    """The person's seat as a guest: Tess, data in ``tmp_path / "g"``, the host's key accepted, ASCII,
    a 10 s timeout; ``changes`` replace any of these or add fields."""
    fields: dict[str, Any] = {"role": "guest", "identity": GUEST_KEY, "name": "Tess", "data": tmp_path / "g",
                              "accept_new": True, "out": io.StringIO(), "timeout_s": 10, "ascii_only": True}
    return config.NetConfig(**{**fields, **changes})


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


async def choose_hearts(inp: PipeInput, tables: list[TableApp]) -> TableApp:
    """At the trump choice of the first table (once it shows), choose hearts (the AI host takes clubs);
    the table."""
    await wait_until(lambda: bool(tables) and tables[0].state.mode == Mode.TRUMP, "the trump choice")
    inp.send_text("h" + ENTER)
    return tables[0]


async def my_first_turn(inp: PipeInput, tables: list[TableApp]) -> tuple[TableApp, Position]:
    """Hearts at the trump choice (:func:`choose_hearts`), then the wait for my first turn: the table and
    the position there."""
    table = await choose_hearts(inp, tables)
    await wait_until(lambda: table.state.mode == Mode.TURN, "my turn")
    pos = table.state.position
    assert pos is not None
    return table, pos


async def leave(inp: PipeInput, table: TableApp) -> None:
    """Quit the match as a person does: ``q``, then ``y`` at the quit question."""
    inp.send_text("q")
    await wait_until(lambda: table.state.confirm is not None, "the quit question")
    inp.send_text("y")


async def drive_table(cfg: config.NetConfig, ai: AIHost, person: Callable[[PipeInput], Awaitable[None]],
                      tables: list[TableApp], stdout: io.StringIO, stderr: io.StringIO,
                      restored: Restored | None = None) -> int:
    """Join ``ai``'s host in the table as a guest -- or, with ``restored``, take that match up again as
    ``p2ptrumps resume`` does --, run ``person`` (keys into the table), and return the table's exit
    status (within 20 s of ``person`` ending)."""
    how: dict[str, Any] = ({"address": f"127.0.0.1:{ai.port}"} if restored is None else
                           {"main": lambda: resume.resume_match(cfg, restored), "command": "resume"})
    with create_pipe_input() as inp:
        task = asyncio.ensure_future(play_in_table(
            cfg, "guest", input=inp, output=DummyOutput(), on_table=tables.append, stdout=stdout, stderr=stderr,
            **how))
        try:
            await person(inp)
            return await asyncio.wait_for(task, 20)
        finally:
            if not task.done():
                task.cancel()


def test_person_plays_moves_in_the_table_against_an_ai_host(tmp_path: Path) -> None:
    ai = AIHost(tmp_path)
    ai.start()
    cfg = seat_config(tmp_path)
    tables: list[TableApp] = []
    played: list[Move] = []
    out, err = io.StringIO(), io.StringIO()

    async def person(inp: PipeInput) -> None:
        await wait_until(lambda: bool(tables) and tables[0].state.mode == Mode.TRUMP, "the trump choice")
        table = tables[0]
        assert table.state.names == ("Hana", "Tess") and table.state.connection == "connected"
        inp.send_text("h" + ENTER)  # hearts (the host took clubs)
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
        assert table._keys_items() == ["Enter rematch or leave"]  # what Enter does: the rematch question comes next
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
    deal = guest_v.to_record().deals[0]
    elder = 1 - deal.dealer  # RULES.md §3-§4: the non-dealer takes the first turn, then the players alternate
    # the guest's (seat 1's) moves by their turns, not by value: the AI's pick-up equals ours as a Move
    mine = [mv for i, mv in enumerate(deal.moves) if (elder + i) % 2 == 1]
    assert len(played) == 3 and mine[: len(played)] == played  # our typed moves are in the signed chain, in order
    assert tables[0].state.end is not None and tables[0].state.end.record_label == "Match log saved"


def test_display_name_cuts_wide_names() -> None:
    assert display_name("bob") == "bob"
    wide = "名" * 64
    cut = display_name(wide)
    assert cut == "名" * 9 + "…"  # 9 wide characters = 18 columns, then the ellipsis


def test_quitting_in_the_table_resigns_and_both_logs_are_complete(tmp_path: Path) -> None:
    """q then y at the table sends a signed ``leave`` (protocol/wire.md §15): the deal in play is the
    person's resignation, the other deals are forfeited, both sides sign the final score, and both logs
    verify as complete.  The move clock of the rules shows on the table meanwhile."""
    ai = AIHost(tmp_path, deals=3, move_time=60)
    ai.start()
    cfg = seat_config(tmp_path)
    tables: list[TableApp] = []
    out, err = io.StringIO(), io.StringIO()
    seen: list[str] = []

    async def person(inp: PipeInput) -> None:
        table, _ = await my_first_turn(inp, tables)
        await wait_until(lambda: table.state.clock is not None and table.state.clock[0] == table.state.my_seat,
                         "my move clock on my own line")
        assert table.state.clock is not None
        seen.append(f"{table.state.connection} {table.state.clock[0] == table.state.my_seat} "
                    f"{table.state.clock[1]:.0f}")
        inp.send_text("q")
        await wait_until(lambda: table.state.confirm is not None, "the quit question")
        assert table.state.confirm is not None
        seen.append(table.state.confirm.question)
        inp.send_text("y")

    status = asyncio.run(drive_table(cfg, ai, person, tables, out, err))
    ai.thread.join(20)
    assert status == config.EXIT_LEFT
    assert re.fullmatch(r"connected True (60|[1-5]\d|[6-9])", seen[0]), seen[0]
    assert seen[1] == ("Leave the match? That resigns it: this deal and every deal not yet played count for Hana, "
                       "signed (the match log is kept).")
    lines = err.getvalue().splitlines()
    assert lines[0] == "p2ptrumps join: you resigned and left the match (both signed the final score)"
    guest_log = Path(lines[1].removeprefix("match log (kept): "))
    # the signed final score closes the run, as after q in `play` (the README: "When you leave, the closing
    # Score: line ..."); it was missing for the one who left
    assert out.getvalue().splitlines() == ["Score: Tess 0 : 3 Hana"]
    host_result = ai.outcome[0]
    assert isinstance(host_result, config.NetResult) and host_result.log_path is not None
    assert host_result.score_halves == (6, 0)
    assert "note: Tess resigned and left the match" in ai.cfg.out.getvalue()  # type: ignore[attr-defined]
    for path in (guest_log, host_result.log_path):
        v = verify_log(path.read_bytes())
        assert (v.status, v.score_halves, v.forfeited, v.move_time) == ("valid", (6, 0), [2, 3], 60)
        assert v.left is not None and v.left[0] == 1
        assert [(d.number, d.winner, d.reason) for d in v.deals] == [(1, 0, "resign")]


class LateAI:
    """The host's AI that makes its first move only when ``go`` is set (a peer over its move clock)."""

    def __init__(self, go: threading.Event) -> None:
        self.inner = AIPlayer("random", 0.01, name="Hana")
        self.info = self.inner.info
        self.go = go

    async def choose_move(self, position: Position, seat: int) -> Action:
        await trio.to_thread.run_sync(self.go.wait, 30)
        return await self.inner.choose_move(position, seat)

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return False

    async def observe(self, event: Event) -> None:
        return None


def test_a_move_that_comes_while_the_claim_question_is_open_closes_it(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's clock runs out and the table asks whether to claim; the host's move comes before the
    person answers: the question closes, the move is on the table, and no claim is sent (it used to stay
    open, and ``y`` then broke the match: "the session refused our action")."""
    monkeypatch.setattr(clock, "CLAIM_GRACE_S", 0.0)
    go = threading.Event()
    ai = AIHost(tmp_path, deals=1, move_time=5)
    ai.cfg.hooks.make_player = lambda cfg, seat: LateAI(go)
    ai.start()
    cfg = seat_config(tmp_path)
    tables: list[TableApp] = []
    asked: list[str] = []

    async def person(inp: PipeInput) -> None:
        table = await choose_hearts(inp, tables)
        await wait_until(lambda: table.state.mode == Mode.TURN or table.state.confirm is not None,
                         "my lead, or the claim question on the host's lead")
        if table.state.mode == Mode.TURN:  # the deal's dealer (who leads) comes from the shuffle: maybe us
            pos = table.state.position
            assert pos is not None
            inp.send_text(":" + typed(pos.legal_moves()[0]) + ENTER)
            await wait_until(moved(table, 0), "my lead")
        before = len(table.state.history)
        await wait_until(lambda: table.state.confirm is not None, "the claim question")
        assert table.state.confirm is not None
        asked.append(table.state.confirm.question)
        go.set()  # the host moves now, before the person answers
        await wait_until(lambda: len(table.state.history) == before + 1, "the host's move")
        await wait_until(lambda: table.state.confirm is None, "the claim question closed by the move")
        await leave(inp, table)

    try:
        status = asyncio.run(drive_table(cfg, ai, person, tables, io.StringIO(), io.StringIO()))
    finally:
        go.set()  # never leave the host's AI waiting
    ai.thread.join(20)
    assert status == config.EXIT_LEFT
    assert asked == ["Hana's time is up (0:05 a move): claim the deal? (y claim, n wait)"]
    host_result = ai.outcome[0]
    assert isinstance(host_result, config.NetResult) and host_result.log_path is not None
    v = verify_log(host_result.log_path.read_bytes())
    assert (v.status, v.claims, [(d.number, d.winner, d.reason) for d in v.deals]) == (
        "valid", [], [(1, 0, "resign")])


class LeavingAI:
    """The host's AI that leaves the match (a signed ``leave``, protocol/wire.md §15) when asked for
    its first move, as ``q`` then ``y`` at its table would."""

    def __init__(self, cfg: config.NetConfig) -> None:
        self.inner = AIPlayer("random", 0.01, name="Hana")
        self.info = self.inner.info
        self.cfg = cfg

    async def choose_move(self, position: Position, seat: int) -> Action:
        assert self.cfg.hooks.leave_requested is not None
        self.cfg.hooks.leave_requested.set()
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return False

    async def observe(self, event: Event) -> None:
        return None


@pytest.mark.parametrize("my_name", ["Tess", "Hana"])
def test_the_side_left_behind_reads_that_the_peer_left_and_is_offered_no_rematch(tmp_path: Path, my_name: str) -> None:
    """The host leaves in deal 1 of 2: the person's end screen and status say "Hana resigned and left
    the match" (it used to say only "You won the match" and offer a rematch), Enter only leaves, no
    rematch question comes, and the note is printed with the score.  When both are called Hana, the
    host is the table's "Hana (XXXX)" there too."""
    ai = AIHost(tmp_path, deals=2, leavable=True)
    ai.cfg.hooks.make_player = lambda cfg, seat: LeavingAI(cfg)
    ai.start()
    cfg = seat_config(tmp_path, name=my_name)
    tables: list[TableApp] = []
    out, err = io.StringIO(), io.StringIO()
    seen: dict[str, object] = {}
    me, hana = ("Tess", "Hana") if my_name == "Tess" else (f"Hana ({GUEST_KEY.fingerprint[:4]})",
                                                         f"Hana ({HOST_KEY.fingerprint[:4]})")

    async def person(inp: PipeInput) -> None:
        table = await choose_hearts(inp, tables)
        await wait_until(lambda: table.state.mode in (Mode.TURN, Mode.MATCH_END), "my lead or the end")
        if table.state.mode == Mode.TURN:  # we lead: the host leaves when its reply is due
            pos = table.state.position
            assert pos is not None
            inp.send_text(":" + typed(pos.legal_moves()[0]) + ENTER)
        await wait_until(lambda: table.state.mode == Mode.MATCH_END, "the end of the match")
        end = table.state.end
        assert end is not None
        seen["note"] = end.note
        seen["keys"] = table._keys_items()
        seen["status"] = table.status_view(100)
        seen["screen"] = ["".join(t for _, t in line).split("|")[0].rstrip() for line in render_end(end, 100, 30)]
        inp.send_text(ENTER)
        await asyncio.sleep(0.3)
        seen["confirm"] = table.state.confirm

    status = asyncio.run(drive_table(cfg, ai, person, tables, out, err))
    ai.thread.join(20)
    assert status == config.EXIT_OK, err.getvalue()
    assert seen["note"] == f"{hana} resigned and left the match"
    assert seen["keys"] == ["Enter leave"]
    sv = seen["status"]
    assert isinstance(sv, StatusView)
    assert (sv.expect, sv.message, sv.keys) == ("Match over.", f"{hana} resigned and left the match", "Enter leave")
    screen = seen["screen"]
    assert isinstance(screen, list)
    assert screen[2:5] == [" You won the match", f" {hana} resigned and left the match", f" Score: {me} 2 : 0 {hana}"]
    assert seen["confirm"] is None  # no rematch question for someone who left
    assert out.getvalue().splitlines()[:2] == [f"{hana} resigned and left the match", f"Score: {me} 2 : 0 {hana}"]


def test_a_peer_that_leaves_before_the_first_deal_leaves_the_signed_score(tmp_path: Path) -> None:
    """The host leaves at its trump choice, before any deal of 2: the forfeited deals are the guest's.
    The closing lines used to say "Score: Tess 0 : 0 Hana" (the table never saw a deal end) while the
    log's signed end says 2 : 0; now they say what is signed.  And the leaving was often not said at
    all: it arrived before the table was hooked to the match, and was dropped."""
    ai = AIHost(tmp_path, deals=2, leavable=True)
    ai.cfg.trump = None

    async def leave_at_the_trump(taken: int | None) -> int:
        assert ai.cfg.hooks.leave_requested is not None
        ai.cfg.hooks.leave_requested.set()
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    ai.cfg.hooks.choose_trump = leave_at_the_trump
    ai.start()
    cfg = seat_config(tmp_path)
    tables: list[TableApp] = []
    out, err = io.StringIO(), io.StringIO()

    async def person(inp: PipeInput) -> None:
        return None  # the table ends by itself: nothing was dealt, nothing to press

    status = asyncio.run(drive_table(cfg, ai, person, tables, out, err))
    ai.thread.join(20)
    assert status == config.EXIT_OK, err.getvalue()
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["Hana resigned and left the match", "Score: Tess 2 : 0 Hana"]
    assert tables[0].state.end_note == "Hana resigned and left the match"
    log = Path(lines[2].removeprefix("match log: "))
    v = verify_log(log.read_bytes())
    assert (v.status, v.score_halves, v.forfeited) == ("valid", (0, 4), [1, 2])


def test_a_refused_chat_line_is_never_shown_as_said_and_the_refusal_stays(tmp_path: Path) -> None:
    """A chat line the session refuses (a bidirectional override, 600 characters: protocol/wire.md §5.1)
    is not in the sender's chat panel as said -- it used to be, while the peer never got it; a note
    saying why stays in the panel.  A good line after them is shown and reaches the peer."""
    ai = AIHost(tmp_path, deals=1)
    ai.start()
    cfg = seat_config(tmp_path)
    tables: list[TableApp] = []
    seen: dict[str, object] = {}

    async def person(inp: PipeInput) -> None:
        table, _ = await my_first_turn(inp, tables)
        for line in ("x\u202ey", "a" * 600, "hello"):
            n = len(table.state.chat)
            inp.send_text("t")
            await wait_until(lambda: table.state.prompt_kind == "chat", "the chat prompt")
            inp.send_text(line + ENTER)
            await wait_until(lambda n=n: len(table.state.chat) > n, "the chat panel")
            if line != "hello":
                seen[f"message{n}"] = (table.state.message, table.state.message_kind)
        seen["chat"] = list(table.state.chat)
        view = table.table_view()
        assert view is not None
        seen["screen"] = [line.split("|")[0].rstrip() for line in plain(render_table(view, 100, 40))]
        await wait_until(lambda: "[chat] Tess: hello" in ai.cfg.out.getvalue(),  # type: ignore[attr-defined]
                         "the host has the good line")
        await leave(inp, table)

    status = asyncio.run(drive_table(cfg, ai, person, tables, io.StringIO(), io.StringIO()))
    ai.thread.join(20)
    assert status == config.EXIT_LEFT
    refusals = ["(your line was not sent: a chat line contains U+202E, a bidirectional formatting character)",
                "(your line was not sent: a chat line must be 1..500 characters, not 600)"]
    assert seen["chat"] == [*refusals, "Tess: hello"]
    assert seen["message0"] == ("chat not sent: a chat line contains U+202E, a bidirectional formatting character",
                                "error")
    assert seen["message1"] == ("chat not sent: a chat line must be 1..500 characters, not 600", "error")
    screen = seen["screen"]
    assert isinstance(screen, list)
    shown = [line for line in screen if line.startswith((" (your", " Tess:"))]  # long lines cut at the panel
    assert shown == [" (your line was not sent: a chat line contains U+202E, a bidirectional forma",
                     " (your line was not sent: a chat line must be 1..500 characters, not 600)",
                     " Tess: hello"]
    host_chat = [line for line in ai.cfg.out.getvalue().splitlines() if "[chat]" in line]  # type: ignore[attr-defined]
    assert host_chat == ["[chat] Tess: hello"]


def test_chat_before_the_trumps_shows_on_the_waiting_and_trump_screens(tmp_path: Path) -> None:
    """Chat on the "Waiting for Hana…" screen (the host still chooses its trump) shows at once in the
    sender's panel, and the host's line that comes then too; both stay on the trump-choice screen (the
    chat used to show nowhere until the first deal)."""
    go = threading.Event()
    games: list[seat.NetMatch] = []
    ai = AIHost(tmp_path, deals=1)

    async def host_trump(taken: int | None) -> int:
        await trio.to_thread.run_sync(go.wait, 30)
        games[0].session.floor.chat("good luck")
        await games[0].conn.send_pending()
        await trio.sleep(0.2)
        return 0

    ai.cfg.hooks.on_ready = lambda game, result: games.append(game)
    ai.cfg.hooks.choose_trump = host_trump
    ai.cfg.trump = None
    ai.start()
    cfg = seat_config(tmp_path)
    tables: list[TableApp] = []
    seen: dict[str, list[str]] = {}

    def screen(table: TableApp) -> list[str]:
        return plain(table._render_body(80, 20))

    async def person(inp: PipeInput) -> None:
        await wait_until(lambda: bool(tables) and tables[0].state.names == ("Hana", "Tess"), "the table")
        table = tables[0]
        inp.send_text("t")
        await wait_until(lambda: table.state.prompt_kind == "chat", "the chat prompt")
        inp.send_text("hi" + ENTER)
        await wait_until(lambda: bool(table.state.chat), "my chat line")
        seen["waiting"] = screen(table)
        seen["status"] = [table.status_view(80).expect]
        go.set()
        await wait_until(lambda: table.state.mode == Mode.TRUMP, "the trump choice")
        seen["trump"] = screen(table)
        inp.send_text("h" + ENTER)
        await wait_until(lambda: table.state.mode in (Mode.TURN, Mode.WAIT, Mode.IDLE) and
                         table.state.position is not None, "the deal")
        await leave(inp, table)

    try:
        status = asyncio.run(drive_table(cfg, ai, person, tables, io.StringIO(), io.StringIO()))
    finally:
        go.set()
    ai.thread.join(20)
    assert status == config.EXIT_LEFT
    assert seen["status"] == ["Waiting for Hana…"]
    assert seen["waiting"][:4] == [" Svoi Kozyri", " Setting up the match...", "", " Tess: hi"]
    assert seen["trump"][9:13] == ["   4.   S spades", "", " Tess: hi", " Hana: good luck"]
    assert "[chat] Tess: hi" in ai.cfg.out.getvalue()  # type: ignore[attr-defined]


class Killed(Exception):
    """The guest process dies (kill -9): its trio run stops where it is, sending nothing more."""


class DiesInDeal2:
    """The guest's AI, which dies when asked for its first move of deal 2."""

    def __init__(self) -> None:
        self.inner = AIPlayer("random", 0.01, name="Tess")
        self.info = self.inner.info
        self.deal = 0

    async def choose_move(self, position: Position, seat: int) -> Action:
        if self.deal == 2:
            raise Killed
        return await self.inner.choose_move(position, seat)

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return False

    async def observe(self, event: Event) -> None:
        if isinstance(event, DealStarted):
            self.deal = event.number


def test_a_resumed_match_shows_the_deal_in_play_not_the_last_deal_end(tmp_path: Path) -> None:
    """The guest dies in deal 2 of 2 (on its move) and is resumed in the table (``p2ptrumps resume``):
    the table shows deal 2's position and that it is the person's move (it used to show the end of
    deal 1, "Enter starts the next deal", while deal 2's move clock ran)."""
    ai = AIHost(tmp_path, deals=2)
    ai.cfg.reconnect_wait_s = 20
    ai.start()
    first = seat_config(tmp_path, ascii_only=False, ai="random", think_s=0.01, reconnect_wait_s=20)
    first.hooks.make_player = lambda cfg, seat: DiesInDeal2()

    async def die() -> None:
        with trio.fail_after(30):
            await dial.join(first, f"127.0.0.1:{ai.port}")

    with pytest.raises(Killed):
        trio.run(die)
    logs = sorted((tmp_path / "g" / "logs").glob("*.p2plog"))
    assert len(logs) == 1 and verify_log(logs[0].read_bytes()).status == "unfinished"

    cfg = seat_config(tmp_path, reconnect_wait_s=20)
    restored = resume.load(cfg, logs[0])
    tables: list[TableApp] = []
    seen: dict[str, object] = {}

    async def person(inp: PipeInput) -> None:
        await wait_until(lambda: bool(tables) and tables[0].state.mode == Mode.TURN, "my move")
        table = tables[0]
        seen["deal"] = (table.state.deal_number, table.state.deals, table.state.end)
        pos = table.state.position
        assert pos is not None
        seen["to move"] = pos.to_move == table.state.my_seat == 1
        seen["expect"] = table.status_view(100).expect == expect_text(pos, 1, None)
        await leave(inp, table)

    status = asyncio.run(drive_table(cfg, ai, person, tables, io.StringIO(), io.StringIO(), restored))
    ai.thread.join(20)
    assert status == config.EXIT_LEFT
    assert seen["deal"] == (2, 2, None)
    assert seen["to move"] is True and seen["expect"] is True  # the status says what our move is
    host_result = ai.outcome[0]
    assert isinstance(host_result, config.NetResult) and host_result.log_path is not None
    v = verify_log(host_result.log_path.read_bytes())
    assert (v.status, len(v.deals), v.deals[-1].number, v.deals[-1].reason) == ("valid", 2, 2, "resign")


def test_equal_names_are_shown_apart_by_their_keys() -> None:
    """'root vs root' shows each name with its key's first four characters."""
    from p2ptrumps.net.table import table_names as names_apart

    assert names_apart("root", "K7QX-AAAA-BBBB", "root", "3HAG-AQH3-NTA4") == ("root (K7QX)", "root (3HAG)")
    assert names_apart("root", "K7QX-AAAA", "Hana", "3HAG-AQH3") == ("root", "Hana")
    long = "x" * 30
    assert names_apart(long, "K7QX", long, "3HAG") == ("x" * 12 + "… (K7QX)", "x" * 12 + "… (3HAG)")
    from p2ptrumps.text import names_apart as apart

    assert apart(("root", "root"), ("K7QX-AAAA", "3HAG-AQH3")) == ("root (K7QX)", "root (3HAG)")
    assert apart(("You", "You"), ("", "")) == ("You (seat 0)", "You (seat 1)")  # an offline record: no keys
    assert apart(("a", "a"), ("K7QX-AAAA", "K7QX-BBBB")) == ("a (seat 0)", "a (seat 1)")
    assert apart(("Ann", "Bo"), ("", "")) == ("Ann", "Bo")


def test_a_peer_that_closes_after_the_match_leaves_no_rematch_on_the_end_screen() -> None:
    """The end screen said "Enter rematch or leave" after the peer had left."""
    from types import SimpleNamespace

    from p2ptrumps.net.table import _closed_after_end
    from p2ptrumps.ui.app import UIOptions

    table = TableApp(UIOptions(match_end_enter="rematch or leave", allow_chat=True))
    table.state.mode = Mode.MATCH_END
    assert table._keys_items() == ["Enter rematch or leave"]
    game = SimpleNamespace(peer_name="Hana")
    _closed_after_end(table, game, False)  # not clean: a lost link, the reconnection's to handle
    assert table._keys_items() == ["Enter rematch or leave"]
    _closed_after_end(table, game, True)
    assert table._keys_items() == ["Enter leave"]
    assert table.state.message == "Hana left: no rematch"
    assert table.status_view(100).keys == "Enter leave"


def test_after_rematches_the_closing_score_counts_every_match_of_the_connection(tmp_path: Path) -> None:
    """A match and two rematches: the closing "Score:" showed the last match only; now the matches won
    over the session and each match, from our side whatever our seat was."""
    from p2ptrumps.net.table import TableSeat
    from p2ptrumps.ui.terminal import Termination

    cfg = config.NetConfig(role="guest", identity=GUEST_KEY, name="Tess", data=tmp_path, ascii_only=True)
    out = io.StringIO()
    seat = TableSeat(cfg, "join", input=None, output=DummyOutput(), out=out, err=io.StringIO())
    seat.table.set_players(("Hana", "Tess"), 1)
    seat.term = Termination(lambda: None)
    logs = [tmp_path / f"m{i}.p2plog" for i in range(3)]
    result = config.NetResult(logs[0], 1, score_halves=(0, 2), rematches=[
        config.NetResult(logs[1], 1, score_halves=(2, 0)), config.NetResult(logs[2], 1, score_halves=(1, 1))])
    assert seat.report_played(result) == config.EXIT_OK
    assert out.getvalue().splitlines() == [
        "Score: Tess 1.5 : 1.5 Hana in 3 matches (1 won, 1 drawn, 1 lost)",
        "  match 1: Tess 1 : 0 Hana",
        "  match 2: Tess 0 : 1 Hana",
        "  match 3: Tess 0.5 : 0.5 Hana",
        *(f"match log: {log}" for log in logs)]
    out.truncate(0)
    out.seek(0)
    assert seat.report_played(config.NetResult(logs[0], 1, score_halves=(0, 2))) == config.EXIT_OK
    assert out.getvalue().splitlines() == ["Score: Tess 1 : 0 Hana", f"match log: {logs[0]}"]


def fill_disk(monkeypatch: pytest.MonkeyPatch, place: Path) -> list[bool]:
    """``os.write`` to a file under ``place`` fails with ENOSPC while the flag returned is ``[True]``: the
    disk of ``place`` is full (the files are told by their descriptor's path, Linux's /proc)."""
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("no /proc/self/fd here to tell a descriptor's file")
    full = [False]
    real = os.write

    def write(fd: int, data: Any) -> int:
        if full[0]:
            try:
                target = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                target = ""
            if target.startswith(f"{place}{os.sep}"):
                raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)
    return full


def test_a_full_disk_mid_match_moves_the_match_to_the_temporary_directory_and_it_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last note: a failed write of the match log was told as "Connection lost: ..." and stopped the
    match.  Our log cannot take our move (ENOSPC): the match moves to the temporary directory (files.md: a
    disk that fails mid-match) -- the log with every frame, its resume file, the old ones removed --, the
    table says so at once on a line of its own (the fault, both paths), the move goes out, and the match
    goes on to its signed end; the closing lines name the log where it is now."""
    ai = AIHost(tmp_path)
    ai.start()
    mine, spare = tmp_path / "g", tmp_path / "spare"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    full = fill_disk(monkeypatch, mine)
    cfg = seat_config(tmp_path)
    tables: list[TableApp] = []
    out, err = io.StringIO(), io.StringIO()
    seen: dict[str, object] = {}

    async def person(inp: PipeInput) -> None:
        table, pos = await my_first_turn(inp, tables)
        seen["old"] = sorted(p.name for p in (mine / "logs").iterdir())
        n = len(table.state.history)
        full[0] = True  # the disk fills
        seen["move"] = pos.legal_moves()[0]
        inp.send_text(":" + typed(pos.legal_moves()[0]) + ENTER)
        await wait_until(lambda: table.state.fault != "", "the fault line")
        await wait_until(lambda: len(table.state.history) > n, "my move, sent")
        seen["fault"] = table.state.fault
        seen["now"] = sorted(p.name for p in (mine / "logs").iterdir()), sorted(p.name for p in spare.iterdir())
        await leave(inp, table)

    status = asyncio.run(drive_table(cfg, ai, person, tables, out, err))
    ai.thread.join(20)
    old = seen["old"]
    assert isinstance(old, list) and len(old) == 2 and old[1] == old[0] + ".resume"
    moved_to = spare / old[0]
    assert seen["fault"] == (f"cannot write the match log {mine / 'logs' / old[0]}: No space left on device; it is "
                             f"saved to {moved_to} instead, and the match goes on")
    assert seen["now"] == ([], old)  # moved with its resume file, the old ones removed
    assert status == config.EXIT_LEFT
    assert err.getvalue().splitlines() == [
        "p2ptrumps join: you resigned and left the match (both signed the final score)",
        f"match log (kept): {moved_to}"]
    host_result = ai.outcome[0]
    assert isinstance(host_result, config.NetResult) and host_result.log_path is not None
    for path in (moved_to, host_result.log_path):
        v = verify_log(path.read_bytes())
        assert (v.status, [(d.number, d.winner, d.reason) for d in v.deals]) == ("valid", [(1, 0, "resign")])
    deal = verify_log(moved_to.read_bytes()).to_record().deals[0]
    assert seen["move"] in [mv for i, mv in enumerate(deal.moves) if (1 - deal.dealer + i) % 2 == 1]
    assert sorted(p.name for p in spare.iterdir()) == [old[0]]  # complete: its resume file is gone


def test_a_full_disk_everywhere_stops_the_match_at_once_and_resume_finishes(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """When the temporary directory cannot take the match either, the match stops: our move is not sent (a
    message is on disk before it is sent, protocol/wire.md §12), and the table says so at once on a line of
    its own (it said "Connection lost: ..."): the fault, the log, that it keeps everything played, and how to
    go on.  After the disk is freed, `resume` of that log goes on with the match, and both logs end
    complete."""
    ai = AIHost(tmp_path)
    ai.cfg.reconnect_wait_s = 30
    ai.start()
    mine = tmp_path / "g"
    (mine / "tmp").mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(mine / "tmp"))  # on the same full disk
    full = fill_disk(monkeypatch, mine)
    cfg = seat_config(tmp_path, reconnect_wait_s=30)
    tables: list[TableApp] = []
    out, err = io.StringIO(), io.StringIO()
    seen: dict[str, object] = {}

    async def person(inp: PipeInput) -> None:
        table, pos = await my_first_turn(inp, tables)
        seen["history"] = len(table.state.history)
        full[0] = True  # the disk fills
        inp.send_text(":" + typed(pos.legal_moves()[0]) + ENTER)
        await wait_until(lambda: table.state.fault != "", "the fault line")
        seen["fault"], seen["message"] = table.state.fault, table.state.message
        seen["after"] = len(table.state.history)
        inp.send_text("q")  # the match stopped: q leaves at once, nothing is asked (there is nothing to resign)

    status = asyncio.run(drive_table(cfg, ai, person, tables, out, err))
    guest_log = next((mine / "logs").glob("*.p2plog"))
    assert status == config.EXIT_ERROR
    assert seen["fault"] == (
        f"cannot write the match log {guest_log}: No space left on device. The match stops here; everything "
        f"played so far is kept in that log. Free some space, then `p2ptrumps resume {guest_log}` goes on with it.")
    assert (seen["message"], seen["after"]) == ("Press q to leave.", seen["history"])  # the move was not sent
    assert err.getvalue().splitlines() == [
        f"p2ptrumps join: cannot write the match log {guest_log}: No space left on device",
        f"match log (kept): {guest_log}", f"take it up when you both can: p2ptrumps resume {guest_log}"]
    assert list((mine / "tmp").iterdir()) == []  # nothing half-moved left there
    kept = guest_log.read_bytes()
    assert verify_log(kept).status == "unfinished"

    full[0] = False  # space freed: resume the match from its log, and resign it
    again = seat_config(tmp_path, reconnect_wait_s=30)
    restored = resume.load(again, guest_log)
    tables.clear()

    async def resign(inp: PipeInput) -> None:
        await wait_until(lambda: bool(tables) and tables[0].state.mode == Mode.TURN, "my move again")
        await leave(inp, tables[0])

    assert asyncio.run(drive_table(again, ai, resign, tables, io.StringIO(), io.StringIO(), restored)) == (
        config.EXIT_LEFT)
    ai.thread.join(20)
    host_result = ai.outcome[0]
    assert isinstance(host_result, config.NetResult) and host_result.log_path is not None
    for path in (guest_log, host_result.log_path):
        v = verify_log(path.read_bytes())
        assert (v.status, [(d.number, d.winner, d.reason) for d in v.deals]) == ("valid", [(1, 0, "resign")])
    assert guest_log.read_bytes().startswith(kept)
