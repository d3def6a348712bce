"""First of these to finish wins: the one way the networking code races tasks over a trio nursery.

:func:`first_of` runs awaitables side by side and returns which finished first and its value, the
others cancelled; :func:`single_errors` turns the exception group a nursery raises into its one real
exception, so callers catch ``NetplayError`` or ``TransportError`` plainly.  Nothing else in
:mod:`p2ptrumps.net` cancels a nursery by hand to say "whichever comes first".
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import trio


@contextlib.contextmanager
def single_errors() -> Iterator[None]:
    """Re-raise an exception group from a nursery as its one real exception.

    trio wraps a task's exception in an ``ExceptionGroup``; when the group holds
    exactly one exception besides cancellations, that one is raised instead (so
    callers can catch ``NetplayError`` or ``TransportError`` plainly).
    """
    try:
        yield
    except BaseExceptionGroup as group:
        leaves: list[BaseException] = []

        def walk(g: BaseExceptionGroup[BaseException]) -> None:
            for e in g.exceptions:
                if isinstance(e, BaseExceptionGroup):
                    walk(e)
                elif not isinstance(e, trio.Cancelled):
                    leaves.append(e)

        walk(group)
        if len(leaves) == 1:
            raise leaves[0] from None
        raise


async def first_of(*fns: Callable[[], Awaitable[Any]]) -> tuple[int, Any]:
    """Run ``fn()`` for each of ``fns`` side by side; once one returns, cancel the others and return
    ``(its index, its value)``.  When two finish in the same moment the one that finished first (in
    trio's order) wins; a value another one returned after it is dropped.  An exception of any of
    them propagates (:func:`single_errors`: a lone one unwrapped) and cancels the rest.

    Raises:
        ValueError: no ``fns`` (nothing would ever finish).
    """
    if not fns:
        raise ValueError("first_of needs at least one awaitable")
    won: list[tuple[int, Any]] = []
    with single_errors():
        async with trio.open_nursery() as nursery:
            for i, fn in enumerate(fns):

                async def run(i: int = i, fn: Callable[[], Awaitable[Any]] = fn) -> None:
                    value = await fn()
                    if not won:
                        won.append((i, value))
                    nursery.cancel_scope.cancel()

                nursery.start_soon(run)
    return won[0]


async def unless(fn: Callable[[], Awaitable[Any]], *stops: Callable[[], Awaitable[Any]]) -> tuple[bool, Any]:
    """``await fn()`` unless one of ``stops`` finishes first: ``(True, its value)``, or ``(False, the
    stop's value)`` when a stop came first (``fn`` is then cancelled)."""
    index, value = await first_of(fn, *stops)
    return index == 0, value


async def within(seconds: float, fn: Callable[[], Awaitable[Any]]) -> tuple[bool, Any]:
    """``await fn()`` for at most ``seconds``: ``(True, its value)``, or ``(False, None)`` when the time
    ran out first (``fn`` is then cancelled)."""
    done, value = False, None
    with trio.move_on_after(seconds):
        value = await fn()
        done = True
    return done, value
