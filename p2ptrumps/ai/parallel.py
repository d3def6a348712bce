"""The exact solver on several cores: threads that share one transposition table.

Source: RULES.md §4-§7 (through :mod:`.core`, whose :data:`~.core.SOLVE` and
:data:`~.core.SOLVE_ALL` modes this runs).  Only the compiled core
(``_core.c``) takes part: it searches with the GIL released, so Python threads
(:mod:`threading`; no threads in C, so the core builds anywhere) each run one
search at once on their own core, reading and writing one table given to them
as a buffer (``run(..., table=...)``).  A table entry is taken only when its
two halves agree (the key is stored XOR the data): a read that met another
thread's write half-way is a miss, never another position's value.  Every entry
any thread stores is as sound as the single-thread search's own (a value that
rests on the path above a node is never stored, see :mod:`.core`), so the value
a thread finishes with is the exact value.

* :data:`~.core.SOLVE_ALL` (every root move's value, as ``p2ptrumps solve``
  asks): the root moves are handed out one at a time in root order, each
  solved by one thread (the others find its positions in the table); a thread
  with no move left ends (helping another thread with its move, in another move
  order, was measured: no faster, the two mostly repeat each other's work).
  The answer, when every move is solved: each
  move's exact value in root order, the value their best, the best move the
  first of the best in root order -- the single thread's answer, exactly (its
  tie-break is the same: the first best move in root order).
* :data:`~.core.SOLVE` (the position's value): every thread solves the root, thread
  *k* of *n* trying the root's moves from *k*/*n* of the way down the ordered
  list (``variant``); the first to finish gives the value and its
  best move, and stops the others.  The value is the single thread's; the move
  is a best move (the fastest win, a drawing move, the slowest loss), not
  always the same one where several are equally good.  Measured (on 2
  cores): every move's value up to 1.9 times as fast; the value alone about
  1.06 (the helpers mostly repeat the first thread's work), so only ``p2ptrumps
  solve`` uses threads (see :func:`p2ptrumps.ai.engine.solve`).

Only a time budget: which thread gets how far within a node budget depends on
the machine, so a node budget stays on one thread (the same answer everywhere).
Memory: one table of ``16 * 2**tt_bits`` bytes for all threads (64 MiB at 22 bits), plus about
0.1 MiB a thread (and its move lists, up to 4 MiB of address space, touched only as deep as the
search goes).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from .core import DONE, NO_MOVE, SOLVE, SOLVE_ALL, STOPPED, _Core

Runner = Callable[..., tuple[int, int, int, int, int, list[tuple[int, int]]]]
Result = tuple[int, int, int, int, int, list[tuple[int, int]]]

#: ``p2ptrumps solve``'s default number of threads: the machine's cores, at most this many (the
#: table is shared, so more threads contend for it and for memory bandwidth).
MAX_DEFAULT_THREADS = 8
#: The most threads :func:`solve` accepts (``--threads``).
MAX_THREADS = 64
#: How long the waiting (main) thread sleeps between looks at its workers, in seconds: Ctrl-C is
#: noticed within this time (the workers stop within about 1,024 positions of the flag).
WAIT_S = 0.05
#: How long :func:`solve` waits at most for a thread to end once its last search has returned, in seconds.
JOIN_S = 5.0


def default_threads() -> int:
    """The cores this process may run on (``os.sched_getaffinity`` where there is one, else
    ``os.cpu_count()``), at most :data:`MAX_DEFAULT_THREADS`, at least 1."""
    cores = os.cpu_count() or 1
    affinity = getattr(os, "sched_getaffinity", None)  # not on Windows and macOS
    if affinity is not None:
        with contextlib.suppress(OSError):
            cores = len(affinity(0))
    return max(1, min(cores, MAX_DEFAULT_THREADS))


def new_table(tt_bits: int) -> mmap.mmap:
    """A zeroed table of ``2**tt_bits`` entries (16 bytes each) for :func:`solve` (anonymous memory,
    page-aligned; pages are only touched when written).  Raises ``ValueError`` unless 10 <= tt_bits
    <= 28."""
    if not 10 <= tt_bits <= 28:
        raise ValueError(f"tt_bits must be 10..28, not {tt_bits!r}")
    return mmap.mmap(-1, 16 << tt_bits)


def root_order(spec: Sequence[Any]) -> list[int]:
    """The root moves of ``spec`` in the cores' root order (best guess first, ties by the spec's seed):
    the order :data:`~.core.SOLVE_ALL` gives its values in."""
    return _Core(spec, SOLVE_ALL, 0, 0.0, 10).root_moves()


class _Pool:
    """The threads of one :func:`solve` and what they share (every field under ``lock``)."""

    def __init__(self, threads: int) -> None:
        self.lock = threading.Lock()
        self.threads = threads
        self.halt = bytearray(1)  # the one stop flag of every thread
        self.nodes = 0
        self.error: BaseException | None = None
        self.first: tuple[int, int] | None = None  # SOLVE: the first finished (move, value)
        # SOLVE_ALL
        self.pending: list[int] = []
        self.values: dict[int, int] = {}

    def stop_all(self) -> None:
        with self.lock:
            self.halt[0] = 1
            self.pending.clear()


def solve(runner: Runner, spec: Sequence[Any], mode: int, threads: int, time_s: float, tt_bits: int) -> Result:
    """Solve ``spec`` (see :mod:`.core`) in ``mode`` (:data:`~.core.SOLVE` or :data:`~.core.SOLVE_ALL`)
    with ``threads`` threads sharing one table of ``2**tt_bits`` entries, within ``time_s`` seconds
    (wall clock, > 0).

    ``runner`` is the compiled core's ``run`` (it must take ``table``, ``stop``, ``moves`` and
    ``variant``).  Returns what ``runner(spec, mode, time_s=time_s)`` returns, ``(move, value, 0,
    nodes, status, values)``, ``nodes`` summed over the threads: when :data:`~.core.DONE`, the exact
    value (see the module docstring for the move); when :data:`~.core.STOPPED` (the time ran out),
    move :data:`~.core.NO_MOVE`, value 0, and for SOLVE_ALL the ``(move, value)`` of the moves
    solved, in root order (not always the first ones).  Every thread has ended when it returns,
    also when it raises: ``KeyboardInterrupt`` (Ctrl-C) stops them all within about 1,024 positions
    each and is raised again; an error of a thread (e.g. ``MemoryError``) likewise.  Raises
    ``ValueError`` on a bad mode, thread count (1..:data:`MAX_THREADS`), budget or ``tt_bits``.
    """
    if mode not in (SOLVE, SOLVE_ALL):
        raise ValueError(f"the parallel solver solves (SOLVE, SOLVE_ALL), not mode {mode!r}")
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"threads must be 1..{MAX_THREADS}, not {threads!r}")
    if not time_s > 0:
        raise ValueError(f"the parallel solver needs a time budget (seconds > 0), not {time_s!r}")
    table = new_table(tt_bits)
    deadline = time.monotonic() + time_s
    pool = _Pool(threads)
    if mode == SOLVE_ALL:
        order = root_order(spec)
        pool.pending = list(order)
    work = _every_move if mode == SOLVE_ALL else _one_value
    # Each thread sets its event when its last search has returned.  (Not Thread.join: in Python 3.11 a
    # KeyboardInterrupt inside join(timeout) can mark a thread that is still running as ended.)
    ended = [threading.Event() for _ in range(threads)]
    workers = [threading.Thread(target=_guarded, args=(pool, ended[k], work, runner, spec, k, deadline, table),
                                name=f"p2ptrumps-solver-{k}", daemon=True) for k in range(threads)]
    started: list[threading.Event] = []
    try:
        for w, e in zip(workers, ended, strict=True):
            w.start()
            started.append(e)
        for e in ended:
            while not e.wait(WAIT_S):
                pass
        for w in workers:  # each has returned from its last search: let it end
            w.join(JOIN_S)
    except BaseException:  # Ctrl-C while waiting: stop every thread before it goes on
        pool.stop_all()
        for e in started:
            e.wait()
        raise
    finally:
        if all(e.is_set() for e in started):
            table.close()
    if pool.error is not None:
        raise pool.error
    if mode == SOLVE:
        if pool.first is None:
            return NO_MOVE, 0, 0, pool.nodes, STOPPED, []
        return pool.first[0], pool.first[1], 0, pool.nodes, DONE, []
    values = [(m, pool.values[m]) for m in order if m in pool.values]
    if len(values) < len(order):
        return NO_MOVE, 0, 0, pool.nodes, STOPPED, values
    best_move, best = values[0]
    for m, v in values:  # the first best in root order, as one thread's root_solve
        if v > best:
            best_move, best = m, v
    return best_move, best, 0, pool.nodes, DONE, values


def _guarded(pool: _Pool, ended: threading.Event, work: Callable[..., None], *args: Any) -> None:
    """Run one thread's ``work``, then set ``ended``; an error stops the others and is kept for the
    waiting thread."""
    try:
        work(pool, *args)
    except BaseException as exc:
        with pool.lock:
            if pool.error is None:
                pool.error = exc
        pool.stop_all()
    finally:
        ended.set()


def _one_value(pool: _Pool, runner: Runner, spec: Sequence[Any], k: int, deadline: float, table: mmap.mmap) -> None:
    """SOLVE: thread ``k`` solves the root in its own order; the first to finish stops the rest."""
    left = deadline - time.monotonic()
    if left <= 0 or pool.halt[0]:
        return
    move, value, _, nodes, status, _ = runner(spec, SOLVE, time_s=left, table=table, stop=pool.halt,
                                              variant=k * 256 // pool.threads)
    with pool.lock:
        pool.nodes += nodes
        if status == DONE and pool.first is None:
            pool.first = (move, value)
            pool.halt[0] = 1


def _every_move(pool: _Pool, runner: Runner, spec: Sequence[Any], k: int, deadline: float, table: mmap.mmap) -> None:
    """SOLVE_ALL: take the next root move until none is left (or the time or a stop ends it)."""
    while True:
        with pool.lock:
            if pool.halt[0]:
                return
            if not pool.pending:  # (helping with a move still searched was measured: no faster)
                return
            m = pool.pending.pop(0)
        left = deadline - time.monotonic()
        if left <= 0:
            pool.stop_all()
            return
        _, _, _, nodes, status, values = runner(spec, SOLVE_ALL, time_s=left, table=table, stop=pool.halt,
                                                moves=[m])
        with pool.lock:
            pool.nodes += nodes
            if status == DONE and values:
                pool.values[m] = values[0][1]
            elif status != DONE:  # the time ran out (or a stop): the others stop at the same deadline
                pool.halt[0] = 1
