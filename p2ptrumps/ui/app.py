"""The full-screen table: a prompt_toolkit application plus the player that it seats.

Two objects, one on each side of the trio/asyncio bridge (:mod:`.bridge`):

* :class:`TableApp` (the UI side) owns the prompt_toolkit ``Application``, the
  key bindings and what is on screen.  It never touches a socket and never
  decides a rule: it shows snapshots and turns keys into *intents*, which it
  hands to :attr:`TableApp.intent_sink`.
* :class:`HumanPlayer` (the trio side) is a :class:`~p2ptrumps.match.Player`:
  the match loop asks it for a move like any other player; it shows the
  position on the table and waits for the person's intent.

Reusing the table for a networked game
--------------------------------------
Everything runs on one thread (trio in guest mode on prompt_toolkit's asyncio
loop), so trio code calls ``TableApp`` methods directly.  A caller:

1. builds ``TableApp(UIOptions(...))`` and calls :meth:`TableApp.set_players`
   (names, which seat is the person at this terminal);
2. starts its trio main with :class:`~p2ptrumps.ui.bridge.TrioGuest` and runs
   ``await table.application.run_async()``;
3. inside trio, creates ``HumanPlayer(table, info)`` (this connects
   :attr:`TableApp.intent_sink` to the player's trio channel), asks
   :meth:`HumanPlayer.choose_trump` if needed, and hands the player to the match
   loop; events reach the table through :meth:`HumanPlayer.observe`.

Hooks for a remote opponent (all plain methods, safe to call from trio):
:meth:`TableApp.set_opponent_detail` (name, fingerprint line),
:meth:`TableApp.set_connection` (connection state), :meth:`TableApp.add_chat`
(chat lines; with ``UIOptions.allow_chat`` the ``c`` key opens a chat prompt and
sends :class:`ChatSend`), :meth:`TableApp.show_message`, and draw offers
(``d`` sends :class:`~p2ptrumps.match.OfferDraw`; the opponent's offer is
answered by :meth:`HumanPlayer.accept_draw`).  Intents a caller may need to
route elsewhere (``ChatSend``) can be intercepted by wrapping ``intent_sink``.

Keys (RULES.md §4 moves; the docstrings of the key handlers are the help):
←/→ or h/l select, ↑/↓ or k/j change suit row, Enter plays (after a beat it
asks for the second card), ``p`` picks up, ``:`` or ``/`` types a move with
completion, ``u`` undo and ``i`` hint (against the AI), ``o`` shows the
opponent's hand, ``d`` offers a draw (asks first), ``R`` resigns, ``?`` help
(``r`` there reads the whole rule book), ``q`` or Ctrl-C quits (with
confirmation).  Letter keys also work by position in the Russian layout
(:mod:`.keys`), and the typed-move prompt reads Russian card letters.  A key
that does nothing now says so on the message line, with what would help.  Esc
acts at once (:data:`ESC_TIMEOUT_S`).  Below :data:`~.view.MIN_WIDTH` x
:data:`~.view.MIN_HEIGHT` the screen says the terminal is too small.

What the table says (RULES.md §4-§7): after a beating card is chosen, the
status names it and the pile shows it waiting for its second card; a move that
would draw the deal by repetition is named when the turn starts and asks for
confirmation; the person's own pick-up says how many cards it took; below
:data:`~.view.HISTORY_MIN_WIDTH` columns the opponent's last move keeps a line
of its own; the end-of-deal screen keeps the moves.
"""

from __future__ import annotations

import contextlib
import enum
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import cast

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl, UIContent, UIControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.utils import get_cwidth

from ..cards import Card, CardParseError, cards_in, suit_label
from ..match import (
    Action,
    DealEnded,
    DealStarted,
    Event,
    MatchEnded,
    MovePlayed,
    MovesTakenBack,
    OfferDraw,
    Resign,
    Undo,
)
from ..record import PlayerInfo
from ..rules import BEAT, LEAD, NO_CARD, PICK_UP, IllegalMoveError, InvalidMoveError, Move, Position
from .keys import add_layout_aliases, key_name, latin_move_text
from .rulebook import rule_book
from .terminal import ignore_mouse_reports
from .view import (
    MIN_HEIGHT,
    MIN_WIDTH,
    EndView,
    HistoryEntry,
    Line,
    StatusView,
    TableView,
    asciify,
    expect_text,
    hand_order,
    make_style,
    printable,
    render_end,
    render_setup,
    render_status,
    render_table,
    render_text_page,
    render_too_small,
    render_trump_choice,
    score_text,
    status_height,
    suit_rows,
    wrap_text,
    wrapped_lines,
)

#: Seconds prompt_toolkit waits after an Esc byte to see whether an escape
#: sequence (an arrow key) follows.  Terminals send a sequence in one write, so
#: 50 ms is plenty, and a lone Esc then acts at once instead of after ~1 s.
ESC_TIMEOUT_S = 0.05

# ----- intents: what the UI sends to the trio side ---------------------------------


@dataclass(frozen=True)
class HintRequest:
    """The person asks for the AI's suggestion (offline only)."""


@dataclass(frozen=True)
class TrumpChosen:
    """The person chose their own trump ``suit`` (0..3; RULES.md §2)."""

    suit: int


@dataclass(frozen=True)
class Continue:
    """The person dismissed the end-of-deal or end-of-match screen."""


@dataclass(frozen=True)
class DrawAnswer:
    """The person's answer to the opponent's draw offer."""

    accept: bool


@dataclass(frozen=True)
class ChatSend:
    """A chat line the person typed (networked games)."""

    text: str


Intent = Move | Resign | Undo | OfferDraw | HintRequest | TrumpChosen | Continue | DrawAnswer | ChatSend


class Mode(enum.Enum):
    """What the table is doing now."""

    IDLE = "idle"  # before the match, or between events
    TRUMP = "trump"  # choosing one's own trump
    TURN = "turn"  # my move: select a card (lead / beat) or pick up
    SECOND = "second"  # a beating card is chosen; now the second card
    WAIT = "wait"  # the opponent is to move
    DEAL_END = "deal-end"  # the end-of-deal screen
    MATCH_END = "match-end"  # the end-of-match screen


class QuitResult(enum.Enum):
    """Why the application ended."""

    FINISHED = "finished"  # the match ended and the person left the last screen
    QUIT = "quit"  # the person quit (confirmed)


@dataclass
class UIOptions:
    """How the table looks and which features it offers.

    Attributes:
        ascii_only: ASCII suits (S H D C) and signs instead of Unicode.
        color: colours on (False under ``NO_COLOR``: bold/reverse only).
        allow_undo: the ``u`` key sends :class:`~p2ptrumps.match.Undo` (offline against the AI).
        allow_hint: the ``i`` key sends :class:`HintRequest`.
        allow_draw_offer: the ``d`` key sends :class:`~p2ptrumps.match.OfferDraw`.
        allow_chat: the ``c`` key opens a chat prompt sending :class:`ChatSend`.
        waiting_text: the status while the opponent moves; ``{name}`` is replaced.
        quit_question: the confirmation ``q`` asks during a match.
        match_end_enter: what Enter does on the end-of-match screen, as the footer says it
            ("leave"; over the network "rematch or leave": the rematch question comes next).
    """

    ascii_only: bool = False
    color: bool = True
    allow_undo: bool = False
    allow_hint: bool = False
    allow_draw_offer: bool = True
    allow_chat: bool = False
    waiting_text: str = "{name} is thinking…"
    quit_question: str = "Quit? The record is saved."
    match_end_enter: str = "leave"


@dataclass
class _Confirm:
    question: str
    on_yes: Callable[[], None]
    on_no: Callable[[], None] = lambda: None


@dataclass
class _State:
    names: tuple[str, str] = ("You", "Opponent")
    my_seat: int = 0
    trumps: tuple[int, int] | None = None
    position: Position | None = None
    history: list[HistoryEntry] = field(default_factory=list)
    deal_number: int = 0
    deals: int = 1
    score_halves: tuple[int, int] = (0, 0)
    mode: Mode = Mode.IDLE
    selected: int | None = None
    pending_beat: int | None = None
    show_opponent: bool = False
    message: str = ""
    message_kind: str = "info"
    connection: str = ""
    opponent_detail: str = ""
    chat: list[str] = field(default_factory=list)
    trump_choice: int = 0
    trump_taken: int | None = None
    end: EndView | None = None
    help_open: bool = False
    confirm: _Confirm | None = None
    prompt_kind: str | None = None  # None, "move" or "chat"
    rules_top: int | None = None  # the rule book is open, scrolled to this wrapped line
    repeating: frozenset[Move] = frozenset()  # my legal moves that would draw by repetition
    pickup_note: str = ""  # "You picked up 3 cards ..." until the opponent's reply has been shown
    end_note: str = ""  # why the match ended early ("Gus resigned and left the match"), kept on the end screen


class _LinesControl(UIControl):
    """A control that renders lines of fragments for exactly the size it is given."""

    def __init__(self, render: Callable[[int, int], list[Line]]) -> None:
        self._render = render

    def create_content(self, width: int, height: int | None) -> UIContent:
        lines = [cast(StyleAndTextTuples, line) for line in self._render(width, height or 24)]
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines), show_cursor=False)

    def is_focusable(self) -> bool:
        return True


class MoveCompleter(Completer):
    """Completes a typed move with the legal plays only (RULES.md §4).

    The first word completes to a card that may be led or that beats the top
    (or ``p`` when picking up is legal); after a beating card and a space the
    second word completes to the cards that may follow it.  Cards are offered
    as ``10S``-style codes (rank, suit letter); prefixes match both ``T`` and
    ``10`` spellings.
    """

    def __init__(self, table: TableApp) -> None:
        self._table = table

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        pos = self._table.state.position
        if pos is None or self._table.state.mode not in (Mode.TURN, Mode.SECOND):
            return
        text = latin_move_text(document.text_before_cursor)
        if document.text_before_cursor[-1:].isspace():
            text += " "
        words = text.split()
        current = "" if (not words or text[-1:].isspace()) else words[-1]
        done = words if current == "" else words[:-1]
        legal = pos.legal_moves()
        pending = self._table.state.pending_beat
        candidates: dict[int, str] = {}
        if pending is not None and not done:
            for m in legal:
                if m.kind == BEAT and m.card == pending and m.second >= 0:
                    candidates[m.second] = "second card"
        elif not done:
            for m in legal:
                if m.kind == LEAD:
                    candidates[m.card] = "lead"
                elif m.kind == BEAT:
                    candidates[m.card] = "beat" if m.second >= 0 else "beat (last card)"
        elif len(done) == 1:
            try:
                first = int(Card.parse(done[0]))
            except CardParseError:
                return
            for m in legal:
                if m.kind == BEAT and m.card == first and m.second >= 0:
                    candidates[m.second] = "second card"
        else:
            return
        low = current.lower()
        for card, meta in candidates.items():
            c = Card(card)
            typed = c.label(ascii_only=True)
            if typed.lower().startswith(low) or c.code.lower().startswith(low):
                yield Completion(typed, start_position=-len(current), display=typed,
                                 display_meta=meta)
        if not done and pending is None and any(m.kind == PICK_UP for m in legal) and "pickup".startswith(low):
            yield Completion("p", start_position=-len(current), display="p", display_meta="pick up")


HELP_TEXT = """\
Svoi Kozyri: each player has an own trump suit; it
counts only on its owner's turn. Pile empty: lead any
card. Else beat the top card, then put any second card
on it; or pick up. A card beats the top if it is the
same suit and higher, or your trump on a non-trump top
(on a top of your trump, a higher trump). You must beat
if you can. Picking up takes 3 cards (5 if the top is
your trump, all if it is its ace). First out of cards
wins; a draw if the other's last card beats the new
top. A third repetition or the turn limit draws.

←→ h l select   ↑↓ k j suit   Enter play, then 2nd card
Esc take the beat back   p pick up   ? help   q ^C quit
: or / type a move (QS, 10s 7h, p); Tab completes it
  Russian letters: В Д К Т = J Q K A, П Ч Б Т = ♠ ♥ ♦ ♣
u undo, i hint (vs AI)  o hand  d offer a draw  R resign
In a Russian layout the keys work by position (з = p)."""

#: The last line of the help box.
HELP_CLOSING = "r reads the whole rule book; any other key closes"


#: Key hints dropped first when the keys line is too narrow (``? help`` lists them all).
_DROPPABLE = ("o hand", "R resign", "d draw", ": type", "u undo", "i hint", "c chat", "Esc back")


def fit_keys(items: list[str], width: int, droppable: tuple[str, ...] = _DROPPABLE) -> str:
    """Key hints joined by two spaces (one if need be), dropping the ``droppable`` ones
    (default :data:`_DROPPABLE`), first ones first, until the line fits ``width`` columns."""
    items = list(items)
    drop = [d for d in droppable if d in items]
    while True:
        for sep in ("  ", " "):
            text = sep.join(items)
            if get_cwidth(text) <= width:
                return text
        if not drop:
            return text
        items.remove(drop.pop(0))


#: Keys that never get the "does nothing here" hint (terminal reports, mouse, paste, resize).
_SILENT_KEYS = frozenset({
    Keys.CPRResponse, Keys.Vt100MouseEvent, Keys.WindowsMouseEvent, Keys.BracketedPaste, Keys.Ignore,
    Keys.ScrollUp, Keys.ScrollDown, Keys.SIGINT,
})


def repeating_moves(position: Position) -> frozenset[Move]:
    """The legal moves of the player to move that would end the deal drawn by repetition
    (RULES.md §7: the position after them would occur for the ``rules.repetition``-th time)."""
    if not position.rules.repetition or position.outcome is not None:
        return frozenset()
    probe = position.copy()
    out = set()
    for move in probe.legal_moves():
        probe.push_unchecked(move)
        if probe.outcome is not None and probe.outcome.reason == "repetition":
            out.add(move)
        probe.pop()
    return frozenset(out)


def _move_words(move: Move) -> str:
    """``"playing 9♦"``, ``"beating with 10♠ then 7♥"``, ``"picking up"`` (for the repetition warning)."""
    if move.kind == PICK_UP:
        return "picking up"
    if move.kind == LEAD:
        return f"playing {Card(move.card).label()}"
    if move.second < 0:
        return f"beating with {Card(move.card).label()}"
    return f"beating with {Card(move.card).label()} then {Card(move.second).label()}"


class TableApp:
    """The table as a prompt_toolkit application (see the module docstring).

    Args:
        options: looks and features (:class:`UIOptions`).
        input, output: prompt_toolkit input/output (tests pass a pipe input
            and a ``DummyOutput``); None uses the terminal.

    The state is in :attr:`state` (read it in tests); :attr:`application` is
    the prompt_toolkit ``Application`` whose ``run_async()`` returns a
    :class:`QuitResult`.
    """

    def __init__(self, options: UIOptions | None = None, *, input: Input | None = None,
                 output: Output | None = None) -> None:
        self.options = options or UIOptions()
        self.state = _State()
        #: Where intents go; :class:`HumanPlayer` connects it to its trio channel.
        self.intent_sink: Callable[[Intent], None] | None = None
        #: Shown on the end-of-match screen, after ``record_label`` ("Match log saved" over the network).
        self.record_path: str | None = None
        self.record_label = "Record saved"
        self._rules_text: list[str] | None = None
        self._enter_before_left = ""  # match_end_enter before the opponent left (see peer_left)
        self.prompt_buffer = Buffer(
            completer=MoveCompleter(self), complete_while_typing=True, multiline=False,
            accept_handler=self._accept_prompt,
        )
        self._body = Window(content=_LinesControl(self._render_body), always_hide_cursor=True)
        self._prompt_window = Window(
            BufferControl(self.prompt_buffer, input_processors=[BeforeInput(self._prompt_label, style="class:prompt")]),
            height=1,
        )
        status = Window(content=_LinesControl(self._render_status), height=self._status_height)
        prompt_open = Condition(lambda: self.state.prompt_kind is not None)
        overlay_open = Condition(
            lambda: (self.state.help_open or self.state.confirm is not None) and not self.too_small())
        # The prompt sits above the status lines and the completion menu opens upwards from it
        # (its ``bottom`` follows the status height, see _status_height): it covers the table,
        # never what the status says.
        self._menu_float = Float(xcursor=True, bottom=4, content=CompletionsMenu(max_height=8, scroll_offset=1))
        root = FloatContainer(
            content=HSplit([self._body, ConditionalContainer(self._prompt_window, filter=prompt_open), status]),
            floats=[
                Float(content=ConditionalContainer(self._overlay_window(), filter=overlay_open)),
                self._menu_float,
            ],
        )
        self.application: Application[QuitResult] = Application(
            layout=Layout(root, focused_element=self._body),
            key_bindings=self._key_bindings(),
            style=make_style(self.options.color),
            full_screen=True,
            input=input,
            output=output,
            color_depth=None if self.options.color else ColorDepth.DEPTH_1_BIT,
        )
        self.application.ttimeoutlen = ESC_TIMEOUT_S
        self.application.timeoutlen = ESC_TIMEOUT_S

    # ----- text helpers --------------------------------------------------------

    def _t(self, text: str) -> str:
        return asciify(text) if self.options.ascii_only else text

    def _prompt_label(self) -> str:
        return "chat: " if self.state.prompt_kind == "chat" else "move: "

    @property
    def opponent_name(self) -> str:
        return self.state.names[1 - self.state.my_seat]

    # ----- snapshots -----------------------------------------------------------

    def table_view(self) -> TableView | None:
        """The :class:`TableView` of the current deal, or None before the first deal."""
        s = self.state
        pos = s.position
        if pos is None or s.trumps is None:
            return None
        return TableView(
            my_seat=s.my_seat,
            names=s.names,
            trumps=s.trumps,
            hands=(pos.hands[0], pos.hands[1]),
            pile=pos.pile,
            to_move=pos.to_move if pos.outcome is None else None,
            deal_number=s.deal_number,
            deals=s.deals,
            score_halves=s.score_halves,
            history=tuple(s.history),
            legal=self.legal_cards(),
            selected=s.selected if s.mode in (Mode.TURN, Mode.SECOND) else None,
            pending_beat=s.pending_beat if s.mode == Mode.SECOND else None,
            show_opponent=s.show_opponent,
            opponent_detail=s.opponent_detail,
            connection=s.connection,
            chat=tuple(s.chat[-3:]),
            ascii_only=self.options.ascii_only,
        )

    def legal_cards(self) -> int:
        """Bitmask of my cards that Enter accepts now: any card to lead, a beating card,
        or any other card as the second card; 0 when it is not my move."""
        s = self.state
        pos = s.position
        if pos is None or s.mode not in (Mode.TURN, Mode.SECOND):
            return 0
        hand = pos.hands[s.my_seat]
        if s.mode == Mode.SECOND and s.pending_beat is not None:
            return hand & ~(1 << s.pending_beat)
        if not pos.pile:
            return hand
        return pos.beating_cards(s.my_seat)

    def status_view(self, width: int = 80) -> StatusView:
        """The bottom lines for the current mode, the keys line fitted to ``width`` columns."""
        s = self.state
        a = self.options.ascii_only
        expect = ""
        if s.rules_top is not None:
            total = len(wrapped_lines(self._rule_lines(), width))
            return StatusView(expect=f"The rule book, line {s.rules_top + 1} of {total}; the game waits.",
                              keys=fit_keys(self._keys_items(), width - 1), ascii_only=a)
        if s.mode == Mode.TRUMP:
            expect = "Choose your own trump suit."
        elif s.mode in (Mode.TURN, Mode.SECOND) and s.position is not None:
            expect = expect_text(s.position, s.my_seat, s.pending_beat if s.mode == Mode.SECOND else None)
        elif s.mode == Mode.WAIT or (
                s.mode == Mode.IDLE and s.position is not None and s.position.outcome is None
                and s.position.to_move != s.my_seat):
            expect = self.options.waiting_text.format(name=self.opponent_name)
        elif s.mode == Mode.IDLE and s.position is None and s.connection:
            expect = f"Waiting for {self.opponent_name}…"
        elif s.mode == Mode.DEAL_END:
            expect = "Deal over. Enter starts the next deal."
        elif s.mode == Mode.MATCH_END:
            expect = "Match over."
        return StatusView(expect=expect, message=s.message, message_kind=s.message_kind,
                          keys=fit_keys(self._keys_items(), width - 1), ascii_only=a)

    def _keys_items(self) -> list[str]:
        s = self.state
        o = self.options
        if s.rules_top is not None:
            return ["↑↓ PgUp PgDn scroll", "Home End", "q Esc close the rules"]
        if s.prompt_kind == "move":
            items = ["Tab complete", "Enter play", "Esc close"]
        elif s.prompt_kind == "chat":
            items = ["Enter send", "Esc close"]
        elif s.mode == Mode.TURN:
            items = ["←→↑↓ select", "Enter play", "p pick up", ": type"]
            if o.allow_undo:
                items.append("u undo")
            if o.allow_hint:
                items.append("i hint")
            if o.allow_draw_offer:
                items.append("d draw")
            items += ["o hand", "R resign", "? help", "q quit"]
        elif s.mode == Mode.SECOND:
            items = ["←→↑↓ select", "Enter second card", "Esc back", ": type", "? help", "q quit"]
        elif s.mode == Mode.WAIT:
            items = ["o hand", "? help", "q quit"]
        elif s.mode == Mode.TRUMP:
            items = ["↑↓ select", "Enter choose", "c d h s or 1-4 choose", "q quit"]
        elif s.mode == Mode.DEAL_END:
            items = ["Enter next deal", "q quit"]
        elif s.mode == Mode.MATCH_END:
            items = [f"Enter {o.match_end_enter}"]
        else:
            items = ["q quit"]
        if o.allow_chat and s.mode not in (Mode.MATCH_END, Mode.TRUMP) and s.prompt_kind is None:
            items.insert(-1, "c chat")
        return items

    # ----- rendering -------------------------------------------------------------

    def terminal_size(self) -> tuple[int, int]:
        """The terminal's (columns, rows) as prompt_toolkit sees it."""
        size = self.application.output.get_size()
        return size.columns, size.rows

    def too_small(self) -> bool:
        """True when the terminal is below :data:`~.view.MIN_WIDTH` x :data:`~.view.MIN_HEIGHT`."""
        columns, rows = self.terminal_size()
        return columns < MIN_WIDTH or rows < MIN_HEIGHT

    def _render_status(self, width: int, height: int) -> list[Line]:
        if self.too_small():
            return []
        return render_status(self.status_view(width), width)

    def _status_height(self) -> Dimension:
        if self.too_small():
            return Dimension.exact(0)
        columns = self.terminal_size()[0]
        height = status_height(self.status_view(columns), columns)
        self._menu_float.bottom = height + 1  # just above the prompt line
        return Dimension.exact(height)

    def _render_body(self, width: int, height: int) -> list[Line]:
        s = self.state
        a = self.options.ascii_only
        if self.too_small():
            lines = render_too_small(*self.terminal_size())
            if s.confirm is not None:  # the dialog cannot be drawn: ask on the note's last lines
                lines[-2:] = [[("class:dialog", printable(self._t(f"{s.confirm.question} y/n")))], [("", "")]]
            return lines[:height]
        if s.rules_top is not None:
            return render_text_page(self._rule_lines(), s.rules_top, width, height, self._t(
                "The rules of Svoi Kozyri (RULES.md)"))
        if s.mode == Mode.TRUMP:
            return render_trump_choice(s.trump_choice, s.trump_taken, a, width, height, chat=s.chat[-3:])
        if s.mode in (Mode.DEAL_END, Mode.MATCH_END) and s.end is not None:
            return render_end(s.end, width, height)
        view = self.table_view()
        if view is None:
            return render_setup(s.chat[-3:], a, width, height)
        return render_table(view, width, height)

    def overlay_lines(self) -> list[str]:
        """The open dialog (a confirmation or the help) as framed text lines, no wider than the
        terminal (a long question wraps at spaces)."""
        s = self.state
        if s.confirm is not None:
            room = max(20, self.terminal_size()[0] - 4)
            body = [*wrap_text(printable(self._t(s.confirm.question)), room, ""), "", "y yes    n no"]
        else:
            body = [*HELP_TEXT.splitlines(), HELP_CLOSING]
            if self.options.ascii_only:  # a terminal without Unicode cannot show the Russian letters either
                body = [line for line in body if asciify(line).isascii()]
        body = [printable(self._t(line)) for line in body]
        width = max(get_cwidth(line) for line in body)
        tl, tr, bl, br, h, v = "┌┐└┘─│"
        lines = [tl + h * (width + 2) + tr]
        lines += [f"{v} {line}{' ' * (width - get_cwidth(line))} {v}" for line in body]
        lines.append(bl + h * (width + 2) + br)
        return [self._t(line) for line in lines]

    def _overlay_window(self) -> Window:
        def text() -> StyleAndTextTuples:
            return [("class:dialog", "\n".join(self.overlay_lines()))]

        def width() -> Dimension:
            return Dimension.exact(max(get_cwidth(x) for x in self.overlay_lines()))

        return Window(FormattedTextControl(text), style="class:dialog", width=width, dont_extend_height=True)

    def invalidate(self) -> None:
        """Ask prompt_toolkit to redraw (a no-op while the application is not running)."""
        self.application.invalidate()

    # ----- the rule book ----------------------------------------------------------------

    def _rule_lines(self) -> list[str]:
        if self._rules_text is None:
            try:
                self._rules_text = self._t(rule_book()).splitlines()
            except OSError as exc:  # an installation without its package data
                self._rules_text = [f"The rule book is missing from this installation: {exc}"]
        return self._rules_text

    def open_rules(self) -> None:
        """Show the whole rule book (RULES.md, installed with the package) in place of the table."""
        self.state.help_open = False
        self.state.rules_top = 0
        self.invalidate()

    def close_rules(self) -> None:
        """Back from the rule book to the table."""
        self.state.rules_top = None
        self.invalidate()

    def scroll_rules(self, lines: int | None) -> None:
        """Scroll the rule book by ``lines`` (negative: up); None jumps to the end, 0 to the top
        when already there.  Stops at both ends."""
        s = self.state
        if s.rules_top is None:
            return
        columns, rows = self.terminal_size()
        total = len(wrapped_lines(self._rule_lines(), columns))
        room = max(1, rows - 4)  # the title line and the status lines
        last = max(0, total - room)
        s.rules_top = last if lines is None else max(0, min(last, s.rules_top + lines))
        self.invalidate()

    def page_size(self) -> int:
        """Lines one PageDown scrolls in the rule book."""
        return max(1, self.terminal_size()[1] - 6)

    # ----- called by the trio side (HumanPlayer, play.py, the network game) ------------

    def set_players(self, names: tuple[str, str], my_seat: int) -> None:
        """The display names of seat 0 and seat 1 and the seat of the person at this terminal."""
        self.state.names = names
        self.state.my_seat = my_seat
        self.invalidate()

    def set_connection(self, text: str) -> None:
        """The connection-state text shown right of the opponent (``""`` hides it)."""
        self.state.connection = text
        self.invalidate()

    def set_opponent_detail(self, text: str) -> None:
        """An extra line under the opponent's name (e.g. ``"fingerprint 3f2a…"``; ``""`` hides it)."""
        self.state.opponent_detail = text
        self.invalidate()

    def add_chat(self, sender: str, text: str) -> None:
        """Show a chat line ``"sender: text"`` (the last three stay on the table)."""
        self.state.chat.append(f"{sender}: {text}")
        self.invalidate()

    def chat_refused(self, why: str) -> None:
        """A chat line of the person was not sent (``why``, e.g. too long): a note in the chat panel,
        where it stays (the line itself is not shown as said), and on the message line."""
        self.state.chat.append(f"(your line was not sent: {why})")
        self.show_message(f"chat not sent: {why}", "error")

    def show_message(self, text: str, kind: str = "info") -> None:
        """Put ``text`` on the message line; ``kind`` is ``"info"``, ``"error"`` or ``"hint"``."""
        self.state.message = self._t(text)
        self.state.message_kind = kind
        self.invalidate()

    def ask_trump(self, taken: int | None = None) -> None:
        """Show the trump-choice screen; the choice comes back as :class:`TrumpChosen`.
        ``taken`` is the opponent's suit when it chose first (RULES.md §2)."""
        s = self.state
        s.trump_taken = taken
        s.trump_choice = next(x for x in (2, 3, 1, 0) if x != taken)
        s.mode = Mode.TRUMP
        self.invalidate()

    def ask_draw(self) -> None:
        """Ask the person whether to accept the opponent's draw offer (answer: :class:`DrawAnswer`)."""
        self.state.confirm = _Confirm(
            f"{self.opponent_name} offers a draw. Accept?",
            on_yes=lambda: self._send(DrawAnswer(True)),
            on_no=lambda: self._send(DrawAnswer(False)),
        )
        self.invalidate()

    def ask_question(self, question: str, on_yes: Callable[[], None], on_no: Callable[[], None]) -> None:
        """Open a y/n dialog over whatever is shown (e.g. the rematch offer at the end of a
        networked match); ``on_yes``/``on_no`` run on the UI side when the person answers
        (Esc is no).  Replaces an open dialog."""
        self.state.help_open = False
        self.state.confirm = _Confirm(question, on_yes=on_yes, on_no=on_no)
        self.invalidate()

    def peer_left(self, text: str) -> None:
        """The opponent left the match (a networked match, protocol/wire.md §15): ``text`` (e.g.
        ``"Gus resigned and left the match"``) goes on the message line now and stays on the end
        screen; draw offers and chat end, and Enter on the end screen only leaves (no rematch)."""
        s = self.state
        s.end_note = text
        self._enter_before_left = self._enter_before_left or self.options.match_end_enter
        self.options.match_end_enter = "leave"
        self.options.allow_draw_offer = False
        self.options.allow_chat = False
        if s.prompt_kind == "chat":
            self._close_prompt()
        self.show_message(text, "info")

    def new_match(self) -> None:
        """Clear the table for another match with the same players (a networked rematch):
        no position, score 0 : 0, back from the end screen."""
        s = self.state
        s.end_note = ""
        s.position = None
        s.trumps = None
        s.history = []
        s.deal_number = 0
        s.score_halves = (0, 0)
        s.end = None
        s.mode = Mode.IDLE
        s.selected = None
        s.pending_beat = None
        self.invalidate()

    def close_question(self) -> None:
        """Close the open y/n dialog without answering it (e.g. the peer left meanwhile)."""
        self.state.confirm = None
        self.invalidate()

    def show_event(self, event: Event) -> None:
        """Update the table for a match event (called by :meth:`HumanPlayer.observe`)."""
        s = self.state
        if isinstance(event, DealStarted):
            s.position = event.position
            s.trumps = event.position.trumps
            s.deal_number = event.number
            s.deals = event.position.rules.deals
            s.history = []
            s.end = None
            s.mode = Mode.IDLE
            s.selected = None
            dealer = "you" if event.dealer == s.my_seat else s.names[event.dealer]
            elder = "you lead" if event.dealer != s.my_seat else f"{s.names[1 - event.dealer]} leads"
            if event.position.pile or event.position.turn:  # a deal set up from a position (play --position)
                mover = "you are" if event.position.to_move == s.my_seat else f"{s.names[event.position.to_move]} is"
                self.show_message(f"Deal {event.number} of {s.deals}: from a set-up position; {mover} to move.")
            else:
                self.show_message(f"Deal {event.number} of {s.deals}: {dealer} dealt; {elder}.")
        elif isinstance(event, MovePlayed):
            before = s.position
            picked = 0
            if event.move.kind == PICK_UP and before is not None:
                picked = len(before.pile) - len(event.position.pile)
            s.position = event.position
            s.history.append(HistoryEntry(len(s.history) + 1, event.seat, event.move, picked))
            if event.seat != s.my_seat:
                what = event.move.label()
                if picked:
                    what += f" ({picked} card{'s' if picked != 1 else ''})"
                # My own pick-up stays said beside the reply that follows it.
                before_reply = f"{s.pickup_note} " if s.pickup_note else ""
                self.show_message(f"{before_reply}{s.names[event.seat]}: {what}")
                s.pickup_note = ""
            elif picked:
                n = bin(event.position.hands[event.seat]).count("1")
                s.pickup_note = f"You picked up {picked} card{'s' if picked != 1 else ''} (now {n} in hand)."
                self.show_message(s.pickup_note)
            else:
                s.pickup_note = ""
                self.show_message("")
        elif isinstance(event, MovesTakenBack):
            s.position = event.position
            del s.history[len(s.history) - event.count:]
            if event.count:
                self.show_message(f"Took back {event.count} move{'s' if event.count != 1 else ''}.")
            else:
                self.show_message("Nothing to take back yet.", "error")
        elif isinstance(event, DealEnded):
            s.position = event.position
            s.score_halves = event.score_halves
        elif isinstance(event, MatchEnded):
            s.score_halves = event.score_halves
        self.invalidate()

    def show_end(self, event: DealEnded | MatchEnded) -> None:
        """Show the end-of-deal screen (for :class:`DealEnded`) or the end of the match."""
        s = self.state
        pos = s.position
        if pos is None or s.trumps is None:
            return
        if isinstance(event, DealEnded):
            title = self._result_text(event)
            match_over = False
            s.mode = Mode.DEAL_END
        else:
            a, b = event.score_halves[s.my_seat], event.score_halves[1 - s.my_seat]
            verdict = "You won the match" if a > b else ("You lost the match" if a < b else "The match is drawn")
            last = event.record.deals[-1] if event.record.deals else None
            title = verdict
            if last is not None and last.outcome is not None:
                title = f"{verdict}. Last deal: {last.outcome.describe(self._you_names())}"
            match_over = True
            s.mode = Mode.MATCH_END
        s.end = EndView(
            title=self._t(title), names=s.names, trumps=s.trumps, hands=(pos.hands[0], pos.hands[1]),
            pile=pos.pile, deal_number=s.deal_number, deals=s.deals, score_halves=event.score_halves,
            my_seat=s.my_seat, match_over=match_over, record_path=self.record_path,
            ascii_only=self.options.ascii_only, record_label=self.record_label, history=tuple(s.history),
            note=self._t(s.end_note) if match_over else "",
        )
        s.selected = None
        s.prompt_kind = None
        self.show_message(s.end_note if match_over else "")

    def _you_names(self) -> tuple[str, str]:
        names = list(self.state.names)
        names[self.state.my_seat] = "you"
        return names[0], names[1]

    def _result_text(self, event: DealEnded) -> str:
        o = event.outcome
        text = o.describe(self._you_names())
        return text[0].upper() + text[1:] + "."

    def begin_turn(self, position: Position, seat: int) -> None:
        """It is the person's move in ``position`` (a copy): enable the move keys."""
        s = self.state
        s.position = position
        s.my_seat = seat
        s.mode = Mode.TURN
        s.pending_beat = None
        legal = self.legal_cards()
        order = hand_order(position.hands[seat], position.trumps[seat])
        if s.selected not in order or not (legal >> (s.selected or 0) & 1):
            s.selected = next((c for c in order if legal >> c & 1), order[0] if order else None)
        s.repeating = repeating_moves(position)
        if s.repeating:
            self.show_message(self.repetition_warning(sorted(s.repeating)), "hint")
        self.invalidate()

    def repetition_warning(self, moves: list[Move]) -> str:
        """``"playing 9♦ repeats a position a third time: the deal is drawn"`` for ``moves``
        (RULES.md §7 repetition; the count is the rule set's)."""
        pos = self.state.position
        n = pos.rules.repetition if pos is not None else 3
        nth = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(n, f"{n}th")
        labels = [_move_words(m) for m in moves[:3]] + (["another move"] if len(moves) > 3 else [])
        what = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " or " + labels[-1]
        return f"{what} repeats a position a {nth} time: the deal is drawn"

    def end_turn(self) -> None:
        """The person's move is over (sent, or the turn was cancelled): disable the move keys."""
        s = self.state
        if s.mode in (Mode.TURN, Mode.SECOND):
            s.mode = Mode.WAIT
        s.pending_beat = None
        if s.prompt_kind == "move":
            self._close_prompt()
        self.invalidate()

    def show_hint(self, move: Move, note: str = "") -> None:
        """Show the AI's suggested ``move`` (with ``note``, e.g. "wins by force in 3") and put the
        cursor on its card."""
        self.show_message(f"Hint: {move.label()}" + (f" — {note}" if note else ""), "hint")
        if move.card != NO_CARD and self.state.mode == Mode.TURN:
            self.state.selected = move.card

    def exit(self, result: QuitResult = QuitResult.FINISHED) -> None:
        """End the application (if it is running and not already ending)."""
        app = self.application
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result=result)

    # ----- sending intents -------------------------------------------------------------

    def _send(self, intent: Intent) -> None:
        if self.intent_sink is not None:
            self.intent_sink(intent)

    def _play(self, move: Move, *, confirmed: bool = False) -> bool:
        """Check ``move`` against the position; send it, or show why it is illegal.  A move
        that would draw the deal by repetition asks first (True: asked or sent)."""
        s = self.state
        pos = s.position
        if pos is None:
            return False
        try:
            pos.check(move)
        except IllegalMoveError as exc:
            self.show_message(str(exc), "error")
            return False
        if move in s.repeating and not confirmed:
            warning = self.repetition_warning([move])

            def yes() -> None:
                if s.mode in (Mode.TURN, Mode.SECOND) and s.position is pos:
                    self._play(move, confirmed=True)

            s.confirm = _Confirm(f"{warning[0].upper()}{warning[1:]}. Play it?", on_yes=yes)
            self.invalidate()
            return True
        self.show_message("")
        self.end_turn()
        self._send(move)
        return True

    def play_selected(self) -> None:
        """Enter: lead the selected card, choose it as the beating card, or play it as the second card."""
        s = self.state
        pos = s.position
        card = s.selected
        if pos is None or card is None:
            return
        hand = pos.hands[s.my_seat]
        if s.mode == Mode.SECOND and s.pending_beat is not None:
            if card == s.pending_beat:
                self.show_message("choose a different card as the second card (Esc takes the beat back)", "error")
                return
            self._play(Move.beat(s.pending_beat, card))
            return
        if not pos.pile:
            self._play(Move.lead(card))
            return
        rest = hand & ~(1 << card)
        probe = Move.beat(card, next(iter(cards_in(rest))) if rest else NO_CARD)
        try:
            pos.check(probe)
        except IllegalMoveError as exc:
            self.show_message(str(exc), "error")
            return
        if not rest:
            self._play(Move.beat(card))
            return
        s.pending_beat = card
        s.mode = Mode.SECOND
        order = [c for c in hand_order(hand, pos.trumps[s.my_seat]) if c != card]
        s.selected = order[0] if order else None
        top = Card(pos.pile[-1]).label()
        self.show_message(f"{Card(card).label()} beats {top}: now choose the second card to put on it.")

    def cancel_beat(self) -> None:
        """Esc after choosing a beating card: back to choosing the beating card."""
        s = self.state
        if s.mode == Mode.SECOND:
            s.selected = s.pending_beat
            s.pending_beat = None
            s.mode = Mode.TURN
            self.show_message("")

    def pick_up(self) -> None:
        """``p``: pick up (RULES.md §6), or say why not.  While a beating card waits for
        its second card, ``p`` only says so (Esc takes the beat back first)."""
        if self.state.mode == Mode.SECOND:
            self.show_message("choose the second card (Esc takes the beat back)", "error")
            return
        self._play(Move.pick_up())

    def submit_typed(self, text: str) -> bool:
        """A typed move (``QS``, ``10s 7h``, ``p``): play it if legal, else show why; True if sent.

        With a beating card already chosen, a single card is its second card; a single
        beating card (not the last in hand) goes on to the second-card step, as Enter does,
        and the prompt stays open for the second card (False is returned: nothing sent yet).
        """
        s = self.state
        pos = s.position
        if pos is None or s.mode not in (Mode.TURN, Mode.SECOND):
            self.show_message("it is not your move", "error")
            return False
        text = latin_move_text(text)
        words = text.replace("/", " ").replace(",", " ").split()
        if not words:
            return False
        pick_words = ("p", "pickup", "take", "t")
        if s.mode == Mode.TURN and pos.pile and len(words) == 1 and words[0].lower() not in pick_words:
            # One beating card with more cards in hand: on to the second-card step, as Enter does.
            try:
                card = int(Card.parse(words[0]))
            except CardParseError:
                card = NO_CARD
            hand = pos.hands[s.my_seat]
            if card != NO_CARD and hand >> card & 1 and hand & ~(1 << card):
                s.selected = card
                self.play_selected()
                return False
        try:
            if s.mode == Mode.SECOND and s.pending_beat is not None and len(words) == 1 and words[0].lower() not in (
                    "p", "pickup", "take", "t"):
                move = Move.beat(s.pending_beat, int(Card.parse(words[0])))
            else:
                move = pos.parse_move(text)
        except (InvalidMoveError, CardParseError, IllegalMoveError) as exc:
            self.show_message(str(exc), "error")
            return False
        return self._play(move)

    def move_selection(self, step: int) -> None:
        """Move the cursor ``step`` cards along the hand in display order (wrapping)."""
        s = self.state
        pos = s.position
        if pos is None:
            return
        order = hand_order(pos.hands[s.my_seat], pos.trumps[s.my_seat])
        if not order:
            return
        i = order.index(s.selected) if s.selected in order else -step if step > 0 else 0
        s.selected = order[(i + step) % len(order)]
        self.invalidate()

    def move_row(self, step: int) -> None:
        """Move the cursor to the next (``step`` 1) or previous (-1) non-empty suit row."""
        s = self.state
        pos = s.position
        if pos is None or s.selected is None:
            return
        trump = pos.trumps[s.my_seat]
        hand = pos.hands[s.my_seat]
        rows = [[int(c) for c in cards_in(hand) if c // 13 == suit] for suit in suit_rows(trump)]
        r = next(i for i, row in enumerate(rows) if s.selected in row)
        col = rows[r].index(s.selected)
        for k in range(1, 5):
            row = rows[(r + step * k) % 4]
            if row:
                s.selected = row[min(col, len(row) - 1)]
                break
        self.invalidate()

    # ----- prompt ---------------------------------------------------------------------

    def open_prompt(self, kind: str = "move") -> None:
        """Open the typed-move (``"move"``) or chat (``"chat"``) prompt."""
        self.state.prompt_kind = kind
        self.prompt_buffer.reset()
        self.application.layout.focus(self._prompt_window)
        self.invalidate()

    def _close_prompt(self) -> None:
        """Close the prompt; an error message about what was typed goes with it."""
        if self.state.prompt_kind == "move" and self.state.message_kind == "error":
            self.show_message("")
        self.state.prompt_kind = None
        self.prompt_buffer.reset()
        with contextlib.suppress(ValueError):
            self.application.layout.focus(self._body)

    def _accept_prompt(self, buffer: Buffer) -> bool:
        text = buffer.text
        kind = self.state.prompt_kind
        if kind == "chat":
            if text.strip():
                self._send(ChatSend(text.strip()))
            self._close_prompt()
        elif kind == "move":
            # ":" and "/" open the prompt; typed again inside it they are not part of the move.
            text = text.lstrip(":/ ")
            if not text.strip() or self.submit_typed(text):
                self._close_prompt()
            else:
                # The message names the bad text; start afresh rather than append to it.
                buffer.reset()
                return True
        self.invalidate()
        return False

    # ----- confirmations -------------------------------------------------------------

    def ask_quit(self) -> None:
        """``q``/Ctrl-C: confirm, then end the application with :attr:`QuitResult.QUIT`."""
        s = self.state
        if s.mode == Mode.MATCH_END:
            self._send(Continue())
            self.exit(QuitResult.FINISHED)
            return
        s.help_open = False
        question = self.options.quit_question
        if s.mode in (Mode.TRUMP, Mode.IDLE):
            question = "Quit the game?"
        s.confirm = _Confirm(question, on_yes=lambda: self.exit(QuitResult.QUIT))
        self.invalidate()

    def ask_draw_offer(self) -> None:
        """``d``: confirm, then offer the opponent a draw of this deal (RULES.md §7)."""
        if not self.options.allow_draw_offer:
            self.show_message("draw offers are not available here", "error")
            return
        if self.state.mode not in (Mode.TURN, Mode.SECOND):
            return

        def yes() -> None:
            if self.state.mode in (Mode.TURN, Mode.SECOND):
                self.end_turn()
                self.show_message(f"You offered a draw; waiting for {self.opponent_name}.")
                self._send(OfferDraw())

        self.state.confirm = _Confirm(
            f"Offer {self.opponent_name} a draw? If accepted, the deal is drawn.", on_yes=yes)
        self.invalidate()

    def ask_resign(self) -> None:
        """``R``: confirm, then resign the deal (RULES.md §7)."""
        if self.state.mode not in (Mode.TURN, Mode.SECOND):
            return

        def yes() -> None:
            if self.state.mode in (Mode.TURN, Mode.SECOND):
                self.end_turn()
                self._send(Resign())

        self.state.confirm = _Confirm("Resign this deal? The opponent wins it.", on_yes=yes)
        self.invalidate()

    def answer_confirm(self, yes: bool) -> None:
        """Answer the open confirmation (y/n)."""
        c = self.state.confirm
        self.state.confirm = None
        if c is not None:
            (c.on_yes if yes else c.on_no)()
        self.invalidate()

    # ----- key bindings ----------------------------------------------------------------

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        ignore_mouse_reports(kb)
        s = self.state
        confirm = Condition(lambda: s.confirm is not None)
        help_open = Condition(lambda: s.help_open and s.confirm is None)
        rules_open = Condition(lambda: s.rules_top is not None and s.confirm is None and not s.help_open)
        prompt = Condition(lambda: s.prompt_kind is not None)
        free = Condition(lambda: s.confirm is None and not s.help_open and s.prompt_kind is None
                         and s.rules_top is None)
        turn = free & Condition(lambda: s.mode in (Mode.TURN, Mode.SECOND))
        second = free & Condition(lambda: s.mode == Mode.SECOND)
        table = free & Condition(lambda: s.mode in (Mode.TURN, Mode.SECOND, Mode.WAIT, Mode.IDLE))
        trump = free & Condition(lambda: s.mode == Mode.TRUMP)
        ended = free & Condition(lambda: s.mode in (Mode.DEAL_END, Mode.MATCH_END))

        @kb.add("y", filter=confirm)
        @kb.add("Y", filter=confirm)
        def _yes(event: KeyPressEvent) -> None:
            """Confirm: yes."""
            self.answer_confirm(True)

        @kb.add("n", filter=confirm)
        @kb.add("N", filter=confirm)
        @kb.add("escape", filter=confirm, eager=True)
        def _no(event: KeyPressEvent) -> None:
            """Confirm: no."""
            self.answer_confirm(False)

        @kb.add("<any>", filter=help_open)
        def _close_help(event: KeyPressEvent) -> None:
            """Close the help."""
            s.help_open = False

        @kb.add("r", filter=help_open)
        def _rules(event: KeyPressEvent) -> None:
            """Read the whole rule book."""
            self.open_rules()

        for keys, lines, doc in (
                (("up", "k"), -1, "Scroll the rules up."), (("down", "j", "enter"), 1, "Scroll the rules down."),
                (("pageup", "b"), None, "One page up."), (("pagedown", " "), None, "One page down."),
                (("home", "g"), -10**9, "The start of the rules."), (("end", "G"), 10**9, "The end of the rules.")):
            kb.add(*keys[:1], filter=rules_open)(self._scroll_key(lines, doc, keys[0]))
            for key in keys[1:]:
                kb.add(key, filter=rules_open)(self._scroll_key(lines, doc, key))

        @kb.add("q", filter=rules_open)
        @kb.add("r", filter=rules_open)
        @kb.add("?", filter=rules_open)
        @kb.add("escape", filter=rules_open, eager=True)
        def _close_rules(event: KeyPressEvent) -> None:
            """Close the rules."""
            self.close_rules()

        @kb.add("escape", filter=prompt, eager=True)
        @kb.add("c-g", filter=prompt)
        def _close(event: KeyPressEvent) -> None:
            """Close the prompt."""
            self._close_prompt()

        @kb.add("c-c")
        def _ctrl_c(event: KeyPressEvent) -> None:
            """Quit (asks first)."""
            if s.prompt_kind is not None:
                self._close_prompt()
            s.rules_top = None
            self.ask_quit()

        @kb.add("q", filter=free)
        def _quit(event: KeyPressEvent) -> None:
            """Quit (asks first)."""
            self.ask_quit()

        @kb.add("?", filter=free)
        def _help(event: KeyPressEvent) -> None:
            """Help: rules summary and keys."""
            s.help_open = True

        @kb.add("left", filter=turn)
        @kb.add("h", filter=turn)
        def _left(event: KeyPressEvent) -> None:
            """Select the previous card."""
            self.move_selection(-1)

        @kb.add("right", filter=turn)
        @kb.add("l", filter=turn)
        def _right(event: KeyPressEvent) -> None:
            """Select the next card."""
            self.move_selection(1)

        @kb.add("up", filter=turn)
        @kb.add("k", filter=turn)
        def _up(event: KeyPressEvent) -> None:
            """Select in the suit row above."""
            self.move_row(-1)

        @kb.add("down", filter=turn)
        @kb.add("j", filter=turn)
        def _down(event: KeyPressEvent) -> None:
            """Select in the suit row below."""
            self.move_row(1)

        @kb.add("enter", filter=turn)
        @kb.add(" ", filter=turn)
        def _enter(event: KeyPressEvent) -> None:
            """Play the selected card (a beat then asks for the second card)."""
            self.play_selected()

        @kb.add("escape", filter=second, eager=True)
        def _back(event: KeyPressEvent) -> None:
            """Take back the chosen beating card."""
            self.cancel_beat()

        @kb.add("p", filter=turn)
        def _pick(event: KeyPressEvent) -> None:
            """Pick up."""
            self.pick_up()

        @kb.add(":", filter=turn)
        @kb.add("/", filter=turn)
        def _type(event: KeyPressEvent) -> None:
            """Type a move (Tab completes the legal ones)."""
            self.open_prompt("move")

        @kb.add("c", filter=free & Condition(lambda: self.options.allow_chat and s.mode != Mode.TRUMP))
        def _chat(event: KeyPressEvent) -> None:
            """Chat with the opponent."""
            self.open_prompt("chat")

        @kb.add("u", filter=turn)
        def _undo(event: KeyPressEvent) -> None:
            """Undo your last move (against the AI)."""
            if not self.options.allow_undo:
                self.show_message("undo is only allowed against the AI", "error")
                return
            self.end_turn()
            self._send(Undo())

        @kb.add("i", filter=turn)
        def _hint(event: KeyPressEvent) -> None:
            """Hint: the AI's suggestion (against the AI)."""
            if not self.options.allow_hint:
                self.show_message("hints are only given against the AI", "error")
                return
            self.show_message("Thinking about a hint…", "hint")
            self._send(HintRequest())

        @kb.add("d", filter=turn)
        def _draw(event: KeyPressEvent) -> None:
            """Offer a draw (asks first)."""
            self.ask_draw_offer()

        @kb.add("R", filter=turn)
        def _resign(event: KeyPressEvent) -> None:
            """Resign the deal (asks first)."""
            self.ask_resign()

        @kb.add("o", filter=table)
        def _toggle(event: KeyPressEvent) -> None:
            """Show or hide the opponent's hand."""
            s.show_opponent = not s.show_opponent

        @kb.add("up", filter=trump)
        @kb.add("left", filter=trump)
        @kb.add("k", filter=trump)
        def _trump_up(event: KeyPressEvent) -> None:
            """Previous suit."""
            self._step_trump(-1)

        @kb.add("down", filter=trump)
        @kb.add("right", filter=trump)
        @kb.add("j", filter=trump)
        def _trump_down(event: KeyPressEvent) -> None:
            """Next suit."""
            self._step_trump(1)

        @kb.add("enter", filter=trump)
        @kb.add(" ", filter=trump)
        def _trump_choose(event: KeyPressEvent) -> None:
            """Choose the selected suit."""
            self.choose_trump(s.trump_choice)

        # Digits, suit letters, and the Russian suit letters П Ч Б Т (пики, черви, бубны, трефы).
        for key, suit in (("1", 0), ("2", 1), ("3", 2), ("4", 3), ("c", 0), ("d", 1), ("h", 2), ("s", 3),
                          ("C", 0), ("D", 1), ("H", 2), ("S", 3), ("т", 0), ("б", 1), ("ч", 2), ("п", 3),
                          ("Т", 0), ("Б", 1), ("Ч", 2), ("П", 3)):
            kb.add(key, filter=trump)(self._trump_key(suit))

        @kb.add("enter", filter=ended)
        @kb.add(" ", filter=ended)
        def _continue(event: KeyPressEvent) -> None:
            """Next deal / leave."""
            if s.mode == Mode.MATCH_END:
                self._send(Continue())  # the match loop returns; its end closes the application
            else:
                s.mode = Mode.IDLE
                self._send(Continue())

        @kb.add("<any>", filter=free)
        def _unknown(event: KeyPressEvent) -> None:
            """Any other key: say that it does nothing here, and what would."""
            key = event.key_sequence[0].key
            if key in _SILENT_KEYS or not isinstance(key, str):
                return
            self.show_message(f"{key_name(key)} does nothing here: {self._what_helps()}", "hint")

        return add_layout_aliases(kb)

    def _what_helps(self) -> str:
        s = self.state
        if s.mode == Mode.TURN:
            pick = ", p picks up" if s.position is not None and s.position.can_pick_up() else ""
            return f"choose a card with the arrows and press Enter{pick}; ? lists every key"
        if s.mode == Mode.SECOND:
            return "choose the second card and press Enter, Esc takes the beat back; ? lists every key"
        if s.mode == Mode.TRUMP:
            return "choose a suit with the arrows and Enter, or press c d h s; q quits"
        if s.mode == Mode.DEAL_END:
            return "Enter starts the next deal, q quits"
        if s.mode == Mode.MATCH_END:
            return f"Enter: {self.options.match_end_enter}"
        if s.mode == Mode.WAIT:
            return f"it is {self.opponent_name}'s move; ? lists the keys, q quits"
        return "? lists the keys, q quits"

    def _scroll_key(self, lines: int | None, doc: str, key: str) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            if lines is None:
                self.scroll_rules(self.page_size() * (-1 if key in ("pageup", "b") else 1))
            else:
                self.scroll_rules(lines)

        handler.__doc__ = doc
        return handler

    def _trump_key(self, suit: int) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            self.choose_trump(suit)

        handler.__doc__ = f"Choose {suit_label(suit)} as your trump."
        return handler

    def _step_trump(self, step: int) -> None:
        s = self.state
        x = s.trump_choice
        for _ in range(4):
            x = (x + step) % 4
            if x != s.trump_taken:
                break
        s.trump_choice = x

    def choose_trump(self, suit: int) -> None:
        """Choose ``suit`` as the person's trump (refused if the opponent took it)."""
        s = self.state
        if s.mode != Mode.TRUMP:
            return
        if suit == s.trump_taken:
            self.show_message(f"{suit_label(suit)} is your opponent's trump: choose another suit", "error")
            return
        s.trump_choice = suit
        s.mode = Mode.IDLE
        self.show_message("")
        self._send(TrumpChosen(suit))


# ----- the person as a Player ---------------------------------------------------------


class HumanPlayer:
    """The person at the terminal as a :class:`~p2ptrumps.match.Player`.

    Construct it inside the trio run (it takes the current trio token): it
    connects ``table.intent_sink`` to its own channel.

    Args:
        table: the :class:`TableApp` it plays through.
        info: the seat's :class:`~p2ptrumps.record.PlayerInfo`.
        hint: ``hint(position) -> Move`` (or ``(Move, note)``) for the ``i`` key, run in a
            worker thread (None: no hints).
    """

    def __init__(self, table: TableApp, info: PlayerInfo, *,
                 hint: Callable[[Position], Move | tuple[Move, str]] | None = None) -> None:
        self.info = info
        self._table = table
        self._hint = hint
        send, self._intents = trio.open_memory_channel[Intent](math.inf)
        token = trio.lowlevel.current_trio_token()

        def sink(intent: Intent) -> None:
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(send.send_nowait, intent)

        table.intent_sink = sink
        self._offered_draw = False

    async def _receive(self, *kinds: type) -> Intent:
        """The next intent of one of ``kinds`` (others are dropped: they belong to a screen now gone)."""
        while True:
            intent = await self._intents.receive()
            if isinstance(intent, kinds):
                return intent

    async def choose_trump(self, taken: int | None = None) -> int:
        """Ask the person for their own trump (RULES.md §2); ``taken`` is the opponent's suit, if chosen."""
        self._table.ask_trump(taken)
        intent = await self._receive(TrumpChosen)
        assert isinstance(intent, TrumpChosen)
        return intent.suit

    async def choose_move(self, position: Position, seat: int) -> Action:
        """Show the position and wait for the person's move or intent (Resign, Undo, OfferDraw).

        Hint requests are answered here (the ``hint`` function in a worker thread)."""
        if self._offered_draw:
            self._offered_draw = False
            self._table.show_message(f"{self._table.opponent_name} declined the draw.", "info")
        self._table.begin_turn(position, seat)
        try:
            while True:
                intent = await self._receive(Move, Resign, Undo, OfferDraw, HintRequest)
                if isinstance(intent, HintRequest):
                    if self._hint is not None:
                        hinted = await trio.to_thread.run_sync(self._hint, position.copy(), abandon_on_cancel=True)
                        move, note = (hinted, "") if isinstance(hinted, Move) else hinted
                        self._table.show_hint(move, note)
                    continue
                if isinstance(intent, OfferDraw):
                    self._offered_draw = True
                assert isinstance(intent, Move | Resign | Undo | OfferDraw)
                return intent
        finally:
            self._table.end_turn()

    async def observe(self, event: Event) -> None:
        """Show ``event``; at the end of a deal (not the last) and of the match, wait for the person."""
        self._table.show_event(event)
        if isinstance(event, DealEnded):
            self._offered_draw = False
            if event.number < event.position.rules.deals:
                self._table.show_end(event)
                await self._receive(Continue)
        elif isinstance(event, MatchEnded):
            self._table.show_end(event)
            await self._receive(Continue)

    async def accept_draw(self, position: Position, seat: int) -> bool:
        """Ask the person (y/n) whether to accept the opponent's draw offer (RULES.md §7)."""
        self._table.ask_draw()
        intent = await self._receive(DrawAnswer)
        assert isinstance(intent, DrawAnswer)
        return intent.accept


def describe_score(table: TableApp) -> str:
    """``"You 1 : 0 AI"`` for the current match score (for printing after the app ends)."""
    s = table.state
    return score_text(s.names, s.score_halves, s.my_seat, table.options.ascii_only)
