"""The one voice of the command line, shared by every subcommand.

Every message a subcommand prints about a fault reads ``p2ptrumps COMMAND: what
is wrong`` on one line of stderr (``p2ptrumps play: --name: ...``), and a bad
value on the command line also shows the subcommand's usage line above it, as
argparse does for the values it checks itself (:mod:`p2ptrumps.commands.main`).

A command's run function (``run(args) -> int``, see :data:`p2ptrumps.commands.main.COMMANDS`)
either prints with :func:`say` and returns its exit status, or raises
:class:`CommandError`, which :func:`p2ptrumps.commands.main.main` prints in that voice
before returning the error's status.  Nothing here imports the rest of the
package, so any layer may raise it.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TextIO

#: The program name every message starts with.
PROG = "p2ptrumps"


class CommandError(Exception):
    """A fault a command reports to the person and ends on.

    Args:
        message: one line saying what is wrong and, where it helps, what to do
            (``"--log: /tmp is a directory: give a file name"``).
        status: the exit status (default 2, a bad command-line value).
        usage: show the subcommand's usage line first (for a bad command-line
            value that only the command itself could check).
    """

    def __init__(self, message: str, status: int = 2, *, usage: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.usage = usage


def command_name(args: argparse.Namespace | str | None) -> str:
    """``"p2ptrumps play"`` for parsed arguments of ``play`` (or the command's name); ``"p2ptrumps"`` without one."""
    name = args if isinstance(args, str) or args is None else getattr(args, "command", None)
    return f"{PROG} {name}" if name else PROG


def say(args: argparse.Namespace | str | None, message: str, file: TextIO | None = None) -> None:
    """Print ``p2ptrumps COMMAND: message`` on one line to ``file`` (default stderr).

    A message is one line: newlines in it become spaces.  An ``OSError`` while
    writing (the terminal is gone after SIGHUP) is ignored: there is nobody to tell.
    """
    text = " ".join(message.splitlines())
    with contextlib.suppress(OSError):
        print(f"{command_name(args)}: {text}", file=file or sys.stderr, flush=True)
