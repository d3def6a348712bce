"""The terminal around a full-screen command: can it draw one, how wide are suits, and leaving cleanly.

* :func:`terminal_problem` — why a full-screen UI cannot run here (no tty,
  ``TERM=dumb`` or a terminal without cursor addressing), or None.
* :func:`measure_columns` / :func:`choose_ascii` — the suit symbols ♣ ♦ ♥ ♠ are
  one column wide for Python's ``wcwidth`` tables (and for prompt_toolkit, which
  lays out the screen with them), but some terminals and fonts draw them two
  columns wide (East Asian "ambiguous" width, emoji fonts), which shifts every
  line after a suit.  The terminal itself is asked (a cursor position report
  after drawing the four symbols); when it disagrees, suits are shown as letters.
  ``--ascii`` / ``--unicode`` decide without asking.
* :class:`Termination` — SIGTERM and SIGHUP (``kill``, a closed terminal window;
  on Windows SIGBREAK, a closed console window: :mod:`p2ptrumps.system.signals`)
  end a full-screen application the way ``q`` does, so that prompt_toolkit
  restores the terminal (main screen, cursor shown, echo and line mode back) and
  the command saves what it has.  Any command running a prompt_toolkit
  application on asyncio can use it (``play``, ``replay``, the network table).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import select
import signal
import sys
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # prompt_toolkit is imported where a table starts, not by a headless command
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from ..cards import SUIT_SYMBOLS
from ..i18n import _
from ..message import N_
from ..system import signals as system_signals
from ..system.signals import LEAVING_SIGNALS as LEAVING_SIGNALS
from ..system.signals import TERMINATING_SIGNALS as TERMINATING_SIGNALS
from ..system.termmodes import quiet

#: TERM values of terminals that cannot draw a full screen.
DUMB_TERMS = ("", "dumb", "unknown")


#: The ``LC_CTYPE`` values Python's C-locale coercion (PEP 538) puts in the environment.
_COERCED_CTYPES = ("C.UTF-8", "C.utf8", "UTF-8")


def c_locale(environ: Mapping[str, str] | None = None) -> bool:
    """True when the locale of ``environ`` (default ``os.environ``) is ``C`` or ``POSIX``.

    The first non-empty one of ``LC_ALL``, ``LC_CTYPE``, ``LANG`` decides (POSIX
    order); none set means the C locale too.  Python's C-locale coercion makes
    stdout UTF-8 and sets ``LC_CTYPE=C.UTF-8`` itself, so an ``LC_CTYPE`` of that
    kind beside a C ``LANG`` (or none) counts as the C locale.
    """
    env = os.environ if environ is None else environ
    if env.get("LC_ALL"):
        return env["LC_ALL"] in ("C", "POSIX")
    lang = env.get("LANG") or "C"
    ctype = env.get("LC_CTYPE")
    if ctype and not (ctype in _COERCED_CTYPES and lang in ("C", "POSIX")):
        return ctype in ("C", "POSIX")
    return lang in ("C", "POSIX")


def wants_ascii(encoding: str | None, environ: Mapping[str, str] | None = None) -> bool:
    """True when a stream of this ``encoding`` (e.g. ``sys.stdout.encoding``) cannot write ``♠``,
    or when the locale is C/POSIX (:func:`c_locale` of ``environ``, default ``os.environ``)."""
    if not encoding or c_locale(environ):
        return True
    try:
        "♣♦♥♠…─│".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def _has_cursor_addressing(term: str, fd: int) -> bool | None:
    """Whether terminfo gives ``term`` cursor addressing (``cup``); None if unknown
    (no curses module, no terminfo entry)."""
    try:
        import curses
    except ImportError:  # pragma: no cover - Python built without curses
        return None
    try:
        curses.setupterm(term, fd)
        return curses.tigetstr("cup") is not None
    except (curses.error, OSError, ValueError):
        return None


def terminal_problem(stdin: object, stdout: object, environ: Mapping[str, str] | None = None) -> str | None:
    """Why a full-screen UI cannot run on these streams, or None.

    ``"stdin is not a tty"`` / ``"stdout is not a tty"``; on POSIX also
    ``"TERM is 'dumb': that terminal cannot move the cursor"`` for a ``TERM``
    (of ``environ``, default ``os.environ``) that is unset, ``dumb`` or
    ``unknown``, or whose terminfo entry has no cursor addressing.
    """
    for name, stream in (("stdin", stdin), ("stdout", stdout)):
        isatty = getattr(stream, "isatty", None)
        try:
            tty = bool(isatty()) if isatty is not None else False
        except (OSError, ValueError):  # closed
            tty = False
        if not tty:
            return N_("%(stream)s is not a tty", stream=name)
    if os.name != "posix":
        return None
    env = os.environ if environ is None else environ
    term = env.get("TERM", "")
    if term in DUMB_TERMS:
        return N_("TERM is not set") if not term else N_("TERM is %(term)s: that terminal cannot move the cursor",
                                                         term=repr(term))
    fileno = getattr(stdout, "fileno", None)
    with contextlib.suppress(OSError, ValueError):
        if fileno is not None and _has_cursor_addressing(term, fileno()) is False:
            return N_("TERM is %(term)s: that terminal cannot move the cursor", term=repr(term))
    return None


# ----- how wide the terminal draws the suit symbols --------------------------------------

_CPR = re.compile(rb"\x1b\[(\d+);(\d+)R")


def measure_columns(text: str, fd: int, fd_out: int | None = None, timeout_s: float = 0.5) -> int | None:
    """How many columns the terminal takes to draw ``text``: ``fd`` is the terminal's input
    (a tty), ``fd_out`` its output (default ``fd``).

    Draws ``text`` at the start of the current line, asks for the cursor
    position (``ESC [ 6 n``), reads the report (``ESC [ row ; col R``) for at most
    ``timeout_s`` seconds with echo and line mode off, then clears the line and
    restores the terminal's modes.  Returns ``col - 1``, or None when the
    terminal gave no report in time or ``fd`` is not a terminal.
    """
    got = b""
    out = fd if fd_out is None else fd_out
    with quiet(fd) as changed:
        if not changed:  # not a terminal, or Windows (no termios): no answer can be read
            return None
        try:
            os.write(out, b"\r" + text.encode("utf-8") + b"\x1b[6n")
            deadline = time.monotonic() + timeout_s
            while (match := _CPR.search(got)) is None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    return None
                chunk = os.read(fd, 64)
                if not chunk:
                    return None
                got += chunk
            return int(match[2]) - 1
        except OSError:
            return None
        finally:
            with contextlib.suppress(OSError):
                os.write(out, b"\r\x1b[K")


def std_fds() -> tuple[int, int] | None:
    """The file descriptors of stdin and stdout (the terminal to ask, for :func:`choose_ascii`),
    or None when either has none (replaced streams)."""
    try:
        return sys.stdin.fileno(), sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):
        return None


def choose_ascii(ascii_flag: bool, unicode_flag: bool, stream: TextIO | None = None, *,
                 probe_fds: tuple[int, int] | None = None,
                 environ: Mapping[str, str] | None = None) -> tuple[bool, str]:
    """Whether to show suits as letters, and a note saying why when it was not asked for.

    ``--ascii`` (``ascii_flag``) and ``--unicode`` (``unicode_flag``) decide.
    Otherwise letters when ``stream`` (default stdout) cannot encode the symbols
    or the locale is C/POSIX (:func:`wants_ascii`), or when ``probe_fds``
    (the terminal's input and output) is a terminal that draws the four suit symbols in more than four columns
    (:func:`measure_columns`); the note then says so, for the person to read.
    """
    if ascii_flag:
        return True, ""
    if unicode_flag:
        return False, ""
    out = sys.stdout if stream is None else stream
    if wants_ascii(getattr(out, "encoding", None), environ):
        return True, ""
    if probe_fds is not None:
        columns = measure_columns(SUIT_SYMBOLS, *probe_fds)
        if columns is not None and columns != len(SUIT_SYMBOLS):
            return True, _("this terminal draws the four suit symbols in %(columns)d columns, not 4: suits are "
                           "shown as letters C D H S (--unicode shows the symbols anyway)", columns=columns)
    return False, ""


# ----- leaving on SIGTERM / SIGHUP ---------------------------------------------------------


class Termination:
    """While active, SIGTERM and SIGHUP call ``on_signal()`` on the running asyncio loop
    instead of killing the process.

    ``on_signal`` should end the application the way ``q`` does (for the table:
    ``table.exit(QuitResult.QUIT)``); prompt_toolkit then restores the terminal
    and the command saves and reports as usual.  Afterwards :attr:`signal` is the
    signal received (None if none) and :attr:`exit_status` the conventional
    status, 128 + its number (143 for SIGTERM, 129 for SIGHUP).

    Use inside a coroutine on the asyncio loop that runs the application::

        with Termination(lambda: table.exit(QuitResult.QUIT)) as term:
            result = await table.application.run_async()
        if term.signal is not None:
            ...  # say so; return term.exit_status

    Where the loop has no ``add_signal_handler`` (asyncio's loops on Windows) the
    handlers are installed with :func:`signal.signal` and call back through
    ``call_soon_threadsafe``; outside the main thread it does nothing.  On leaving,
    each signal goes back to the action it had before (a handler of the program that embeds
    the table, ``SIG_IGN`` under ``nohup``): asyncio's ``remove_signal_handler`` alone would
    leave Python's default (``default_int_handler`` for SIGINT, ``SIG_DFL`` otherwise).
    """

    def __init__(self, on_signal: Callable[[], None],
                 signals: tuple[signal.Signals, ...] = TERMINATING_SIGNALS) -> None:
        self._on_signal = on_signal
        self._signals = signals
        self._installed: list[tuple[signal.Signals, Any]] = []  # each signal and its action before (getsignal)
        self._restore: list[Callable[[], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        #: The first signal received, or None.
        self.signal: signal.Signals | None = None

    def __enter__(self) -> Termination:
        self._loop = asyncio.get_running_loop()
        for sig in self._signals:
            try:
                before = signal.getsignal(sig)
                self._loop.add_signal_handler(sig, self._caught, sig)
            except NotImplementedError:  # Windows: no add_signal_handler
                with contextlib.suppress(ValueError, OSError):
                    self._restore.append(system_signals.install(sig, self._caught, self._loop.call_soon_threadsafe))
                continue
            except (RuntimeError, ValueError):  # not the main thread, or no signals here
                continue
            self._installed.append((sig, before))
        cont = getattr(signal, "SIGCONT", None)  # POSIX: go on drawing after a stop (redraw_after_stop)
        if cont is not None and cont not in self._signals:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                before = signal.getsignal(cont)
                self._loop.add_signal_handler(cont, self._continued)
                self._installed.append((signal.Signals(cont), before))
        return self

    def _continued(self) -> None:
        redraw_after_stop()

    def _caught(self, sig: signal.Signals) -> None:
        if self.signal is None:
            self.signal = sig
        self._on_signal()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        assert self._loop is not None
        for sig, before in self._installed:
            with contextlib.suppress(RuntimeError, ValueError):
                self._loop.remove_signal_handler(sig)
            if before is not None:  # None: a handler not installed from Python; keep the default
                with contextlib.suppress(RuntimeError, ValueError, OSError, TypeError):
                    signal.signal(sig, before)
        self._installed.clear()
        while self._restore:
            self._restore.pop()()

    @property
    def exit_status(self) -> int | None:
        """128 + the number of the signal received, or None."""
        return None if self.signal is None else system_signals.exit_status(self.signal)

    @property
    def name(self) -> str:
        """The signal's name (``"SIGTERM"``), or ``""``."""
        return "" if self.signal is None else self.signal.name


# ----- going on after a stop (kill -STOP, then kill -CONT or fg) ---------------------------------


def in_foreground(fd: int) -> bool:
    """Whether this process is the foreground process group of the terminal ``fd`` (False where it is
    no terminal, or the platform has no ``tcgetpgrp``): only then may it change the terminal's modes
    without being stopped again (SIGTTOU)."""
    tcgetpgrp, getpgrp = getattr(os, "tcgetpgrp", None), getattr(os, "getpgrp", None)
    if tcgetpgrp is None or getpgrp is None:
        return False
    try:
        return bool(tcgetpgrp(fd) == getpgrp())
    except OSError:
        return False


#: How often a table continued in the background looks whether it is in the foreground again, seconds,
#: and for how long at most (it draws anew once it is: :func:`redraw_after_stop`).
FOREGROUND_POLL_S = 0.25
FOREGROUND_WAIT_S = 24 * 3600.0

_waiting: set[int] = set()  # id() of the applications waiting for the foreground


def redraw_after_stop() -> None:
    """(POSIX, on SIGCONT, :class:`Termination`) The running prompt_toolkit application goes on as it was.
    A process stopped from outside (``kill -STOP``) under an interactive shell loses its terminal to the
    shell, which puts it back in line mode with echo and prints over the screen; continued (``kill -CONT``,
    then ``fg``, which sends no second SIGCONT to a running job), the table drew only what changed over a
    garbled screen, and its keys were echoed and held until Enter.  Now, once it is in the foreground
    (:func:`in_foreground`: at once, or looked at every :data:`FOREGROUND_POLL_S` s for at most
    :data:`FOREGROUND_WAIT_S` s while the application runs; a process in the background may not change
    the terminal), the terminal is put in raw mode again and the whole screen drawn anew.  Never raises:
    nothing happens without a running application or a terminal."""
    from prompt_toolkit.application.current import get_app_or_none

    app = get_app_or_none()
    if app is None or not app.is_running:
        return
    try:
        fd = app.input.fileno()
    except (NotImplementedError, OSError, ValueError):
        return
    if in_foreground(fd):
        _take_back(app)
    elif id(app) not in _waiting:
        _waiting.add(id(app))
        app.create_background_task(_when_in_foreground(app, fd))


async def _when_in_foreground(app: Any, fd: int) -> None:
    try:
        for _ in range(int(FOREGROUND_WAIT_S / FOREGROUND_POLL_S)):
            await asyncio.sleep(FOREGROUND_POLL_S)
            if not app.is_running:
                return
            if in_foreground(fd):
                _take_back(app)
                return
    finally:
        _waiting.discard(id(app))


def _take_back(app: Any) -> None:
    """Raw mode again (left by the application's own raw mode, which restores the modes it started with)
    and the whole screen drawn anew."""
    with contextlib.suppress(Exception):  # best effort: a redraw must never break the table
        app.input.raw_mode().__enter__()
        app.renderer.clear()
        app.invalidate()


# ----- input the key parser misreads --------------------------------------------------------


def ignore_mouse_reports(kb: KeyBindings) -> None:
    """Bind the mouse report keys to nothing in ``kb`` (an application's own bindings, which come
    before prompt_toolkit's defaults).  The tables do not use the mouse, and the key parser takes
    other escape sequences for mouse reports too -- ``ESC [ 3 1 m`` in pasted coloured text --
    which prompt_toolkit's own mouse handler cannot parse: it failed with a traceback over the
    screen."""
    from prompt_toolkit.keys import Keys

    @kb.add(Keys.Vt100MouseEvent)
    @kb.add(Keys.WindowsMouseEvent)
    def _(event: KeyPressEvent) -> None:
        return None
