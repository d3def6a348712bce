"""What opens over the table: the y/n dialog, the help box and the rule book.

* :func:`overlay_lines` — the open dialog (a :class:`~.state.Confirm` question) or the help
  (:func:`help_rules`, RULES.md in brief, and :func:`help_keys`) as a framed box;
* :class:`RuleBook` — the whole rule book (RULES.md, installed with the package) read in
  place of the table, scrolled by the keys of :func:`.bindings.rule_book_keys`.
"""

from __future__ import annotations

from prompt_toolkit.utils import get_cwidth

from ..i18n import _
from .rulebook import rule_book
from .state import Mode, TableCore, UIOptions
from .view import MIN_HEIGHT, asciify, printable, wrap_text, wrapped_lines


def help_rules() -> str:
    """The rules in brief, the first part of the help box (one paragraph, wrapped to the box)."""
    return _("Svoi Kozyri: each player has an own trump suit; it counts only on its owner's turn. Pile empty: "
             "lead any card. Else beat the top card, then put any second card on it; or pick up. A card beats "
             "the top if it is the same suit and higher, or your trump on a non-trump top (on a top of your "
             "trump, a higher trump). You must beat if you can. Picking up takes 3 cards (5 if the top is "
             "your trump, all if it is its ace). First out of cards wins; a draw if the other's last card "
             "beats the new top. A third repetition or the turn limit draws.")


# TRANSLATORS: the lines of keys in the help box ("←→ h l select ...") are at most 56 columns wide; the
# keys themselves (←→ h l, Enter, Esc, p, ?, q, ^C, :, /, Tab, u, i, a, o, d, R, t, c d h s, 1-4, r) stay.


def help_keys(options: UIOptions, trump_screen: bool) -> list[str]:
    """The keys part of the help box for a table with ``options`` (on the trump screen: its keys)."""
    if trump_screen:
        select = _("Own trump: c d h s, 1-4 or ↑↓ mark a suit, Enter chooses")
    else:
        select = _("←→ h l select   ↑↓ k j suit   Enter play, then 2nd card")
    if options.allow_play_again:
        table = _("u undo, i hint, a play again  o hand  d draw  R resign")
    elif options.allow_undo or options.allow_hint:
        table = _("u undo, i hint (vs AI)  o hand  d offer a draw  R resign")
    else:  # a networked table
        table = _("t chat  o hand  d offer a draw  R resign")
    return [select,
            _("Esc take the beat back   p pick up   ? help   q ^C quit"),
            _(": or / type a move (QS, 10s 7h, p); Tab completes it"),
            _("  Russian letters: В Д К Т = J Q K A, П Ч Б Т = ♠ ♥ ♦ ♣"),
            table,
            _("In a Russian layout the keys work by position (з = p)."),
            _("r reads the whole rule book; any other key closes")]


def wrap_keys(line: str, width: int) -> list[str]:
    """A line of the help box's keys in lines of at most ``width`` columns, broken between its groups
    (``"o hand  d draw"``: two spaces apart) so that a key stays with its word; a line without
    groups (a sentence) or a group too long is broken at spaces (:func:`~.view.wrap_text`)."""
    if get_cwidth(line) <= width:
        return [line]
    groups = [g for g in line.split("  ") if g.strip()]
    if len(groups) < 2:
        return wrap_text(line, width, "")
    lines: list[str] = []
    for group in groups:
        if lines and get_cwidth(lines[-1] + "  " + group) <= width:
            lines[-1] += "  " + group
        else:
            lines += wrap_text(group.strip(), width, "")
    return lines


def overlay_lines(core: TableCore) -> list[str]:
    """The open dialog (a confirmation or the help) as framed text lines, no wider than the
    terminal (a long question wraps at spaces).  The help box is as wide as its widest line of keys,
    the rules in brief wrapped to it, and leaves the rules out when the box would be taller than the
    terminal (``r`` still reads them)."""
    s = core.state
    columns, rows = core.terminal_size()
    room = max(20, columns - 4)
    if s.confirm is not None:
        answers = _("y leave    a adjourn    n play on") if s.confirm.on_adjourn is not None else _("y yes    n no")
        body = [*wrap_text(printable(core.t(s.confirm.question)), room, ""), "", answers]
    else:
        keys = help_keys(core.options, s.mode == Mode.TRUMP)
        if core.options.ascii_only:  # a terminal without Unicode cannot show the Russian letters either
            keys = [line for line in keys if asciify(line).isascii()]
        keys = [part for line in keys for part in wrap_keys(line, room)]
        width = max(get_cwidth(line) for line in keys)
        brief = [*wrap_text(help_rules(), width, ""), ""]
        body = brief + keys if len(brief) + len(keys) + 2 <= max(rows, MIN_HEIGHT) else keys
    body = [printable(core.t(line)) for line in body]
    width = max(get_cwidth(line) for line in body)
    tl, tr_, bl, br, h, v = "┌┐└┘─│"
    lines = [tl + h * (width + 2) + tr_]
    lines += [f"{v} {line}{' ' * (width - get_cwidth(line))} {v}" for line in body]
    lines.append(bl + h * (width + 2) + br)
    return [core.t(line) for line in lines]


class RuleBook:
    """The rule book shown in place of the table; ``state.rules_top`` is the first line shown
    (None: closed).  The text is read once, on first use."""

    def __init__(self, core: TableCore) -> None:
        self._core = core
        self._text: list[str] | None = None

    def lines(self) -> list[str]:
        """The rule book's lines (one line naming the fault if the installation lacks it)."""
        if self._text is None:
            try:
                self._text = self._core.t(rule_book()).splitlines()
            except OSError as exc:  # an installation without its package data
                self._text = [_("The rule book is missing from this installation: %(why)s", why=exc)]
        return self._text

    def open(self) -> None:
        """Show the whole rule book (RULES.md, installed with the package) in place of the table."""
        self._core.state.help_open = False
        self._core.state.rules_top = 0
        self._core.invalidate()

    def close(self) -> None:
        """Back from the rule book to the table."""
        self._core.state.rules_top = None
        self._core.invalidate()

    def scroll(self, lines: int | None) -> None:
        """Scroll the rule book by ``lines`` (negative: up); None jumps to the end, 0 to the top
        when already there.  Stops at both ends."""
        s = self._core.state
        if s.rules_top is None:
            return
        columns, rows = self._core.terminal_size()
        total = len(wrapped_lines(self.lines(), columns))
        room = max(1, rows - 4)  # the title line and the status lines
        last = max(0, total - room)
        s.rules_top = last if lines is None else max(0, min(last, s.rules_top + lines))
        self._core.invalidate()

    def page_size(self) -> int:
        """Lines one PageDown scrolls in the rule book."""
        return max(1, self._core.terminal_size()[1] - 6)
