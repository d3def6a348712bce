"""The parallel exact solver (ai/parallel.py): threads sharing one table give one thread's exact answer;
a table entry whose halves disagree is never taken; ``solve --threads`` is checked; Ctrl-C stops
every thread."""

from __future__ import annotations

import json
import random
import signal
import struct
import threading
from dataclasses import replace
from typing import Any

import pytest

from p2ptrumps.ai import core, engine, parallel
from p2ptrumps.ai.core import DONE, EXACT, EXACT_DEPTH, NO_MOVE, SEARCH, SOLVE, SOLVE_ALL, WIN, position_hash
from p2ptrumps.ai.engine import solve, spec_of
from p2ptrumps.commands.main import main
from p2ptrumps.notation import parse_position
from p2ptrumps.rules import Position, RuleSet
from tests.test_ai_core import LENGTH_CASES, give_a_history, small_endgames

#: A 34-card position no solver settles within minutes (as in test_analysis's Ctrl-C test).
HARD = ("v1/HD/6CQCKCAC6DJDQDKDADQHKHAH8S9SKSAS/7C8C8HJH6S7STSJSQS/6H7H9C7D9HTHTC8DTDJC9D/0/169/"
        "36.sixes.must.r3.t1000")
needs_compiled = pytest.mark.skipif(not engine.COMPILED, reason="the parallel solver runs the compiled core only")


def _cases() -> list[Position]:
    """Positions of the solver's tests: small endgames (with and without a history that makes some
    continuations repetitions) and the length cases (forced moves before a win, losses of two lengths)."""
    rng = random.Random(21)
    with_history = small_endgames(12, 10, (2, 2), 4, RuleSet(repetition=2)) + small_endgames(12, 11, (3, 3), 4)
    for p in with_history:
        give_a_history(p, rng)
    return (small_endgames(16, 5) + small_endgames(8, 6, (2, 4), 6, RuleSet(repetition=2)) + with_history
            + [parse_position(text) for text, _, _ in LENGTH_CASES])


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The thread counts :func:`parallel.solve` was called with (so that a test sees the threads ran)."""
    seen: list[int] = []
    real = parallel.solve

    def spy(runner: Any, spec: Any, mode: int, threads: int, time_s: float, tt_bits: int) -> Any:
        seen.append(threads)
        return real(runner, spec, mode, threads, time_s, tt_bits)

    monkeypatch.setattr(parallel, "solve", spy)
    return seen


@needs_compiled
def test_threads_give_one_threads_values_length_and_best_move(calls: list[int]) -> None:
    """Every move's exact value, the position's value (length included) and the best move (the first best
    in root order) are one thread's, with 2 and 4 threads (more threads than most positions have hard
    moves: some end early)."""
    solved = 0
    for i, p in enumerate(_cases()):
        one = solve(p, None, max_nodes=2_000_000, every=True, tt_bits=16)
        if not one.solved:
            continue
        solved += 1
        for threads in (2, 4):
            many = solve(p, 60.0, every=True, tt_bits=16, threads=threads)
            assert (many.solved, many.value, many.move, many.moves) == (True, one.value, one.move, one.moves), (i, p)
            assert (one.threads, many.threads) == (1, threads)
            value_only = solve(p, 60.0, tt_bits=16, threads=threads)
            assert (value_only.solved, value_only.value) == (True, one.value), (i, p)
            assert dict(one.moves)[value_only.move] == one.value, (i, p)  # a best move
    assert solved >= 50
    assert calls.count(2) == calls.count(4) == 2 * solved


@needs_compiled
def test_the_length_cases_need_the_exact_length_from_every_thread() -> None:
    """The positions where a first proof sees only a longer win or loss than the fastest: the exact
    values (pinned in test_ai_core against the brute force) from 3 threads."""
    for text, value, moves in LENGTH_CASES:
        s = solve(parse_position(text), 60.0, every=True, threads=3)
        assert (s.solved, s.value) == (True, value)
        if moves is not None:
            assert {str(m): v for m, v in s.moves} == moves


def test_the_pure_python_core_solves_on_one_thread(monkeypatch: pytest.MonkeyPatch, calls: list[int]) -> None:
    monkeypatch.setattr(engine, "RUN", core.run)
    monkeypatch.setattr(engine, "COMPILED", False)
    p = parse_position(LENGTH_CASES[0][0])
    s = solve(p, 60.0, every=True, threads=4)
    assert (s.solved, s.value, s.threads, calls) == (True, WIN - 11, 1, [])


@needs_compiled
def test_a_node_budget_stays_on_one_thread(calls: list[int]) -> None:
    p = parse_position(LENGTH_CASES[1][0])
    a = solve(p, None, max_nodes=300_000, every=True, threads=4)
    b = solve(p, None, max_nodes=300_000, every=True)
    assert replace(a, elapsed_s=0.0) == replace(b, elapsed_s=0.0) and a.solved and calls == []
    assert (a.value, a.nodes, a.threads) == (-(WIN - 16), b.nodes, 1)


def _entry(key: int, value: int, move: int, depth: int, flag: int, torn: bool) -> bytes:
    """A table entry as _core.c writes it (check word, data word; native byte order); ``torn``: the
    check word belongs to other data (half of another write)."""
    data = (value & 0xFFFFFFFF) | (move & 0xFFFF) << 32 | (depth & 0xFF) << 48 | (flag & 0xFF) << 56
    other = data ^ (1 << 3)  # the value 8 apart
    return struct.pack("=QQ", key ^ (other if torn else data), data)


@needs_compiled
@pytest.mark.parametrize("torn", [False, True], ids=["whole", "torn"])
def test_a_table_entry_whose_halves_disagree_is_not_taken(torn: bool) -> None:
    """A planted entry for the root says "a draw, exact": taken when its halves agree (the table is
    read), passed over when the check word belongs to another write (the real value, a win in 11)."""
    from p2ptrumps.ai import _core

    p = parse_position(LENGTH_CASES[0][0])
    spec = spec_of(p)
    key = position_hash(p.hands[0], p.hands[1], p.pile, p.to_move)
    table = bytearray(16 << 10)
    slot = 16 * (key & 1023)
    table[slot:slot + 16] = _entry(key, 0, NO_MOVE, EXACT_DEPTH, EXACT, torn)
    _, value, _, _, status, _ = _core.run(spec, SOLVE, time_s=60.0, table=table)
    assert (status, value) == (DONE, WIN - 11 if torn else 0)


@needs_compiled
def test_the_compiled_core_checks_the_shared_arguments() -> None:
    from p2ptrumps.ai import _core

    spec = spec_of(parse_position(LENGTH_CASES[0][0]))
    with pytest.raises(ValueError, match="table must be"):
        _core.run(spec, SOLVE, table=bytearray(16 << 10 | 16))
    with pytest.raises(ValueError, match="table must be"):
        _core.run(spec, SOLVE, table=bytearray(16 << 9))
    with pytest.raises(BufferError):
        _core.run(spec, SOLVE, table=bytes(16 << 10))  # not writable
    with pytest.raises(ValueError, match="SOLVE and SOLVE_ALL only"):
        _core.run(spec, SEARCH, table=bytearray(16 << 10))
    with pytest.raises(ValueError, match="SOLVE_ALL only"):
        _core.run(spec, SOLVE, moves=[-1])
    with pytest.raises(ValueError, match="stop must be"):
        _core.run(spec, SOLVE, stop=bytearray(0))
    with pytest.raises(ValueError, match="variant"):
        _core.run(spec, SOLVE, variant=-1)
    # a stop flag already set: stopped at the first look (1,024 positions)
    assert _core.run(spec_of(parse_position(HARD)), SOLVE_ALL, stop=bytearray(b"\x01"))[3:5] == (1024, core.STOPPED)


def test_parallel_solve_checks_its_arguments() -> None:
    spec = spec_of(parse_position(LENGTH_CASES[0][0]))
    for mode, threads, time_s, what in [(SEARCH, 2, 1.0, "mode"), (SOLVE, 0, 1.0, "threads"),
                                        (SOLVE, 65, 1.0, "threads"), (SOLVE, 2, 0.0, "time budget")]:
        with pytest.raises(ValueError, match=what):
            parallel.solve(engine.RUN, spec, mode, threads, time_s, 12)
    with pytest.raises(ValueError, match="threads"):
        solve(parse_position(LENGTH_CASES[0][0]), 1.0, threads=0)
    assert 1 <= parallel.default_threads() <= parallel.MAX_DEFAULT_THREADS


@pytest.mark.parametrize(("text", "message"), [
    ("0", "'0': the number of threads must be 1 to 64"),
    ("-2", "'-2': the number of threads must be 1 to 64"),
    ("65", "'65': the number of threads must be 1 to 64"),
    ("99999999999999999999", "'99999999999999999999': the number of threads must be 1 to 64"),
    ("two", "'two' is not a whole number"),
])
def test_solve_refuses_a_bad_thread_count(text: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["solve", LENGTH_CASES[0][0], "--threads", text])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith(f"p2ptrumps solve: --threads: {message}\n") and "Traceback" not in err


def test_solve_refuses_threads_with_a_node_budget(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", LENGTH_CASES[0][0], "--threads", "2", "--nodes", "100k"]) == 2
    assert capsys.readouterr().err.endswith(
        "p2ptrumps solve: --threads works with a time budget (--budget S): a node budget (--nodes N) is solved on "
        "one thread, so that its answer is the same on every run\n")
    assert main(["solve", LENGTH_CASES[0][0], "--threads", "1", "--nodes", "100k"]) == 0
    assert "wins in 6 (11 plies)" in capsys.readouterr().out


@needs_compiled
def test_solve_with_threads_prints_one_threads_answer(capsys: pytest.CaptureFixture[str]) -> None:
    text = LENGTH_CASES[2][0]
    assert main(["solve", text, "--nodes", "300k"]) == 0
    one = capsys.readouterr().out.splitlines()
    assert main(["solve", text, "--budget", "60", "--threads", "2"]) == 0
    two = capsys.readouterr().out.splitlines()
    assert two[:-1] == one[:-1] and one[1] == "seat 1 (trump ♠) to move: loses in 9 (18 plies)"
    assert one[-1].endswith(" (compiled core)") and two[-1].endswith(" s (compiled core, 2 threads)")
    assert main(["solve", text, "--budget", "60", "--threads", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["threads"], data["result"], data["plies"], data["solved"]) == (2, "loss", 18, True)
    assert main(["solve", text, "--nodes", "300k", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["threads"] == 1


@needs_compiled
def test_ctrl_c_stops_every_solver_thread(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C (SIGINT) during a long solve on 2 threads: one line, status 130, and no solver thread left."""
    import _thread

    real_run = engine.RUN
    timers: list[threading.Timer] = []

    def run_then_interrupt(*args: object, **kwargs: object) -> object:
        if not timers:  # the first search: SIGINT arrives while the threads run
            timers.append(threading.Timer(0.2, _thread.interrupt_main))
            timers[0].start()
        return real_run(*args, **kwargs)

    monkeypatch.setattr(engine, "RUN", run_then_interrupt)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert main(["solve", HARD, "--budget", "600", "--threads", "2"]) == 130
    finally:
        signal.signal(signal.SIGINT, previous)
        for t in timers:
            t.join(timeout=10)
    assert [t.name for t in threading.enumerate() if t.name.startswith("p2ptrumps-solver")] == []
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "p2ptrumps solve: interrupted\n")
