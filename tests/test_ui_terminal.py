"""The terminal around the table: how wide the suit symbols are drawn (asked of
a pseudo-terminal that answers like a real one), ``--ascii``/``--unicode``, and SIGTERM /
SIGHUP ending ``play`` and ``replay`` the way ``q`` does (in-process, through the real
signal handlers; ``test_ui_tmux.py`` checks the real terminal afterwards)."""

from __future__ import annotations

import asyncio
import os
import pty
import signal
import threading
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2ptrumps.record import MatchRecord
from p2ptrumps.rules import RuleSet
from p2ptrumps.ui.app import Mode, QuitResult
from p2ptrumps.ui.play import PlayConfig, PlaySession
from p2ptrumps.ui.replay import ReplayViewer, load_any
from p2ptrumps.ui.terminal import Termination, choose_ascii, measure_columns

SAMPLE = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "record-sample.json"
UTF8 = {"LANG": "en_US.UTF-8"}


class _Utf8:
    encoding = "utf-8"


def _fake_terminal(columns_per_symbol: int | None) -> tuple[int, int, threading.Thread]:
    """A pseudo-terminal whose far end reads what is drawn and answers the cursor position
    request as a terminal drawing each suit symbol ``columns_per_symbol`` wide (None: never answers)."""
    master, slave = pty.openpty()

    def answer() -> None:
        seen = b""
        while b"\x1b[6n" not in seen:
            chunk = os.read(master, 256)
            if not chunk:
                return
            seen += chunk
        if columns_per_symbol is not None:
            drawn = seen.split(b"\r", 1)[1].split(b"\x1b[6n", 1)[0].decode("utf-8")
            os.write(master, f"\x1b[7;{len(drawn) * columns_per_symbol + 1}R".encode())

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    return master, slave, thread


@pytest.mark.parametrize(("per_symbol", "columns"), [(1, 4), (2, 8), (None, None)])
def test_measure_columns_asks_the_terminal(per_symbol: int | None, columns: int | None) -> None:
    master, slave, thread = _fake_terminal(per_symbol)
    try:
        assert measure_columns("♣♦♥♠", slave, timeout_s=0.3 if per_symbol is None else 5) == columns
    finally:
        os.close(slave)
        thread.join(5)
        os.close(master)


def test_measure_columns_of_something_that_is_not_a_terminal(tmp_path: Path) -> None:
    with open(tmp_path / "f", "w+b") as f:
        assert measure_columns("♣", f.fileno()) is None


def test_choose_ascii_by_flag_encoding_and_the_terminal() -> None:
    assert choose_ascii(True, False, _Utf8(), environ=UTF8) == (True, "")  # type: ignore[arg-type]
    assert choose_ascii(False, True, _Utf8(), environ={"LANG": "C"}) == (False, "")  # type: ignore[arg-type]
    assert choose_ascii(False, False, _Utf8(), environ={"LANG": "C"}) == (True, "")  # type: ignore[arg-type]
    assert choose_ascii(False, False, _Utf8(), environ=UTF8) == (False, "")  # type: ignore[arg-type]
    for per_symbol, expected in ((1, (False, "")), (2, (True, (
            "this terminal draws the four suit symbols in 8 columns, not 4: suits are shown as letters "
            "C D H S (--unicode shows the symbols anyway)")))):
        master, slave, thread = _fake_terminal(per_symbol)
        try:
            assert choose_ascii(False, False, _Utf8(), probe_fds=(slave, slave),  # type: ignore[arg-type]
                                environ=UTF8) == expected
        finally:
            os.close(slave)
            thread.join(5)
            os.close(master)


# ----- SIGTERM / SIGHUP ----------------------------------------------------------------------


def test_termination_calls_back_and_gives_the_exit_status() -> None:
    """SIGHUP leaves the table with status 129, and its handler is handed back as found: the default,
    or ``SIG_IGN`` under ``nohup``."""
    calls: list[str] = []
    found = signal.getsignal(signal.SIGHUP)

    async def main() -> Termination:
        with Termination(lambda: calls.append("leave")) as term:
            os.kill(os.getpid(), signal.SIGHUP)
            for _ in range(200):
                if calls:
                    break
                await asyncio.sleep(0.01)
        return term

    term = asyncio.run(main())
    assert calls == ["leave"]
    assert (term.signal, term.exit_status, term.name) == (signal.SIGHUP, 129, "SIGHUP")
    assert signal.getsignal(signal.SIGHUP) == found  # handed back


def test_termination_hands_back_the_handlers_it_found() -> None:
    """A program that embeds the table has its own SIGINT handler, and ``nohup`` leaves SIGHUP ignored:
    leaving the table gave back Python's defaults instead (asyncio's remove_signal_handler), so the
    program's Ctrl-C went to KeyboardInterrupt and a later hang-up killed the process."""
    def embedding_programs_own(number: int, frame: object) -> None:
        return None

    async def main() -> None:
        with Termination(lambda: None, (signal.SIGINT, signal.SIGHUP)):
            assert signal.getsignal(signal.SIGINT) is not embedding_programs_own  # the table's own meanwhile

    before = (signal.signal(signal.SIGINT, embedding_programs_own), signal.signal(signal.SIGHUP, signal.SIG_IGN))
    try:
        asyncio.run(main())
        after = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGHUP))
    finally:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGHUP, before[1])
    assert after == (embedding_programs_own, signal.SIG_IGN)


def test_a_table_continued_after_a_stop_takes_the_terminal_back_and_draws_it_all(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``kill -STOP`` of a table started from an interactive shell: the shell takes the terminal back and
    puts it in line mode with echo; continued (``fg``), the table stayed in line mode -- its keys echoed over
    the screen and held until Enter -- and drew only what changed over what the shell printed.  Now SIGCONT
    puts the terminal in raw mode again and draws the whole screen anew once the table is in the foreground
    (a stand-in: ``kill -CONT`` leaves it in the background, and ``fg`` sends no second SIGCONT)."""
    import termios

    from prompt_toolkit import Application
    from prompt_toolkit.input import create_input
    from prompt_toolkit.layout import Layout
    from prompt_toolkit.widgets import Label

    from p2ptrumps.ui import terminal

    foreground = [False]
    monkeypatch.setattr(terminal, "in_foreground", lambda fd: foreground[0], raising=False)
    monkeypatch.setattr(terminal, "FOREGROUND_POLL_S", 0.01, raising=False)
    master, slave = pty.openpty()
    line_mode = termios.tcgetattr(slave)
    cleared: list[int] = []

    def icanon() -> bool:
        return bool(termios.tcgetattr(slave)[3] & termios.ICANON)

    async def main() -> list[bool]:
        seen = [icanon()]
        with os.fdopen(os.dup(slave), "r") as stdin, create_app_session(input=create_input(stdin),
                                                                          output=DummyOutput()):
            app: Application[None] = Application(layout=Layout(Label("table")))
            clear = app.renderer.clear
            monkeypatch.setattr(app.renderer, "clear", lambda: (cleared.append(1), clear())[1])
            with Termination(app.exit):
                task = asyncio.ensure_future(app.run_async())
                for _ in range(500):
                    if app.is_running and not icanon():
                        break
                    await asyncio.sleep(0.01)
                seen.append(icanon())  # the application's raw mode
                termios.tcsetattr(slave, termios.TCSANOW, line_mode)  # what the shell does when it stops
                seen.append(icanon())
                os.kill(os.getpid(), signal.SIGCONT)  # continued in the background: it waits
                for _ in range(500):
                    if getattr(terminal, "_waiting", None):
                        break
                    await asyncio.sleep(0.01)
                seen.append(icanon())
                foreground[0] = True  # fg
                for _ in range(500):
                    if not icanon() and cleared:
                        break
                    await asyncio.sleep(0.01)
                seen.append(icanon())
                app.exit()
                await task
        return seen

    try:
        assert asyncio.run(main()) == [True, False, True, True, False]
        assert cleared == [1]
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_play_like_q_and_keeps_the_record(tmp_path: Path, sig: signal.Signals) -> None:
    cfg = PlayConfig(rules=RuleSet(), level="random", think_s=0.05, seed=3, trump=2, name="Tess", color=False,
                     record_path=tmp_path / "rec.json")

    async def main() -> tuple[PlaySession, QuitResult]:
        with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
            session = PlaySession(cfg, input=inp, output=DummyOutput())
            task = asyncio.ensure_future(session.run())
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 20
            while session.table.state.mode != Mode.TURN:
                assert loop.time() < deadline, "the table never reached my turn"
                await asyncio.sleep(0.005)
            if session.record is None:  # I lead: a record is written from the first move on
                inp.send_text("\r")
            while not (session.table.state.mode == Mode.TURN and session.record is not None):
                assert loop.time() < deadline, "the table never reached my turn after a move"
                await asyncio.sleep(0.005)
            os.kill(os.getpid(), sig)
            return session, await asyncio.wait_for(task, 20)

    session, result = asyncio.run(main())
    assert result == QuitResult.QUIT
    assert (session.termination.signal, session.termination.exit_status) == (sig, 128 + sig)
    record = MatchRecord.load(cfg.record_path)
    assert record.deals and record.deals[0].outcome is None  # saved, unfinished, nothing lost
    assert record.deals[0].moves == session.record.deals[0].moves  # type: ignore[union-attr]


def test_a_signal_ends_the_replay_viewer() -> None:
    async def main() -> Termination:
        with create_pipe_input() as inp:
            viewer = ReplayViewer(load_any(SAMPLE), input=inp, output=DummyOutput())
            task = asyncio.ensure_future(viewer.run())
            for _ in range(500):
                if viewer.application.is_running:
                    break
                await asyncio.sleep(0.005)
            os.kill(os.getpid(), signal.SIGTERM)
            return await asyncio.wait_for(task, 20)

    term = asyncio.run(main())
    assert term.exit_status == 143
