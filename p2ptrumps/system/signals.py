"""The signals that mean "leave now", per platform, and installing handlers for them.

* POSIX: SIGTERM (``kill``) and SIGHUP (the terminal window closed).
* Windows: SIGTERM exists only for ``os.kill`` within Python; a closed console window, a
  log-off or a shut-down reach the process as SIGBREAK (the C runtime turns every console
  control event but Ctrl-C into SIGBREAK), as does Ctrl-Break.  Windows ends the process
  about 5 seconds after a console close whatever the handler does, so whatever must be saved
  is saved as the match goes (logs and records are fsynced after every move), never at the end.

SIGINT (Ctrl-C) is separate: the full-screen UIs read Ctrl-C as a key, the headless commands
treat it as one more leaving signal (:data:`LEAVING_SIGNALS`).
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Callable
from types import ModuleType, SimpleNamespace

#: Names of the signals that say the terminal or console is gone, on any platform, in order.
HANGUP_NAMES = ("SIGHUP", "SIGBREAK")


def terminating_signals(module: ModuleType | SimpleNamespace = signal) -> tuple[signal.Signals, ...]:
    """SIGTERM and the hang-up signals ``module`` (default :mod:`signal`) has: ``(SIGTERM, SIGHUP)``
    on POSIX, ``(SIGTERM, SIGBREAK)`` on Windows.  ``module`` may be a stand-in (tests)."""
    found = [signal.Signals(getattr(module, "SIGTERM"))]  # noqa: B009 - a module or a stand-in
    for name in HANGUP_NAMES:
        number = getattr(module, name, None)
        if number is not None:
            found.append(signal.Signals(number))
    return tuple(found)


#: The signals that end a full-screen application the way ``q`` does.
TERMINATING_SIGNALS: tuple[signal.Signals, ...] = terminating_signals()
#: The signals that leave a headless match: Ctrl-C, then :data:`TERMINATING_SIGNALS`.
LEAVING_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, *TERMINATING_SIGNALS)


def hangup_signal() -> signal.Signals:
    """The signal a closed terminal (POSIX: SIGHUP) or console window (Windows: SIGBREAK) sends."""
    if sys.platform == "win32":
        return signal.SIGBREAK
    return signal.SIGHUP


def exit_status(sig: int) -> int:
    """The conventional exit status after a signal: 128 + its number (143 for SIGTERM)."""
    return 128 + int(sig)


def install(sig: signal.Signals, callback: Callable[[signal.Signals], None],
            call_soon: Callable[..., object]) -> Callable[[], None]:
    """Call ``callback(sig)`` through ``call_soon`` (an event loop's ``call_soon_threadsafe``) when
    ``sig`` arrives, with :func:`signal.signal`: the way for a loop that has no
    ``add_signal_handler`` (asyncio's loops on Windows).  Returns the function that puts the
    previous handler back.  Raises ValueError / OSError where the signal cannot be caught (not the
    main thread)."""
    previous = signal.signal(sig, lambda number, frame: call_soon(callback, sig))

    def restore() -> None:
        with contextlib.suppress(ValueError, OSError, TypeError):
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)

    return restore
