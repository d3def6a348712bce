"""trio in guest mode on prompt_toolkit's asyncio loop — the one place the two meet.

prompt_toolkit runs on asyncio; the match loop, the AI threads and (later) the
network run on trio.  :class:`TrioGuest` starts one trio function as a *guest
run* (``trio.lowlevel.start_guest_run``) on the running asyncio loop, so both
share the one thread: trio code may call the UI's plain methods directly,
while the UI reaches into trio only through :meth:`TrioGuest.run_sync_soon`
(or a :class:`trio.lowlevel.TrioToken`), which is safe from any context.

Typical use, inside an ``async`` function running on asyncio::

    guest = TrioGuest(trio_main, arg)
    guest.start(on_done=app.exit_soon)   # trio starts beside the app
    await app.run_async()                # the UI runs until someone exits it
    guest.cancel()                       # stop the trio side if still running
    result = await guest.wait()          # trio's return value, or its exception
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar, cast

import outcome
import trio

T = TypeVar("T")


class TrioGuest(Generic[T]):
    """One trio run hosted by the running asyncio loop.

    Args:
        async_fn: the trio function to run; its return value is what
            :meth:`wait` returns.
        *args: positional arguments for ``async_fn``.
    """

    def __init__(self, async_fn: Callable[..., Awaitable[T]], *args: Any) -> None:
        self._async_fn = async_fn
        self._args = args
        self._scope: trio.CancelScope | None = None
        self._cancel_requested = False
        self._token: trio.lowlevel.TrioToken | None = None
        self._done: asyncio.Future[outcome.Outcome[T]] | None = None
        self._on_done: Callable[[], None] | None = None
        self._ended: tuple[bool, object] | None = None  # (True, value) or (False, exception), once unwrapped

    def start(self, on_done: Callable[[], None] | None = None) -> None:
        """Start the guest run on the running asyncio loop.

        ``on_done()`` is called (on the loop) when the trio function has
        returned or raised.  Raises ``RuntimeError`` without a running asyncio
        loop, or if already started.
        """
        if self._done is not None:
            raise RuntimeError("this trio guest run was already started")
        loop = asyncio.get_running_loop()
        self._done = loop.create_future()
        self._on_done = on_done

        def done_callback(result: outcome.Outcome[T]) -> None:
            assert self._done is not None
            if not self._done.done():
                self._done.set_result(result)
            if self._on_done is not None:
                self._on_done()

        # asyncio installs its signal handlers through signal.set_wakeup_fd on the main thread.
        uses_wakeup_fd = threading.current_thread() is threading.main_thread() and hasattr(signal, "set_wakeup_fd")
        trio.lowlevel.start_guest_run(
            self._main,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            run_sync_soon_not_threadsafe=loop.call_soon,
            done_callback=done_callback,
            host_uses_signal_set_wakeup_fd=uses_wakeup_fd,
        )
        self._token = trio.lowlevel.current_trio_token()

    async def _main(self) -> T:
        with trio.CancelScope() as scope:
            self._scope = scope
            if self._cancel_requested:
                scope.cancel()
            return await self._async_fn(*self._args)
        raise GuestCancelled("the trio run was cancelled before it returned")

    @property
    def running(self) -> bool:
        """True between :meth:`start` and the end of the trio function."""
        return self._done is not None and not self._done.done()

    def run_sync_soon(self, fn: Callable[..., object], *args: Any) -> None:
        """Schedule ``fn(*args)`` inside the trio run (from any thread or context).

        Silently dropped once the run has finished.  Raises ``RuntimeError``
        before :meth:`start`.
        """
        if self._token is None:
            raise RuntimeError("the trio guest run has not been started")
        with contextlib.suppress(trio.RunFinishedError):
            self._token.run_sync_soon(fn, *args)

    def cancel(self) -> None:
        """Cancel the trio function (it sees ``trio.Cancelled`` at its next checkpoint).

        Safe to call at any time, more than once, and after the run has ended.
        """
        self._cancel_requested = True
        if self.running:
            self.run_sync_soon(self._cancel_now)

    def _cancel_now(self) -> None:
        if self._scope is not None:
            self._scope.cancel()

    async def wait(self) -> T:
        """Wait for the trio run to end; return its value or raise its exception.

        May be called any number of times (each call gives the same value or raises the
        same exception).  Raises :class:`GuestCancelled` when :meth:`cancel` stopped the
        run before the trio function returned, and ``RuntimeError`` before :meth:`start`.
        """
        if self._done is None:
            raise RuntimeError("the trio guest run has not been started")
        result = await self._done
        if self._ended is None:
            try:
                self._ended = (True, result.unwrap())
            except BaseException as exc:  # kept to raise again, at every call
                self._ended = (False, exc)
        ok, value = self._ended
        if ok:
            return cast(T, value)
        raise cast(BaseException, value)


class GuestCancelled(Exception):
    """The trio guest run was cancelled by :meth:`TrioGuest.cancel` before it returned."""
