"""Seconds on a clock that keeps counting while the machine sleeps (a *boot clock*).

The move clock counts the time a player lived (``protocol/wire.md`` §16, "the own clock"): a laptop
that sleeps through its player's move took that time.  The clocks an event loop measures with stop
while the machine is suspended, so a side whose machine slept would count less than its opponent saw
pass.  :func:`boot_seconds` reads, on each system, the clock that does not stop:

* Linux: ``clock_gettime(CLOCK_BOOTTIME)`` (``CLOCK_MONOTONIC``, which ``time.monotonic()`` and
  ``time.perf_counter()`` read, stops while suspended);
* macOS: ``clock_gettime(CLOCK_MONOTONIC_RAW)``: Apple's ``CLOCK_MONOTONIC`` and
  ``CLOCK_MONOTONIC_RAW`` keep counting while the system is asleep, ``CLOCK_UPTIME_RAW`` does not --
  and neither does ``mach_absolute_time()``, which ``time.monotonic()`` and ``time.perf_counter()``
  read there;
* Windows: ``QueryInterruptTime`` (the *biased* interrupt time, Windows 10 and later: it includes
  the time spent in sleep and hibernation; ``QueryUnbiasedInterruptTime`` leaves it out), else
  ``GetTickCount64`` (it includes sleep too, in steps of 10-16 ms);
* elsewhere, or where those calls fail: ``time.monotonic()`` (:data:`COUNTS_SLEEP` is then False).

:class:`SleepMeter` turns it into what the move clock adds: the seconds the machine slept between
two readings, measured against the clock the event loop itself counts with (trio's is
``time.perf_counter``), so that a clock counted on the event loop's time plus these seconds is a
boot clock -- and a test's mock clock stays exact, the meter adding nothing while nothing sleeps.

Standard library only (``ctypes`` on Windows).  Each branch keeps its logic callable on Linux:
:func:`reader` takes the platform, the ``time`` module and a DLL loader, which the tests replace.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

#: A DLL loader: ``ctypes.WinDLL`` on Windows (a stand-in in tests).  Raises OSError for a missing DLL.
DllLoader = Callable[[str], Any]

#: The API set that exports ``QueryInterruptTime`` (Windows 10 and later; it is served by KernelBase).
REALTIME_DLL = "api-ms-win-core-realtime-l1-1-1"


def _interrupt_time(load: DllLoader) -> Callable[[], float] | None:
    """(Windows) ``QueryInterruptTime`` in seconds (it counts in 100 ns), or None where it is missing."""
    import ctypes

    try:
        query = load(REALTIME_DLL).QueryInterruptTime
    except (OSError, AttributeError):
        return None
    query.argtypes = [ctypes.POINTER(ctypes.c_ulonglong)]
    query.restype = None

    def read() -> float:
        ticks = ctypes.c_ulonglong(0)
        query(ctypes.byref(ticks))
        return ticks.value / 10_000_000

    return read


def _tick_count(load: DllLoader) -> Callable[[], float] | None:
    """(Windows) ``GetTickCount64`` in seconds (it counts in ms), or None where it is missing."""
    import ctypes

    try:
        count = load("kernel32").GetTickCount64
    except (OSError, AttributeError):
        return None
    count.argtypes = []
    count.restype = ctypes.c_ulonglong

    def read() -> float:
        return int(count()) / 1000

    return read


def reader(platform: str, clocks: Any = time, load: DllLoader | None = None) -> tuple[Callable[[], float], bool]:
    """The boot clock of ``platform`` (a ``sys.platform`` value): ``(read, counts_sleep)``, ``read()``
    giving seconds from an arbitrary start.  ``clocks`` is the ``time`` module (or a stand-in) and
    ``load`` a DLL loader for Windows.  ``counts_sleep`` is False when only the fallback,
    ``clocks.monotonic``, could be read.  Each clock is read once here: one that raises OSError (a
    kernel without it) is passed over.  Never raises."""
    candidates: list[Callable[[], float] | None] = []
    if platform == "win32" and load is not None:
        candidates = [_interrupt_time(load), _tick_count(load)]
    elif platform == "darwin" and hasattr(clocks, "CLOCK_MONOTONIC_RAW"):
        raw = clocks.CLOCK_MONOTONIC_RAW
        candidates = [lambda: float(clocks.clock_gettime(raw))]
    elif platform.startswith("linux") and hasattr(clocks, "CLOCK_BOOTTIME"):
        boot = clocks.CLOCK_BOOTTIME
        candidates = [lambda: float(clocks.clock_gettime(boot))]
    for read in candidates:
        if read is None:
            continue
        try:
            read()
        except OSError:
            continue
        return read, True
    return clocks.monotonic, False


def _this_system() -> tuple[Callable[[], float], bool]:
    if sys.platform == "win32":
        import ctypes

        return reader(sys.platform, time, ctypes.WinDLL)
    return reader(sys.platform)


_READ, COUNTS_SLEEP = _this_system()


def boot_seconds() -> float:
    """Seconds on this machine's boot clock (see the module docstring), from an arbitrary start: only
    differences mean something.  Counts the time the machine slept, unless :data:`COUNTS_SLEEP` is
    False (no boot clock found: then it is ``time.monotonic()``)."""
    return _READ()


class SleepMeter:
    """The seconds the machine slept, reading after reading.

    Args:
        boot: the boot clock (default :func:`boot_seconds`; a stand-in for suspend in tests).
        awake: the clock that stops while the machine sleeps and that the caller counts its own time
            on (default ``time.perf_counter``, trio's clock).

    :meth:`slept` returns, at each call, the seconds the boot clock gained on the awake clock since the
    previous call (or since the meter was made): the time asleep in between.  Never negative (two
    clocks read one after the other differ by a few microseconds either way; a gain below
    :data:`NOISE_S` is such a difference, not a sleep).
    """

    #: Seconds of difference between the two clocks that are reading noise, not sleep.
    NOISE_S = 0.05

    def __init__(self, boot: Callable[[], float] = boot_seconds,
                 awake: Callable[[], float] = time.perf_counter) -> None:
        self.boot = boot
        self.awake = awake
        self._gap = boot() - awake()

    def slept(self) -> float:
        """Seconds the machine slept since the last call (0.0 when it did not)."""
        gap = self.boot() - self.awake()
        gained, self._gap = gap - self._gap, gap
        return gained if gained > self.NOISE_S else 0.0
