"""What opens over the table: the y/n dialog, the help box and the rule book.

* :func:`overlay_lines` — the open dialog (a :class:`~.state.Confirm` question) or the help
  (:data:`HELP_TEXT`, RULES.md in brief plus the keys) as a framed box;
* :class:`RuleBook` — the whole rule book (RULES.md, installed with the package) read in
  place of the table, scrolled by the keys of :func:`.bindings.rule_book_keys`.
"""

from __future__ import annotations

from prompt_toolkit.utils import get_cwidth

from .rulebook import rule_book
from .state import Mode, TableCore
from .view import asciify, printable, wrap_text, wrapped_lines

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
#: The help box's line of the keys against the AI, and the same with ``a`` (play again at the end of
#: the match, named as the status line names it) where the table offers it
#: (``UIOptions.allow_play_again``: ``p2ptrumps play``, always against the AI); as wide as the box.
HELP_VS_AI = "u undo, i hint (vs AI)  o hand  d offer a draw  R resign"
HELP_VS_AI_AGAIN = "u undo, i hint, a play again  o hand  d draw  R resign"
#: The same line on a networked table (``UIOptions.allow_chat`` once; no undo, no hint there).
HELP_VS_PEER = "t chat  o hand  d offer a draw  R resign"
#: The help box's line of the selection keys, and the one that replaces it on the trump screen.
HELP_SELECT = "←→ h l select   ↑↓ k j suit   Enter play, then 2nd card"
HELP_TRUMP = "Own trump: c d h s, 1-4 or ↑↓ mark a suit, Enter chooses"


def overlay_lines(core: TableCore) -> list[str]:
    """The open dialog (a confirmation or the help) as framed text lines, no wider than the
    terminal (a long question wraps at spaces)."""
    s = core.state
    if s.confirm is not None:
        room = max(20, core.terminal_size()[0] - 4)
        body = [*wrap_text(printable(core.t(s.confirm.question)), room, ""), "", "y yes    n no"]
    else:
        body = [*HELP_TEXT.splitlines(), HELP_CLOSING]
        o = core.options
        if o.allow_play_again:
            body[body.index(HELP_VS_AI)] = HELP_VS_AI_AGAIN
        elif not (o.allow_undo or o.allow_hint):  # a networked table
            body[body.index(HELP_VS_AI)] = HELP_VS_PEER
        if s.mode == Mode.TRUMP:
            body[body.index(HELP_SELECT)] = HELP_TRUMP
        if core.options.ascii_only:  # a terminal without Unicode cannot show the Russian letters either
            body = [line for line in body if asciify(line).isascii()]
    body = [printable(core.t(line)) for line in body]
    width = max(get_cwidth(line) for line in body)
    tl, tr, bl, br, h, v = "┌┐└┘─│"
    lines = [tl + h * (width + 2) + tr]
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
                self._text = [f"The rule book is missing from this installation: {exc}"]
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
