"""The arena: statistics on fixed inputs, the deal-pair derivation, a tiny headless run."""

from __future__ import annotations

import argparse
import hashlib
import math
from pathlib import Path

import pytest

from p2ptrumps.commands.arena import (
    GameResult,
    PairResult,
    elo_of,
    format_summary,
    pair_setup,
    percentile_95,
    summarize,
    t_quantile_95,
)
from p2ptrumps.commands.main import main
from p2ptrumps.record import MatchRecord
from p2ptrumps.rules import Outcome, RuleSet

WIN_A0 = Outcome(0, "out")  # seat 0 won
WIN_A1 = Outcome(1, "out")
DRAW = Outcome(None, "both-out")


def game(a_seat: int, outcome: Outcome, plies: int = 20, think_a: tuple[float, ...] = (),
         think_b: tuple[float, ...] = ()) -> GameResult:
    return GameResult(a_seat, outcome, plies, think_a, think_b)


def pair(index: int, first: Outcome, second: Outcome, plies: tuple[int, int] = (20, 20)) -> PairResult:
    return PairResult(index, (game(0, first, plies[0]), game(1, second, plies[1])))


def test_t_quantiles_match_the_tables() -> None:
    assert round(t_quantile_95(1), 3) == 12.706
    assert round(t_quantile_95(2), 3) == 4.303
    assert round(t_quantile_95(4), 4) == 2.7764
    assert round(t_quantile_95(10), 3) == 2.228
    assert round(t_quantile_95(199), 3) == 1.972
    with pytest.raises(ValueError, match="at least 1"):
        t_quantile_95(0)


def test_elo_and_percentile() -> None:
    assert elo_of(0.5) == 0
    assert round(elo_of(0.75), 2) == 190.85
    assert elo_of(1.0) == math.inf and elo_of(0.0) == -math.inf
    assert percentile_95([float(i) for i in range(1, 101)]) == 95.0
    assert percentile_95([3.0, 1.0, 2.0]) == 3.0
    assert percentile_95([]) == 0.0


def test_pair_categories() -> None:
    assert pair(0, WIN_A0, WIN_A1).category == "WW"  # A won as seat 0 and as seat 1
    assert pair(0, WIN_A0, DRAW).category == "WD"
    assert pair(0, WIN_A0, WIN_A0).category == "WL"  # seat 0 won both: a split
    assert pair(0, DRAW, DRAW).category == "DD"
    assert pair(0, DRAW, WIN_A0).category == "DL"
    assert pair(0, WIN_A1, WIN_A0).category == "LL"
    assert pair(0, WIN_A0, DRAW).score == 0.75


def test_summary_exact_numbers() -> None:
    # Pair scores 1, 1, 0.5, 0.75, 0: mean 0.65, sd sqrt(0.7/4), t(4) = 2.7764.
    pairs = [
        pair(0, WIN_A0, WIN_A1, (10, 30)),
        pair(1, WIN_A0, WIN_A1, (20, 20)),
        pair(2, WIN_A0, WIN_A0, (25, 15)),
        pair(3, DRAW, WIN_A1, (40, 20)),
        pair(4, WIN_A1, WIN_A0, (30, 10)),
    ]
    pairs[0] = PairResult(0, (game(0, WIN_A0, 10, (0.1, 0.3), (0.001,)), game(1, WIN_A1, 30, (0.2,), (0.002, 0.004))))
    s = summarize("normal", "greedy", pairs)
    assert (s.pairs, s.games, s.points_a, s.score) == (5, 10, 6.5, 0.65)
    half = 2.7764451051977987 * math.sqrt(0.7 / 4) / math.sqrt(5)
    assert s.ci_low == pytest.approx(0.65 - half, abs=1e-12)
    assert round(s.ci_low, 4) == 0.1306
    assert s.ci_high == 1.0  # 1.1694 clipped
    assert dict(s.categories) == {
        "A won both": 2,
        "A won one, drew one": 1,
        "split (one win each)": 1,
        "both drawn": 0,
        "B won one, drew one": 0,
        "B won both": 1,
    }
    assert s.mean_plies == 22.0
    assert (s.think_a.moves, s.think_a.max_s, s.think_b.moves, s.think_b.p95_s) == (3, 0.3, 3, 0.004)
    assert format_summary(s) == (
        "A = normal, B = greedy: 5 deal pairs, 10 games\n"
        "score of A: 6.5 / 10 = 0.650  (95% CI 0.131 .. 1.000, over pairs)\n"
        "Elo difference A - B: +108  (95% CI -329 .. no upper bound: not enough pairs)\n"
        "deal pairs by outcome:\n"
        "  A won both                2\n"
        "  A won one, drew one       1\n"
        "  split (one win each)      1\n"
        "  both drawn                0\n"
        "  B won one, drew one       0\n"
        "  B won both                1\n"
        "mean plies per deal: 22.0\n"
        "think per move, A (normal): mean 200.0 ms, p95 300.0 ms, max 300.0 ms over 3 moves\n"
        "think per move, B (greedy): mean 2.3 ms, p95 4.0 ms, max 4.0 ms over 3 moves\n"
    )


def test_summary_of_one_pair_and_of_none() -> None:
    s = summarize("random", "random", [pair(0, DRAW, DRAW)])
    assert (s.score, s.ci_low, s.ci_high, s.elo) == (0.5, 0.5, 0.5, 0.0)
    with pytest.raises(ValueError, match="no deal pairs"):
        summarize("random", "random", [])


def test_pair_setup_is_derived_from_seed_and_index() -> None:
    a = pair_setup(0, 0)
    assert a == pair_setup(0, 0)
    assert a.seed == hashlib.sha256(b"p2ptrumps/arena/v1" + bytes(12)).digest()
    assert a.seed.hex()[:16] == "5908a4b805f1d08d"
    assert (a.trumps, a.dealer) == ((1, 0), 1)
    others = [pair_setup(0, i) for i in range(1, 20)] + [pair_setup(-1, 0)]
    assert len({o.seed for o in others} | {a.seed}) == 21
    assert all(o.trumps[0] != o.trumps[1] for o in others)


def test_tiny_arena_run_writes_replayable_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["arena", "random", "random", "--deals", "2", "--seed", "5", "--think", "0.01",
                   "--log-dir", str(tmp_path)])
    assert status == 0
    out = capsys.readouterr().out
    assert out.startswith("A = random, B = random: 2 deal pairs, 4 games\n")
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["pair-0000-a0.json", "pair-0000-a1.json", "pair-0001-a0.json", "pair-0001-a1.json"]
    for index in (0, 1):
        recs = [MatchRecord.load(tmp_path / f"pair-{index:04d}-a{seat}.json") for seat in (0, 1)]
        setup = pair_setup(5, index)
        for seat, rec in enumerate(recs):
            assert rec.source == "arena" and rec.finished and len(rec.deals) == 1
            assert rec.trumps == setup.trumps
            assert rec.players[seat].name == "A (random)" and rec.players[1 - seat].name == "B (random)"
            deal = rec.deals[0]
            assert (deal.seed, deal.dealer) == (setup.seed, setup.dealer)
            steps = list(rec.replay_deal(deal))
            assert steps[-1][1].outcome == deal.outcome
        assert recs[0].deals[0].hands == recs[1].deals[0].hands


def test_single_pair_summary_gives_no_interval() -> None:
    s = summarize("greedy", "random", [pair(0, WIN_A0, WIN_A1)])
    lines = format_summary(s).splitlines()
    assert lines[:3] == [
        "A = greedy, B = random: 1 deal pair, 2 games",
        "score of A: 2 / 2 = 1.000  (no interval from a single pair)",
        "Elo difference A - B: not measurable, A scored every point (not enough pairs)",
    ]


@pytest.mark.parametrize(("pairs", "elo_line"), [
    ([pair(i, DRAW, DRAW) for i in range(4)], "Elo difference A - B: 0  (95% CI 0 .. 0)"),
    # Mean 0.4996: an Elo difference of -0.29, printed as "0" (it used to be "-0").
    ([pair(0, WIN_A1, DRAW)] + [pair(i, DRAW, DRAW) for i in range(1, 601)],
     "Elo difference A - B: 0  (95% CI -1 .. 0)"),
    ([pair(0, WIN_A1, WIN_A0), pair(1, WIN_A1, WIN_A0)],
     "Elo difference A - B: not measurable, B scored every point (not enough pairs)"),
    # Mean 0.0625, CI 0 .. 0.261: the low end has no Elo value.
    ([pair(0, WIN_A1, WIN_A0), pair(1, WIN_A1, WIN_A0), pair(2, WIN_A1, WIN_A0), pair(3, DRAW, WIN_A0)],
     "Elo difference A - B: -470  (95% CI no lower bound .. -180: not enough pairs)"),
    ([pair(0, WIN_A1, WIN_A0), pair(1, DRAW, WIN_A0)], "Elo difference A - B: -338  (95% CI: not enough pairs)"),
])
def test_elo_line_has_no_minus_zero_and_no_infinite_interval(pairs: list[PairResult], elo_line: str) -> None:
    lines = format_summary(summarize("random", "random", pairs)).splitlines()
    assert lines[2] == elo_line
    assert "-0 " not in lines[2] and "inf" not in lines[2] and "beyond" not in lines[2]


def test_arena_refuses_a_log_dir_it_cannot_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert main(["arena", "random", "random", "--deals", "1", "--log-dir", str(a_file)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"p2ptrumps arena: cannot write records to {a_file}: ")
    used = tmp_path / "used"
    used.mkdir()
    (used / "pair-0000-a0.json").write_text("{}")
    assert main(["arena", "random", "random", "--deals", "1", "--log-dir", str(used)]) == 2
    assert capsys.readouterr().err == (
        f"p2ptrumps arena: {used} already holds arena records (pair-*.json); choose an empty --log-dir\n"
    )
    assert sorted(p.name for p in used.iterdir()) == ["pair-0000-a0.json"]


def test_arena_seed_must_fit_64_bits(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["arena", "random", "random", "--seed", str(2**63)])
    assert exc.value.code == 2
    assert "'9223372036854775808' is out of range (a signed 64-bit number)" in capsys.readouterr().err


# ----- node budgets and the sequential test ---------------------------------------------------


def test_sprt_llr_by_hand() -> None:
    from p2ptrumps.commands.arena import score_of_elo, sprt, sprt_llr

    # n = 6 pairs, mean 0.75; with the made-up pairs 1/4 and 3/4: 8 scores, mean 0.6875, variance
    # 0.71875 / 8 = 0.08984375; s0 = 0.5, s1 = score_of_elo(50) = 0.57146
    s1 = score_of_elo(50)
    assert s1 == pytest.approx(0.571463, abs=1e-6)
    assert sprt_llr([1, 0.75, 0.5, 1, 0.25, 1], 0, 50) == pytest.approx(
        6 * (s1 - 0.5) * (1.5 - 0.5 - s1) / (2 * 0.08984375))
    assert sprt_llr([1, 0.75, 0.5, 1, 0.25, 1], 0, 50) == pytest.approx(1.02259, abs=1e-5)
    assert sprt_llr([1], 0, 50) == 0.0
    r = sprt([0.5, 0.25, 0.5, 0.5, 0.75, 0.5] * 5, 0, 200)
    assert (r.pairs, r.decision) == (30, "H0")
    assert r.lower == pytest.approx(-2.944439) and r.upper == pytest.approx(2.944439)
    assert sprt([1, 0.75] * 3, 0, 400).decision == "H1"
    assert sprt([1, 0.5, 0.75], -50, 50).decision == ""


def test_sprt_lines() -> None:
    from p2ptrumps.commands.arena import SprtResult, format_sprt

    assert format_sprt(SprtResult(0, 50, 17, 3.01, -2.94, 2.94, "H1")) == (
        "SPRT [0, 50]: stopped after 17 pairs: A is stronger by 50 Elo or more "
        "(H1 accepted; LLR +3.01, bounds -2.94 .. +2.94)")
    assert format_sprt(SprtResult(-10, 20, 1, -3.5, -2.94, 2.94, "H0")) == (
        "SPRT [-10, 20]: stopped after 1 pair: A is not stronger by more than -10 Elo "
        "(H0 accepted; LLR -3.50, bounds -2.94 .. +2.94)")
    assert format_sprt(SprtResult(0, 50, 40, 0.5, -2.94, 2.94, "")) == (
        "SPRT [0, 50]: no decision after 40 pairs (LLR +0.50, bounds -2.94 .. +2.94)")


def test_arena_stops_early_on_the_sprt_and_node_budgets_repeat(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "strong", "random", "--deals", "30", "--seed", "3", "--nodes", "2000,1000", "--sprt", "0,400"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("SPRT [0, 400]: stopped after ")
    assert "A is stronger by 400 Elo or more (H1 accepted" in out[1]
    pairs = int(out[0].split(": ")[1].split()[0])
    assert 3 <= pairs < 30 and out[1].startswith(f"SPRT [0, 400]: stopped after {pairs} pairs")
    assert main(argv) == 0
    again = capsys.readouterr().out.splitlines()
    assert again[:-2] == out[:-2]  # the same games: only the think times may differ


@pytest.mark.parametrize(("text", "error"), [("100", "at least 1000"), ("abc", "not a number of nodes"),
                                              ("1k,2k,3k", "N for both sides"), ("0,50x", "two Elo")])
def test_bad_budgets_and_bounds(text: str, error: str, capsys: pytest.CaptureFixture[str]) -> None:
    option = "--sprt" if "x" in text else "--nodes"
    with pytest.raises(SystemExit):
        main(["arena", "greedy", "random", option, text])
    assert error in capsys.readouterr().err


def test_node_budget_arguments() -> None:
    from p2ptrumps.commands.main import node_pair_arg, nodes_arg, sprt_arg

    assert (nodes_arg("200k"), nodes_arg("2M"), nodes_arg("1500")) == (200_000, 2_000_000, 1500)
    assert (node_pair_arg("3m,50k"), node_pair_arg("10k")) == ((3_000_000, 50_000), (10_000, 10_000))
    assert sprt_arg("0,50") == (0.0, 50.0)
    with pytest.raises(argparse.ArgumentTypeError, match="ELO0 < ELO1"):
        sprt_arg("50,0")


def test_think_gives_each_side_its_own_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--think S,T``: A thinks S seconds per move and B T (a level against itself at double time)."""
    from p2ptrumps.commands import arena
    from p2ptrumps.commands.main import build_parser

    parse = build_parser().parse_args
    assert parse(["arena", "strong", "strong", "--think", "0.2,0.4"]).think == (0.2, 0.4)
    assert parse(["arena", "strong", "strong", "--think", "0.3"]).think == (0.3, 0.3)
    assert parse(["arena", "strong", "strong"]).think == (0.1, 0.1)
    for bad in ("0.1,0.2,0.3", "0.1,0", "x,0.1"):
        with pytest.raises(SystemExit):
            parse(["arena", "strong", "strong", "--think", bad])
    asked: list[tuple[str, float]] = []
    real = arena.choose_move

    def spy(position: object, level: str, budget_s: float, *args: object) -> object:
        asked.append((level, budget_s))
        return real(position, level, budget_s, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(arena, "choose_move", spy)
    task = arena.PairTask(0, 7, "random", "greedy", 0.25, RuleSet(), None, think_b=0.5)
    arena.play_pair(task)
    assert set(asked) == {("random", 0.25), ("greedy", 0.5)}
