"""The full-screen table: a prompt_toolkit application plus the player that it seats.

Two objects, one on each side of the trio/asyncio bridge (:mod:`.bridge`):

* :class:`TableApp` (the UI side) owns the prompt_toolkit ``Application``, the
  key bindings and what is on screen.  It never touches a socket and never
  decides a rule: it shows snapshots and turns keys into *intents*
  (:mod:`.intents`), which it hands to :attr:`TableApp.intent_sink`.
* :class:`HumanPlayer` (the trio side) is a :class:`~p2ptrumps.seats.Player`:
  the match loop asks it for a move like any other player; it shows the
  position on the table and waits for the person's intent.

The table in parts
------------------
:class:`TableApp` builds the parts and is the one door the trio side (and the
tests) use; each part does one job over the shared :class:`~.state.TableCore`
(state, options, intent sink, message line, redraw):

* :mod:`.state` — :class:`~.state.Mode`, :class:`~.state.UIOptions`, the state, the core;
* :mod:`.screen` — the layout and the body's rendering (table, trump choice, end screens);
* :mod:`.status` — the status lines: what is expected, the message, the keys line;
* :mod:`.overlays` — the y/n dialog and help box, and the rule book read in place;
* :mod:`.moves` — the person's move: cursor, Enter, second card, pick up, typed moves;
* :mod:`.prompt` — the prompt line: typed moves with completion, chat lines;
* :mod:`.questions` — quit, draw and resign questions, the trump choice, any y/n question;
* :mod:`.events` — match events and the end-of-deal and end-of-match screens;
* :mod:`.opponent` — the networked news: connection, the opponent's line, chat, leaving;
* :mod:`.bindings` — the keys, one group per job, their docstrings the help.

Where new things go: a move clock is a field of :class:`~.state.TableState`
set through a :class:`TableApp` method, drawn on its own line by :mod:`.status`
(its warning colour in :func:`~.view.make_style`); screens after the match
(play again, history) are modes drawn by :mod:`.screen`, opened from
:mod:`.events`, with their keys in :func:`.bindings.end_keys`.

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
(chat lines; with ``UIOptions.allow_chat`` the ``t`` key opens a chat prompt and
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
import math
from collections.abc import Callable

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.layout import Layout
from prompt_toolkit.output import ColorDepth, Output

from ..events import DealEnded, MatchEnded, MatchEvent
from ..i18n import _, tr
from ..match import Action, ChooseTrump, OfferDraw, Resign, Undo
from ..message import N_
from ..record import PlayerInfo
from ..rules import Move, Position
from .bindings import SILENT_KEYS as _SILENT_KEYS
from .bindings import Parts, key_bindings
from .events import show_end, show_event
from .intents import ChatSend, Continue, DrawAnswer, HintRequest, Intent, PlayAgain
from .moves import Turn, legal_cards, repeating_moves
from .opponent import Opponent
from .overlays import RuleBook, overlay_lines
from .prompt import MoveCompleter, Prompt
from .questions import Questions
from .screen import LinesControl as _LinesControl
from .screen import Screen
from .state import Mode, QuitResult, TableCore, TableState, UIOptions
from .status import fit_keys, keys_items, status_view
from .view import Line, StatusView, TableView, make_style, score_text

__all__ = [
    "ESC_TIMEOUT_S", "_SILENT_KEYS", "ChatSend", "ChooseTrump", "Continue", "DrawAnswer",
    "HintRequest", "HumanPlayer", "Intent", "Mode", "MoveCompleter", "QuitResult", "TableApp",
    "UIOptions", "_LinesControl", "describe_score", "fit_keys", "repeating_moves",
]

#: Seconds prompt_toolkit waits after an Esc byte to see whether an escape
#: sequence (an arrow key) follows.  Terminals send a sequence in one write, so
#: 50 ms is plenty, and a lone Esc then acts at once instead of after ~1 s.
ESC_TIMEOUT_S = 0.05


class TableApp:
    """The table as a prompt_toolkit application (see the module docstring).

    Args:
        options: looks and features (:class:`~.state.UIOptions`).
        input, output: prompt_toolkit input/output (tests pass a pipe input
            and a ``DummyOutput``); None uses the terminal.

    The state is in :attr:`state` (read it in tests); :attr:`application` is
    the prompt_toolkit ``Application`` whose ``run_async()`` returns a
    :class:`~.state.QuitResult`.  The parts are :attr:`screen`, :attr:`prompt`,
    :attr:`turn`, :attr:`questions`, :attr:`opponent` and :attr:`rules`; the
    methods below are what the trio side (and the tests) call.
    """

    def __init__(self, options: UIOptions | None = None, *, input: Input | None = None,
                 output: Output | None = None) -> None:
        core = self._core = TableCore(options or UIOptions())
        self.options: UIOptions = core.options
        self.state: TableState = core.state
        #: Shown on the end-of-match screen, after ``record_label`` ("Match log saved" over the network).
        self.record_path: str | None = None
        self.record_label: str = N_("Record saved")
        self.rules = RuleBook(core)
        self.screen = Screen(core, self.rules)
        self.prompt = Prompt(core, home=self.screen.body, on_move=self.submit_typed)
        self.prompt_buffer = self.prompt.buffer
        self.turn = Turn(core, self.prompt)
        self.questions = Questions(core, self.turn)
        self.opponent = Opponent(core, self.prompt)
        self.application: Application[QuitResult] = Application(
            layout=Layout(self.screen.container(self.prompt.window), focused_element=self.screen.body),
            key_bindings=key_bindings(Parts(core, self.turn, self.questions, self.prompt, self.rules)),
            style=make_style(self.options.color),
            full_screen=True,
            input=input,
            output=output,
            color_depth=None if self.options.color else ColorDepth.DEPTH_1_BIT,
        )
        self.application.ttimeoutlen = ESC_TIMEOUT_S
        self.application.timeoutlen = ESC_TIMEOUT_S
        core.attach(self.application)

    @property
    def intent_sink(self) -> Callable[[Intent], None] | None:
        """Where intents go; :class:`HumanPlayer` connects it to its trio channel."""
        return self._core.intent_sink

    @intent_sink.setter
    def intent_sink(self, sink: Callable[[Intent], None] | None) -> None:
        self._core.intent_sink = sink

    @property
    def opponent_name(self) -> str:
        """The display name of the seat across the table."""
        return self._core.opponent_name

    # ----- what is on screen (snapshots; tests read them) ----------------------------

    def table_view(self) -> TableView | None:
        """The :class:`~.view.TableView` of the current deal, or None before the first deal."""
        return self.screen.table_view()

    def legal_cards(self) -> int:
        """Bitmask of my cards that Enter accepts now (0 when it is not my move)."""
        return legal_cards(self.state)

    def status_view(self, width: int = 80) -> StatusView:
        """The bottom lines for the current mode, the keys line fitted to ``width`` columns."""
        return status_view(self._core, self.rules, width)

    def _keys_items(self) -> list[str]:
        return keys_items(self._core)

    def _render_body(self, width: int, height: int) -> list[Line]:
        return self.screen.render_body(width, height)

    def _render_status(self, width: int, height: int) -> list[Line]:
        return self.screen.render_status(width, height)

    def overlay_lines(self) -> list[str]:
        """The open dialog (a confirmation or the help) as framed text lines."""
        return overlay_lines(self._core)

    def terminal_size(self) -> tuple[int, int]:
        """The terminal's (columns, rows) as prompt_toolkit sees it."""
        return self._core.terminal_size()

    def too_small(self) -> bool:
        """True when the terminal is below :data:`~.view.MIN_WIDTH` x :data:`~.view.MIN_HEIGHT`."""
        return self._core.too_small()

    def invalidate(self) -> None:
        """Ask prompt_toolkit to redraw (a no-op while the application is not running)."""
        self._core.invalidate()

    def exit(self, result: QuitResult = QuitResult.FINISHED) -> None:
        """End the application (if it is running and not already ending)."""
        self._core.exit(result)

    # ----- called by the trio side (HumanPlayer, play.py, the network game) ------------

    def set_players(self, names: tuple[str, str], my_seat: int) -> None:
        """The display names of seat 0 and seat 1 and the seat of the person at this terminal."""
        self.state.names = names
        self.state.my_seat = my_seat
        self.invalidate()

    def show_message(self, text: str, kind: str = "info") -> None:
        """Put ``text`` on the message line; ``kind`` is ``"info"``, ``"error"`` or ``"hint"``."""
        self._core.show_message(text, kind)

    def show_event(self, event: MatchEvent) -> None:
        """Update the table for a match event (called by :meth:`HumanPlayer.observe`)."""
        show_event(self._core, event)

    def show_end(self, event: DealEnded | MatchEnded) -> None:
        """Show the end-of-deal screen (for :class:`~p2ptrumps.events.DealEnded`) or the end of the match."""
        show_end(self._core, event, self.record_path, self.record_label)

    def begin_turn(self, position: Position, seat: int) -> None:
        """It is the person's move in ``position`` (a copy): enable the move keys."""
        self.turn.begin(position, seat)

    def end_turn(self) -> None:
        """The person's move is over (sent, or the turn was cancelled): disable the move keys."""
        self.turn.end()

    def show_hint(self, move: Move, note: str = "") -> None:
        """Show the AI's suggested ``move`` (with ``note``) and put the cursor on its card."""
        self.turn.show_hint(move, note)

    def submit_typed(self, text: str) -> bool:
        """A typed move (``QS``, ``10s 7h``, ``p``): play it if legal, else show why; True if sent
        (see :meth:`.moves.Turn.submit_typed`)."""
        return self.turn.submit_typed(text)

    def ask_trump(self, taken: int | None = None) -> None:
        """Show the trump-choice screen; the choice comes back as :class:`~p2ptrumps.match.ChooseTrump`.
        ``taken`` is the opponent's suit when it chose first (RULES.md §2)."""
        self.questions.ask_trump(taken)

    def ask_draw(self) -> None:
        """Ask the person whether to accept the opponent's draw offer (answer: :class:`~.intents.DrawAnswer`)."""
        self.questions.ask_draw()

    def ask_quit(self) -> None:
        """``q``/Ctrl-C: confirm, then end the application with :attr:`~.state.QuitResult.QUIT`."""
        self.questions.ask_quit()

    def ask_question(self, question: str, on_yes: Callable[[], None], on_no: Callable[[], None]) -> None:
        """Open a y/n dialog over whatever is shown (a claim, a rematch); ``on_yes``/``on_no`` run on
        the UI side when the person answers (Esc is no).  Replaces an open dialog."""
        self.questions.ask_question(question, on_yes, on_no)

    def close_question(self) -> None:
        """Close the open y/n dialog without answering it (e.g. the peer left meanwhile)."""
        self.questions.close_question()

    def answer_confirm(self, yes: bool) -> None:
        """Answer the open confirmation (y/n)."""
        self.questions.answer(yes)

    # ----- the opponent across the network (net/table.py) ------------------------------

    def set_fault(self, text: str) -> None:
        """Show ``text`` (one sentence naming a lasting fault, e.g. a record that cannot be saved) on a
        status line of its own until it is cleared with ``""``; later messages do not replace it."""
        self._core.state.fault = self._core.t(text)
        self._core.invalidate()

    def set_connection(self, text: str) -> None:
        """The connection-state text shown right of the opponent (``""`` hides it)."""
        self.opponent.set_connection(text)

    def set_clock(self, clock: tuple[int, float] | None) -> None:
        """The move clock that runs, ``(seat, seconds left)``, drawn on that seat's own line (None: none)."""
        self.opponent.set_clock(clock)

    def bell(self) -> None:
        """Ring the terminal bell once (the own clock reached its last 10 seconds)."""
        self.application.output.bell()

    def set_opponent_detail(self, text: str) -> None:
        """An extra line under the opponent's name (e.g. ``"fingerprint 3f2a…"``; ``""`` hides it)."""
        self.opponent.set_detail(text)

    def add_chat(self, sender: str, text: str) -> None:
        """Show a chat line ``"sender: text"`` (the last three stay on the table)."""
        self.opponent.add_chat(sender, text)

    def chat_refused(self, why: str) -> None:
        """A chat line of the person was not sent (``why``): a note in the chat panel and on the message line."""
        self.opponent.chat_refused(why)

    def peer_left(self, text: str) -> None:
        """The opponent left the match (protocol/wire.md §15): ``text`` stays on the end screen; draw
        offers and chat end, and Enter on the end screen only leaves (no rematch)."""
        self.opponent.left(text)

    def new_match(self) -> None:
        """Clear the table for another match with the same players (a networked rematch)."""
        self.opponent.new_match()


# ----- the person as a Player ---------------------------------------------------------


class HumanPlayer:
    """The person at the terminal as a :class:`~p2ptrumps.seats.Player`.

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
        #: True when the person left the end of the match with "play again" (:class:`~.intents.PlayAgain`).
        self.play_again = False
        #: A line put before the message line's text when the person is next to move (then cleared).
        self.note_once = ""

    def draw_unanswered(self, text: str) -> None:
        """The opponent did not answer our draw offer in its time and we play on, the offer still open
        (a networked match, protocol/wire.md §16): show ``text`` instead of "... declined the draw"."""
        self._offered_draw = False
        self._table.show_message(text, "info")

    async def _receive(self, *kinds: type) -> Intent:
        """The next intent of one of ``kinds`` (others are dropped: they belong to a screen now gone)."""
        while True:
            intent = await self._intents.receive()
            if isinstance(intent, kinds):
                return intent

    async def choose_trump(self, taken: int | None = None) -> int:
        """Ask the person for their own trump (RULES.md §2); ``taken`` is the opponent's suit, if chosen."""
        self._table.ask_trump(taken)
        intent = await self._receive(ChooseTrump)
        assert isinstance(intent, ChooseTrump)
        return intent.suit

    async def choose_move(self, position: Position, seat: int) -> Action:
        """Show the position and wait for the person's move or intent (Resign, Undo, OfferDraw).

        Hint requests are answered here (the ``hint`` function in a worker thread)."""
        if self._offered_draw:
            self._offered_draw = False
            self._table.show_message(_("%(name)s declined the draw.", name=self._table.opponent_name), "info")
        if self.note_once:
            self._table.show_message(f"{tr(self.note_once)} {self._table.state.message}".strip())
            self.note_once = ""
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

    async def observe(self, event: MatchEvent) -> None:
        """Show ``event``; at the end of a deal (not the last) and of the match, wait for the person."""
        self._table.show_event(event)
        if isinstance(event, DealEnded):
            self._offered_draw = False
            if event.number < event.position.rules.deals:
                self._table.show_end(event)
                await self._receive(Continue)
        elif isinstance(event, MatchEnded):
            self._table.show_end(event)
            self.play_again = isinstance(await self._receive(Continue, PlayAgain), PlayAgain)

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
