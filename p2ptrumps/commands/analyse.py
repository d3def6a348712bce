"""``p2ptrumps analyse RECORD_OR_LOG [--json] [--budget S]``: judge every move of a saved match.

A game record (``protocol/record.md``) or a networked match log
(``protocol/wire.md``; checked and turned into a record by the same path as
``replay``: :func:`p2ptrumps.commands.replay.load_match_log`) is replayed, and each
deal's positions are solved (:func:`p2ptrumps.ai.analysis.analyse_deal`, from
the end of the deal backwards, ``--budget`` seconds each).  Each move whose
positions were solved is marked as keeping the value or throwing it ("threw a
forced win (best: 10♠/K♦ wins in 3); now a draw"), and each player gets a
summary: accuracy (the share of judged moves that kept the value) and blunders.

Exit status: 0; 2 when the file cannot be read or does not check out (a
:class:`~p2ptrumps.command.CommandError`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..ai.analysis import MoveVerdict, analyse_deal, short_label, summarize
from ..ai.engine import COMPILED, plies_of, verdict
from ..command import CommandError
from ..record import MatchRecord, RecordError
from ..ui.replay import load_any, register_loader, replay_steps
from ..ui.terminal import choose_ascii
from ..ui.view import asciify, printable
from .replay import load_match_log


def analyse_record(record: MatchRecord, budget_s: float, progress: bool = False) -> list[list[MoveVerdict]]:
    """The verdicts of every deal of ``record`` (each deal replayed and checked first).

    Raises :class:`RecordError` naming the fault when a deal does not replay."""
    steps = replay_steps(record)
    out = []
    for number, deal_steps in enumerate(steps, 1):
        positions = [s.position for s in deal_steps]
        moves = [s.move for s in deal_steps[1:] if s.move is not None]

        def show(done: int, total: int, number: int = number) -> None:
            if progress:
                print(f"\r  deal {number}: {done}/{total} positions", end="", file=sys.stderr, flush=True)

        out.append(analyse_deal(positions, moves, budget_s, progress=show))
        if progress:
            print(file=sys.stderr)
    return out


def _value_json(value: int | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"verdict": verdict(value), "plies": plies_of(value)}


def report(path: str, record: MatchRecord, verdicts: list[list[MoveVerdict]], budget_s: float) -> dict[str, Any]:
    """The JSON report: ``file``, ``budget_s``, ``compiled``, ``deals`` (per deal its ``number`` and
    ``moves``: ``number``, ``seat``, ``move`` code, ``kind`` (kept, threw-win, threw-draw, lost,
    forced, unknown), ``text``, ``before`` / ``after`` (``verdict`` and ``plies`` for the mover, or
    null) and ``best`` (a best move's code or null)), and ``players`` (per seat its ``name``,
    ``judged``, ``kept``, ``blunders``, ``unknown`` and ``accuracy``, 0..1 or null)."""
    deals = []
    for deal, deal_verdicts in zip(record.deals, verdicts, strict=True):
        deals.append({
            "number": deal.number,
            "moves": [{
                "number": v.number, "seat": v.seat, "move": v.move.code, "kind": v.kind, "text": v.text(True),
                "before": _value_json(v.before), "after": _value_json(v.after),
                "best": v.best.code if v.best is not None else None,
            } for v in deal_verdicts],
        })
    players = []
    for s in summarize([v for d in verdicts for v in d]):
        players.append({"seat": s.seat, "name": record.players[s.seat].name, "judged": s.judged, "kept": s.kept,
                        "blunders": s.blunders, "unknown": s.unknown, "accuracy": s.accuracy})
    return {"file": path, "budget_s": budget_s, "compiled": COMPILED, "deals": deals, "players": players}


def format_text(path: str, record: MatchRecord, verdicts: list[list[MoveVerdict]], budget_s: float,
                ascii_only: bool) -> str:
    """The printed analysis (lines end with a newline)."""
    names = (printable(record.players[0].name), printable(record.players[1].name))
    core = "compiled core" if COMPILED else "pure-Python core"
    lines = [f"analysis of {printable(path)} ({budget_s:g} s per position, {core})"]
    for deal, deal_verdicts in zip(record.deals, verdicts, strict=True):
        result = deal.outcome.describe(names) if deal.outcome is not None else "unfinished"
        lines += ["", f"deal {deal.number}: {result}"]
        for v in deal_verdicts:
            who = f"seat {v.seat} {names[v.seat]}"
            lines.append(f"  {v.number:>4}. {who:<20} {short_label(v.move, ascii_only):<9} {v.text(ascii_only)}")
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
        verdicts = analyse_record(record, args.budget, progress=sys.stderr.isatty() and not args.json)
    except RecordError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(report(str(args.file), record, verdicts, args.budget), ensure_ascii=False))
    else:
        ascii_only = choose_ascii(bool(args.ascii), bool(getattr(args, "unicode", False)))[0]
        text = format_text(str(args.file), record, verdicts, args.budget, ascii_only)
        print(asciify(text) if ascii_only else text, end="")
    return 0
