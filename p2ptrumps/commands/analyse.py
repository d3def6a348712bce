"""``p2ptrumps analyse RECORD_OR_LOG [--json] [--budget S] [--nodes N] [--depth PLIES] [--estimate-nodes N]
[--svg FILE]``: judge every move of a saved match.

A game record (``protocol/record.md``) or a networked match log
(``protocol/wire.md``; checked and turned into a record by the same path as
``replay``: :func:`p2ptrumps.commands.replay.load_match_log`) is replayed, and each
deal's positions are solved (:func:`p2ptrumps.ai.analysis.analyse_deal`, from
the end of the deal backwards, ``--budget`` seconds or ``--nodes`` nodes each).  Each move whose
positions were solved is marked as keeping the value or throwing it ("threw a
forced win (best: 10♠/K♦ wins in 3); now a draw"), and each player gets a
summary: accuracy (the share of judged moves that kept the value) and blunders.
Moves the solver leaves unknown get the search's estimate (every legal move
``--depth`` plies deep, ``--estimate-nodes`` nodes at most each: the same on
every machine), a networked match's as an offline record's, marked ``estimate`` and
graded (inaccuracy, mistake, blunder: thresholds in :mod:`p2ptrumps.ai.analysis`).
Under each deal, a sparkline shows the advantage of seat 0 after each move;
``--svg FILE`` writes the same value graph as a standalone SVG file.

Exit status: 0; 2 when the file cannot be read or does not check out, or the SVG
file cannot be written (a :class:`~p2ptrumps.command.CommandError`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..ai.analysis import (
    ADVANTAGE_CAP,
    ESTIMATE_DEPTH,
    ESTIMATE_NODES,
    MoveVerdict,
    analyse_deal,
    short_label,
    summarize,
)
from ..ai.engine import COMPILED, plies_of, verdict
from ..command import CommandError
from ..record import MatchRecord, RecordError
from ..ui.replay import load_any, register_loader, replay_steps
from ..ui.terminal import choose_ascii
from ..ui.view import asciify, printable
from .replay import load_match_log


def analyse_record(record: MatchRecord, budget_s: float, progress: bool = False, solve_nodes: int = 0,
                   estimate_nodes: int = ESTIMATE_NODES,
                   estimate_depth: int = ESTIMATE_DEPTH) -> list[list[MoveVerdict]]:
    """The verdicts of every deal of ``record`` (each deal replayed and checked first): solved with
    ``budget_s`` seconds or ``solve_nodes`` nodes (when not 0) per position, estimated with
    ``estimate_nodes`` nodes at most and ``estimate_depth`` plies where not solved (0 nodes: left unknown).

    Raises :class:`RecordError` naming the fault when a deal does not replay."""
    steps = replay_steps(record)
    out = []
    for number, deal_steps in enumerate(steps, 1):
        positions = [s.position for s in deal_steps]
        moves = [s.move for s in deal_steps[1:] if s.move is not None]

        def show(done: int, total: int, number: int = number) -> None:
            if progress:
                print(f"\r  deal {number}: {done}/{total} positions", end="", file=sys.stderr, flush=True)

        out.append(analyse_deal(positions, moves, budget_s, progress=show, solve_nodes=solve_nodes,
                                estimate_nodes=estimate_nodes, estimate_depth=estimate_depth))
        if progress:
            print(file=sys.stderr)
    return out


def _value_json(value: int | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"verdict": verdict(value), "plies": plies_of(value)}


def report(path: str, record: MatchRecord, verdicts: list[list[MoveVerdict]], budget_s: float) -> dict[str, Any]:
    """The JSON report (``analyse --json`` adds ``nodes``, ``depth`` and ``estimate_nodes``, the
    budgets it ran with): ``file``, ``budget_s``, ``compiled``, ``deals`` (per deal its ``number`` and
    ``moves``: ``number``, ``seat``, ``move`` code, ``kind`` (kept, slower, threw-win, threw-draw,
    lost, forced, estimate, unknown), ``text``, ``before`` / ``after`` (``verdict`` and ``plies`` for
    the mover, or null), ``best`` (a best move's code or null), ``grade`` ("", inaccuracy, mistake,
    blunder) and ``advantage`` (centi-cards for the mover after the move, or null)), and ``players``
    (per seat its ``name``, ``judged``, ``kept``, ``blunders``, ``mistakes``, ``inaccuracies``,
    ``estimated``, ``unknown`` and ``accuracy``, 0..1 or null)."""
    deals = []
    for deal, deal_verdicts in zip(record.deals, verdicts, strict=True):
        deals.append({
            "number": deal.number,
            "moves": [{
                "number": v.number, "seat": v.seat, "move": v.move.code, "kind": v.kind, "text": v.text(True),
                "before": _value_json(v.before), "after": _value_json(v.after),
                "best": v.best.code if v.best is not None else None, "grade": v.grade,
                "advantage": v.score_after,
            } for v in deal_verdicts],
        })
    players = []
    for s in summarize([v for d in verdicts for v in d]):
        players.append({"seat": s.seat, "name": record.players[s.seat].name, "judged": s.judged, "kept": s.kept,
                        "blunders": s.blunders, "mistakes": s.mistakes, "inaccuracies": s.inaccuracies,
                        "estimated": s.estimated, "unknown": s.unknown, "accuracy": s.accuracy})
    return {"file": path, "budget_s": budget_s, "compiled": COMPILED, "deals": deals, "players": players}


SPARK = "▁▂▃▄▅▆▇█"
#: The sparkline's eight levels in ASCII, lowest first.
SPARK_ASCII = "_.-~=+*#"


def seat0_advantages(verdicts: list[MoveVerdict]) -> list[int | None]:
    """The advantage of seat 0 after each move (centi-cards, ``±ADVANTAGE_CAP``; None: unknown)."""
    out: list[int | None] = []
    for v in verdicts:
        a = v.score_after
        out.append(None if a is None else a if v.seat == 0 else -a)
    return out


def sparkline(values: list[int | None], ascii_only: bool = False) -> str:
    """One character per value in eight levels from ``-ADVANTAGE_CAP`` (lowest) to ``ADVANTAGE_CAP``
    (highest); ``?`` for an unknown value."""
    levels = SPARK_ASCII if ascii_only else SPARK
    out = []
    for v in values:
        if v is None:
            out.append("?")
        else:
            out.append(levels[min(7, (v + ADVANTAGE_CAP) * 8 // (2 * ADVANTAGE_CAP + 1))])
    return "".join(out)


def svg_graph(record: MatchRecord, verdicts: list[list[MoveVerdict]]) -> str:
    """The value graph as a standalone SVG document (text): the advantage of seat 0 after each
    move of every deal, one after another, as a polyline per deal (unknown moves skipped) over a
    zero line, from the advantage before the deal's first move; above the line seat 0 is ahead,
    ``±ADVANTAGE_CAP`` 100 units from it.  Width ``40 + 8 * moves`` by 240 user units; the elements:
    ``title``, ``rect``, ``line``, then a ``polyline`` and a ``text`` per deal."""
    names = (printable(record.players[0].name), printable(record.players[1].name))
    total = sum(len(d) for d in verdicts)
    width, height, mid, scale = 40 + 8 * total, 240, 120, 100 / ADVANTAGE_CAP
    esc = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;", ord('"'): "&quot;"}
    title = f"{names[0]} (above) vs {names[1]} (below): advantage after each move".translate(esc)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             f"<title>{title}</title>",
             f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
             f'<line x1="20" y1="{mid}" x2="{width - 20}" y2="{mid}" stroke="#999" stroke-width="1"/>']
    x0 = 20
    for deal, dv in zip(record.deals, verdicts, strict=True):
        first = dv[0].score_before if dv else None
        start = 0 if first is None else first if dv[0].seat == 0 else -first
        points = [f"{x0},{mid - round(start * scale)}"]
        for i, a in enumerate(seat0_advantages(dv), 1):
            if a is not None:
                points.append(f"{x0 + 8 * i},{mid - round(a * scale)}")
        parts.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="#1565c0" stroke-width="2"/>')
        parts.append(f'<text x="{x0}" y="14">deal {deal.number}</text>')
        x0 += 8 * len(dv)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def format_text(path: str, record: MatchRecord, verdicts: list[list[MoveVerdict]], budget_s: float,
                ascii_only: bool, nodes: int = 0) -> str:
    """The printed analysis (lines end with a newline)."""
    names = (printable(record.players[0].name), printable(record.players[1].name))
    core = "compiled core" if COMPILED else "pure-Python core"
    per = f"{nodes} nodes" if nodes else f"{budget_s:g} s"
    lines = [f"analysis of {printable(path)} ({per} per position, {core})"]
    for deal, deal_verdicts in zip(record.deals, verdicts, strict=True):
        result = deal.outcome.describe(names) if deal.outcome is not None else "unfinished"
        lines += ["", f"deal {deal.number}: {result}"]
        for v in deal_verdicts:
            who = f"seat {v.seat} {names[v.seat]}"
            lines.append(f"  {v.number:>4}. {who:<20} {short_label(v.move, ascii_only):<9} {v.text(ascii_only)}")
        lines.append(f"  value (seat 0 {names[0]} high): {sparkline(seat0_advantages(deal_verdicts), ascii_only)}")
    lines += ["", "summary (forced moves and moves in lost positions not counted):"]
    for s in summarize([v for d in verdicts for v in d]):
        lines.append("  " + s.text(names[s.seat]))
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Entry point of ``p2ptrumps analyse``: 0; raises :class:`~p2ptrumps.command.CommandError`
    (status 2) when the file cannot be read or does not check out."""
    register_loader(load_match_log)
    try:
        record = load_any(args.file)
        verdicts = analyse_record(record, args.budget, progress=sys.stderr.isatty() and not args.json,
                                  solve_nodes=getattr(args, "nodes", 0),
                                  estimate_nodes=getattr(args, "estimate_nodes", ESTIMATE_NODES),
                                  estimate_depth=getattr(args, "depth", ESTIMATE_DEPTH))
    except RecordError as exc:
        raise CommandError(str(exc)) from None
    svg = getattr(args, "svg", None)
    if svg:
        try:
            with open(svg, "w", encoding="utf-8") as f:
                f.write(svg_graph(record, verdicts))
        except OSError as exc:
            raise CommandError(f"cannot write {svg}: {exc.strerror or exc}") from None
    if args.json:
        data = report(str(args.file), record, verdicts, args.budget)
        data.update(nodes=getattr(args, "nodes", 0), depth=getattr(args, "depth", ESTIMATE_DEPTH),
                    estimate_nodes=getattr(args, "estimate_nodes", ESTIMATE_NODES))
        print(json.dumps(data, ensure_ascii=False))
    else:
        ascii_only = choose_ascii(bool(args.ascii), bool(getattr(args, "unicode", False)))[0]
        text = format_text(str(args.file), record, verdicts, args.budget, ascii_only, getattr(args, "nodes", 0))
        print(asciify(text) if ascii_only else text, end="")
    return 0
