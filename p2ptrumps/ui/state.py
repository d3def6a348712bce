"""What the table holds, and the few things every part of it does with that.

* :class:`Mode` — what the table is doing now (the key bindings and the screens follow it);
* :class:`UIOptions` — how the table looks and which features it offers;
* :class:`TableState` — everything on screen, as plain data (tests read it);
* :class:`TableCore` — the state and options plus the shared verbs: send an intent, put a
  line on the message line, redraw, the terminal's size, end the application.  Every
  part of the table (:mod:`.screen`, :mod:`.moves`, :mod:`.prompt`, :mod:`.questions`,
  :mod:`.events`, :mod:`.opponent`, :mod:`.bindings`) takes the one core of its table.

A new thing on screen (e.g. a move clock) starts here as a field of :class:`TableState`,
set by a method of :class:`~.app.TableApp` that the trio side calls, and drawn by
:mod:`.status` or :mod:`.screen`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

from prompt_toolkit.application import Application

from ..i18n import tr
from ..message import N_
from ..rules import Move, Position
from .intents import Intent
from .view import MIN_HEIGHT, MIN_WIDTH, EndView, HistoryEntry, asciify


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
    ADJOURN = "adjourn"  # the person stopped a networked match without resigning it: it stays resumable


@dataclass
class UIOptions:
    """How the table looks and which features it offers.

    Attributes:
        ascii_only: ASCII suits (S H D C) and signs instead of Unicode.
        color: colours on (False under ``NO_COLOR``: bold/reverse only).
        allow_undo: the ``u`` key sends :class:`~p2ptrumps.match.Undo` (offline against the AI).
        allow_hint: the ``i`` key sends :class:`~.intents.HintRequest`.
        allow_draw_offer: the ``d`` key sends :class:`~p2ptrumps.match.OfferDraw`.
        allow_chat: the ``t`` key opens a chat prompt sending :class:`~.intents.ChatSend` (on every
            screen, the trump choice too).
        waiting_text: the status while the opponent moves; ``{name}`` is replaced.
        quit_question: the confirmation ``q`` asks during a match ('': ``q`` leaves at once, as when the
            match already stopped and leaving loses nothing).
        match_end_enter: what Enter does on the end-of-match screen, as the footer says it
            ("leave"; over the network "rematch or leave": the rematch question comes next).
        allow_play_again: the ``a`` key on the end-of-match screen sends :class:`~.intents.PlayAgain`
            (offline: another match, same level and rules, a new deal).
    """

    ascii_only: bool = False
    color: bool = True
    allow_undo: bool = False
    allow_hint: bool = False
    allow_draw_offer: bool = True
    allow_chat: bool = False
    waiting_text: str = N_("{name} is thinking…")
    quit_question: str = N_("Quit? The record is saved.")
    #: Quitting leaves a networked match, resigning the rest of it (protocol/wire.md §15): ``q`` and
    #: Ctrl-C say so, in every mode (:func:`~p2ptrumps.ui.questions.leave_question`).
    leave_resigns: bool = False
    match_end_enter: str = "leave"
    allow_play_again: bool = False


#: The values of ``UIOptions.match_end_enter`` and how the footer says them.
MATCH_END_ENTER = {"leave": N_("leave"), "rematch or leave": N_("rematch or leave")}


@dataclass
class Confirm:
    """An open y/n question: ``on_yes`` or ``on_no`` runs on the UI side when it is answered; with
    ``on_adjourn`` a third answer, ``a`` (the leave question of a networked match: adjourn it)."""

    question: str
    on_yes: Callable[[], None]
    on_no: Callable[[], None] = lambda: None
    on_adjourn: Callable[[], None] | None = None


@dataclass
class TableState:
    """Everything the table shows, as plain data (read it in tests)."""

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
    #: A fault that stays on screen until it is mended (the record or match log cannot be written):
    #: its own line under the expected action, never overwritten by later messages ("" for none).
    fault: str = ""
    connection: str = ""
    #: The move clock that runs (protocol/wire.md §16): ``(seat, seconds left)``, None when none runs.
    clock: tuple[int, float] | None = None
    opponent_detail: str = ""
    chat: list[str] = field(default_factory=list)
    trump_choice: int = 0
    trump_taken: int | None = None
    end: EndView | None = None
    help_open: bool = False
    confirm: Confirm | None = None
    prompt_kind: str | None = None  # None, "move" or "chat"
    rules_top: int | None = None  # the rule book is open, scrolled to this wrapped line
    repeating: frozenset[Move] = frozenset()  # my legal moves that would draw by repetition
    pickup_note: str = ""  # "You picked up 3 cards ..." until the opponent's reply has been shown
    end_note: str = ""  # why the match ended early ("Gus resigned and left the match"), kept on the end screen


class TableCore:
    """The state and options of one table plus what every part of it needs.

    Args:
        options: looks and features (:class:`UIOptions`); the parts and the trio side share
            this one object (a networked match turns chat and draw offers off in it).

    The prompt_toolkit ``Application`` comes last (it needs the layout and key bindings the
    parts make): :meth:`attach` it once; until then :attr:`application` raises RuntimeError.
    """

    def __init__(self, options: UIOptions) -> None:
        self.options = options
        self.state = TableState()
        #: Where intents go; :class:`~.app.HumanPlayer` connects it to its trio channel.
        self.intent_sink: Callable[[Intent], None] | None = None
        self._application: Application[QuitResult] | None = None

    @property
    def application(self) -> Application[QuitResult]:
        """The prompt_toolkit application (RuntimeError before :meth:`attach`)."""
        if self._application is None:
            raise RuntimeError("the table's application is not attached yet")
        return self._application

    def attach(self, application: Application[QuitResult]) -> None:
        """Give the core its application (once, when the table is built)."""
        self._application = application

    def t(self, text: str) -> str:
        """``text`` as this terminal can show it: in the person's language (a lazy message is
        translated: :func:`p2ptrumps.i18n.tr`) and with ASCII signs under ``ascii_only``."""
        text = tr(text)
        return asciify(text) if self.options.ascii_only else text

    @property
    def opponent_name(self) -> str:
        """The display name of the seat across the table."""
        return self.state.names[1 - self.state.my_seat]

    def send(self, intent: Intent) -> None:
        """Hand ``intent`` to :attr:`intent_sink` (dropped while nothing is connected)."""
        if self.intent_sink is not None:
            self.intent_sink(intent)

    def show_message(self, text: str, kind: str = "info") -> None:
        """Put ``text`` on the message line; ``kind`` is ``"info"``, ``"error"`` or ``"hint"``."""
        self.state.message = self.t(text)
        self.state.message_kind = kind
        self.invalidate()

    def invalidate(self) -> None:
        """Ask prompt_toolkit to redraw (a no-op while the application is not running)."""
        self.application.invalidate()

    def terminal_size(self) -> tuple[int, int]:
        """The terminal's (columns, rows) as prompt_toolkit sees it."""
        size = self.application.output.get_size()
        return size.columns, size.rows

    def too_small(self) -> bool:
        """True when the terminal is below :data:`~.view.MIN_WIDTH` x :data:`~.view.MIN_HEIGHT`."""
        columns, rows = self.terminal_size()
        return columns < MIN_WIDTH or rows < MIN_HEIGHT

    def exit(self, result: QuitResult = QuitResult.FINISHED) -> None:
        """End the application (if it is running and not already ending)."""
        app = self.application
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result=result)
