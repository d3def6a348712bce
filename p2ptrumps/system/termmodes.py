"""Echo and line mode off for a moment: reading a terminal's answer (a cursor position report).

POSIX uses ``termios``.  Windows has no ``termios``, and its console is read through the
console API, not a file descriptor that ``select`` can wait on: :func:`quiet` yields False there
and the caller does without the answer (the suit-width probe is skipped: symbols are shown
unless ``--ascii`` or the output cannot encode them).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

if sys.platform == "win32":

    @contextlib.contextmanager
    def quiet(fd: int) -> Iterator[bool]:
        """Windows: nothing to change; yields False (no answer can be read this way)."""
        yield False

else:
    import termios

    @contextlib.contextmanager
    def quiet(fd: int) -> Iterator[bool]:
        """While inside, the terminal at ``fd`` neither echoes nor waits for a line, and a read
        returns what has arrived (``VMIN = VTIME = 0``); the modes are restored after (also on an
        error).  Yields True, or False when ``fd`` is no terminal (nothing is changed then)."""
        try:
            saved = termios.tcgetattr(fd)
            changed = termios.tcgetattr(fd)
        except (termios.error, OSError):
            yield False
            return
        changed[3] &= ~(termios.ECHO | termios.ICANON)
        changed[6][termios.VMIN] = 0
        changed[6][termios.VTIME] = 0
        try:
            termios.tcsetattr(fd, termios.TCSANOW, changed)
        except (termios.error, OSError):
            yield False
            return
        try:
            yield True
        finally:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
