"""``p2ptrumps play`` before and after the match: the refusals that create nothing
(no terminal, a name of control characters, an unwritable records directory), name
cleaning, and a record that cannot be saved mid-game."""

from __future__ import annotations

import argparse
import asyncio
import shutil
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2ptrumps.rules import RuleSet
from p2ptrumps.ui import play
from p2ptrumps.ui.app import Mode, QuitResult
from p2ptrumps.ui.play import PlayConfig, PlaySession, clean_name, config_from_args


def play_args(tmp_path: Path, name: str | None = None, log_dir: Path | None = None) -> argparse.Namespace:
    return argparse.Namespace(ai="random", think=0.05, seed=1, trump=2, name=name, ascii=False,
                              log_dir=str(log_dir or tmp_path / "records"), rules=RuleSet())


def test_no_terminal_is_refused_before_anything_is_created(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # Under pytest stdin is not a terminal.
    assert play.run(play_args(tmp_path)) == 2
    assert capsys.readouterr().err == (
        "p2ptrumps play: play needs a terminal: stdin is not a tty (for a non-interactive match use "
        "`p2ptrumps arena`; to print a saved match, `p2ptrumps replay FILE --text`)\n")
    assert not (tmp_path / "records").exists()


class _Tty:
    def isatty(self) -> bool:
        return True


class _NotTty:
    def isatty(self) -> bool:
        return False


def test_stdout_not_a_terminal_is_named() -> None:
    assert play.terminal_problem(_Tty(), _NotTty()) == "stdout is not a tty"
    assert play.terminal_problem(_NotTty(), _Tty()) == "stdin is not a tty"
    assert play.terminal_problem(_Tty(), _Tty()) is None


def test_unwritable_log_dir_is_refused_before_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(play, "terminal_problem", lambda stdin, stdout: None)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert play.run(play_args(tmp_path, log_dir=blocker / "records")) == 2
    assert capsys.readouterr().err == (
        f"p2ptrumps play: cannot write records to {blocker / 'records'}: Not a directory "
        "(choose another directory with --log-dir)\n")


def test_names_are_cleaned_and_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert clean_name("Bob\x1b[31mRED\nX") == "Bob[31mREDX"
    assert clean_name("  Ann   Lee \t") == "Ann Lee"
    assert clean_name("x" * 100) == "x" * 40
    with pytest.raises(ValueError, match=r"has no printable characters"):
        clean_name("\x1b\n\t")
    assert config_from_args(play_args(tmp_path, name="Eve\x1b]0;pwned\x07")).name == "Eve]0;pwned"
    assert config_from_args(play_args(tmp_path)).name == "You"
    monkeypatch.setattr(play, "terminal_problem", lambda stdin, stdout: None)
    assert play.run(play_args(tmp_path, name="\x1b\x1b")) == 2
    assert capsys.readouterr().err == "p2ptrumps play: --name: the name '\\x1b\\x1b' has no printable characters\n"
    assert not (tmp_path / "records").exists()


def test_saving_fails_mid_game_is_shown_and_retried(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    cfg = PlayConfig(rules=RuleSet(), level="random", think_s=0.05, seed=3, trump=2, name="Tess", color=False,
                     record_path=folder / "rec.json")

    async def main() -> tuple[PlaySession, list[str]]:
        seen: list[str] = []
        with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
            session = PlaySession(cfg, input=inp, output=DummyOutput())
            task = asyncio.ensure_future(session.run())
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 20

            async def until(pred: object) -> None:
                while not pred():  # type: ignore[operator]
                    assert loop.time() < deadline, "the UI got stuck"
                    await asyncio.sleep(0.005)

            table = session.table
            await until(lambda: session.record is not None and table.state.mode == Mode.TURN)
            shutil.rmtree(folder)
            folder.write_text("in the way")  # the next save fails
            pos = table.state.position
            assert pos is not None
            session._save(session.record)  # type: ignore[arg-type]
            seen.append(table.state.message)
            folder.unlink()
            folder.mkdir()
            session._save(session.record)  # type: ignore[arg-type]
            seen.append(table.state.message)
            table.exit(QuitResult.QUIT)
            await task
            return session, seen

    session, seen = asyncio.run(main())
    assert seen == [
        f"cannot save the record to {folder / 'rec.json'}: File exists (retrying after each move)",
        f"The record is saved again to {folder / 'rec.json'}.",
    ]
    assert session.save_error is None
    assert (folder / "rec.json").exists()
