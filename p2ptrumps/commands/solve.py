"""``p2ptrumps solve POSITION [--json] [--budget S [--threads N] | --nodes N]``: the exact value of a position
and of each move.

The position is a position text (``protocol/position.md``), as ``replay`` shows
it.  The solver (:func:`p2ptrumps.ai.engine.solve`) gives, within the budget,
the result of the position for the seat to move against best play -- a win, a
draw or a loss, and how many turns it takes -- and the same for every legal
move, or says that it is unknown within the budget.  The exact solver has
half the budget first (:data:`~p2ptrumps.ai.engine.SOLVER_SHARE`); when it does
not finish, a proof-number search (df-pn) has the rest to prove a win or a loss
for the seat to move, printed "wins in at most N" / "loses in at most N" (the
outcome is proven, N an upper bound on the turns), or a draw (both wins
disproven and each disproof checked: an exact draw, with a drawing move; the
other moves keep what the solver found).  With ``--nodes N`` the
budget is N positions instead of seconds, and the output (text or JSON) is the
same on every run and machine: it leaves out the seconds spent.

With a time budget the solver runs on ``--threads N`` threads (default: the
machine's cores, at most 8, :func:`p2ptrumps.ai.parallel.default_threads`)
sharing one transposition table (:mod:`p2ptrumps.ai.parallel`): the values are
the exact ones one thread gives, and the best move is the same one (the first
of the best moves in the solver's root order); only the time differs.  When
the budget runs out, the moves solved may be others than one thread's.  A node
budget is solved on one thread (``--threads`` above 1 with ``--nodes`` is
refused: which thread gets how far within N positions would depend on the
machine).  The prover (df-pn) runs on one thread.

Exit status: 0 (also when the value is unknown), 2 when the text is not a valid
position (a :class:`~p2ptrumps.command.CommandError`).  ``--json`` prints one
JSON object (fields in :func:`report`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..ai.analysis import short_label
from ..ai.core import WIN_BOUND
from ..ai.engine import COMPILED, Solution, plies_of, solve, verdict
from ..ai.parallel import default_threads
from ..cards import suit_label
from ..command import CommandError
from ..i18n import _, ngettext, padded, tr
from ..message import N_, Message
from ..notation import PositionTextError, parse_position, position_text
from ..rules import Move, Position
from ..text import counted
from ..ui.terminal import choose_ascii


def _result_word(value: int) -> str:
    return "win" if value > WIN_BOUND else "loss" if value < -WIN_BOUND else "draw"


def _value_json(value: int) -> dict[str, Any]:
    return {"result": _result_word(value), "plies": plies_of(value), "verdict": verdict(value)}


def _within(budget_s: float, nodes: int) -> str:
    """The budget in words: ``"0.5 s"`` or ``"20000 positions"`` (a node budget, when not 0), in English
    (``--json``)."""
    return f"{nodes} positions" if nodes else f"{budget_s:g} s"


def _within_text(budget_s: float, nodes: int) -> str:
    """:func:`_within` in the person's language."""
    return (ngettext("%(n)d position", "%(n)d positions", nodes) if nodes
            else _("%(seconds)s s", seconds=f"{budget_s:g}"))


def report(position: Position, solution: Solution | None, budget_s: float, nodes: int = 0) -> dict[str, Any]:
    """The JSON report: ``position`` (canonical text), ``over`` (and then ``result`` as in
    protocol/record.md §5), else ``to_move``, ``solved``, ``result`` (``win``/``draw``/``loss``/
    ``unknown`` for the seat to move), ``plies`` (to the end, null for a draw), ``verdict`` (words),
    ``best`` (a best move's code).  When the budget ran out (``solved`` false) but a move is proven to
    win or the prover (df-pn) proved a win, ``result`` is ``win``, ``plies`` the shortest proven
    win's (an upper bound), ``verdict`` ``"wins in at most N"`` and ``best`` that move; when the
    prover proved a loss, ``result`` is ``loss``, ``plies`` an upper bound (the opponent can force
    going out within that many plies), ``verdict`` ``"loses in at most N"``, ``best`` null; ``moves``
    (each legal move's ``move`` code with its ``result``, ``plies`` and ``verdict``, or ``result``
    ``unknown``; the prover's winning move, when not solved, with its bound: ``"wins in at most N"``,
    ``plies`` an upper bound), ``nodes``, ``seconds``, ``budget_s``,
    ``budget_nodes`` (``nodes``: the node budget, 0 for a time budget; with a node budget
    ``seconds`` is left out, so that the report depends only on the position and the budget),
    ``compiled`` (whether the compiled core ran), ``threads`` (the threads the solver ran on,
    :attr:`~p2ptrumps.ai.engine.Solution.threads`)."""
    out: dict[str, Any] = {"position": position_text(position)}
    if position.outcome is not None or solution is None:
        out["over"] = True
        o = position.outcome
        out["result"] = None if o is None else {"winner": o.winner, "reason": o.reason}
        return out
    out["over"] = False
    out["to_move"] = position.to_move
    out["solved"] = solution.solved
    won = _proven_win(solution)
    if solution.solved:
        out.update(_value_json(solution.value))
        out["best"] = solution.move.code if solution.move is not None else None
    elif won is not None:  # a move is proven to win: so is the position (the fastest win may be unproven)
        move, value = won
        out.update({"result": "win", "plies": plies_of(value), "verdict": _at_most(value), "best": move.code})
    elif solution.bound < 0:  # the prover proved a loss
        out.update({"result": "loss", "plies": plies_of(solution.bound), "verdict": _at_most(solution.bound),
                    "best": None})
    else:
        out.update({"result": "unknown", "plies": None, "verdict": f"unknown within {_within(budget_s, nodes)}",
                    "best": None})
    known = _known_moves(solution)
    out["moves"] = [{"move": m.code, **_move_json(*known[m])} if m in known else {"move": m.code, "result": "unknown"}
                    for m in _ordered_moves(position, solution)]
    out["nodes"] = solution.nodes
    if not nodes:
        out["seconds"] = round(solution.elapsed_s, 4)
    out["budget_s"] = budget_s
    out["budget_nodes"] = nodes
    out["compiled"] = COMPILED
    out["threads"] = solution.threads
    return out


def _proven_win(solution: Solution) -> tuple[Move, int] | None:
    """When the budget ran out but some moves were solved or the prover proved a win, the proven
    winning move with the fewest plies (a solved move's value, or the prover's ``bound``; the solved
    move on a tie): the position is then a win for the seat to move, in at most that many plies."""
    if solution.solved:
        return None
    wins = [(m, v) for m, v in solution.moves if v > WIN_BOUND]
    if solution.bound > 0 and solution.bound_move is not None:
        wins.append((solution.bound_move, solution.bound))
    return max(wins, key=lambda mv: mv[1]) if wins else None


def _at_most(value: int) -> Message:
    """``"wins in at most 3"`` / ``"loses in at most 2"``: a proven outcome whose length is a bound."""
    return verdict(value, at_most=True)


def _verdict_text(value: int, exact: bool = True) -> str:
    """A value in words in the person's language, with its plies when they are known: ``"wins in 2 (3
    plies)"``; ``exact`` False: the length is an upper bound (``"wins in at most 2 (3 plies)"``)."""
    words = verdict(value) if exact else _at_most(value)
    plies = plies_of(value)
    if plies is None:
        return tr(words)
    return _("%(verdict)s (%(plies)s)", verdict=words, plies=counted(plies, "ply", "plies"))


def _known_moves(solution: Solution) -> dict[Move, tuple[int, bool]]:
    """Each move whose outcome is known -> (its value, exact): the solved moves (exact), and the move
    the prover's win plays first when it was not solved (its ``bound``, not exact: "wins in at most
    N"), so that the best move named is in the moves list with the value it was chosen for."""
    known = {m: (v, True) for m, v in solution.moves}
    if not solution.solved and solution.bound > 0 and solution.bound_move is not None:
        known.setdefault(solution.bound_move, (solution.bound, False))
    return known


def _move_json(value: int, exact: bool) -> dict[str, Any]:
    """A move's ``result``, ``plies`` and ``verdict``; for a bound (not ``exact``) ``plies`` is an upper
    bound and the verdict says "at most"."""
    return {**_value_json(value), "verdict": verdict(value) if exact else _at_most(value)}


def _ordered_moves(position: Position, solution: Solution) -> list[Move]:
    """The legal moves, best first (known values by value, a solved move before a bound of the same
    value, then the unknown ones in rule order)."""
    known = _known_moves(solution)
    unknown = (0, True)
    return sorted(position.legal_moves(), key=lambda m: (m not in known, -known.get(m, unknown)[0],
                                                          not known.get(m, unknown)[1]))


def format_text(position: Position, solution: Solution | None, budget_s: float, ascii_only: bool,
                nodes: int = 0) -> str:
    """The printed report (lines end with a newline); ``nodes``: the node budget (0: ``budget_s``
    seconds), then the seconds spent are left out; the last line names the solver's threads when
    more than one ran."""
    lines = [position_text(position)]
    if position.outcome is not None or solution is None:
        assert position.outcome is not None
        lines.append(_("the deal is over: %(outcome)s", outcome=position.outcome.describe()))
        return "\n".join(lines) + "\n"
    seat = position.to_move
    who = N_("seat %(seat)d (trump %(suit)s) to move", seat=seat, suit=suit_label(position.trumps[seat], ascii_only))
    won = _proven_win(solution)
    within = _within_text(budget_s, nodes)
    if solution.solved:
        lines.append(_("%(who)s: %(verdict)s", who=who, verdict=_verdict_text(solution.value)))
        if solution.move is not None:
            lines.append(_("best move: %(move)s", move=short_label(solution.move, ascii_only)))
    elif won is not None:
        lines.append(_("%(who)s: %(verdict)s; not every move solved within %(budget)s", who=who,
                       verdict=_verdict_text(won[1], exact=False), budget=within))
        lines.append(_("a winning move: %(move)s", move=short_label(won[0], ascii_only)))
    elif solution.bound < 0:
        lines.append(_("%(who)s: %(verdict)s; not every move solved within %(budget)s", who=who,
                       verdict=_verdict_text(solution.bound, exact=False), budget=within))
    else:
        lines.append(_("%(who)s: unknown within %(budget)s", who=who, budget=within))
    known = _known_moves(solution)
    lines.append(_("moves:"))
    for m in _ordered_moves(position, solution):
        value = tr(verdict(known[m][0]) if known[m][1] else _at_most(known[m][0])) if m in known else _("unknown")
        lines.append(f"  {padded(tr(short_label(m, ascii_only)), 10)} {value}")
    core = _("compiled core") if COMPILED else _("pure-Python core")
    if solution.threads > 1:
        core = ngettext("%(core)s, %(n)d thread", "%(core)s, %(n)d threads", solution.threads, core=core)
    if nodes:
        lines.append(_("%(nodes)s positions, budget %(budget)s (%(core)s)", nodes=f"{solution.nodes:,}",
                       budget=f"{nodes:,}", core=core))
    else:
        lines.append(_("%(nodes)s positions in %(seconds)s s (%(core)s)", nodes=f"{solution.nodes:,}",
                       seconds=f"{solution.elapsed_s:.2f}", core=core))
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Entry point of ``p2ptrumps solve``: 0; raises :class:`~p2ptrumps.command.CommandError`
    (status 2) when the position text is invalid, or ``--threads`` above 1 comes with ``--nodes``."""
    try:
        position = parse_position(args.position)
    except PositionTextError as exc:
        raise CommandError(tr(exc), usage=True) from None
    budget_s: float = args.budget
    nodes: int = getattr(args, "nodes", 0)
    threads: int | None = getattr(args, "threads", None)
    if nodes and threads is not None and threads > 1:
        raise CommandError(_("%(threads)s works with a time budget (%(budget)s): a node budget (%(nodes)s) is "
                             "solved on one thread, so that its answer is the same on every run",
                             threads="--threads", budget="--budget S", nodes="--nodes N"), usage=True)
    if threads is None:
        threads = 1 if nodes else default_threads()
    solution = None if position.outcome is not None else solve(position, None if nodes else budget_s, nodes,
                                                                every=True, prove=True, threads=threads)
    if args.json:
        print(json.dumps(report(position, solution, budget_s, nodes), ensure_ascii=False))
    else:
        ascii_only = choose_ascii(bool(args.ascii), bool(getattr(args, "unicode", False)))[0]
        print(format_text(position, solution, budget_s, ascii_only, nodes), end="")
    return 0
