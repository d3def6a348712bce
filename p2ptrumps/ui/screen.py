"""The table's layout and what each part of it draws.

From the top: the body (the table, the trump choice, the end screens, the rule book, or the
too-small note), the prompt line (while open), the status lines; floating over them the open
dialog or the help (:mod:`.overlays`) and the completion menu of the typed-move prompt.  The
body and the status are :class:`LinesControl` windows that ask :mod:`.view` for exactly the
lines of their size; what they show follows ``state.mode``.  A new screen (e.g. a match
history) is a branch of :meth:`Screen.render_body`; a new bottom line goes to :mod:`.status`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import ConditionalContainer, Float, FloatContainer, HSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl, UIContent, UIControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.utils import get_cwidth

from ..i18n import _
from .moves import legal_cards
from .overlays import RuleBook, overlay_lines
from .state import Mode, TableCore
from .status import status_view
from .view import (
    Line,
    TableView,
    printable,
    render_end,
    render_setup,
    render_status,
    render_table,
    render_text_page,
    render_too_small,
    render_trump_choice,
    status_height,
)


class LinesControl(UIControl):
    """A control that renders lines of fragments for exactly the size it is given."""

    def __init__(self, render: Callable[[int, int], list[Line]]) -> None:
        self._render = render

    def create_content(self, width: int, height: int | None) -> UIContent:
        lines = [cast(StyleAndTextTuples, line) for line in self._render(width, height or 24)]
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines), show_cursor=False)

    def is_focusable(self) -> bool:
        return True


class Screen:
    """The windows of the table and their rendering.

    Args:
        core: the table's :class:`~.state.TableCore`.
        rules: the :class:`~.overlays.RuleBook` shown in place of the table when open.

    :attr:`body` is the table's window (it has the focus while no prompt is open);
    :meth:`container` puts the windows together around the prompt line.
    """

    def __init__(self, core: TableCore, rules: RuleBook) -> None:
        self._core = core
        self._rules = rules
        self.body = Window(content=LinesControl(self.render_body), always_hide_cursor=True)
        self._status = Window(content=LinesControl(self.render_status), height=self._status_height)
        # The prompt sits above the status lines and the completion menu opens upwards from it
        # (its ``bottom`` follows the status height, see _status_height): it covers the table,
        # never what the status says.
        self._menu_float = Float(xcursor=True, bottom=4, content=CompletionsMenu(max_height=8, scroll_offset=1))

    def container(self, prompt_window: Window) -> FloatContainer:
        """The whole screen: body, ``prompt_window`` (while a prompt is open), status; the
        dialog and the completion menu float over them."""
        s = self._core.state
        prompt_open = Condition(lambda: s.prompt_kind is not None)
        overlay_open = Condition(lambda: (s.help_open or s.confirm is not None) and not self._core.too_small())
        return FloatContainer(
            content=HSplit([self.body, ConditionalContainer(prompt_window, filter=prompt_open), self._status]),
            floats=[
                Float(content=ConditionalContainer(self._overlay_window(), filter=overlay_open)),
                self._menu_float,
            ],
        )

    def table_view(self) -> TableView | None:
        """The :class:`~.view.TableView` of the current deal, or None before the first deal."""
        s = self._core.state
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
            legal=legal_cards(s),
            selected=s.selected if s.mode in (Mode.TURN, Mode.SECOND) else None,
            pending_beat=s.pending_beat if s.mode == Mode.SECOND else None,
            show_opponent=s.show_opponent,
            opponent_detail=self._core.t(s.opponent_detail),
            connection=self._core.t(s.connection),
            clock=s.clock,
            chat=tuple(s.chat[-3:]),
            ascii_only=self._core.options.ascii_only,
        )

    def render_body(self, width: int, height: int) -> list[Line]:
        """The body's lines for ``width`` x ``height`` cells in the current mode."""
        s = self._core.state
        a = self._core.options.ascii_only
        if self._core.too_small():
            lines = render_too_small(*self._core.terminal_size())
            if s.confirm is not None:  # the dialog cannot be drawn: ask on the note's last lines
                lines[-2:] = [[("class:dialog", printable(self._core.t(s.confirm.question) + " y/n"))], [("", "")]]
            return lines[:height]
        if s.rules_top is not None:
            return render_text_page(self._rules.lines(), s.rules_top, width, height, self._core.t(
                _("The rules of Svoi Kozyri (RULES.md)")))
        if s.mode == Mode.TRUMP:
            return render_trump_choice(s.trump_choice, s.trump_taken, a, width, height, chat=s.chat[-3:])
        if s.mode in (Mode.DEAL_END, Mode.MATCH_END) and s.end is not None:
            return render_end(s.end, width, height)
        view = self.table_view()
        if view is None:
            return render_setup(s.chat[-3:], a, width, height)
        return render_table(view, width, height)

    def render_status(self, width: int, height: int) -> list[Line]:
        """The status lines for ``width`` columns (none on a too-small terminal)."""
        if self._core.too_small():
            return []
        return render_status(status_view(self._core, self._rules, width), width)

    def _status_height(self) -> Dimension:
        if self._core.too_small():
            return Dimension.exact(0)
        columns = self._core.terminal_size()[0]
        height = status_height(status_view(self._core, self._rules, columns), columns)
        self._menu_float.bottom = height + 1  # just above the prompt line
        return Dimension.exact(height)

    def _overlay_window(self) -> Window:
        def text() -> StyleAndTextTuples:
            return [("class:dialog", "\n".join(overlay_lines(self._core)))]

        def width() -> Dimension:
            return Dimension.exact(max(get_cwidth(x) for x in overlay_lines(self._core)))

        return Window(FormattedTextControl(text), style="class:dialog", width=width, dont_extend_height=True)
