"""The questions the table asks: y/n dialogs (quit, offer a draw, resign, the opponent's draw
offer, and any question of the trio side such as a claim or a rematch) and the choice of
one's own trump (RULES.md §2).

An open y/n question is ``state.confirm`` (:class:`~.state.Confirm`), drawn by
:func:`~.overlays.overlay_lines` and answered by the keys of :func:`.bindings.dialog_keys`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..cards import suit_label
from ..i18n import _, tr
from ..match import ChooseTrump, OfferDraw, Resign
from .intents import Continue, DrawAnswer
from .moves import Turn
from .state import Confirm, Mode, QuitResult, TableCore
from .view import suit_name


class Questions:
    """Asks, and turns the answers into intents.

    Args:
        core: the table's :class:`~.state.TableCore`.
        turn: the person's :class:`~.moves.Turn` (a draw offer or a resignation ends it).
    """

    def __init__(self, core: TableCore, turn: Turn) -> None:
        self._core = core
        self._turn = turn

    def _ask(self, confirm: Confirm) -> None:
        self._core.state.confirm = confirm
        self._core.invalidate()

    def ask_question(self, question: str, on_yes: Callable[[], None], on_no: Callable[[], None]) -> None:
        """Open a y/n dialog over whatever is shown (e.g. the rematch offer at the end of a
        networked match); ``on_yes``/``on_no`` run on the UI side when the person answers
        (Esc is no).  Replaces an open dialog."""
        self._core.state.help_open = False
        self._ask(Confirm(question, on_yes=on_yes, on_no=on_no))

    def close_question(self) -> None:
        """Close the open y/n dialog without answering it (e.g. the peer left meanwhile)."""
        self._core.state.confirm = None
        self._core.invalidate()

    def answer(self, yes: bool) -> None:
        """Answer the open confirmation (y/n)."""
        c = self._core.state.confirm
        self._core.state.confirm = None
        if c is not None:
            (c.on_yes if yes else c.on_no)()
        self._core.invalidate()

    def ask_quit(self) -> None:
        """``q``/Ctrl-C: confirm, then end the application with :attr:`QuitResult.QUIT`."""
        core = self._core
        s = core.state
        if s.mode == Mode.MATCH_END:
            core.send(Continue())
            core.exit(QuitResult.FINISHED)
            return
        s.help_open = False
        if not core.options.quit_question:  # nothing is lost by leaving (the match stopped already): no question
            core.exit(QuitResult.QUIT)
            return
        question = tr(core.options.quit_question)
        if core.options.leave_resigns:
            question = leave_question(s.mode, core.opponent_name)
        elif s.mode in (Mode.TRUMP, Mode.IDLE):
            question = _("Quit the game?")
        self._ask(Confirm(question, on_yes=lambda: core.exit(QuitResult.QUIT)))

    def ask_draw(self) -> None:
        """Ask the person whether to accept the opponent's draw offer (answer:
        :class:`~.intents.DrawAnswer`)."""
        core = self._core
        self._ask(Confirm(
            _("%(name)s offers a draw. Accept?", name=core.opponent_name),
            on_yes=lambda: core.send(DrawAnswer(True)),
            on_no=lambda: core.send(DrawAnswer(False)),
        ))

    def ask_draw_offer(self) -> None:
        """``d``: confirm, then offer the opponent a draw of this deal (RULES.md §7)."""
        core = self._core
        if not core.options.allow_draw_offer:
            core.show_message(_("draw offers are not available here"), "error")
            return
        if core.state.mode not in (Mode.TURN, Mode.SECOND):
            return

        def yes() -> None:
            if core.state.mode in (Mode.TURN, Mode.SECOND):
                self._turn.end()
                core.show_message(_("You offered a draw; waiting for %(name)s.", name=core.opponent_name))
                core.send(OfferDraw())

        self._ask(Confirm(_("Offer %(name)s a draw? If accepted, the deal is drawn.", name=core.opponent_name),
                          on_yes=yes))

    def ask_resign(self) -> None:
        """``R``: confirm, then resign the deal (RULES.md §7)."""
        core = self._core
        if core.state.mode not in (Mode.TURN, Mode.SECOND):
            return

        def yes() -> None:
            if core.state.mode in (Mode.TURN, Mode.SECOND):
                self._turn.end()
                core.send(Resign())

        self._ask(Confirm(_("Resign this deal? The opponent wins it."), on_yes=yes))

    # ----- one's own trump (RULES.md §2) ---------------------------------------------------

    def ask_trump(self, taken: int | None = None) -> None:
        """Show the trump-choice screen; the choice comes back as :class:`~p2ptrumps.match.ChooseTrump`.
        ``taken`` is the opponent's suit when it chose first (RULES.md §2)."""
        s = self._core.state
        s.trump_taken = taken
        s.trump_choice = next(x for x in (2, 3, 1, 0) if x != taken)
        s.mode = Mode.TRUMP
        if taken is not None:  # replaces "… is choosing a trump; you choose yours next"
            self._core.show_message(_("%(name)s chose %(suit)s: now choose yours.", name=self._core.opponent_name,
                                      suit=suit_label(taken)))
        self._core.invalidate()

    def step_trump(self, step: int) -> None:
        """Move the suit cursor ``step`` suits on (wrapping), past the opponent's trump."""
        s = self._core.state
        x = s.trump_choice
        for _step in range(4):
            x = (x + step) % 4
            if x != s.trump_taken:
                break
        s.trump_choice = x

    def mark_trump(self, suit: int) -> None:
        """Mark ``suit`` on the trump screen and say that Enter chooses it (a suit key only marks:
        a key meant for something else must not choose a trump); the opponent's trump is refused."""
        if not self._trump_open_to(suit):
            return
        self._core.state.trump_choice = suit
        self._core.show_message(_("%(suit)s %(name)s marked: Enter chooses it as your trump", suit=suit_label(suit),
                                  name=suit_name(suit)), "hint")

    def _trump_open_to(self, suit: int) -> bool:
        """Whether the trump screen is up and ``suit`` may be taken (else says why, for the opponent's)."""
        core = self._core
        if core.state.mode != Mode.TRUMP:
            return False
        if suit == core.state.trump_taken:
            core.show_message(_("%(suit)s is your opponent's trump: choose another suit", suit=suit_label(suit)),
                              "error")
            return False
        return True

    def choose_trump(self, suit: int) -> None:
        """Choose ``suit`` as the person's trump (refused if the opponent took it)."""
        if not self._trump_open_to(suit):
            return
        core = self._core
        s = core.state
        s.trump_choice = suit
        s.mode = Mode.IDLE
        core.show_message("")
        core.send(ChooseTrump(suit))


def leave_question(mode: Mode, opponent: str) -> str:
    """What ``q`` and Ctrl-C ask on a networked table, where quitting leaves the match (protocol/wire.md
    §15: ``leave`` resigns the rest of it): exactly what is resigned in ``mode`` -- on the trump screen
    every deal, on the "deal over" screen the deals not yet played, in a deal that deal too."""
    if mode == Mode.TRUMP:
        return _("Leave the match? That resigns it: every deal of the match counts for %(name)s, signed "
                 "(the match log is kept).", name=opponent)
    if mode == Mode.DEAL_END:
        return _("Leave the match? That resigns it: every deal not yet played counts for %(name)s, signed "
                 "(the match log is kept).", name=opponent)
    return _("Leave the match? That resigns it: this deal and every deal not yet played count for %(name)s, "
             "signed (the match log is kept).", name=opponent)
