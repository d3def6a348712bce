"""``p2ptrumps arena``: AI against AI, headless, on duplicate deals.

Deal pair ``i`` (0-based) has its seed, trumps and dealer derived from
``--seed`` and ``i`` (:func:`pair_setup`); it is played twice with the same
seed, trumps and dealer, level A in seat 0 the first time and in seat 1 the
second, so each level plays both hands.  The score of A is the mean over pairs
of A's points in the pair divided by 2 (win 1, draw ½); its 95 % confidence
interval is a Student t interval over the pair scores (pairs are the
independent units).  Games run synchronously on the match machine (:class:`~p2ptrumps.match.Match`);
``--jobs`` spreads pairs over processes.

Budgets: ``--think S`` seconds per move (``S,T``: S for A, T for B, e.g. a level
against itself at double time), or ``--nodes N`` (``N,M``: N for A, M for B)
positions searched per move, which makes the result independent of the
machine and its load.  ``--sprt ELO0,ELO1`` stops early once a sequential
probability ratio test (:func:`sprt_llr`, error rates 5 % both ways) decides
between "A is ELO0 stronger" and "A is ELO1 stronger", and says so.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from ..ai import choose_move
from ..command import CommandError
from ..files import prepare_dir
from ..i18n import _, columns, ngettext, tr
from ..match import Deal, Match
from ..message import N_
from ..record import MatchRecord, PlayerInfo
from ..rules import Outcome, RuleSet
from ..seats import started_now
from ..shuffle import first_dealer
from ..text import counted

ARENA_TAG = b"p2ptrumps/arena/v1"

#: Pair outcome categories by A's half-points in the pair (win 2, draw 1 per game), in print order.
CATEGORIES: tuple[tuple[str, str], ...] = (
    (N_("A won both"), "WW"),
    (N_("A won one, drew one"), "WD"),
    (N_("split (one win each)"), "WL"),
    (N_("both drawn"), "DD"),
    (N_("B won one, drew one"), "DL"),
    (N_("B won both"), "LL"),
)


@dataclass(frozen=True)
class GameResult:
    """One game of a pair: A's seat (0/1), the outcome, the plies played and the
    think times (seconds) of every move A and B chose."""

    a_seat: int
    outcome: Outcome
    plies: int
    think_a: tuple[float, ...]
    think_b: tuple[float, ...]

    @property
    def a_points(self) -> float:
        """A's points: 1 win, 0.5 draw, 0 loss."""
        return self.outcome.points(self.a_seat) / 2


@dataclass(frozen=True)
class PairResult:
    """Deal pair ``index``: its two games (A in seat 0, then A in seat 1)."""

    index: int
    games: tuple[GameResult, GameResult]

    @property
    def score(self) -> float:
        """A's mean points over the two games, 0..1."""
        return (self.games[0].a_points + self.games[1].a_points) / 2

    @property
    def category(self) -> str:
        """Two letters, A's result in each game sorted best first: ``WW``, ``WD``, ``WL``, ``DD``, ``DL``, ``LL``."""
        letters = sorted("W" if g.a_points == 1 else "D" if g.a_points == 0.5 else "L" for g in self.games)
        order = "WDL"
        return "".join(sorted(letters, key=order.index))


@dataclass(frozen=True)
class ThinkStats:
    """Think time per move (seconds) of one side: moves counted, mean, p95 (nearest rank), max."""

    moves: int
    mean_s: float
    p95_s: float
    max_s: float


@dataclass(frozen=True)
class Summary:
    """Everything ``arena`` prints; :func:`summarize` computes it, :func:`format_summary` prints it."""

    level_a: str
    level_b: str
    pairs: int
    games: int
    points_a: float
    score: float
    ci_low: float
    ci_high: float
    categories: tuple[tuple[str, int], ...]
    elo: float
    elo_low: float
    elo_high: float
    mean_plies: float
    think_a: ThinkStats
    think_b: ThinkStats
    sprt: SprtResult | None = None


# ----- statistics ---------------------------------------------------------------


def t_two_sided_cdf(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with ``df`` >= 1 degrees of freedom (exact series,
    Abramowitz & Stegun 26.7.3-4).  ``t`` >= 0."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    s = math.sin(theta)
    if df % 2 == 1:
        total, term = 0.0, 1.0
        if df > 1:
            term = math.cos(theta)
            total = term
            for k in range(3, df - 1, 2):
                term *= c2 * (k - 1) / k
                total += term
        return (2 / math.pi) * (theta + s * total) if df > 1 else 2 * theta / math.pi
    total, term = 1.0, 1.0
    for k in range(2, df - 1, 2):
        term *= c2 * (k - 1) / k
        total += term
    return s * total


def t_quantile_95(df: int) -> float:
    """The two-sided 95 % critical value of Student's t with ``df`` >= 1 degrees of freedom
    (bisection on :func:`t_two_sided_cdf`; 12.706 for 1, 1.960 in the limit).  ``ValueError`` if df < 1."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    lo, hi = 0.0, 1000.0
    for _step in range(200):
        mid = (lo + hi) / 2
        if t_two_sided_cdf(mid, df) < 0.95:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def elo_of(score: float) -> float:
    """Elo difference of an expected score 0..1 (``-400 log10(1/score - 1)``; ±inf at 1 and 0)."""
    if score >= 1:
        return math.inf
    if score <= 0:
        return -math.inf
    return -400 * math.log10(1 / score - 1)


def percentile_95(values: Sequence[float]) -> float:
    """The 95th percentile by nearest rank (the ``ceil(0.95 n)``-th smallest); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def think_stats(times: Sequence[float]) -> ThinkStats:
    """:class:`ThinkStats` of a list of think times in seconds."""
    if not times:
        return ThinkStats(0, 0.0, 0.0, 0.0)
    return ThinkStats(len(times), sum(times) / len(times), percentile_95(times), max(times))


def summarize(level_a: str, level_b: str, pairs: Sequence[PairResult]) -> Summary:
    """The arena summary of finished pairs (a pure function; ``ValueError`` if there are none).

    The 95 % interval is mean ± t(0.975, n-1) · sd / √n over the pair scores (sd with n-1;
    a single pair gives a zero-width interval), clipped to [0, 1]; the Elo interval maps its ends.
    """
    if not pairs:
        raise ValueError("no deal pairs to summarize")
    n = len(pairs)
    scores = [p.score for p in pairs]
    mean = sum(scores) / n
    if n > 1:
        sd = math.sqrt(sum((x - mean) ** 2 for x in scores) / (n - 1))
        half = t_quantile_95(n - 1) * sd / math.sqrt(n)
    else:
        half = 0.0
    low, high = max(0.0, mean - half), min(1.0, mean + half)
    counts = {code: 0 for _, code in CATEGORIES}
    for p in pairs:
        counts[p.category] += 1
    games = [g for p in pairs for g in p.games]
    return Summary(
        level_a=level_a,
        level_b=level_b,
        pairs=n,
        games=len(games),
        points_a=sum(g.a_points for g in games),
        score=mean,
        ci_low=low,
        ci_high=high,
        categories=tuple((label, counts[code]) for label, code in CATEGORIES),
        elo=elo_of(mean),
        elo_low=elo_of(low),
        elo_high=elo_of(high),
        mean_plies=sum(g.plies for g in games) / len(games),
        think_a=think_stats([t for g in games for t in g.think_a]),
        think_b=think_stats([t for g in games for t in g.think_b]),
    )


def _elo_text(x: float) -> str:
    """An Elo difference rounded to a whole number, signed, with no ``-0``: ``+108``, ``0``, ``-42``."""
    r = round(x)
    return "0" if r == 0 else f"{r:+d}"


def _elo_line(s: Summary) -> str:
    """``Elo difference A - B: +108  (95% CI -329 .. no upper bound: not enough pairs)``.

    A score of 1 or 0 (or an interval end there) has no finite Elo difference: the
    line says so, and that more pairs are needed, instead of printing infinity."""
    if math.isinf(s.elo):
        return _("Elo difference A - B: not measurable, %(side)s scored every point (not enough pairs)",
                 side="A" if s.elo > 0 else "B")
    text = _("Elo difference A - B: %(elo)s", elo=_elo_text(s.elo))
    if s.pairs < 2:
        return text
    low, high = s.elo_low, s.elo_high
    if math.isinf(low) and math.isinf(high):
        return text + "  " + _("(95% CI: not enough pairs)")
    if math.isinf(high):
        return text + "  " + _("(95%% CI %(low)s .. no upper bound: not enough pairs)", low=_elo_text(low))
    if math.isinf(low):
        return text + "  " + _("(95%% CI no lower bound .. %(high)s: not enough pairs)", high=_elo_text(high))
    return text + "  " + _("(95%% CI %(low)s .. %(high)s)", low=_elo_text(low), high=_elo_text(high))


def format_summary(s: Summary) -> str:
    """The printed arena report of a :class:`Summary` (plain text, lines end with newline)."""
    if s.pairs < 2:
        interval = _("(no interval from a single pair)")
    else:
        interval = _("(95%% CI %(low)s .. %(high)s, over pairs)", low=f"{s.ci_low:.3f}", high=f"{s.ci_high:.3f}")
    labels = [(tr(label), count) for label, count in s.categories]
    width = max(columns(label) for label, _count in labels)
    lines = [
        _("A = %(a)s, B = %(b)s: %(pairs)s, %(games)s", a=s.level_a, b=s.level_b, pairs=counted(s.pairs, "deal pair"),
          games=counted(s.games, "game")),
        *([format_sprt(s.sprt)] if s.sprt is not None else []),
        _("score of A: %(points)s / %(games)d = %(score)s", points=f"{s.points_a:g}", games=s.games,
          score=f"{s.score:.3f}") + "  " + interval,
        _elo_line(s),
        _("deal pairs by outcome:"),
        *(f"  {label}{' ' * (width - columns(label))}  {count:>5}" for label, count in labels),
        _("mean plies per deal: %(plies)s", plies=f"{s.mean_plies:.1f}"),
    ]
    for side, level, t in (("A", s.level_a, s.think_a), ("B", s.level_b, s.think_b)):
        lines.append(ngettext(
            "think per move, %(side)s (%(level)s): mean %(mean)s ms, p95 %(slow)s ms, max %(max)s ms over %(n)d move",
            "think per move, %(side)s (%(level)s): mean %(mean)s ms, p95 %(slow)s ms, max %(max)s ms over %(n)d moves",
            t.moves, side=side, level=level, mean=f"{t.mean_s * 1000:.1f}", slow=f"{t.p95_s * 1000:.1f}",
            max=f"{t.max_s * 1000:.1f}"))
    return "\n".join(lines) + "\n"


# ----- the sequential test -----------------------------------------------------------

#: Error rates of the SPRT: alpha (accepting H1 when H0 holds) and beta (the reverse).
SPRT_ALPHA = 0.05
SPRT_BETA = 0.05


@dataclass(frozen=True)
class SprtResult:
    """The state of ``--sprt ELO0,ELO1`` after ``pairs`` pairs: the log-likelihood ratio ``llr``,
    its bounds, and the decision: ``"H1"`` (A is at least ``elo1`` stronger), ``"H0"`` (at most
    ``elo0``) or ``""`` (none yet)."""

    elo0: float
    elo1: float
    pairs: int
    llr: float
    lower: float
    upper: float
    decision: str


def score_of_elo(elo: float) -> float:
    """The expected score 0..1 of an Elo difference (the inverse of :func:`elo_of`)."""
    return 1 / (1 + 10 ** (-elo / 400))


def sprt_llr(scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (Elo difference ``elo1``) against H0 (``elo0``) given the
    pair ``scores`` (each 0, ¼, ½, ¾ or 1): the normal approximation of the generalized SPRT,
    ``n (s1 - s0) (2 m - s0 - s1) / (2 v)``, with ``m`` the mean of the scores, ``s0``, ``s1`` the
    expected scores of the two Elo differences, and ``v`` the variance of the scores together with
    two made-up pairs scoring ¼ and ¾ (so that a few equal results do not make ``v`` zero and the
    ratio infinite).  0 with fewer than two pairs."""
    n = len(scores)
    if n < 2:
        return 0.0
    mean = sum(scores) / n
    padded = [*scores, 0.25, 0.75]
    centre = sum(padded) / len(padded)
    var = sum((x - centre) ** 2 for x in padded) / len(padded)
    s0, s1 = score_of_elo(elo0), score_of_elo(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def sprt(scores: Sequence[float], elo0: float, elo1: float) -> SprtResult:
    """The SPRT state after ``scores`` (see :func:`sprt_llr`); bounds ``log(beta / (1 - alpha))`` and
    ``log((1 - beta) / alpha)`` (±2.94 for 5 % / 5 %)."""
    lower = math.log(SPRT_BETA / (1 - SPRT_ALPHA))
    upper = math.log((1 - SPRT_BETA) / SPRT_ALPHA)
    llr = sprt_llr(scores, elo0, elo1)
    decision = "H1" if llr >= upper else "H0" if llr <= lower else ""
    return SprtResult(elo0, elo1, len(scores), llr, lower, upper, decision)


def format_sprt(r: SprtResult) -> str:
    """One line on the SPRT: stopped early (and why) or not decided."""
    values = {"from_elo": f"{r.elo0:g}", "to_elo": f"{r.elo1:g}", "pairs": counted(r.pairs, "pair"),
              "bounds": _("LLR %(llr)s, bounds %(lower)s .. %(upper)s", llr=f"{r.llr:+.2f}", lower=f"{r.lower:+.2f}",
                          upper=f"{r.upper:+.2f}")}
    if r.decision == "H1":
        return _("SPRT [%(from_elo)s, %(to_elo)s]: stopped after %(pairs)s: A is stronger by %(to_elo)s Elo or "
                 "more (H1 accepted; %(bounds)s)", **values)
    if r.decision == "H0":
        return _("SPRT [%(from_elo)s, %(to_elo)s]: stopped after %(pairs)s: A is not stronger by more than "
                 "%(from_elo)s Elo (H0 accepted; %(bounds)s)", **values)
    return _("SPRT [%(from_elo)s, %(to_elo)s]: no decision after %(pairs)s (%(bounds)s)", **values)


# ----- playing ------------------------------------------------------------------


@dataclass(frozen=True)
class PairSetup:
    """Seed bytes, trumps (seat 0, seat 1) and dealer of a deal pair."""

    seed: bytes
    trumps: tuple[int, int]
    dealer: int


def pair_setup(seed: int, index: int) -> PairSetup:
    """Deal pair ``index`` of arena seed ``seed``: a 32-byte seed
    ``SHA-256(ARENA_TAG || seed as signed 64-bit BE || index as u32 BE)``; trumps from a second
    hash of that seed (seat 0 any suit, seat 1 one of the other three); the dealer by
    :func:`~p2ptrumps.shuffle.first_dealer`."""
    deal_seed = hashlib.sha256(ARENA_TAG + seed.to_bytes(8, "big", signed=True) + index.to_bytes(4, "big")).digest()
    h = hashlib.sha256(ARENA_TAG + b"/trumps" + deal_seed).digest()
    t0 = h[0] % 4
    t1 = (t0 + 1 + h[1] % 3) % 4
    return PairSetup(deal_seed, (t0, t1), first_dealer(deal_seed))


@dataclass(frozen=True)
class PairTask:
    """The work of one deal pair, picklable for a worker process."""

    index: int
    seed: int
    level_a: str
    level_b: str
    think_s: float
    rules: RuleSet
    log_dir: str | None
    nodes_a: int = 0
    nodes_b: int = 0
    #: B's seconds per move when not ``think_s`` (0: the same as A's).
    think_b: float = 0.0


def play_game(task: PairTask, setup: PairSetup, a_seat: int) -> tuple[GameResult, MatchRecord]:
    """Play one game of a pair synchronously; return its result and its one-deal record."""
    levels = [task.level_b, task.level_b]
    levels[a_seat] = task.level_a
    nodes = [task.nodes_b, task.nodes_b]
    nodes[a_seat] = task.nodes_a
    thinks = [task.think_b or task.think_s] * 2
    thinks[a_seat] = task.think_s
    rng_seed = int.from_bytes(hashlib.sha256(setup.seed + bytes([a_seat])).digest()[:8], "big")
    rng = random.Random(rng_seed)
    names = [PlayerInfo(f"B ({task.level_b})", f"ai:{task.level_b}") for _ in range(2)]
    names[a_seat] = PlayerInfo(f"A ({task.level_a})", f"ai:{task.level_a}")
    match = Match(task.rules, trumps=setup.trumps, players=(names[0], names[1]),
                  started=started_now(), source="arena", dealer=setup.dealer)
    match.send(None, Deal(setup.seed))
    think: tuple[list[float], list[float]] = ([], [])
    for _step in range(1 << 62):  # bounded by the rules' repetition or turn limit
        seat, what = match.waiting_for()
        if seat is None or what != "move":
            break
        assert match.position is not None
        t0 = time.perf_counter()
        move = choose_move(match.position, levels[seat], thinks[seat], rng, nodes[seat])
        think[0 if seat == a_seat else 1].append(time.perf_counter() - t0)
        match.send(seat, move)
    record, deal = match.record, match.deal
    assert record is not None and deal is not None and deal.outcome is not None
    result = GameResult(a_seat, deal.outcome, len(deal.moves), tuple(think[0]), tuple(think[1]))
    return result, record


def play_pair(task: PairTask) -> PairResult:
    """Play deal pair ``task.index`` (both seatings); save the records under ``task.log_dir`` if set,
    as ``pair-<index>-a<seat>.json``."""
    setup = pair_setup(task.seed, task.index)
    games = []
    for a_seat in (0, 1):
        result, record = play_game(task, setup, a_seat)
        if task.log_dir is not None:
            record.save(Path(task.log_dir) / f"pair-{task.index:04d}-a{a_seat}.json")
        games.append(result)
    return PairResult(task.index, (games[0], games[1]))


def run_pairs(tasks: Sequence[PairTask], jobs: int, progress: bool = False,
              stop: Callable[[list[PairResult]], bool] | None = None) -> list[PairResult]:
    """Play every pair, in ``jobs`` processes when ``jobs`` > 1; results in task order.

    ``stop(results so far)`` is asked after each pair (in task order): when it says True, no
    further pair is started and the results so far are returned (pairs already running in other
    processes are dropped)."""
    results: list[PairResult] = []
    if jobs <= 1:
        for task in tasks:
            results.append(play_pair(task))
            _progress(progress, len(results), len(tasks))
            if stop is not None and stop(results):
                break
        return results
    pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        for r in pool.map(play_pair, tasks):
            results.append(r)
            _progress(progress, len(results), len(tasks))
            if stop is not None and stop(results):
                break
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return results


def _progress(enabled: bool, done: int, total: int) -> None:
    if enabled and (done % 10 == 0 or done == total):
        print("  " + _("%(done)d/%(total)d pairs", done=done, total=total), file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """The ``arena`` subcommand: play ``args.deals`` duplicate deal pairs of ``args.level_a``
    against ``args.level_b``, print the summary, return 0 (2 with a message when ``--log-dir``
    cannot be used)."""
    rules: RuleSet = getattr(args, "rules", None) or RuleSet()
    if args.log_dir is not None:
        log_dir = Path(args.log_dir)
        try:
            prepare_dir(log_dir)
        except OSError as exc:
            raise CommandError(_("cannot write records to %(path)s: %(why)s", path=str(log_dir),
                                 why=exc.strerror or str(exc))) from None
        if any(log_dir.glob("pair-*.json")):
            raise CommandError(_("%(path)s already holds arena records (%(files)s); choose an empty %(option)s",
                                 path=str(log_dir), files="pair-*.json", option="--log-dir"))
    nodes_a, nodes_b = getattr(args, "nodes", None) or (0, 0)
    think_a, think_b = args.think if isinstance(args.think, tuple) else (args.think, args.think)
    tasks = [
        PairTask(i, args.seed, args.level_a, args.level_b, think_a, rules, args.log_dir, nodes_a, nodes_b, think_b)
        for i in range(args.deals)
    ]
    bounds = getattr(args, "sprt", None)
    stop = None
    if bounds is not None:
        elo0, elo1 = bounds

        def stop(results: list[PairResult]) -> bool:
            return sprt([r.score for r in results], elo0, elo1).decision != ""

    results = run_pairs(tasks, args.jobs, progress=sys.stderr.isatty(), stop=stop)
    summary = summarize(args.level_a, args.level_b, results)
    if bounds is not None:
        summary = replace(summary, sprt=sprt([r.score for r in results], *bounds))
    print(format_summary(summary), end="")
    return 0
