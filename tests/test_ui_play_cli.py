"""``p2ptrumps play`` before and after the match: the refusals that create nothing
(no terminal, ``TERM=dumb``, an unwritable records directory), and a record that
cannot be saved mid-game."""

from __future__ import annotations

import argparse
import asyncio
import errno
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2ptrumps import record as record_module
from p2ptrumps.command import CommandError
from p2ptrumps.commands.main import main
from p2ptrumps.record import MatchRecord
from p2ptrumps.rules import RuleSet
from p2ptrumps.ui import play
from p2ptrumps.ui.app import Mode, QuitResult
from p2ptrumps.ui.play import PlayConfig, PlaySession, config_from_args
from p2ptrumps.ui.terminal import terminal_problem
from p2ptrumps.ui.view import plain, render_status
from tests.test_ui_app import typed_text


def play_args(tmp_path: Path, name: str | None = None, log_dir: Path | None = None) -> argparse.Namespace:
    return argparse.Namespace(command="play", ai="random", think=0.05, seed=1, trump=2, name=name, ascii=False,
                              unicode=False, log_dir=str(log_dir or tmp_path / "records"), rules=RuleSet())


def test_no_terminal_is_refused_before_anything_is_created(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # Under pytest stdin is not a terminal.
    assert main(["play", "--log-dir", str(tmp_path / "records")]) == 2
    assert capsys.readouterr().err == (
        "p2ptrumps play: this needs a full-screen terminal: stdin is not a tty (for a match between AIs use "
        "`p2ptrumps arena`; to print a saved match, `p2ptrumps replay FILE --text`)\n")
    assert not (tmp_path / "records").exists()


def test_a_bad_option_is_named_before_the_missing_terminal(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--position", "x", "--log-dir", str(tmp_path / "records")]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[1] == ("p2ptrumps play: --position: version: 'x' is not a position text, which starts "
                                   "with v1/ (like v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r3.t1000)")
    assert "terminal" not in err
    assert not (tmp_path / "records").exists()


class _Tty:
    def isatty(self) -> bool:
        return True


class _NotTty:
    def isatty(self) -> bool:
        return False


def test_stdout_not_a_terminal_is_named() -> None:
    xterm = {"TERM": "xterm"}
    assert terminal_problem(_Tty(), _NotTty(), xterm) == "stdout is not a tty"
    assert terminal_problem(_NotTty(), _Tty(), xterm) == "stdin is not a tty"
    assert terminal_problem(_Tty(), _Tty(), xterm) is None


@pytest.mark.parametrize(("environ", "why"), [
    ({"TERM": "dumb"}, "TERM is 'dumb': that terminal cannot move the cursor"),
    ({"TERM": "unknown"}, "TERM is 'unknown': that terminal cannot move the cursor"),
    ({}, "TERM is not set"),
])
def test_a_dumb_terminal_is_refused(environ: dict[str, str], why: str) -> None:
    assert terminal_problem(_Tty(), _Tty(), environ) == why


def test_dumb_terminal_refusal_writes_no_escape_sequence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(play, "terminal_problem", lambda stdin, stdout: terminal_problem(_Tty(), _Tty(),
                                                                                         {"TERM": "dumb"}))
    assert main(["play", "--log-dir", str(tmp_path / "records")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("p2ptrumps play: this needs a full-screen terminal: TERM is 'dumb': that terminal cannot move "
                   "the cursor (for a match between AIs use `p2ptrumps arena`; to print a saved match, "
                   "`p2ptrumps replay FILE --text`)\n")
    assert "\x1b" not in err
    assert not (tmp_path / "records").exists()


def test_unwritable_log_dir_is_refused_before_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(play, "terminal_problem", lambda stdin, stdout: None)
    monkeypatch.setattr(play, "choose_ascii", lambda *args, **kwargs: (False, ""))
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(CommandError) as info:
        play.run(play_args(tmp_path, log_dir=blocker / "records"))
    assert (info.value.message, info.value.status) == (
        f"cannot write records to {blocker / 'records'}: Not a directory (choose another directory with --log-dir)",
        2)


def test_the_name_reaches_the_record_as_given(tmp_path: Path) -> None:
    assert config_from_args(play_args(tmp_path, name="Ann Lee")).name == "Ann Lee"
    assert config_from_args(play_args(tmp_path)).name == "You"


def test_a_full_disk_mid_game_is_shown_at_once_and_the_record_saved_elsewhere(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The last note: when the disk filled mid-game `play` said so only at exit.  Now the first failed
    save writes the record to the temporary directory at once, and a status line of its own names the
    fault, the path and that file while the game goes on (the AI's moves do not replace it); every
    later change retries the path, and once it works the line goes and the older copy is removed.
    At the end a record still not on its path is named where it is (status 1)."""
    folder, spare = tmp_path / "records", tmp_path / "tmp"
    folder.mkdir()
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    full = [False]
    real = record_module.write_atomic

    def write_atomic(path: Path, text: str, prefix: str = ".tmp-") -> None:
        if full[0] and path.parent == folder:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, text, prefix)

    monkeypatch.setattr(record_module, "write_atomic", write_atomic)
    primary, fallback = folder / "rec.json", spare / "rec.json"
    cfg = PlayConfig(rules=RuleSet(), level="random", think_s=0.05, seed=3, trump=2, name="Tess", color=False,
                     record_path=primary)
    fault = (f"cannot save the record to {primary}: No space left on device; saved to {fallback} instead "
             "(retrying rec.json after each move)")
    seen: dict[str, object] = {}
    messages: list[str] = []

    async def main() -> PlaySession:
        with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
            session = PlaySession(cfg, input=inp, output=DummyOutput())
            task = asyncio.ensure_future(session.run())
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 20
            table = session.table
            shown = table.show_message
            table.show_message = lambda text, kind="info": (messages.append(text), shown(text, kind))[1]  # type: ignore[method-assign]

            async def until(pred: Callable[[], bool]) -> None:
                while not pred():
                    assert loop.time() < deadline, "the UI got stuck"
                    await asyncio.sleep(0.005)

            async def my_move() -> None:  # my first legal move, typed; then the AI answers
                n = len(table.state.history)
                assert table.state.position is not None
                inp.send_text(":" + typed_text(table.state.position.legal_moves()[0]) + "\r")
                await until(lambda: len(table.state.history) >= n + 2 and table.state.mode == Mode.TURN)

            await until(lambda: table.state.mode == Mode.TURN)
            if session.record is None:  # I lead: a record is written from the first move on
                await my_move()
            await until(lambda: session.record is not None and table.state.mode == Mode.TURN)
            on_disk = MatchRecord.load(primary).dumps()
            full[0] = True  # the disk fills
            await my_move()
            seen["fault"], seen["message"] = table.state.fault, table.state.message
            seen["status"] = plain(render_status(table.status_view(400), 400))
            seen["fallback"] = MatchRecord.load(fallback).dumps()
            seen["memory"] = session.records[primary].dumps()
            seen["primary"] = MatchRecord.load(primary).dumps() == on_disk  # untouched: nothing played is lost
            await my_move()
            seen["fault after"] = table.state.fault
            full[0] = False  # space freed
            await my_move()
            seen["mended"] = (table.state.fault, fallback.exists())
            seen["whole"] = MatchRecord.load(primary).dumps() == session.records[primary].dumps()
            full[0] = True  # full again, and the person leaves
            await my_move()
            table.exit(QuitResult.QUIT)
            await task
            return session

    session = asyncio.run(main())
    assert seen["fault"] == fault and seen["fault after"] == fault
    assert seen["message"] == "AI random: beat K♣, second 7♠"  # the AI's move on the message line, the fault kept
    assert [line.rstrip() for line in seen["status"]][:3] == [  # type: ignore[attr-defined]
        " Beat 7♠ with one of the 8 highlighted cards, then a second card.",
        " ✗ " + fault,  # a line of its own, between what is expected and the message
        " AI random: beat K♣, second 7♠"]
    assert seen["fallback"] == seen["memory"] and seen["primary"] is True
    assert seen["mended"] == ("", False)
    assert messages.count(f"The record is saved again to {primary} (its older copy {fallback} is removed).") == 1
    assert seen["whole"] is True
    capsys.readouterr()
    assert play.closing(play_args(tmp_path, log_dir=folder), session) == 1
    out, err = capsys.readouterr()
    assert err == (f"p2ptrumps play: cannot save the record to {primary}: No space left on device; saved to "
                   f"{fallback} instead\n")
    assert out.splitlines()[-1] == f"Go on with it later: p2ptrumps play --continue --log-dir {spare}"
    assert MatchRecord.load(fallback).dumps() == session.records[primary].dumps()


def test_continue_takes_the_newest_unfinished_game_or_says_there_is_none(tmp_path: Path) -> None:
    """``play --continue`` reopens the newest unfinished offline game with its level,
    rules, trumps and name, saved in place; without one it says where it looked."""
    from p2ptrumps.record import DealRecord, PlayerInfo
    from p2ptrumps.shuffle import deal_hands
    from p2ptrumps.ui.play import NoGameToContinue, deal_seed

    args = play_args(tmp_path)
    args.continue_ = True
    with pytest.raises(NoGameToContinue) as info:
        config_from_args(args)
    assert str(info.value) == f"no unfinished game to continue in {tmp_path / 'records'}"
    rules = RuleSet(deals=3)
    rec = MatchRecord(rules, (3, 1), (PlayerInfo("Ann"), PlayerInfo("AI strong", "ai:strong")), started="x")
    seed = deal_seed(9, 1)
    deal = DealRecord(1, 1, seed, deal_hands(seed, rules, rec.trumps, 1))
    deal.moves.append(rec.start_of(deal).legal_moves()[0])
    rec.deals.append(deal)
    rec.save(tmp_path / "records" / "game.json")
    cfg = config_from_args(args)
    assert (cfg.level, cfg.rules, cfg.trump, cfg.name) == ("strong", rules, 3, "Ann")
    assert cfg.record_path == tmp_path / "records" / "game.json"
    assert cfg.resume is not None and cfg.resume.deals[0].moves == deal.moves


def _unfinished_game(folder: Path, rules: RuleSet, level: str = "random") -> MatchRecord:
    """An offline game against AI ``level`` stopped after the first move of deal 1, saved as ``folder/game.json``."""
    from p2ptrumps.record import DealRecord, PlayerInfo
    from p2ptrumps.shuffle import deal_hands
    from p2ptrumps.ui.play import deal_seed

    rec = MatchRecord(rules, (3, 1), (PlayerInfo("Ann"), PlayerInfo(f"AI {level}", f"ai:{level}")), started="x")
    seed = deal_seed(9, 1)
    deal = DealRecord(1, 1, seed, deal_hands(seed, rules, rec.trumps, 1))
    deal.moves.append(rec.start_of(deal).legal_moves()[0])
    rec.deals.append(deal)
    rec.save(folder / "game.json")
    return rec


def test_continue_refuses_an_option_the_saved_game_decides_otherwise(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``--continue`` takes the level, rules, trump and name from the saved game: an option asking for
    something else is refused by name (status 2, the usage line first); one that repeats it is fine."""
    from p2ptrumps.commands.main import build_parser, given_options, subparser
    from p2ptrumps.ui.play import ContinueConflict

    folder = tmp_path / "records"
    folder.mkdir()
    _unfinished_game(folder, RuleSet(deals=3), "strong")
    play_parser = subparser(build_parser(), "play")
    assert given_options(play_parser, ["--continue", "--ai", "greedy", "--deals", "3", "--no-sixes"]) == {
        "continue_", "ai", "deals", "no_sixes"}
    assert given_options(play_parser, ["--continue"]) == {"continue_"}

    args = play_args(tmp_path)
    args.continue_ = True
    args.ai, args.deals, args.no_sixes, args.trump, args.name = "greedy", 3, True, 0, "Ann"
    args.given = frozenset({"continue_", "ai", "deals", "no_sixes", "trump", "name"})
    with pytest.raises(ContinueConflict) as info:
        config_from_args(args)
    assert str(info.value) == (
        "--continue goes on with game.json as it was saved, its AI level and rules included: --ai greedy (the game "
        "has strong); --trump ♣ (the game has ♠); --no-sixes (the game has the sixes rule on). Leave those options "
        "out, or start a new game without --continue")
    args.given = frozenset({"continue_", "deals", "name"})  # the game's own values: no conflict
    assert config_from_args(args).level == "strong"
    from p2ptrumps.ui.play import short_rules  # the rules named on the table when the game goes on

    assert short_rules(RuleSet(deals=3)) == "36 cards, 3 deals"
    assert short_rules(RuleSet(pack_size=32, deals=1, sixes=False, voluntary_pickup=True, repetition=0,
                               turn_limit=200)) == (
        "32 cards, 1 deal, sixes off, voluntary pick-up, repetition off, limit 200 turns")

    monkeypatch.setattr(play, "terminal_problem", lambda stdin, stdout: None)
    monkeypatch.setattr(play, "choose_ascii", lambda *args, **kwargs: (False, ""))
    assert main(["play", "--continue", "--log-dir", str(folder), "--pack", "52"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("usage: p2ptrumps play ")
    assert err[-1] == ("p2ptrumps play: --continue goes on with game.json as it was saved, its AI level and rules "
                       "included: --pack 52 (the game has 36). Leave that option out, or start a new game without "
                       "--continue")


def test_quitting_a_continued_game_says_where_it_is_as_a_plain_quit_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``play --continue`` says at the start that the saved game's level and rules apply; quitting it
    at once prints the score, the record and how to go on, as quitting a new game does."""
    folder = tmp_path / "records"
    folder.mkdir()
    _unfinished_game(folder, RuleSet(deals=3))
    monkeypatch.setattr(play, "terminal_problem", lambda stdin, stdout: None)
    monkeypatch.setattr(play, "choose_ascii", lambda *args, **kwargs: (False, ""))
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        inp.send_text("qy")  # quit, confirmed
        assert main(["play", "--continue", "--log-dir", str(folder)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"Continuing {folder / 'game.json'} (deal 1 of 3, after 1 move) with the saved game's level and rules: "
        "AI random; 36 cards, sixes on, must beat, repetition 3, limit 1000 turns, 3 deals",
        "Score: Ann 0 : 0 AI random (unfinished)",
        f"Record saved: {folder / 'game.json'}",
        f"Go on with it later: p2ptrumps play --continue --log-dir {folder}",
    ]
