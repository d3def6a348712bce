"""Every command's ``--help``, byte for byte, at 80 columns: a change to the command line shows here.

The expected texts are ``tests/help/COMMAND.txt`` (``top.txt`` for ``p2ptrumps --help``).  After a
deliberate change to an option, write them again with
``for c in "" play ...; do COLUMNS=80 p2ptrumps $c --help > tests/help/${c:-top}.txt; done``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2ptrumps.commands.main import COMMANDS, build_parser, subparser

HELP = Path(__file__).resolve().parent / "help"


def test_there_is_one_expected_help_per_command() -> None:
    assert sorted(p.stem for p in HELP.glob("*.txt")) == sorted([*COMMANDS, "top"])


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_the_help_of_each_command_is_as_expected(command: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    shown = subparser(build_parser(), command).format_help()
    assert shown == (HELP / f"{command or 'top'}.txt").read_text(encoding="utf-8")


def test_the_help_printed_by_the_program_is_the_same() -> None:
    """What ``--help`` prints (through ``python -m p2ptrumps``) is the text compared above."""
    done = subprocess.run([sys.executable, "-m", "p2ptrumps", "host", "--help"], capture_output=True, timeout=60,
                          env={**os.environ, "COLUMNS": "80", "PYTHONIOENCODING": "utf-8"}, check=False)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == (HELP / "host.txt").read_bytes()
