"""The search core: the compiled core agrees with the pure-Python one; the solver agrees with an
independent retrograde analysis and with a brute force over the real rules; the search is sound."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import random
import shlex
import subprocess
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from p2ptrumps.ai import core
from p2ptrumps.ai.core import SEARCH, SOLVE, SOLVE_ALL, WIN, WIN_BOUND, position_hash
from p2ptrumps.ai.engine import COMPILED, plies_of, search, solve, spec_of, to_move, to_move_int, verdict
from p2ptrumps.ai.weights import FITTED
from p2ptrumps.cards import BEATERS, card_list, mask_of, pack_mask
from p2ptrumps.notation import parse_position
from p2ptrumps.rules import Move, Position, RuleSet
from p2ptrumps.shuffle import start_position

SOURCE = Path(core.__file__).with_name("_core.c")
DRAWS_SEEN: list[int] = []


def _build(tmp: Path) -> ModuleType | None:
    """The compiled core: the installed one, else built from ``_core.c`` into ``tmp`` with the
    compiler Python was built with; None when there is no compiler."""
    try:
        from p2ptrumps.ai import _core
    except ImportError:
        pass
    else:
        return _core
    cc = sysconfig.get_config_var("CC") or "cc"
    out = tmp / ("_core" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
    cmd = [*shlex.split(cc), "-O2", "-shared", "-fPIC", "-I", sysconfig.get_paths()["include"], str(SOURCE),
           "-o", str(out)]
    try:
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    loader = importlib.machinery.ExtensionFileLoader("p2ptrumps.ai._core", str(out))
    spec = importlib.util.spec_from_file_location("p2ptrumps.ai._core", out, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    module = _build(tmp_path_factory.mktemp("core"))
    if module is None:
        pytest.skip("no C compiler: the compiled core cannot be built here")
    return module


def positions_from_games(rules: RuleSet, games: int, seed: int, every: int = 1) -> list[Position]:
    """Positions (with their history) from random-ish games: greedy and random moves mixed."""
    from p2ptrumps.ai import choose_move

    rng = random.Random(seed)
    out = []
    for i in range(games):
        p = start_position(bytes([i, seed % 256]), rules, (i % 4, (i + 1 + i % 3) % 4), i % 2)
        k = 0
        while p.outcome is None:
            if k % every == 0 and len(p.legal_moves()) > 1:
                out.append(p.copy())
            p.push(choose_move(p, "greedy" if rng.random() < 0.7 else "random", 0, rng))
            k += 1
    return out


def small_endgames(count: int, seed: int, hand: tuple[int, int] = (3, 3), pile: int = 3,
                   rules: RuleSet | None = None) -> list[Position]:
    """Random small positions: a few cards each and a short pile, from a 36-card pack."""
    rng = random.Random(seed)
    pack = card_list(pack_mask(36))
    out = []
    for i in range(count):
        cards = rng.sample(pack, hand[0] + hand[1] + pile)
        t0 = rng.randrange(4)
        t1 = (t0 + 1 + rng.randrange(3)) % 4
        hands = [mask_of(cards[:hand[0]]), mask_of(cards[hand[0]:hand[0] + hand[1]])]
        p = Position(rules or RuleSet(), (t0, t1), hands, tuple(cards[hand[0] + hand[1]:]), i % 2)
        out.append(p)
    return out


# ----- the compiled core gives the pure-Python core's answers ------------------------------------


@pytest.mark.parametrize("rules", [RuleSet(), RuleSet(voluntary_pickup=True), RuleSet(pack_size=52, sixes=False),
                                   RuleSet(repetition=2, turn_limit=60)],
                         ids=["default", "voluntary", "pack52", "rep2-limit60"])
def test_compiled_search_equals_python_search(compiled: ModuleType, rules: RuleSet) -> None:
    positions = positions_from_games(rules, 4, 3, every=5)
    assert len(positions) >= 20
    for i, p in enumerate(positions[:30]):
        spec = spec_of(p, i * 7919)
        py = core.run(spec, SEARCH, max_nodes=2500, max_depth=40, tt_bits=12)
        c = compiled.run(spec, SEARCH, max_nodes=2500, max_depth=40, tt_bits=12)
        assert c == py, (i, p)


def test_compiled_fitted_search_equals_python(compiled: ModuleType) -> None:
    """The search with the fitted evaluation (``weights``): the same moves, values and node counts
    from both cores, and other moves than the hand-made evaluation's."""
    positions = positions_from_games(RuleSet(), 6, 8, every=4)
    assert len(positions) >= 25
    differ = 0
    for i, p in enumerate(positions[:25]):
        spec = spec_of(p, i * 31)
        py = core.run(spec, SEARCH, max_nodes=2500, max_depth=40, tt_bits=12, weights=FITTED)
        c = compiled.run(spec, SEARCH, max_nodes=2500, max_depth=40, tt_bits=12, weights=FITTED)
        assert c == py, (i, p)
        differ += c[:2] != compiled.run(spec, SEARCH, max_nodes=2500, max_depth=40, tt_bits=12)[:2]
    assert differ >= 10, differ


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_the_weights_are_checked(request: pytest.FixtureRequest, pure: bool) -> None:
    run = core.run if pure else request.getfixturevalue("compiled").run
    spec = spec_of(parse_position("v1/SH/6S7SKS/9D6H/9CTC/0/12"))
    with pytest.raises(ValueError, match=f"weights must be {core.N_FEATURES} ints, not 3"):
        run(spec, SEARCH, max_nodes=100, weights=(1, 2, 3))
    with pytest.raises(ValueError, match="out of range"):
        run(spec, SEARCH, max_nodes=100, weights=(1 << 41,) * core.N_FEATURES)


def test_the_features_of_a_position() -> None:
    """Seat 0 (own trump ♠) holds 6♠ 7♠ K♠ against 9♦ 6♥ (own trump ♥) on a pile 9♣ 10♣: every
    feature named in :func:`core.features`' order."""
    p = parse_position("v1/SH/6S7SKS/9D6H/9CTC/0/12")
    beaters = p.hands[0] & BEATERS[p.trumps[0]][p.pile[-1]]
    f = core.features(p.hands[0], p.hands[1], p.trumps[0], p.trumps[1], len(p.pile), beaters)
    steps = len(core.FIT_SIZES)
    assert f[0] == 1
    assert f[1:1 + steps] == [1] + [0] * (steps - 1)  # 3 cards: at least 3, not 4
    assert f[1 + steps:1 + 2 * steps] == [0] * steps  # 2 cards
    assert f[1 + 2 * steps:] == [
        3, 1,  # own trumps: ♠ 6 7 K; 6♥
        1, 0,  # of rank Q, K, A: K♠; none
        0, 0,  # cards the other cannot beat: 6♥ (seat 1's trump) beats every spade; a spade beats 9♦ and 6♥
        0, 0,  # of those, in the other's trump suit
        0, 0,  # no ace of the other's trump held
        0, 0, 0, 2,  # not to lead, so no lead of an unbeatable card; no unbeatable second card; a pile of 2
        0, 0,  # 3 cards, none unbeatable; 2 cards, none
        0, 0, 64, 32,  # shares, in 64ths: none unbeatable; trumps: 3 of 3, 1 of 2
    ]


def test_compiled_solver_equals_python_solver(compiled: ModuleType) -> None:
    cases = small_endgames(40, 5) + small_endgames(20, 6, (2, 4), 6, RuleSet(repetition=2))
    solved = 0
    for i, p in enumerate(cases):
        spec = spec_of(p, i)
        for mode in (SOLVE, SOLVE_ALL):
            py = core.run(spec, mode, max_nodes=20_000, tt_bits=12)
            c = compiled.run(spec, mode, max_nodes=20_000, tt_bits=12)
            assert c == py, (i, mode, p)
            solved += py[4] == core.DONE
    assert solved >= 100


def test_compiled_core_checks_its_input(compiled: ModuleType) -> None:
    good = spec_of(parse_position("v1/SH/6S7SKS/9D6H/9CTC/0/12"))
    with pytest.raises(ValueError, match="unknown mode"):
        compiled.run(good, 7)
    with pytest.raises(ValueError, match="tt_bits"):
        compiled.run(good, SOLVE, tt_bits=40)
    with pytest.raises(ValueError, match="12 items"):
        compiled.run(good[:5], SOLVE)
    bad_pile = (*good[:4], bytes([60]), *good[5:])
    with pytest.raises(ValueError, match="bad pile card"):
        compiled.run(bad_pile, SOLVE)
    overlap = (good[0], good[1], good[2], good[2], *good[4:])
    with pytest.raises(ValueError, match="overlap"):
        compiled.run(overlap, SOLVE)
    unsorted = (*good[:10], (5, 3), good[11])
    with pytest.raises(ValueError, match="sorted"):
        compiled.run(unsorted, SOLVE)


# ----- the solver against independent answers ------------------------------------------------------


def retrograde(root: Position, cap: int = 3000) -> dict[tuple[Any, ...], int] | None:
    """The value of every position reachable from ``root`` by retrograde analysis of the game graph
    (RULES.md §4-§7 without repetition or turn limit; play that never ends is a draw): ``WIN - n`` for
    the seat to move winning in ``n`` plies against best defence, ``-(WIN - n)`` losing, 0 drawn.
    Independent of the search code: it enumerates the positions and works backwards.  None when
    more than ``cap`` positions are reachable."""
    def key(p: Position) -> tuple[Any, ...]:
        return (p.hands[0], p.hands[1], p.pile, p.to_move)

    children: dict[tuple[Any, ...], list[tuple[str, Any]]] = {}
    todo = [root.copy()]
    while todo:
        p = todo.pop()
        k = key(p)
        if k in children:
            continue
        if len(children) >= cap:
            return None
        kids: list[tuple[str, Any]] = []
        for m in p.legal_moves():
            q = Position(p.rules, p.trumps, list(p.hands), p.pile, p.to_move)
            q.push_unchecked(m)
            if q.outcome is not None and q.outcome.reason == "out":
                kids.append(("won", None))
            elif q.outcome is not None and q.outcome.reason == "both-out":
                kids.append(("drawn", None))
            else:
                kids.append(("pos", key(q)))
                todo.append(Position(p.rules, p.trumps, list(q.hands), q.pile, q.to_move))
        children[k] = kids
    parents: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {k: [] for k in children}
    for k, kids in children.items():
        for kind, c in kids:
            if kind == "pos":
                parents[c].append(k)
    value: dict[tuple[Any, ...], int] = {}
    frontier = []
    for k, kids in children.items():
        if any(kind == "won" for kind, _ in kids):
            value[k] = WIN - 1
            frontier.append(k)
    # Breadth-first by plies: a position is lost in n when all its moves lead to wins of at most n - 1.
    n = 1
    while frontier:
        nxt = []
        for k in frontier:
            for par in parents[k]:
                if par in value:
                    continue
                v = value[k]
                if v > WIN_BOUND:  # the child's mover wins: par's move there loses; par is lost if all do
                    kids = children[par]
                    if all(kind == "pos" and c in value and value[c] > WIN_BOUND for kind, c in kids):
                        value[par] = -(WIN - (1 + max(WIN - value[c] for _, c in kids)))
                        nxt.append(par)
                elif v < -WIN_BOUND:  # the child's mover loses: par wins by moving there
                    value[par] = WIN - (1 + min(WIN + value[c] for kind, c in children[par]
                                                 if kind == "pos" and c in value and value[c] < -WIN_BOUND))
                    nxt.append(par)
        frontier = nxt
        n += 1
    return {k: value.get(k, 0) for k in children}


def test_retrograde_analysis_itself_on_a_known_position() -> None:
    p = parse_position("v1/SH/7C9DKDTS/QD/8C/0/0")  # 10♠/7♣ wins in 5 plies, 10♠/K♦ loses in 8 (RULES.md)
    values = retrograde(p)
    assert values[(p.hands[0], p.hands[1], p.pile, 0)] == WIN - 5


@pytest.mark.parametrize(("hand", "pile"), [((2, 2), 2), ((2, 2), 3), ((3, 2), 2), ((2, 3), 2), ((3, 3), 1)])
def test_solver_matches_retrograde_analysis(hand: tuple[int, int], pile: int) -> None:
    checked = draws = 0
    for p in small_endgames(40, 7, hand, pile):
        values = retrograde(p)
        if values is None or len(values) <= 20:
            continue
        s = solve(p, None, max_nodes=2_000_000, every=True, tt_bits=14)
        assert s.solved, p
        want = values[(p.hands[0], p.hands[1], p.pile, p.to_move)]
        assert s.value == want, (p, s.value, want)
        for move, v in s.moves:
            q = p.copy()
            q.push(move)
            if q.outcome is not None:
                assert v == (0 if q.outcome.winner is None else WIN - 1)
                continue
            child = values[(q.hands[0], q.hands[1], q.pile, q.to_move)]
            assert v == (-(child - 1) if child > WIN_BOUND else -(child + 1) if child < -WIN_BOUND else 0), (p, move)
        checked += 1
        draws += want == 0
    assert checked >= 8
    DRAWS_SEEN.append(draws)


def test_the_retrograde_cases_include_draws() -> None:
    assert sum(DRAWS_SEEN) >= 2, DRAWS_SEEN


def true_value(p: Position, depth: int) -> int | None:
    """The value under the real rules (Position, repetition counted from the position's history),
    searched ``depth`` plies deep; None when that depth does not settle it."""
    if depth == 0:
        return None
    best: int | None = None
    unknown = False
    for m in p.legal_moves():
        mover = p.to_move
        p.push_unchecked(m)
        o = p.outcome
        if o is not None:
            v: int | None = 0 if o.winner is None else (WIN - 1 if o.winner == mover else -(WIN - 1))
        else:
            c = true_value(p, depth - 1)
            v = None if c is None else -(c - 1) if c > WIN_BOUND else -(c + 1) if c < -WIN_BOUND else 0
        p.pop()
        if v is None:
            unknown = True
        elif best is None or v > best:
            best = v
    if best is not None and best > WIN_BOUND:
        return best  # a faster win would be within the depth searched
    return None if unknown else best


def give_a_history(p: Position, rng: random.Random) -> None:
    """Give ``p`` a history: earlier occurrences (once or twice) of the positions after its first two
    moves, so that some continuations are repetitions (RULES.md §7)."""
    for m in p.legal_moves()[:2]:
        q = p.copy()
        q.push(m)
        if q.outcome is None:
            p._counts[q.key()] = rng.choice((1, 1, 2))


def test_solver_matches_the_real_rules_with_a_history() -> None:
    """Positions whose history makes some continuations repetitions (RULES.md §7: the third
    occurrence draws, or the second with repetition 2): the solver's value is the real one."""
    rng = random.Random(9)
    checked = 0
    cases = small_endgames(30, 10, (2, 2), 4, RuleSet(repetition=2)) + small_endgames(30, 11, (2, 2), 4)
    for p in cases:
        give_a_history(p, rng)
        want = true_value(p.copy(), 9)
        if want is None:
            continue
        s = solve(p, None, max_nodes=500_000)
        assert s.solved and s.value == want, (p, s.value, want)
        checked += 1
    assert checked >= 30


# The first depth that proves a win may see only a longer win than the fastest: forced moves use up
# no depth, so a win with fewer choices but more plies is found first, and the table holds wins proven
# deeper than the depth can measure.  The solver used to give that longer win (or loss) as exact.
LENGTH_CASES = [
    # a forced pick-up, then a win in 10 plies: 11 (the real rules' brute force agrees), not 15
    ("v1/DC/6CJHKS/9DADTH/TD6DKC/0/0/36.sixes.must.r3.t1000", WIN - 11, None),
    # every move's value, as ``solve`` shows them: the beat K♠/Q♠ loses in 14 plies, not 16
    ("v1/DH/9CQSKS/JC6D7DTDKDAD9SAS/6H9HJHJS8D9DQHQCKCAC6C8CTCJD8HKH6SQDTHAH7STS7C7H8S/0/82/36.sixes.must.r3.t1000",
     -(WIN - 16), {"QS/9C": -(WIN - 16), "QS/KS": -(WIN - 16), "KS/9C": -(WIN - 16), "KS/QS": -(WIN - 14)}),
    # J♥ with a club as the second card loses in 12 plies, not 18
    ("v1/DS/JCKCQDKD9HTHQHKHAHTSJSQS/TCQC6D7DJH/6S8SAC8D7S9S7H8H6C8C9DKS7C9CTDADASJD6H/1/31/36.sixes.must.r3.t1000",
     -(WIN - 18), {"JH/6D": -(WIN - 18), "JH/7D": -(WIN - 18), "JH/QC": -(WIN - 12), "JH/TC": -(WIN - 12)}),
]


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
@pytest.mark.parametrize(("text", "value", "moves"), LENGTH_CASES, ids=["forced-pickup", "loss-16", "loss-18"])
def test_the_solver_gives_the_exact_length_behind_forced_moves(
        request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, pure: bool, text: str, value: int,
        moves: dict[str, int] | None) -> None:
    from p2ptrumps.ai import engine

    monkeypatch.setattr(engine, "RUN", core.run if pure else request.getfixturevalue("compiled").run)
    p = parse_position(text)
    s = solve(p, None, max_nodes=300_000, every=moves is not None)
    assert (s.solved, s.value) == (True, value)
    if moves is None:
        assert true_value(p.copy(), 11) == value
        return
    assert {str(m): v for m, v in s.moves} == moves
    for m, v in s.moves:  # each move's value is its position's, solved afresh, one ply on
        q = p.copy()
        q.push(m)
        after = solve(q, None, max_nodes=300_000).value
        assert v == (-(after - 1) if after > WIN_BOUND else -(after + 1)), m


def test_solver_gives_up_when_the_budget_runs_out() -> None:
    p = start_position(b"too big", RuleSet(), (0, 2), 0)
    s = solve(p, None, max_nodes=5000, every=True)
    assert (s.solved, s.value, s.move, s.outcome) == (False, 0, None, "unknown")
    assert 5000 <= s.nodes <= 5001


# ----- the search --------------------------------------------------------------------------------


def test_search_wins_are_proven_and_match_the_solver() -> None:
    """Whenever the search (with its forward pruning) calls a value proven, the solver gives the same
    result (win, draw, loss) -- pruning never makes it claim a win that is not there -- and the move
    it plays keeps a proven win."""
    from p2ptrumps.ai.engine import RUN

    compared = 0
    for i, p in enumerate(positions_from_games(RuleSet(), 10, 21, every=2)):
        move, value, _, _, proven, _ = RUN(spec_of(p, i), SEARCH, max_nodes=10_000)
        if not proven:
            continue
        s = solve(p, None, max_nodes=300_000)
        if not s.solved:
            continue
        assert (value > WIN_BOUND, value < -WIN_BOUND) == (s.value > WIN_BOUND, s.value < -WIN_BOUND), p
        if value > WIN_BOUND:
            q = p.copy()
            q.push(to_move(move, not p.pile))
            after = solve(q, None, max_nodes=300_000) if q.outcome is None else None
            assert after is None or not after.solved or after.value < -WIN_BOUND
        compared += 1
    assert compared >= 10


def test_strong_plays_the_solvers_move_when_it_solves() -> None:
    played = 0
    for i, p in enumerate(positions_from_games(RuleSet(), 4, 22, every=2)):
        r = search(p, 0.0, random.Random(i), max_nodes=20_000)
        if r.depth or not r.exact or r.nodes <= len(p.legal_moves()):
            continue  # searched, unproven, forced or an immediate win
        s = solve(p, None, max_nodes=6_000)
        assert s.solved and (r.move, r.value) == (s.move, s.value), p
        played += 1
    assert played >= 5


def test_node_budget_makes_the_search_reproducible() -> None:
    p = positions_from_games(RuleSet(), 1, 4, every=7)[2]
    a = search(p, 0.0, random.Random(1), max_nodes=30_000)
    b = search(p, 0.0, random.Random(1), max_nodes=30_000)
    assert a == b and a.nodes <= 30_001


def test_pure_python_core_runs_the_same_search() -> None:
    p = positions_from_games(RuleSet(), 1, 5, every=9)[1]
    spec = spec_of(p, 99)
    result = core.run(spec, SEARCH, max_nodes=1500, tt_bits=12)
    assert result[3] == 1500 or result[4] == 1  # stopped by the budget (never past it), or proven before it
    assert to_move_int(Move.pick_up()) == core.PICKUP


def test_spec_lists_the_positions_a_repetition_would_draw() -> None:
    p = parse_position("v1/SH/7C9DKDTS/QD/8C/0/0")
    assert spec_of(p)[10] == ()  # the start has occurred once: reaching it again is a second occurrence
    p._counts[p.key()] = 2
    assert spec_of(p)[10] == (position_hash(p.hands[0], p.hands[1], p.pile, 0),)
    rep2 = parse_position("v1/SH/7C9DKDTS/QD/8C/0/0/36.sixes.must.r2.t1000")
    assert spec_of(rep2)[10] == (position_hash(p.hands[0], p.hands[1], p.pile, 0),)


def test_verdict_words() -> None:
    assert (verdict(WIN - 5), verdict(-(WIN - 8)), verdict(0), verdict(WIN - 1)) == (
        "wins in 3", "loses in 4", "draw", "wins in 1")
    assert (plies_of(WIN - 5), plies_of(123)) == (5, None)


def test_the_pure_python_core_can_be_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    from p2ptrumps.ai import engine

    assert (engine.RUN is core.run) == (not COMPILED)
    monkeypatch.setenv("P2PTRUMPS_PURE_PYTHON_AI", "1")
    assert engine._load() == (core.run, False)


# ----- the prover (df-pn) ----------------------------------------------------------------------------


def _prove(p: Position, nodes: int, runner: Any = None) -> tuple[int, int, int, int, int, list[tuple[int, int]]]:
    from p2ptrumps.ai.engine import RUN

    result: tuple[int, int, int, int, int, list[tuple[int, int]]] = (runner or RUN)(
        spec_of(p), core.PROVE, max_nodes=nodes, tt_bits=14)
    return result


def test_compiled_prover_equals_python_prover(compiled: ModuleType) -> None:
    cases = (small_endgames(25, 5) + small_endgames(15, 6, (2, 4), 6, RuleSet(repetition=2))
             + small_endgames(10, 8, (4, 4), 4, RuleSet(turn_limit=12)))
    wins = losses = 0
    for p in cases:
        spec = spec_of(p)
        py = core.run(spec, core.PROVE, max_nodes=3000, tt_bits=12)
        c = compiled.run(spec, core.PROVE, max_nodes=3000, tt_bits=12)
        assert c == py, p
        wins += py[4] == core.DONE and py[1] > 0
        losses += py[4] == core.DONE and py[1] < 0
    assert wins >= 10 and losses >= 5, (wins, losses)


def forced_within(p: Position, seat: int, plies: int, memo: dict[tuple[Any, ...], bool]) -> bool:
    """Whether ``seat`` can force going out within ``plies`` plies from ``p`` by the real rules (a brute
    force over Position; repetitions need no look: a fastest forced win never repeats a position)."""
    k = (p.hands[0], p.hands[1], p.pile, p.to_move, plies)
    if k not in memo:
        memo[k] = False
        if plies > 0:
            results = []
            for m in p.legal_moves():
                q = Position(p.rules, p.trumps, list(p.hands), p.pile, p.to_move)
                q.push_unchecked(m)
                o = q.outcome
                results.append(o.reason == "out" and o.winner == seat if o is not None else
                               forced_within(Position(p.rules, p.trumps, list(q.hands), q.pile, q.to_move), seat,
                                             plies - 1, memo))
                if results[-1] == (p.to_move == seat):
                    break
            memo[k] = any(results) if p.to_move == seat else all(results)
    return memo[k]


def test_prover_agrees_with_the_solver() -> None:
    """Every proof is the solver's outcome, the proof's first move wins, and the seat proven to win
    can force going out within the proof's length (a brute force over the rules); draws are never
    proven."""
    proven = draws = 0
    for p in small_endgames(40, 12, (3, 3), 3) + small_endgames(30, 13, (2, 3), 5, RuleSet(repetition=2)):
        s = solve(p, None, max_nodes=1_000_000, every=True, tt_bits=16)
        if not s.solved:
            continue
        move, value, depth, _, status, values = _prove(p, 200_000)
        draws += s.value == 0
        if status != core.DONE:
            continue
        assert (depth, values) == (0, [])
        assert (value > 0) == (s.value > 0) and s.value != 0, (p, value, s.value)
        winner = p.to_move if value > 0 else 1 - p.to_move
        assert forced_within(p, winner, WIN - abs(value), {}), (p, value)
        if value > 0:
            assert dict(s.moves)[to_move(move, not p.pile)] > WIN_BOUND, p
        else:
            assert move == core.NO_MOVE
        proven += 1
    assert proven >= 30 and draws >= 3, (proven, draws)


def test_a_repetition_does_not_fool_the_prover() -> None:
    """With a history, a continuation may repeat a position (RULES.md §7): a prover that ignored it
    would prove wins that are draws.  Here the proof stands only where the real rules agree, and
    some wins without the history are not proven with it."""
    rng = random.Random(9)
    fooled = checked = 0
    for p in small_endgames(40, 10, (2, 2), 4, RuleSet(repetition=2)) + small_endgames(40, 11, (2, 2), 4):
        fresh = p.copy()
        give_a_history(p, rng)
        want = true_value(p.copy(), 9)
        if want is None:
            continue
        _, value, _, _, status, _ = _prove(p, 50_000)
        _, fresh_value, _, _, fresh_status, _ = _prove(fresh, 50_000)
        if status == core.DONE:
            assert (value > 0) == (want > WIN_BOUND) and (value < 0) == (want < -WIN_BOUND), (p, value, want)
            assert plies_of(value) >= plies_of(want), (p, value, want)  # type: ignore[operator]
        fooled += fresh_status == core.DONE and fresh_value > 0 and want <= WIN_BOUND
        checked += 1
    assert checked >= 40 and fooled >= 1, (checked, fooled)


def test_a_proof_longer_than_the_turn_limit_allows_does_not_count() -> None:
    """A proof of ``n`` plies from turn ``t`` counts only when ``t + n <= turn_limit`` (RULES.md §7):
    then the solver finds the win too, and with a limit one turn lower both find none (a draw)."""
    checked = 0
    for p in small_endgames(30, 14, (3, 3), 3):
        _, value, _, _, status, _ = _prove(p, 100_000)
        exact = solve(p, None, max_nodes=1_000_000, tt_bits=16)
        if status != core.DONE or value <= 0 or not exact.solved or exact.value != value:
            continue
        n = WIN - value
        for limit, proven in ((n + 4, True), (n + 3, True), (n + 2, False)):
            spec = list(spec_of(p))
            spec[6], spec[9] = 3, limit  # at turn 3 of a deal with this turn limit
            got = core.run(tuple(spec), core.PROVE, max_nodes=100_000, tt_bits=14)
            assert (got[4] == core.DONE and got[1] == value) == proven, (p, limit, got)
            solved = core.run(tuple(spec), SOLVE, max_nodes=1_000_000, tt_bits=16)
            assert solved[4] == core.DONE and (solved[1] == value) == proven, (p, limit, solved)
        checked += 1
        if checked == 3:
            break
    assert checked == 3
