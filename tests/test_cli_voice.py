"""One voice on the command line: a subcommand's usage line and one line of error, the same
words for the same option everywhere, defaults in the help, bad values refused."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from p2ptrumps.command import CommandError, say
from p2ptrumps.commands import main as cli
from p2ptrumps.commands.main import build_parser, main
from p2ptrumps.text import MAX_NAME_CHARS

ROOT = Path(__file__).resolve().parent.parent


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The stderr lines of a command line that argparse refuses (exit status 2)."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err.splitlines()


def test_an_unknown_option_shows_the_usage_of_its_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(["play", "--bogus"], capsys) == [
        "usage: p2ptrumps play [options]  (p2ptrumps play --help lists them)",
        "p2ptrumps play: unknown option --bogus",
    ]
    assert refused(["replay", "a.json", "b.json"], capsys) == [
        "usage: p2ptrumps replay FILE [options]  (p2ptrumps replay --help lists them)",
        "p2ptrumps replay: unexpected argument 'b.json'",
    ]
    assert refused(["bogus"], capsys)[1] == (
        "p2ptrumps: 'bogus' is not a command "
        "(one of play, replay, arena, host, join, resume, verify, solve, analyse, history, id, block, unblock, "
        "rules)")


@pytest.mark.parametrize("command", [["play"], ["arena", "random", "greedy"]])
def test_the_same_option_is_refused_in_the_same_words(command: list[str],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    name = command[0]
    assert refused([*command, "--seed", "abc"], capsys)[1] == f"p2ptrumps {name}: --seed: 'abc' is not a whole number"
    assert refused([*command, "--seed", str(2**63)], capsys)[1] == (
        f"p2ptrumps {name}: --seed: '9223372036854775808' is out of range (a signed 64-bit number)")
    assert refused([*command, "--think", "-1"], capsys)[1] == (
        f"p2ptrumps {name}: --think: '-1' must be a positive number of seconds")
    assert refused([*command, "--seed"], capsys)[1] == f"p2ptrumps {name}: --seed needs a value"


def test_levels_and_choices_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(["play", "--ai", "godlike"], capsys)[1] == (
        "p2ptrumps play: --ai: 'godlike' is not an AI level (one of random, greedy, normal, strong)")
    assert refused(["arena", "normal", "x"], capsys)[1] == (
        "p2ptrumps arena: LEVEL_B: 'x' is not an AI level (one of random, greedy, normal, strong)")
    assert refused(["play", "--pack", "33"], capsys)[1] == "p2ptrumps play: --pack: '33' is not one of 32, 36, 52"
    assert refused(["play", "--repetition", "1"], capsys)[1] == (
        "p2ptrumps play: --repetition must be 0 (off) or 2..100, not 1")
    assert refused(["join", "127.0.0.1:1", "--fingerprint", "A" * 32, "--accept-new"], capsys)[1] == (
        "p2ptrumps join: --accept-new: cannot be used with --fingerprint")


@pytest.mark.parametrize("command", [["id"], ["play"], ["host"], ["join", "127.0.0.1:4816"]])
def test_bad_names_are_refused_not_cut(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    name = command[0]
    assert refused([*command, "--name", ""], capsys)[1] == (
        f"p2ptrumps {name}: --name: '' is empty: a name needs at least one visible character")
    assert refused([*command, "--name", "   "], capsys)[1] == (
        f"p2ptrumps {name}: --name: '   ' is empty: a name needs at least one visible character")
    long = "x" * (MAX_NAME_CHARS + 1)
    assert refused([*command, "--name", long], capsys)[1] == (
        f"p2ptrumps {name}: --name: 'xxxxxxxxxxxxxxxxxxxx…' is {MAX_NAME_CHARS + 1} characters long; "
        f"a name has at most {MAX_NAME_CHARS}")
    assert refused([*command, "--name", "Bob\x1b[31m"], capsys)[1] == (
        f"p2ptrumps {name}: --name: 'Bob\\x1b[31m': a name contains U+001B, a control character")


def test_names_at_the_limit_pass_with_spaces_collapsed() -> None:
    parser = build_parser()
    assert parser.parse_args(["play", "--name", "  Ann   Lee "]).name == "Ann Lee"
    assert parser.parse_args(["id", "--name", "Ж" * MAX_NAME_CHARS]).name == "Ж" * MAX_NAME_CHARS


def test_counts_are_refused_below_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(["host", "--rematch", "-1"], capsys)[1] == "p2ptrumps host: --rematch: '-1' must be 0 or more"
    assert refused(["join", "127.0.0.1:1", "--rematch", "x"], capsys)[1] == (
        "p2ptrumps join: --rematch: 'x' is not a whole number")
    assert build_parser().parse_args(["host", "--rematch", "0"]).rematch == 0
    assert refused(["play", "--turn-limit", "-5"], capsys)[1] == "p2ptrumps play: --turn-limit: '-5' must be 0 or more"


def test_ascii_and_unicode_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(["play", "--ascii", "--unicode"], capsys)[1] == (
        "p2ptrumps play: --unicode: cannot be used with --ascii")
    args = build_parser().parse_args(["replay", "x.json", "--unicode"])
    assert (args.ascii, args.unicode) == (False, True)


def _help(command: str) -> str:
    text = build_parser()._subparsers._group_actions[0].choices[command].format_help()  # type: ignore[union-attr]
    return " ".join(text.split())


def test_help_shows_the_defaults() -> None:
    play = _help("play")
    assert "--think S the AI's time per move, seconds (default 0.5)" in play
    assert "--ai LEVEL the AI's level: random, greedy, normal, strong (default normal)" in play
    assert "--deals N deals in the match (default 1)" in play
    assert "--repetition N draw on the N-th occurrence of a position; 0 = off (default 3)" in play
    assert "--pack 32|36|52 pack size (default 36)" in play
    assert "(default False)" not in play and "(default None)" not in play
    arena = _help("arena")
    assert ("--think S[,T] each AI's time per move, seconds (default 0.1, shorter than play's 0.5: an arena plays "
            "hundreds of games, and the levels are compared at equal time); S,T: S for A and T for B") in arena
    assert "--deals N deal pairs to play (default 50)" in arena
    host = _help("host")
    assert "--timeout S seconds of silence (no heartbeat) before the peer is declared gone (default 30.0)" in host
    assert "--port P TCP port (0 = any free port; default 4816)" in host
    for command in ("play", "host", "join", "solve", "analyse", "arena", "history", "verify", "replay", "resume"):
        assert ") (default" not in _help(command), command


def _fails(args: object) -> int:
    raise CommandError("--log: /tmp is a directory: give a file name", usage=True)


def test_a_command_error_is_said_in_the_same_voice(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(cli.COMMANDS, "verify", f"{__name__}:_fails")
    assert main(["verify", "x.log"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "usage: p2ptrumps verify LOG [OTHER_LOG] [options]  (p2ptrumps verify --help lists them)",
        "p2ptrumps verify: --log: /tmp is a directory: give a file name",
    ]
    say("host", "two lines\nbecome one")
    assert capsys.readouterr().err == "p2ptrumps host: two lines become one\n"


def test_rules_command_prints_the_installed_rule_book(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LC_ALL", "C.UTF-8")  # a UTF-8 locale: the suits are printed as symbols
    assert main(["rules", "--no-pager"]) == 0
    out = capsys.readouterr().out
    record = (ROOT / "protocol" / "RULES.md").read_text(encoding="utf-8").partition("\n")[2]
    assert out == record
    assert out.startswith("# Your own trumps — the duel (rules of record)\n")


def test_rules_with_a_pager_that_is_not_there_prints_the_rules(capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import pydoc

    from p2ptrumps.ui import rulebook

    monkeypatch.setenv("PAGER", "/nonexistent/pager -R")
    monkeypatch.delenv("MANPAGER", raising=False)
    monkeypatch.setattr(rulebook.sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(rulebook.sys.stdin, "isatty", lambda: True)
    paged: list[str] = []
    monkeypatch.setattr(pydoc, "pager", paged.append)
    assert main(["rules"]) == 0
    captured = capsys.readouterr()
    assert paged == [] and captured.out.startswith("# Your own trumps")
    assert captured.err == "p2ptrumps rules: the pager '/nonexistent/pager -R' is not found; printing the rules\n"
    monkeypatch.setenv("PAGER", "cat")
    assert main(["rules"]) == 0
    assert len(paged) == 1 and capsys.readouterr().err == ""


def test_readme_marks_optional_arguments() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Commands", 1)[1].split("```", 2)[1]
    lines = [line for line in block.splitlines() if line.startswith("p2ptrumps ")]
    assert [line.split()[1] for line in lines] == ["play", "replay", "arena", "host", "join", "resume", "verify",
                                                   "solve", "analyse", "id", "history", "block", "unblock",
                                                   "rules"]
    for line in lines:
        # Every option sits inside [...]: outside the brackets only the command and its positional words remain.
        outside = re.sub(r"\[[^\[\]]*(\[[^\[\]]*\][^\[\]]*)*\]", "", line)
        assert "--" not in outside, line


_SEEN: list[bool] = []


def _record_ascii(args: argparse.Namespace) -> int:
    _SEEN.append(args.ascii)
    return 0


def test_suits_for_the_network_commands_are_settled_by_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    _SEEN.clear()
    monkeypatch.setitem(cli.COMMANDS, "join", f"{__name__}:_record_ascii")
    monkeypatch.setenv("LC_ALL", "C")
    assert main(["join", "127.0.0.1:1", "--headless", "--ai", "random"]) == 0
    assert main(["join", "127.0.0.1:1", "--headless", "--ai", "random", "--unicode"]) == 0
    assert main(["join", "127.0.0.1:1", "--headless", "--ai", "random", "--ascii"]) == 0
    assert _SEEN == [True, False, True]  # C locale: letters, unless --unicode
