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
import os
import shlex
import shutil
import sys
from functools import lru_cache
from pathlib import Path
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


def tolerant_streams() -> None:
    """Make ``sys.stdout`` and ``sys.stderr`` write what their encoding cannot hold as ``\\u0410``-style
    escapes instead of raising ``UnicodeEncodeError``: a peer's name or chat (``Аня 👩‍👩‍👧``) on a Latin-1
    or ASCII terminal is shown escaped and never ends the program.  Called once at start."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


@lru_cache(maxsize=1)
def typed_program() -> str:
    """How the person can type this program in their shell now, for the hints that print a command
    (``p2ptrumps resume LOG``, ``p2ptrumps play --continue``): ``"p2ptrumps"`` when that name on ``PATH``
    is this very program (its virtual environment is active, or it is installed for the user); else the
    path of its script (``.venv/bin/p2ptrumps`` from the folder it was set up in, as the README's set-up
    leaves it); else ``python -m p2ptrumps`` with this interpreter.  A path with spaces is quoted."""
    here = Path(sys.executable).parent
    script = next((here / name for name in (PROG, f"{PROG}.exe") if (here / name).is_file()), None)
    on_path = shutil.which(PROG)
    if script is not None and on_path is not None:
        with contextlib.suppress(OSError):
            if os.path.samefile(on_path, script):
                return PROG
    if script is not None:
        return _as_typed(script)
    return f"{_as_typed(Path(sys.executable))} -m {PROG}"


def _as_typed(path: Path) -> str:
    """``path`` as the person types it from the current folder: relative below it (``.venv/bin/x``; a bare
    name gets ``./``, or the shell would look it up on ``PATH``), absolute elsewhere; quoted when it must be."""
    text = os.path.abspath(path)
    with contextlib.suppress(ValueError, OSError):
        inside = os.path.relpath(text, os.getcwd())
        if not inside.startswith(os.pardir):
            text = inside if os.sep in inside else os.path.join(os.curdir, inside)
    return shlex.quote(text) if os.name != "nt" else (f'"{text}"' if " " in text else text)


def typed(command: str) -> str:
    """``command`` (``"resume LOG"``) after this program's name as the person can type it
    (:func:`typed_program`): ``"p2ptrumps resume LOG"``, or ``".venv/bin/p2ptrumps resume LOG"``."""
    return f"{typed_program()} {command}"


def say(args: argparse.Namespace | str | None, message: str, file: TextIO | None = None) -> None:
    """Print ``p2ptrumps COMMAND: message`` on one line to ``file`` (default stderr).

    A message is one line: newlines in it become spaces.  An ``OSError`` while
    writing (the terminal is gone after SIGHUP) is ignored: there is nobody to tell.
    """
    text = " ".join(message.splitlines())
    with contextlib.suppress(OSError):
        print(f"{command_name(args)}: {text}", file=file or sys.stderr, flush=True)
