"""The table's keys, one group per job; each handler's docstring says what its key does.

:func:`key_bindings` binds them in a fixed order (prompt_toolkit runs the last matching
binding, so the order is part of the behaviour): the y/n dialog, the help box, the rule book,
the prompt line, quitting and help, choosing and playing cards, the other move keys, the
trump choice, the end screens, and last any other key (it says what would help instead).
Then every letter key is bound again at its place in the Russian layout (:mod:`.keys`).

Which group is active follows ``state`` through the filters of :class:`_When`.  A new key
joins the group of its job (a key of a new end screen goes to :func:`end_keys`); the help box
(:func:`~.overlays.help_keys`) and the keys line (:func:`~.status.keys_items`) name it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from ..cards import suit_label
from ..i18n import _
from ..match import Undo
from .intents import Continue, HintRequest, PlayAgain
from .keys import add_layout_aliases, key_name
from .moves import Turn
from .overlays import RuleBook
from .prompt import Prompt
from .questions import Questions
from .state import Mode, TableCore
from .status import what_helps
from .terminal import ignore_mouse_reports

#: Keys that never get the "does nothing here" hint (terminal reports, mouse, paste, resize).
SILENT_KEYS = frozenset({
    Keys.CPRResponse, Keys.Vt100MouseEvent, Keys.WindowsMouseEvent, Keys.BracketedPaste, Keys.Ignore,
    Keys.ScrollUp, Keys.ScrollDown, Keys.SIGINT,
})

Handler = Callable[[KeyPressEvent], None]


@dataclass(frozen=True)
class Parts:
    """What the keys act on: the parts of one table."""

    core: TableCore
    turn: Turn
    questions: Questions
    prompt: Prompt
    rules: RuleBook


class _When:
    """The filters: which group of keys is active now (from ``state``)."""

    def __init__(self, core: TableCore) -> None:
        s = core.state
        self.confirm = Condition(lambda: s.confirm is not None)
        self.help_open = Condition(lambda: s.help_open and s.confirm is None)
        self.rules_open = Condition(lambda: s.rules_top is not None and s.confirm is None and not s.help_open)
        self.prompt = Condition(lambda: s.prompt_kind is not None)
        self.free = Condition(lambda: s.confirm is None and not s.help_open and s.prompt_kind is None
                              and s.rules_top is None)
        self.turn = self.free & Condition(lambda: s.mode in (Mode.TURN, Mode.SECOND))
        self.second = self.free & Condition(lambda: s.mode == Mode.SECOND)
        self.table = self.free & Condition(lambda: s.mode in (Mode.TURN, Mode.SECOND, Mode.WAIT, Mode.IDLE))
        self.trump = self.free & Condition(lambda: s.mode == Mode.TRUMP)
        self.ended = self.free & Condition(lambda: s.mode in (Mode.DEAL_END, Mode.MATCH_END))
        self.chat = self.free & Condition(lambda: core.options.allow_chat)


def key_bindings(parts: Parts) -> KeyBindings:
    """All the table's keys, with the Russian-layout aliases (see the module docstring)."""
    kb = KeyBindings()
    ignore_mouse_reports(kb)
    when = _When(parts.core)
    dialog_keys(kb, when.confirm, parts)
    help_keys(kb, when.help_open, parts)
    rule_book_keys(kb, when.rules_open, parts)
    prompt_keys(kb, when.prompt, parts)
    leave_keys(kb, when.free, parts)
    selection_keys(kb, when, parts)
    move_keys(kb, when, parts)
    trump_keys(kb, when.trump, parts)
    end_keys(kb, when.ended, parts)
    unknown_key(kb, when.free, parts)
    return add_layout_aliases(kb)


def dialog_keys(kb: KeyBindings, confirm: Filter, parts: Parts) -> None:
    """y and n answer the open y/n question (:mod:`.questions`); Esc is no."""

    @kb.add("y", filter=confirm)
    @kb.add("Y", filter=confirm)
    def _yes(event: KeyPressEvent) -> None:
        """Confirm: yes."""
        parts.questions.answer(True)

    @kb.add("n", filter=confirm)
    @kb.add("N", filter=confirm)
    @kb.add("escape", filter=confirm, eager=True)
    def _no(event: KeyPressEvent) -> None:
        """Confirm: no."""
        parts.questions.answer(False)

    @kb.add("a", filter=confirm)
    @kb.add("A", filter=confirm)
    def _adjourn(event: KeyPressEvent) -> None:
        """The leave question of a networked match: adjourn (other questions ignore it)."""
        parts.questions.adjourn()


def help_keys(kb: KeyBindings, help_open: Filter, parts: Parts) -> None:
    """In the help box: r opens the rule book, any other key closes the box."""

    @kb.add("<any>", filter=help_open)
    def _close_help(event: KeyPressEvent) -> None:
        """Close the help."""
        parts.core.state.help_open = False

    @kb.add("r", filter=help_open)
    def _rules(event: KeyPressEvent) -> None:
        """Read the whole rule book."""
        parts.rules.open()


def rule_book_keys(kb: KeyBindings, rules_open: Filter, parts: Parts) -> None:
    """In the rule book: the arrows, j k, Enter, PgUp PgDn b Space, Home End g G scroll; q r ? Esc close."""
    rules = parts.rules

    def scroll(lines: int | None, doc: str, key: str) -> Handler:
        def handler(event: KeyPressEvent) -> None:
            if lines is None:
                rules.scroll(rules.page_size() * (-1 if key in ("pageup", "b") else 1))
            else:
                rules.scroll(lines)

        handler.__doc__ = doc
        return handler

    for keys, lines, doc in (
            (("up", "k"), -1, "Scroll the rules up."), (("down", "j", "enter"), 1, "Scroll the rules down."),
            (("pageup", "b"), None, "One page up."), (("pagedown", " "), None, "One page down."),
            (("home", "g"), -10**9, "The start of the rules."), (("end", "G"), 10**9, "The end of the rules.")):
        for key in keys:
            kb.add(key, filter=rules_open)(scroll(lines, doc, key))

    @kb.add("q", filter=rules_open)
    @kb.add("r", filter=rules_open)
    @kb.add("?", filter=rules_open)
    @kb.add("escape", filter=rules_open, eager=True)
    def _close_rules(event: KeyPressEvent) -> None:
        """Close the rules."""
        rules.close()


def prompt_keys(kb: KeyBindings, prompt: Filter, parts: Parts) -> None:
    """In the prompt line: Esc or Ctrl-G closes it (Enter and Tab are the buffer's own)."""

    @kb.add("escape", filter=prompt, eager=True)
    @kb.add("c-g", filter=prompt)
    def _close(event: KeyPressEvent) -> None:
        """Close the prompt."""
        parts.prompt.close()


def leave_keys(kb: KeyBindings, free: Filter, parts: Parts) -> None:
    """Ctrl-C (anywhere) and q quit, asking first; ? opens the help."""
    s = parts.core.state

    @kb.add("c-c")
    def _ctrl_c(event: KeyPressEvent) -> None:
        """Quit (asks first)."""
        if s.prompt_kind is not None:
            parts.prompt.close()
        s.rules_top = None
        parts.questions.ask_quit()

    @kb.add("q", filter=free)
    def _quit(event: KeyPressEvent) -> None:
        """Quit (asks first)."""
        parts.questions.ask_quit()

    @kb.add("?", filter=free)
    def _help(event: KeyPressEvent) -> None:
        """Help: rules summary and keys."""
        s.help_open = True


def selection_keys(kb: KeyBindings, when: _When, parts: Parts) -> None:
    """On the person's move: the arrows (or h j k l) move the cursor, Enter or Space plays the
    card under it (RULES.md §4), Esc takes a chosen beating card back."""
    turn, second = when.turn, when.second

    @kb.add("left", filter=turn)
    @kb.add("h", filter=turn)
    def _left(event: KeyPressEvent) -> None:
        """Select the previous card."""
        parts.turn.move_selection(-1)

    @kb.add("right", filter=turn)
    @kb.add("l", filter=turn)
    def _right(event: KeyPressEvent) -> None:
        """Select the next card."""
        parts.turn.move_selection(1)

    @kb.add("up", filter=turn)
    @kb.add("k", filter=turn)
    def _up(event: KeyPressEvent) -> None:
        """Select in the suit row above."""
        parts.turn.move_row(-1)

    @kb.add("down", filter=turn)
    @kb.add("j", filter=turn)
    def _down(event: KeyPressEvent) -> None:
        """Select in the suit row below."""
        parts.turn.move_row(1)

    @kb.add("enter", filter=turn)
    @kb.add(" ", filter=turn)
    def _enter(event: KeyPressEvent) -> None:
        """Play the selected card (a beat then asks for the second card)."""
        parts.turn.play_selected()

    @kb.add("escape", filter=second, eager=True)
    def _back(event: KeyPressEvent) -> None:
        """Take back the chosen beating card."""
        parts.turn.cancel_beat()


def move_keys(kb: KeyBindings, when: _When, parts: Parts) -> None:
    """The other keys of the table: pick up, type a move, chat, undo, hint, offer a draw,
    resign (RULES.md §6-§7), show the opponent's hand."""
    core, turn = parts.core, when.turn

    @kb.add("p", filter=turn)
    def _pick(event: KeyPressEvent) -> None:
        """Pick up."""
        parts.turn.pick_up()

    @kb.add(":", filter=turn)
    @kb.add("/", filter=turn)
    def _type(event: KeyPressEvent) -> None:
        """Type a move (Tab completes the legal ones)."""
        parts.prompt.open("move")

    @kb.add(CHAT_KEY, filter=when.chat)
    def _chat(event: KeyPressEvent) -> None:
        """Chat with the opponent (on every screen of a networked table, the trump choice too)."""
        parts.prompt.open("chat")

    @kb.add("u", filter=turn)
    def _undo(event: KeyPressEvent) -> None:
        """Undo your last move (against the AI)."""
        if not core.options.allow_undo:
            core.show_message(_("undo is only allowed against the AI"), "error")
            return
        parts.turn.end()
        core.send(Undo())

    @kb.add("i", filter=turn)
    def _hint(event: KeyPressEvent) -> None:
        """Hint: the AI's suggestion (against the AI)."""
        if not core.options.allow_hint:
            core.show_message(_("hints are only given against the AI"), "error")
            return
        core.show_message(_("Thinking about a hint…"), "hint")
        core.send(HintRequest())

    @kb.add("d", filter=turn)
    def _draw(event: KeyPressEvent) -> None:
        """Offer a draw (asks first)."""
        parts.questions.ask_draw_offer()

    @kb.add("R", filter=turn)
    def _resign(event: KeyPressEvent) -> None:
        """Resign the deal (asks first)."""
        parts.questions.ask_resign()

    @kb.add("o", filter=when.table)
    def _toggle(event: KeyPressEvent) -> None:
        """Show or hide the opponent's hand."""
        core.state.show_opponent = not core.state.show_opponent


#: The key that opens the chat prompt: no suit's key, so the trump screen that replaces the
#: waiting screen by itself cannot turn a reach for chat into a choice of trump.
CHAT_KEY = "t"

#: The keys that mark a suit on the trump screen (Enter then chooses it): digits, suit letters,
#: and the Russian suit letters П Ч Б Т (пики, черви, бубны, трефы).
_TRUMP_KEYS = (("1", 0), ("2", 1), ("3", 2), ("4", 3), ("c", 0), ("d", 1), ("h", 2), ("s", 3),
               ("C", 0), ("D", 1), ("H", 2), ("S", 3), ("т", 0), ("б", 1), ("ч", 2), ("п", 3),
               ("Т", 0), ("Б", 1), ("Ч", 2), ("П", 3))


def trump_keys(kb: KeyBindings, trump: Filter, parts: Parts) -> None:
    """Choosing one's own trump (RULES.md §2): the arrows or a suit's key mark a suit, Enter
    chooses the marked one (only Enter: a key typed for something else never chooses)."""
    questions = parts.questions

    @kb.add("up", filter=trump)
    @kb.add("left", filter=trump)
    @kb.add("k", filter=trump)
    def _trump_up(event: KeyPressEvent) -> None:
        """Previous suit."""
        questions.step_trump(-1)

    @kb.add("down", filter=trump)
    @kb.add("right", filter=trump)
    @kb.add("j", filter=trump)
    def _trump_down(event: KeyPressEvent) -> None:
        """Next suit."""
        questions.step_trump(1)

    @kb.add("enter", filter=trump)
    def _trump_choose(event: KeyPressEvent) -> None:
        """Choose the marked suit."""
        questions.choose_trump(parts.core.state.trump_choice)

    def mark(suit: int) -> Handler:
        def handler(event: KeyPressEvent) -> None:
            questions.mark_trump(suit)

        handler.__doc__ = f"Mark {suit_label(suit)} (Enter chooses it as your trump)."
        return handler

    for key, suit in _TRUMP_KEYS:
        kb.add(key, filter=trump)(mark(suit))


def end_keys(kb: KeyBindings, ended: Filter, parts: Parts) -> None:
    """On the end-of-deal and end-of-match screens: Enter or Space goes on; ``a`` plays again
    (offline, on the end of the match)."""
    core = parts.core

    @kb.add("enter", filter=ended)
    @kb.add(" ", filter=ended)
    def _continue(event: KeyPressEvent) -> None:
        """Next deal / leave."""
        if core.state.mode == Mode.MATCH_END:
            core.send(Continue())  # the match loop returns; its end closes the application
        else:
            core.state.mode = Mode.IDLE
            core.send(Continue())

    again = ended & Condition(lambda: core.state.mode == Mode.MATCH_END and core.options.allow_play_again)

    @kb.add("a", filter=again)
    def _again(event: KeyPressEvent) -> None:
        """Play again: another match, same level and rules, a new deal (offline)."""
        core.send(PlayAgain())


def unknown_key(kb: KeyBindings, free: Filter, parts: Parts) -> None:
    """Any other key says that it does nothing here, and what would (:func:`~.status.what_helps`)."""

    @kb.add("<any>", filter=free)
    def _unknown(event: KeyPressEvent) -> None:
        """Any other key: say that it does nothing here, and what would."""
        key = event.key_sequence[0].key
        if key in SILENT_KEYS or not isinstance(key, str):
            return
        said = _("%(key)s does nothing here: %(help)s", key=key_name(key), help=what_helps(parts.core))
        parts.core.show_message(said, "hint")
