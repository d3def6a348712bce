"""``p2ptrumps replay FILE [--text] [--ascii]``: step through a saved match, all hands visible.

Loading goes through one function, :func:`load_any` (path -> :class:`MatchRecord`),
which tries each loader in :data:`LOADERS` in turn; the game record
(``protocol/record.md``) is the first.  The networked match log adds its own
loader with :func:`register_loader` — ``replay`` then works on it unchanged.

Only regular files of at most :data:`MAX_FILE_BYTES` are read (a pipe, a
device or a huge file is refused before reading).  Every deal is replayed with
:meth:`MatchRecord.replay_deal` and the whole record checked with
:meth:`MatchRecord.check` before anything is shown, so an illegal move, a wrong
result or an inconsistent record is reported up front: a file that cannot be
read or does not check out exits with status 2 and one line on stderr naming
the fault.  The viewer needs a terminal on stdin and stdout (else status 2,
pointing at ``--text``); text from the record (names) is shown with control
characters replaced (:func:`~p2ptrumps.ui.view.printable`).

``--text`` prints the match to stdout: per deal the seed, the dealer, the
trumps, the dealt hands, one line per move (number, seat and player, the move,
both hand sizes after it), the result and the score (:func:`replay_text`).
Without it, a full-screen viewer: → / n next move (from a deal's last move on to
the next deal), ← / p previous (from a deal's start back to the previous deal's
end), Home / End, PageDown / ] next deal, PageUp / [ previous deal, q quit.  Keys
also work by position in the Russian layout; any other key says which keys do
something.  SIGTERM / SIGHUP leave as ``q`` does (:class:`.terminal.Termination`).
Under the status lines the viewer shows the position text of the position on
the screen (``protocol/position.md``; ``p2ptrumps solve`` reads it).

Analysis (:mod:`p2ptrumps.ai.analysis`): ``a`` in the viewer (or ``--analyse``)
judges the moves of the deal on the screen in the background as ``p2ptrumps
analyse`` does (the same :func:`~p2ptrumps.ai.analysis.analyse_deal` with the same
``--budget`` / ``--nodes`` / ``--depth`` / ``--estimate-nodes``): each position is
solved where the solver can, the moves it leaves open get the search's estimate.
It shows for the move just played whether it kept the value of the position or
threw it ("threw a forced win (best: 10♠/K♦ wins in 3)", "estimate 62% → 51%:
mistake"), and under it the deal's value graph: a sparkline of seat 0's
advantage after each move (:func:`~p2ptrumps.ai.analysis.sparkline`) with an arrow
under the move on the screen.  ``--text --analyse`` adds the verdict to each move
line, the sparkline to each deal and a summary per player.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.utils import get_cwidth

from ..ai.analysis import (
    ESTIMATE_DEPTH,
    ESTIMATE_NODES,
    MoveVerdict,
    analyse_deal,
    seat0_advantages,
    sparkline,
    summarize,
)
from ..cards import suit_label
from ..command import CommandError
from ..files import UnreadableFileError, read_limited
from ..i18n import _, card_label, pgettext, tr
from ..message import N_, Message, message_of
from ..notation import position_text
from ..record import FORMAT, MatchRecord, RecordError, match_winner, parse_json
from ..rules import PICK_UP, Move, Position
from ..system.signals import exit_status, hangup_signal
from ..text import counted, names_apart
from .app import _SILENT_KEYS, ESC_TIMEOUT_S, _LinesControl, fit_keys
from .keys import add_layout_aliases, key_name
from .play import level_name, shown_name
from .terminal import Termination, choose_ascii, ignore_mouse_reports, std_fds
from .terminal import terminal_problem as terminal_problem  # also imported from here by net.commands
from .view import (
    MIN_HEIGHT,
    MIN_WIDTH,
    HistoryEntry,
    Line,
    StatusView,
    TableView,
    _fit,
    asciify,
    cut_to_width,
    hand_order,
    make_style,
    pad,
    printable,
    render_status,
    render_table,
    render_too_small,
    score_text,
    status_height,
    wants_color,
    wrap_after,
    wrap_text,
)


class _Closing(Exception):
    """The viewer is closing: a background analysis stops."""


#: What the background analysis of a deal is doing (lazy messages, said on the analysis line).
SOLVING = N_("solving the positions of this deal")
ESTIMATING = N_("estimating the moves the solver left open")


#: A loader gets the path and the file's bytes; it returns the match, returns
#: None when the file is not of its kind, or raises :class:`RecordError` when
#: the file is of its kind but broken.
Loader = Callable[[Path, bytes], MatchRecord | None]


#: The largest file ``replay`` reads, bytes.  A record of the largest match the
#: default rules allow (1000 deals, each stopped by the 1000-turn limit) is about
#: 14 MB (13 bytes per move line, ~0.8 kB per deal besides); a typical deal is
#: 20-100 turns, so even a 1000-deal match log with its signatures stays far
#: below.  64 MiB leaves four times the worst case and refuses a stray disk image.
MAX_FILE_BYTES = 64 * 2**20


def read_file_limited(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them
    (:func:`p2ptrumps.files.read_limited`); raises :class:`RecordError` (one line) otherwise."""
    try:
        return read_limited(path, limit)
    except UnreadableFileError as exc:
        raise RecordError(message_of(exc)) from None


def _load_game_record(path: Path, data: bytes) -> MatchRecord | None:
    """The JSON game record of ``protocol/record.md`` (a UTF-8 byte order mark is skipped)."""
    data = data.removeprefix(codecs.BOM_UTF8)
    if not data.lstrip().startswith(b"{"):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(N_("%(path)s: not valid JSON (not UTF-8: %(reason)s at byte %(byte)d)", path=str(path),
                             reason=exc.reason, byte=exc.start)) from None
    try:
        obj = parse_json(text)
    except RecordError as exc:
        fault = message_of(exc)  # "the record is not JSON: <why>"
        why = fault.args.get("fault", fault) if isinstance(fault, Message) else fault
        raise RecordError(N_("%(path)s: not valid JSON (%(fault)s)", path=str(path), fault=why)) from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        return None
    return MatchRecord.from_json(obj)


#: The loaders :func:`load_any` tries, in order.
LOADERS: list[Loader] = [_load_game_record]


def register_loader(loader: Loader) -> None:
    """Add a loader for another kind of file (e.g. the networked match log)."""
    if loader not in LOADERS:
        LOADERS.append(loader)


def load_any(path: str | Path) -> MatchRecord:
    """Load a saved match of any known kind as a :class:`MatchRecord`.

    Raises :class:`RecordError` (one line naming the fault) when the file cannot
    be read, is of no known kind, or is broken.
    """
    p = Path(path)
    data = read_file_limited(p)
    for loader in LOADERS:
        record = loader(p, data)
        if record is not None:
            return record
    raise RecordError(N_("%(path)s: unknown file format (not a p2ptrumps game record or match log)", path=str(p)))


# ----- the replayed match --------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One position of a replayed deal: the ``move`` that led to it (None at the start),
    the ``seat`` that played it, the ``position`` after it, and the cards ``picked`` up."""

    move: Move | None
    seat: int
    position: Position
    picked: int = 0


def replay_steps(record: MatchRecord) -> list[list[Step]]:
    """Every deal of ``record`` replayed: for each deal, the start then one :class:`Step` per move.

    Raises :class:`RecordError` naming the first illegal move or wrong result, or
    (:meth:`MatchRecord.check`) how the deals do not fit together.
    """
    out: list[list[Step]] = []
    for deal in record.deals:
        steps: list[Step] = []
        prev: Position | None = None
        for move, pos in record.replay_deal(deal):
            if move is None or prev is None:
                steps.append(Step(None, pos.to_move, pos))
            else:
                picked = len(prev.pile) - len(pos.pile) if move.kind == PICK_UP else 0
                steps.append(Step(move, prev.to_move, pos, picked))
            prev = pos
        out.append(steps)
    record.check(replay=False)
    return out


def score_before(record: MatchRecord, deal_index: int) -> tuple[int, int]:
    """Half-points of both seats over the deals before ``deal_index`` (0-based)."""
    a = sum(d.outcome.points(0) for d in record.deals[:deal_index] if d.outcome)
    b = sum(d.outcome.points(1) for d in record.deals[:deal_index] if d.outcome)
    return a, b


def player_names(record: MatchRecord) -> tuple[str, str]:
    """The players' names, control characters replaced (they come from a file); equal names told
    apart by their keys or seats (:func:`p2ptrumps.text.names_apart`: ``root (K7QX)``)."""
    p = record.players
    return names_apart((printable(p[0].name), printable(p[1].name)),
                       (printable(p[0].fingerprint or ""), printable(p[1].fingerprint or "")))


def shown_names(record: MatchRecord) -> tuple[str, str]:
    """:func:`player_names` as the table shows them, in the person's language: the default names
    ``You`` and ``AI normal`` said in it (:func:`~.play.shown_name`)."""
    p = record.players
    a, b = names_apart((shown_name(printable(p[0].name)), shown_name(printable(p[1].name))),
                       (printable(p[0].fingerprint or ""), printable(p[1].fingerprint or "")))
    return tr(a), tr(b)


@dataclass(frozen=True)
class AnalysisBudget:
    """How hard the analysis works on each deal, as ``p2ptrumps analyse``'s options: ``budget_s``
    seconds (``--budget``) or ``solve_nodes`` nodes (``--nodes``, when not 0) to solve each position,
    and for the moves the solver leaves open an estimate ``estimate_depth`` plies deep (``--depth``)
    of at most ``estimate_nodes`` nodes (``--estimate-nodes``; 0 leaves them unknown)."""

    budget_s: float = 0.5
    solve_nodes: int = 0
    estimate_nodes: int = ESTIMATE_NODES
    estimate_depth: int = ESTIMATE_DEPTH

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> AnalysisBudget:
        """The budget of parsed ``replay`` / ``analyse`` options (missing ones take the defaults)."""
        return cls(float(getattr(args, "budget", 0.5) or 0.5), int(getattr(args, "nodes", 0) or 0),
                   int(getattr(args, "estimate_nodes", ESTIMATE_NODES)),
                   int(getattr(args, "depth", ESTIMATE_DEPTH) or ESTIMATE_DEPTH))

    def analyse(self, steps: list[Step], progress: Callable[[int, int], None] | None = None,
                estimating: Callable[[int, int], None] | None = None) -> list[MoveVerdict]:
        """The verdicts of one replayed deal (:func:`replay_steps`), one per move."""
        return analyse_deal([st.position for st in steps], [st.move for st in steps[1:] if st.move is not None],
                            self.budget_s, progress=progress, solve_nodes=self.solve_nodes,
                            estimate_nodes=self.estimate_nodes, estimate_depth=self.estimate_depth,
                            estimating=estimating)


def value_label(names: tuple[str, str]) -> str:
    """The words before a deal's sparkline, in the person's language: ``value (seat 0 Ann high): ``."""
    return _("value (seat 0 %(name)s high):", name=tr(names[0])) + " "


#: What stands in place of the value graph of a deal without moves (resigned or drawn at once).
NO_MOVES_TEXT = N_("no moves in this deal: nothing to judge, no value graph")


def value_text(names: tuple[str, str], verdicts: Sequence[MoveVerdict], ascii_only: bool = False) -> str:
    """A deal's value line as ``analyse`` and ``replay --text --analyse`` print it, in the person's
    language: ``value (seat 0 Ann high): ▁▃▅`` (:func:`~p2ptrumps.ai.analysis.sparkline`), or
    :data:`NO_MOVES_TEXT` for a deal without moves."""
    if not verdicts:
        return tr(NO_MOVES_TEXT)
    return value_label(names) + sparkline(seat0_advantages(verdicts), ascii_only)


def value_window(spark: str, current: int, room: int, marks: tuple[str, str] = ("…", "…")) -> tuple[str, int]:
    """The part of the sparkline ``spark`` that fits in ``room`` columns (at least 3) around the
    character ``current`` (0-based; -1: none), with ``marks`` (one column each; ``("<", ">")`` in
    ASCII) where it is cut on the left and on the right, and the column of ``current`` in it (-1
    when none)."""
    if len(spark) <= room:
        return spark, current
    inner = max(1, room - 2)  # a column for "…" at each end
    first = max(0, min(len(spark) - inner, current - inner // 2))
    left = marks[0] if first else ""
    right = marks[1] if first + inner < len(spark) else ""
    return left + spark[first:first + inner] + right, len(left) + current - first if current >= 0 else -1


def _is_you(name: str) -> bool:
    """Whether a player is called "You" (the default name of the person in ``play``)."""
    return name.lower() == "you"


def _kind_text(kind: str, seat: int) -> str:
    """Who played a seat, for people: a networked player (kind ``remote``) is the host
    in seat 0 and the guest in seat 1 (``protocol/wire.md`` §1); ``human``, ``ai:LEVEL``."""
    if kind == "remote":
        return _("host") if seat == 0 else _("guest")
    if kind == "human":
        return pgettext("player", "human")
    if kind.startswith("ai:"):
        return _("AI %(level)s", level=level_name(printable(kind.removeprefix("ai:"))))
    return printable(kind)


def _source_text(source: str) -> str:
    """Where a record comes from (``protocol/record.md``, ``source``), for people."""
    known = {"offline": pgettext("source", "offline"), "arena": pgettext("source", "arena"),
             "network": pgettext("source", "network")}
    return known.get(source, printable(source))


def _hand(mask: int, trump: int, ascii_only: bool) -> str:
    return " ".join(card_label(c, ascii_only) for c in hand_order(mask, trump)) or "-"


def _move_text(step: Step, ascii_only: bool) -> str:
    assert step.move is not None
    text = tr(step.move.label(ascii_only))
    if step.move.kind == PICK_UP:
        text += f" ({tr(counted(step.picked, 'card'))})"
    return text


def _result_text(record: MatchRecord, index: int, names: tuple[str, str]) -> str:
    return tr(record.deal_result_text(index, names))


def _no_result_text(number: int, why: str) -> str:
    """A deal of a complete match without a result, and why (``protocol/verify.md`` §5)."""
    if why == "disputed":
        return _("deal %(number)d disputed", number=number)
    if why == "abandoned":
        return _("deal %(number)d abandoned", number=number)
    if why == "not played":
        return _("deal %(number)d not played", number=number)
    return _("deal %(number)d: %(why)s", number=number, why=printable(why))


def replay_text(record: MatchRecord, ascii_only: bool = False,
                analysis: list[list[MoveVerdict]] | None = None) -> list[str]:
    """The match as plain text lines (``replay --text``); validates every deal.  With ``analysis``
    (the verdicts of each deal, :func:`p2ptrumps.ai.analysis.analyse_deal`) each move line ends with
    its verdict, each deal shows its start and end position texts, and a summary per player follows.

    Raises :class:`RecordError` naming the first illegal move or wrong result.
    """
    steps = replay_steps(record)
    names = shown_names(record)
    a = ascii_only
    source = _source_text(record.source)
    lines = [
        _("p2ptrumps match (%(source)s), started %(time)s", source=source, time=printable(record.started))
        if record.started else _("p2ptrumps match (%(source)s), start time not recorded", source=source),
        _("rules: %(rules)s", rules=tr(record.rules.describe())),
    ]
    for seat in (0, 1):
        p = record.players[seat]
        trump = suit_label(record.trumps[seat], a)
        kind = _kind_text(p.kind, seat)
        lines.append(_("seat %(seat)d: %(name)s (%(kind)s, fingerprint %(fingerprint)s), trump %(trump)s", seat=seat,
                       name=names[seat], kind=kind, fingerprint=printable(p.fingerprint), trump=trump) if p.fingerprint
                     else _("seat %(seat)d: %(name)s (%(kind)s), trump %(trump)s", seat=seat, name=names[seat],
                            kind=kind, trump=trump))
    who = [_("seat %(seat)d %(name)s", seat=seat, name=names[seat]) for seat in (0, 1)]
    who_width = 20
    for i, (deal, deal_steps) in enumerate(zip(record.deals, steps, strict=True)):
        dealer = deal.dealer
        lines += [
            "",
            _("deal %(number)d", number=deal.number),
            "  " + (_("start: %(position)s", position=deal.start) if deal.start is not None
                    else _("seed: %(seed)s", seed=deal.seed.hex())),
            "  " + _("dealer: seat %(dealer)d (%(dealer_name)s); elder: seat %(elder)d (%(elder_name)s)", dealer=dealer,
                     dealer_name=names[dealer], elder=1 - dealer, elder_name=names[1 - dealer]),
            "  " + _("trumps: seat 0 %(first)s, seat 1 %(second)s", first=suit_label(record.trumps[0], a),
                     second=suit_label(record.trumps[1], a)),
        ]
        for seat in (0, 1):
            h = deal.hands[seat]
            lines.append("  " + _("hand seat %(seat)d (%(count)d): %(cards)s", seat=seat, count=h.bit_count(),
                                  cards=_hand(h, record.trumps[seat], a)))
        verdicts = analysis[i] if analysis is not None else None
        if verdicts is not None:
            lines.append("  " + _("position: %(position)s", position=position_text(deal_steps[0].position)))
        for n, step in enumerate(deal_steps[1:], 1):
            h0, h1 = (step.position.hands[0].bit_count(), step.position.hands[1].bit_count())
            line = (f"  {n:>4}. {pad(who[step.seat], who_width)} {pad(_move_text(step, a), 30)} "
                    + _("hands %(first)d/%(second)d", first=h0, second=h1))
            if verdicts is not None:
                line += f"  {tr(verdicts[n - 1].text(a))}"
            lines.append(line)
        if verdicts is not None:
            lines.append("  " + _("position: %(position)s", position=position_text(deal_steps[-1].position)))
            lines.append(f"  {value_text(names, verdicts, a)}")
        lines.append("  " + _("result: %(result)s", result=_result_text(record, i, names)))
        after = score_before(record, i + 1)
        lines.append("  " + _("score: %(score)s", score=score_text(names, after, 0, a)))
    total = record.score_halves()
    score = score_text(names, total, 0, a)
    lines += ["", _("match finished: %(score)s", score=score) if record.finished
              else _("match complete: %(score)s", score=score) if record.complete
              else _("match unfinished: %(score)s", score=score)]
    missing = sorted(record.no_result.items())
    if missing:
        decided, winner = match_winner(total, record.rules.deals)
        said = "; ".join(_no_result_text(n, why) for n, why in missing)
        lines.append("  " + (
            _("without a result: %(deals)s -- %(name)s won the match all the same", deals=said, name=names[winner])
            if winner is not None
            else _("without a result: %(deals)s -- the match is drawn all the same", deals=said) if decided
            else _("without a result: %(deals)s -- they could change who won: no winner", deals=said)))
    if analysis is not None:
        lines += ["", _("analysis (forced moves and moves in lost positions not counted):")]
        for summary in summarize([v for d in analysis for v in d]):
            lines.append("  " + tr(summary.text(names[summary.seat])))
    return [printable(asciify(line) if a else line) for line in lines]


# ----- the viewer --------------------------------------------------------------------


class ReplayViewer:
    """The full-screen replay: a cursor over (deal, step) and a prompt_toolkit application.

    Args:
        record: the match (already loaded).
        ascii_only, color: looks.
        input, output: prompt_toolkit input/output (tests); None uses the terminal.
        budget_s: analysis mode: seconds to solve each position (``budget`` None).
        nodes: analysis mode: positions to solve each position with instead of ``budget_s`` (0: none;
            the same verdicts on every machine; ``budget`` None).
        budget: analysis mode: the whole :class:`AnalysisBudget` (as ``analyse``'s options).
        seat: the seat shown at the bottom, as its player saw the table (0: the host, or the person of
            an offline game; a guest's own match log: 1).
    Raises:
        RecordError: a deal does not replay (illegal move, wrong result).
    """

    def __init__(self, record: MatchRecord, *, ascii_only: bool = False, color: bool = True,
                 input: Input | None = None, output: Output | None = None, budget_s: float = 0.5,
                 nodes: int = 0, budget: AnalysisBudget | None = None, seat: int = 0) -> None:
        self.record = record
        self.seat = seat
        self.steps = replay_steps(record)
        self.ascii_only = ascii_only
        self.deal_index = 0
        self.step_index = 0
        #: A note for the message line (e.g. "this is the last deal"); cleared by the next key.
        self.note = ""
        #: Analysis mode (the ``a`` key): the verdict of the move on the screen is shown.
        self.show_analysis = False
        #: How hard analysis mode works on each deal (as ``analyse``).
        self.budget = budget if budget is not None else AnalysisBudget(budget_s, nodes)
        #: The verdicts of each analysed deal (by deal index), and the deals being analysed.
        self.analysis: dict[int, list[MoveVerdict]] = {}
        self._running: dict[int, threading.Thread] = {}
        self._progress: dict[int, tuple[str, int, int]] = {}
        self._closing = threading.Event()
        body = Window(content=_LinesControl(self._render_body), always_hide_cursor=True)
        status = Window(content=_LinesControl(self._render_status), height=self._status_height)
        self.application: Application[None] = Application(
            layout=Layout(HSplit([body, status]), focused_element=body),
            key_bindings=self._key_bindings(),
            style=make_style(color),
            full_screen=True,
            input=input,
            output=output,
            color_depth=None if color else ColorDepth.DEPTH_1_BIT,
        )
        # Esc quits: do not wait a second to see whether it starts an escape sequence.
        self.application.ttimeoutlen = ESC_TIMEOUT_S

    # ----- cursor --------------------------------------------------------------------

    @property
    def current(self) -> Step | None:
        """The step under the cursor (None for a match without deals)."""
        if not self.steps:
            return None
        return self.steps[self.deal_index][self.step_index]

    def step(self, n: int) -> None:
        """Move ``n`` moves forward (negative: back).  Forward from a deal's last position goes
        to the start of the next deal, back from a deal's start to the end of the previous one;
        past the match's ends the cursor stays and :attr:`note` says so."""
        if not self.steps:
            return
        last = len(self.steps[self.deal_index]) - 1
        if n > 0 and self.step_index == last:
            if self.deal_index + 1 < len(self.steps):
                self.deal_index += 1
                self.step_index = 0
            else:
                self.note = _("This is the end of the match.")
            return
        if n < 0 and self.step_index == 0:
            if self.deal_index > 0:
                self.deal_index -= 1
                self.step_index = len(self.steps[self.deal_index]) - 1
            else:
                self.note = _("This is the start of the match.")
            return
        self.step_index = max(0, min(last, self.step_index + n))

    def to_end(self, end: bool) -> None:
        """Jump to the last position of the deal (``end``) or its start."""
        if self.steps:
            self.step_index = len(self.steps[self.deal_index]) - 1 if end else 0

    def deal(self, n: int) -> None:
        """Move ``n`` deals forward (negative: back), to the start of that deal.  Past the
        last (first) deal the cursor stays where it is and :attr:`note` says so."""
        if self.steps:
            index = max(0, min(len(self.steps) - 1, self.deal_index + n))
            if index == self.deal_index and n:
                self.note = _("This is the last deal.") if n > 0 else _("This is the first deal.")
                return
            self.deal_index = index
            self.step_index = 0
            if self.show_analysis:
                self.start_analysis(index)

    # ----- analysis -----------------------------------------------------------------

    def toggle_analysis(self) -> None:
        """Turn analysis mode on (starting the analysis of the deal on the screen) or off."""
        self.show_analysis = not self.show_analysis
        if self.show_analysis and self.steps:
            self.start_analysis(self.deal_index)

    def start_analysis(self, index: int) -> None:
        """Analyse deal ``index`` in a background thread (once); the screen is redrawn as it goes."""
        if index in self.analysis or index in self._running:
            return
        steps = self.steps[index]

        def progress(done: int, total: int, what: str = SOLVING) -> None:
            if self._closing.is_set():
                raise _Closing
            self._progress[index] = (what, done, total)
            self.application.invalidate()

        def estimating(done: int, total: int) -> None:
            progress(done, total, ESTIMATING)

        def work() -> None:
            try:
                self.analysis[index] = self.budget.analyse(steps, progress, estimating)
            except _Closing:
                return
            finally:
                self._running.pop(index, None)
            self.application.invalidate()

        thread = threading.Thread(target=work, name=f"replay-analysis-{index}", daemon=True)
        self._running[index] = thread
        thread.start()

    def wait_analysis(self, timeout_s: float) -> None:
        """Wait at most ``timeout_s`` seconds for the running analyses to finish (tests)."""
        for thread in list(self._running.values()):
            thread.join(timeout_s)

    def close(self) -> None:
        """Stop the background analyses (they end after the position being solved)."""
        self._closing.set()

    def analysis_text(self) -> str:
        """The analysis line: the verdict of the move on the screen, or how far the analysis is."""
        step = self.current
        if step is None:
            return ""
        verdicts = self.analysis.get(self.deal_index)
        if verdicts is None:
            what, done, total = self._progress.get(self.deal_index, (SOLVING, 0, len(self.steps[self.deal_index])))
            return _("Analysis: %(what)s (%(done)d/%(total)d)…", what=tr(what), done=done, total=total)
        if step.move is None:
            return _("Analysis: on (the verdict of each move shows here; a turns it off).")
        return _("Analysis: %(verdict)s", verdict=tr(verdicts[self.step_index - 1].text(self.ascii_only)))

    def extra_lines(self, width: int) -> list[Line]:
        """The lines under the status: the position text (and the analysis line in analysis mode)."""
        step = self.current
        if step is None:
            return []
        # Broken only after a "/": the lines pasted together (into `solve`) read whole (position.md).
        text = " " + _("position %(position)s", position=position_text(step.position))
        lines: list[Line] = [[("class:keys", t)] for t in wrap_after(text, width, " ", "/")]
        if self.show_analysis:
            text = asciify(self.analysis_text()) if self.ascii_only else self.analysis_text()
            lines += [[("class:message.hint", t)] for t in wrap_text(text, width)]
            lines += self.value_lines(width)
        return lines

    def value_lines(self, width: int) -> list[Line]:
        """In analysis mode, once the deal on the screen is judged: its value graph, a sparkline of
        seat 0's advantage after each move (as ``analyse`` prints it, cut around the move on the
        screen when it does not fit), and under it an arrow at the move on the screen
        (``↑ move 13``; ``^`` in ASCII)."""
        verdicts = self.analysis.get(self.deal_index)
        if not self.show_analysis or verdicts is None:
            return []
        if not verdicts:
            return [[("class:dim", line)] for line in wrap_text(tr(NO_MOVES_TEXT), width)]
        label = " " + value_label(shown_names(self.record))
        if get_cwidth(label) > width // 2:
            label = " " + _("value:") + " "
        room = max(3, width - get_cwidth(label) - 1)
        spark, column = value_window(sparkline(seat0_advantages(verdicts), self.ascii_only), self.step_index - 1,
                                     room, ("<", ">") if self.ascii_only else ("…", "…"))
        lines: list[Line] = [[("class:keys", label), ("class:message.hint", spark)]]
        if column < 0:
            hint = _("(the value after each move; n steps through them)")
            lines += [[("class:dim", line)] for line in wrap_text(hint, width, " " * get_cwidth(label))]
            return lines
        at = get_cwidth(label) + column
        arrow = "^" if self.ascii_only else "↑"
        tag = _("%(arrow)s move %(number)d", arrow=arrow, number=self.step_index)
        if at + get_cwidth(tag) <= width - 1:
            text = " " * at + tag
        else:
            tag = _("move %(number)d %(arrow)s", arrow=arrow, number=self.step_index)
            text = " " * max(0, at - get_cwidth(tag) + 1) + tag
        lines.append([("class:dim", cut_to_width(text, width - 1))])
        return lines

    # ----- rendering ----------------------------------------------------------------

    def table_view(self) -> TableView | None:
        """The table at the cursor: both hands shown, the history up to the cursor, the
        score before this deal (after it at the deal's last move)."""
        step = self.current
        if step is None:
            return None
        rec = self.record
        steps = self.steps[self.deal_index]
        history = tuple(
            HistoryEntry(i, s.seat, s.move, s.picked)
            for i, s in enumerate(steps[1:self.step_index + 1], 1) if s.move is not None
        )
        score = score_before(rec, self.deal_index)
        deal = rec.deals[self.deal_index]
        if step.position.outcome is not None and deal.outcome is not None and self.step_index == len(steps) - 1:
            score = score_before(rec, self.deal_index + 1)
        pos = step.position
        return TableView(
            my_seat=self.seat, names=shown_names(rec), trumps=rec.trumps, hands=(pos.hands[0], pos.hands[1]),
            pile=pos.pile,
            to_move=pos.to_move if pos.outcome is None else None, deal_number=deal.number, deals=rec.rules.deals,
            score_halves=score,
            history=history, show_opponent=True, ascii_only=self.ascii_only,
        )

    def status_view(self, width: int = 80) -> StatusView:
        """The bottom lines: where the cursor is and the move just played, the result at
        the end of a deal, the keys (fitted to ``width`` columns)."""
        step = self.current
        # TRANSLATORS: the keys line of the replay viewer; each hint starts with its keys, kept as they are.
        analysis, home_end = _("a analysis"), _("Home/End")
        keys = fit_keys([_("→/n next"), _("←/p back"), home_end, _("PgDn PgUp/] [ next/previous deal"), analysis,
                         _("q quit")], width - 1, droppable=(analysis, home_end))
        if step is None:
            return StatusView(expect=_("This match has no deals."), keys=_("q quit"), ascii_only=self.ascii_only)
        names = shown_names(self.record)
        english = player_names(self.record)
        total = len(self.steps[self.deal_index]) - 1
        where = _("Deal %(deal)d/%(deals)d, move %(move)d/%(moves)d", deal=self.deal_index + 1, deals=len(self.steps),
                  move=self.step_index, moves=total)
        if step.move is None:
            dealer = self.record.deals[self.deal_index].dealer
            if self.record.deals[self.deal_index].start is not None:
                seat = step.position.to_move
                expect = (_("%(where)s: set up from a position; You move.", where=where) if _is_you(english[seat])
                          else _("%(where)s: set up from a position; %(name)s moves.", where=where, name=names[seat]))
            elif _is_you(english[1 - dealer]):
                expect = _("%(where)s: dealt by %(dealer)s; You lead.", where=where, dealer=names[dealer])
            else:
                expect = _("%(where)s: dealt by %(dealer)s; %(name)s leads.", where=where, dealer=names[dealer],
                           name=names[1 - dealer])
        else:
            expect = f"{where}: {names[step.seat]} — {_move_text(step, False)}"
        message = ""
        if self.step_index == total:
            message = _("Result: %(result)s", result=_result_text(self.record, self.deal_index, names))
        if self.note:
            message = f"{message}  {self.note}" if message else self.note
        return StatusView(expect=expect, message=message, message_kind="hint" if message else "info",
                          keys=keys, ascii_only=self.ascii_only)

    def too_small(self) -> bool:
        """True when the terminal is below :data:`~.view.MIN_WIDTH` x :data:`~.view.MIN_HEIGHT`."""
        size = self.application.output.get_size()
        return size.columns < MIN_WIDTH or size.rows < MIN_HEIGHT

    def _render_status(self, width: int, height: int) -> list[Line]:
        if self.too_small():
            return []
        extra = [_fit(line, width) for line in self.extra_lines(width)]
        return render_status(self.status_view(width), width) + extra

    def _status_height(self) -> Dimension:
        if self.too_small():
            return Dimension.exact(0)
        columns = self.application.output.get_size().columns
        return Dimension.exact(status_height(self.status_view(columns), columns) + len(self.extra_lines(columns)))

    def _render_body(self, width: int, height: int) -> list[Line]:
        if self.too_small():
            size = self.application.output.get_size()
            return render_too_small(size.columns, size.rows)[:height]
        view = self.table_view()
        if view is None:
            return [[("class:header", " " + _("Svoi Kozyri replay"))]]
        return render_table(view, width, height)

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        ignore_mouse_reports(kb)

        def bind(keys: tuple[str, ...], action: Callable[[], None], doc: str) -> None:
            def handler(event: KeyPressEvent) -> None:
                self.note = ""
                action()

            handler.__doc__ = doc
            for k in keys:
                kb.add(k)(handler)

        bind(("right", "n", "l", " "), lambda: self.step(1), "Next move.")
        bind(("left", "p", "h", "backspace"), lambda: self.step(-1), "Previous move.")
        bind(("home", "g"), lambda: self.to_end(False), "Start of the deal.")
        bind(("end", "G"), lambda: self.to_end(True), "End of the deal.")
        bind(("pagedown", "]", "N"), lambda: self.deal(1), "Next deal.")
        bind(("pageup", "[", "P"), lambda: self.deal(-1), "Previous deal.")
        bind(("a",), self.toggle_analysis, "Analysis on/off: does each move keep the value of the position?")
        bind(("q", "c-c", "escape"), self.exit, "Quit.")

        @kb.add("<any>")
        def _unknown(event: KeyPressEvent) -> None:
            """Any other key: say which keys do something."""
            key = event.key_sequence[0].key
            if key in _SILENT_KEYS or not isinstance(key, str):
                return
            self.note = _("%(key)s does nothing here: → next move, ← back, ] next deal, q quits", key=key_name(key))

        return add_layout_aliases(kb)

    def exit(self) -> None:
        """Leave the viewer (if it is running and not already leaving)."""
        app = self.application
        if app.is_running and app.future is not None and not app.future.done():
            app.exit()

    async def run(self) -> Termination:
        """Run the viewer until ``q`` or SIGTERM/SIGHUP; returns the :class:`.terminal.Termination`
        (its ``signal`` tells whether a signal ended it)."""
        with Termination(self.exit) as term:
            await self.application.run_async()
        return term


def run(args: argparse.Namespace, seat_of: Callable[[Path], int] | None = None) -> int:
    """Entry point of ``p2ptrumps replay``; returns 0, or 128 + the signal's number after
    SIGTERM/SIGHUP.  ``seat_of``: the seat to show at the bottom for a loaded file (its owner's; default
    0).  Raises :class:`~p2ptrumps.command.CommandError` (status 2) when the file
    is unreadable or broken, or when the viewer (no ``--text``) has no full-screen terminal."""
    unicode_flag = bool(getattr(args, "unicode", False))
    try:
        record = load_any(args.file)
        analyse = bool(getattr(args, "analyse", False))
        budget = AnalysisBudget.from_args(args)
        if args.text:
            analysis = None
            if analyse:
                analysis = [budget.analyse(deal) for deal in replay_steps(record)]
            text = replay_text(record, choose_ascii(bool(args.ascii), unicode_flag)[0], analysis)
            try:
                print("\n".join(text))
                sys.stdout.flush()
            except BrokenPipeError:  # e.g. `replay --text | head`
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        replay_steps(record)  # report a broken record before asking for a terminal
    except RecordError as exc:
        raise CommandError(tr(exc)) from None
    if why := terminal_problem(sys.stdin, sys.stdout):
        raise CommandError(_("the viewer needs a full-screen terminal: %(why)s (replay --text prints the match)",
                             why=tr(why)))
    ascii_only, note = choose_ascii(bool(args.ascii), unicode_flag,
                                    probe_fds=std_fds())
    viewer = ReplayViewer(record, ascii_only=ascii_only, color=wants_color(), budget=budget,
                          seat=seat_of(Path(args.file)) if seat_of is not None else 0)
    if note:
        viewer.note = note
    if analyse:
        viewer.toggle_analysis()
    try:
        term = asyncio.run(viewer.run())
    except OSError:  # the terminal is gone (SIGHUP): nothing to save, nobody to tell
        return exit_status(hangup_signal())
    finally:
        viewer.close()
    return term.exit_status or 0
