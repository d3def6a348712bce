"""The boot clock (p2ptrumps/system/boottime.py) and the move clock counting the time its player lived
(protocol/wire.md §16, "the own clock"): the clock of each system, read through stand-ins for the ones
this machine does not have, the sleep meter, and a machine that sleeps 30 s in the middle of its own move
on a 5 s clock -- a stand-in for suspend -- accepting the opponent's claim."""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from typing import Any

import pytest
import trio
import trio.testing

from p2ptrumps.net.clock import clock_key
from p2ptrumps.net.seat import NetMatch
from p2ptrumps.rules import RuleSet
from p2ptrumps.system import boottime
from p2ptrumps.wire.testing import mover, paused_pair


def test_linux_reads_the_clock_that_counts_suspend() -> None:
    read, counts_sleep = boottime.reader("linux")
    assert counts_sleep and boottime.COUNTS_SLEEP
    before = time.clock_gettime(time.CLOCK_BOOTTIME)
    got = read()
    after = time.clock_gettime(time.CLOCK_BOOTTIME)
    assert before <= got <= after
    # CLOCK_BOOTTIME is CLOCK_MONOTONIC plus the time this machine spent suspended: never below it
    monotonic = time.clock_gettime(time.CLOCK_MONOTONIC)
    assert boottime.boot_seconds() >= monotonic


class FakeTime:
    """A stand-in ``time`` module: ``clock_gettime`` of the clocks given (one may raise OSError)."""

    def __init__(self, **clocks: float | None) -> None:
        self.values: dict[int, float | None] = {}
        for i, (name, value) in enumerate(clocks.items()):
            setattr(self, name, 100 + i)
            self.values[100 + i] = value

    def clock_gettime(self, clock: int) -> float:
        value = self.values[clock]
        if value is None:
            raise OSError(22, "Invalid argument")
        return value

    @staticmethod
    def monotonic() -> float:
        return -1.0


def test_macos_reads_monotonic_raw_which_counts_sleep() -> None:
    read, counts_sleep = boottime.reader("darwin", FakeTime(CLOCK_MONOTONIC_RAW=123.5, CLOCK_UPTIME_RAW=7.0))
    assert (read(), counts_sleep) == (123.5, True)


@pytest.mark.parametrize(("platform", "clocks"), [
    ("darwin", FakeTime(CLOCK_UPTIME_RAW=7.0)),  # no continuous clock: uptime does not count sleep
    ("linux", FakeTime(CLOCK_MONOTONIC=5.0)),  # a Python without CLOCK_BOOTTIME
    ("linux", FakeTime(CLOCK_BOOTTIME=None)),  # a kernel that refuses it
    ("freebsd14", FakeTime(CLOCK_MONOTONIC=5.0)),
])
def test_without_a_boot_clock_the_fallback_is_monotonic_and_says_so(platform: str, clocks: FakeTime) -> None:
    read, counts_sleep = boottime.reader(platform, clocks)
    assert (read(), counts_sleep) == (-1.0, False)


class FakeFunction:
    """A stand-in for a ctypes function of a DLL: records ``argtypes``/``restype``, answers with ``answer``."""

    def __init__(self, answer: Callable[..., Any]) -> None:
        self.answer = answer
        self.argtypes: list[Any] | None = None
        self.restype: Any = "unset"

    def __call__(self, *args: Any) -> Any:
        return self.answer(*args)


def loader(dlls: dict[str, dict[str, FakeFunction]]) -> Callable[[str], Any]:
    """A stand-in for ``ctypes.WinDLL``: the DLLs given, each with its functions; any other name raises
    OSError as a missing DLL does (a missing function raises AttributeError, as ctypes does)."""

    class Dll:
        def __init__(self, functions: dict[str, FakeFunction]) -> None:
            self.__dict__.update(functions)

    def load(name: str) -> Any:
        if name not in dlls:
            raise OSError(126, f"{name}: the specified module could not be found")
        return Dll(dlls[name])

    return load


def _interrupt_time(ticks: int) -> FakeFunction:
    def query(pointer: Any) -> None:
        pointer._obj.value = ticks  # QueryInterruptTime writes the count through its pointer

    return FakeFunction(query)


def test_windows_reads_the_biased_interrupt_time() -> None:
    query = _interrupt_time(1_234_567_890)
    dlls = {boottime.REALTIME_DLL: {"QueryInterruptTime": query},
            "kernel32": {"GetTickCount64": FakeFunction(lambda: 9)}}
    read, counts_sleep = boottime.reader("win32", load=loader(dlls))
    assert (read(), counts_sleep) == (123.456789, True)
    assert query.argtypes == [ctypes.POINTER(ctypes.c_ulonglong)] and query.restype is None


@pytest.mark.parametrize("realtime", [{}, {boottime.REALTIME_DLL: {}}], ids=["no-api-set", "no-function"])
def test_windows_before_10_falls_back_to_the_tick_count(realtime: dict[str, dict[str, FakeFunction]]) -> None:
    ticks = FakeFunction(lambda: 5_250)
    read, counts_sleep = boottime.reader("win32", load=loader({**realtime, "kernel32": {"GetTickCount64": ticks}}))
    assert (read(), counts_sleep) == (5.25, True)
    assert (ticks.argtypes, ticks.restype) == ([], ctypes.c_ulonglong)


def test_windows_with_neither_call_falls_back_to_monotonic() -> None:
    read, counts_sleep = boottime.reader("win32", FakeTime(), loader({}))
    assert (read(), counts_sleep) == (-1.0, False)


class Clocks:
    """A boot clock and an awake clock as a test moves them: ``run(s)`` both, ``suspend(s)`` the boot one."""

    def __init__(self) -> None:
        self.boot_s = 1000.0
        self.awake_s = 10.0

    def run(self, seconds: float) -> None:
        self.boot_s += seconds
        self.awake_s += seconds

    def suspend(self, seconds: float) -> None:
        self.boot_s += seconds


def test_the_sleep_meter_gives_the_seconds_asleep_between_two_readings() -> None:
    clocks = Clocks()
    meter = boottime.SleepMeter(lambda: clocks.boot_s, lambda: clocks.awake_s)
    assert meter.slept() == 0.0
    clocks.run(2.5)
    assert meter.slept() == 0.0
    clocks.run(1.0)
    clocks.suspend(30.0)
    clocks.run(1.0)
    assert meter.slept() == 30.0
    assert meter.slept() == 0.0  # counted once
    clocks.suspend(0.01)  # two clocks read one after the other: noise, not a sleep
    assert meter.slept() == 0.0
    clocks.awake_s += 0.5  # the awake clock ahead of the boot clock: never a negative sleep
    assert meter.slept() == 0.0


MOVE_TIME = 5


class _Up:
    link_up = True


async def test_a_machine_asleep_in_its_own_move_counts_the_sleep_and_accepts_the_claim(
        autojump_clock: trio.testing.MockClock) -> None:
    """The seat to move sleeps 30 s (a stand-in for suspend: its sleep meter reports it) 1 s into its
    move on a 5 s clock.  Its own clock counts the sleep -- the time its player lived -- so a claim on
    that move finds it at its limit and is accepted; the opponent's view of the same move counts only its
    own (awake) time, as trio's clock ran, and its own sleep would never count for a claim."""
    pair = paused_pair(RuleSet(pack_size=32, deals=1), move_time=MOVE_TIME)
    mover_s, other = mover(pair)
    sleeper, watcher = NetMatch(_Up(), mover_s), NetMatch(_Up(), other)  # type: ignore[arg-type]
    key = clock_key(mover_s)
    assert key is not None and key == clock_key(other) and key[3] == mover_s.seat

    def suspended_at(at_s: float, seconds: float) -> Callable[[], float]:
        clocks = Clocks()
        meter = boottime.SleepMeter(lambda: clocks.boot_s, lambda: clocks.awake_s)

        def slept() -> float:
            now = trio.current_time()
            clocks.run(now - (clocks.awake_s - 10.0))
            if now >= at_s and not getattr(slept, "done", False):
                clocks.suspend(seconds)
                slept.done = True  # type: ignore[attr-defined]
            return meter.slept()

        return slept

    start = trio.current_time()
    sleeper.slept = suspended_at(start + 1.0, 30.0)
    watcher.slept = suspended_at(start + 1.0, 30.0)  # the watcher's own sleep: not the mover's time
    async with trio.open_nursery() as nursery:
        nursery.start_soon(sleeper.run_clock)
        nursery.start_soon(watcher.run_clock)
        await trio.sleep(2.1)  # eight ticks each, the last at 2.0 s
        nursery.cancel_scope.cancel()
    # the step is first seen at the first tick (0.25 s): 1.75 s of trio's clock, plus the sleep for the mover
    assert sleeper.clock.spent[key] == 31.75
    assert watcher.clock.spent[key] == 1.75
    assert sleeper.clock.ran_out(key)  # a claim is accepted (Claims.check): the sleeper's own clock ran out
    assert not watcher.clock.ran_out(key)
