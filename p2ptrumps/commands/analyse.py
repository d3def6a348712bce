"""``p2ptrumps analyse RECORD_OR_LOG [--json] [--budget S] [--nodes N] [--depth PLIES] [--estimate-nodes N]
[--svg FILE]``: judge every move of a saved match.

A game record (``protocol/record.md``) or a networked match log (``protocol/wire.md``; checked and
turned into a record by the same path as ``replay``:
:func:`p2ptrumps.commands.replay.load_match_log`) is replayed, and each deal's positions are solved
as the hint solves them (:func:`p2ptrumps.ai.analysis.analyse_deal`, from the end of the deal
backwards, ``--budget`` seconds or ``--nodes`` nodes each).  Each move whose positions were solved
is marked as keeping the value or throwing it ("threw a forced win (best: 10♠/K♦ wins in 3); now a
draw"), and each player gets a summary: accuracy (the share of judged moves that kept the value) and
blunders.  The other moves are judged against the hint of the same budget: the hint's move gets no
grade, another move is graded by the expected score it gives away (its position and the hint's
estimated alike, ``--depth`` plies deep, ``--estimate-nodes`` nodes at most each: the same on every
machine), a networked match's as an offline record's, marked ``estimate`` (inaccuracy, mistake,
blunder: thresholds in :mod:`p2ptrumps.ai.analysis`).  Under each deal, a sparkline shows the
expected score of seat 0 after each move; ``--svg FILE`` writes the same value graph as a standalone
SVG file.

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
    seat0_advantages,
    short_label,
    summarize,
)
from ..ai.engine import COMPILED, plies_of, verdict
from ..command import CommandError
from ..i18n import _, ngettext, padded, tr
from ..record import MatchRecord, RecordError
from ..ui.replay import AnalysisBudget, load_any, player_names, register_loader, replay_steps, value_text
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
    budget = AnalysisBudget(budget_s, solve_nodes, estimate_nodes, estimate_depth)
    out = []
    for number, deal_steps in enumerate(replay_steps(record), 1):

        def show(done: int, total: int, number: int = number, estimated: bool = False) -> None:
            if progress:
                what = (_("deal %(number)d: %(done)d/%(total)d open moves estimated", number=number, done=done,
                          total=total) if estimated
                        else _("deal %(number)d: %(done)d/%(total)d positions solved", number=number, done=done,
                               total=total))
                print(f"\r  {what}  ", end="", file=sys.stderr, flush=True)

        def estimating(done: int, total: int, number: int = number) -> None:
            show(done, total, number, True)

        out.append(budget.analyse(deal_steps, show, estimating))
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
    blunder), ``advantage`` (centi-cards for the mover after the move, or null) and ``bound`` (true when
    ``before`` follows from ``after``, a proven win: its plies are an upper bound)), and ``players``
    (per seat its ``name``, ``judged``, ``kept``, ``blunders``, ``mistakes``, ``inaccuracies``,
    ``estimated``, ``unknown`` and ``accuracy``, 0..1 or null).  A deal without moves (resigned or
    drawn at once) has ``moves`` ``[]``, as the text says "no moves in this deal" and the SVG "no moves"."""
    deals = []
    for deal, deal_verdicts in zip(record.deals, verdicts, strict=True):
        deals.append({
            "number": deal.number,
            "moves": [{
                "number": v.number, "seat": v.seat, "move": v.move.code, "kind": v.kind, "text": v.text(True),
                "before": _value_json(v.before), "after": _value_json(v.after),
                "best": v.best.code if v.best is not None else None, "grade": v.grade,
                "advantage": v.score_after, "bound": v.bound,
            } for v in deal_verdicts],
        })
    players = []
    for s in summarize([v for d in verdicts for v in d]):
        players.append({"seat": s.seat, "name": record.players[s.seat].name, "judged": s.judged, "kept": s.kept,
                        "blunders": s.blunders, "mistakes": s.mistakes, "inaccuracies": s.inaccuracies,
                        "estimated": s.estimated, "unknown": s.unknown, "accuracy": s.accuracy})
    return {"file": path, "budget_s": budget_s, "compiled": COMPILED, "deals": deals, "players": players}


#: The SVG's smallest width (user units): room for its heading and legend however short the game.
SVG_MIN_WIDTH = 400
#: The room (user units) of a deal without moves in the SVG: its "no moves" and "deal N" side by side
#: with the next deal's, not on top of them.
SVG_NO_MOVES_WIDTH = 64


def svg_graph(record: MatchRecord, verdicts: list[list[MoveVerdict]]) -> str:
    """The value graph as a standalone SVG document (text): the advantage of seat 0 after each
    move of every deal, one after another, as a polyline per deal (unknown moves skipped) over a
    zero line, from the advantage before the deal's first move; above the line seat 0 is ahead,
    ``±ADVANTAGE_CAP`` 100 units from it (y 50..250, the zero line at 150).  Width
    ``max(SVG_MIN_WIDTH, 40 + 8 * moves + SVG_NO_MOVES_WIDTH * deals without moves)`` by 300 user
    units.  The elements: ``title``, ``rect``, the heading ``text`` (y 18), the legend: a ``text``
    "↑ NAME (seat 0) ahead" above the graph (y 40) and "↓ NAME (seat 1) ahead" below it (y 270), the
    zero ``line``, then per deal a ``polyline`` (for a deal without moves, a ``text`` "no moves" over
    the zero line in its place, :data:`SVG_NO_MOVES_WIDTH` wide) and a ``text`` "deal N" under the
    legend (y 290), and a dashed ``line`` where each deal after the first starts."""
    names = player_names(record)
    total = sum(len(d) if d else SVG_NO_MOVES_WIDTH // 8 for d in verdicts)
    width, height, mid, scale = max(SVG_MIN_WIDTH, 40 + 8 * total), 300, 150, 100 / ADVANTAGE_CAP
    esc = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;", ord('"'): "&quot;"}
    a, b = (n.translate(esc) for n in names)
    heading = f"{a} vs {b}: the advantage after each move"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             f"<title>{heading}</title>",
             f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
             f'<text x="20" y="18" font-weight="bold">{heading}</text>',
             f'<text x="20" y="40" fill="#2e7d32">↑ {a} (seat 0) ahead</text>',
             f'<text x="20" y="270" fill="#c62828">↓ {b} (seat 1) ahead</text>',
             f'<line x1="20" y1="{mid}" x2="{width - 20}" y2="{mid}" stroke="#999" stroke-width="1"/>']
    x0 = 20
    for deal, dv in zip(record.deals, verdicts, strict=True):
        first = dv[0].score_before if dv else None
        start = 0 if first is None else first if dv[0].seat == 0 else -first
        points = [f"{x0},{mid - round(start * scale)}"]
        for i, adv in enumerate(seat0_advantages(dv), 1):
            if adv is not None:
                points.append(f"{x0 + 8 * i},{mid - round(adv * scale)}")
        if x0 > 20:
            parts.append(f'<line x1="{x0}" y1="50" x2="{x0}" y2="250" stroke="#bbb" stroke-dasharray="4 3"/>')
        if dv:
            parts.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="#1565c0" stroke-width="2"/>')
        else:
            parts.append(f'<text x="{x0 + 4}" y="{mid - 6}" fill="#555">no moves</text>')
        parts.append(f'<text x="{x0}" y="290" fill="#555">deal {deal.number}</text>')
        x0 += 8 * len(dv) if dv else SVG_NO_MOVES_WIDTH
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def format_text(path: str, record: MatchRecord, verdicts: list[list[MoveVerdict]], budget_s: float,
                ascii_only: bool, nodes: int = 0) -> str:
    """The printed analysis (lines end with a newline)."""
    names = player_names(record)
    core = _("compiled core") if COMPILED else _("pure-Python core")
    per = (ngettext("%(n)d node", "%(n)d nodes", nodes) if nodes
           else _("%(seconds)s s", seconds=f"{budget_s:g}"))
    lines = [_("analysis of %(path)s (%(budget)s per position, %(core)s)", path=printable(path), budget=per,
               core=core)]
    for i, (deal, deal_verdicts) in enumerate(zip(record.deals, verdicts, strict=True)):
        result = tr(record.deal_result_text(i, names))
        lines += ["", _("deal %(number)d: %(result)s", number=deal.number, result=result)]
        for v in deal_verdicts:
            who = padded(_("seat %(seat)d %(name)s", seat=v.seat, name=tr(names[v.seat])), 20)
            move = padded(tr(short_label(v.move, ascii_only)), 9)
            lines.append(f"  {v.number:>4}. {who} {move} {tr(v.text(ascii_only))}")
        lines.append(f"  {value_text(names, deal_verdicts, ascii_only)}")
    lines += ["", _("summary (forced moves and moves in lost positions not counted):")]
    for s in summarize([v for d in verdicts for v in d]):
        lines.append("  " + tr(s.text(names[s.seat])))
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
        raise CommandError(tr(exc)) from None
    svg = getattr(args, "svg", None)
    if svg:
        try:
            with open(svg, "w", encoding="utf-8") as f:
                f.write(svg_graph(record, verdicts))
        except OSError as exc:
            raise CommandError(_("cannot write %(path)s: %(why)s", path=svg, why=exc.strerror or str(exc))) from None
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
