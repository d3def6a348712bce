"""The status lines at the bottom of the table: what is expected of the person now, the
message line, and the keys that work now (fitted to the width).

:func:`status_view` makes the :class:`~.view.StatusView` snapshot that
:func:`~.view.render_status` draws; :func:`keys_items` lists the key hints of each mode and
:func:`what_helps` says, for a key that does nothing, what would.  A new line at the bottom
(e.g. a move clock) is a field of :class:`~.view.StatusView` filled here.
"""

from __future__ import annotations

from prompt_toolkit.utils import get_cwidth

from ..i18n import _, tr
from ..text import clock_text
from .overlays import RuleBook
from .state import MATCH_END_ENTER, Mode, TableCore
from .view import CLOCK_WARN_S, StatusView, expect_text, wrapped_lines

# TRANSLATORS: the key hints of the bottom line ("o hand", "Enter play", ...) start with their keys, which
# stay as they are (o, R, Enter, Esc, ...); only the words after the first space are translated.


def dropped_first() -> tuple[str, ...]:
    """Key hints dropped first when the keys line is too narrow (``? help`` lists them all)."""
    return (_("o hand"), _("R resign"), _("d draw"), _(": type"), _("u undo"), _("i hint"), _("t chat"),
            _("Esc back"))


def fit_keys(items: list[str], width: int, droppable: tuple[str, ...] | None = None) -> str:
    """Key hints joined by two spaces (one if need be), dropping the ``droppable`` ones
    (default :func:`dropped_first`), first ones first, until the line fits ``width`` columns."""
    items = list(items)
    drop = [d for d in (dropped_first() if droppable is None else droppable) if d in items]
    while True:
        for sep in ("  ", " "):
            text = sep.join(items)
            if get_cwidth(text) <= width:
                return text
        if not drop:
            return text
        items.remove(drop.pop(0))


def status_view(core: TableCore, rules: RuleBook, width: int = 80) -> StatusView:
    """The bottom lines for the current mode, the keys line fitted to ``width`` columns."""
    s = core.state
    a = core.options.ascii_only
    keys = fit_keys(keys_items(core), width - 1)
    if s.rules_top is not None:
        total = len(wrapped_lines(rules.lines(), width))
        return StatusView(expect=_("The rule book, line %(line)d of %(lines)d; the game waits.",
                                   line=s.rules_top + 1, lines=total),
                          fault=s.fault, keys=keys, ascii_only=a)
    return StatusView(expect=_expect(core), fault=s.fault, message=s.message, message_kind=s.message_kind,
                      keys=keys, ascii_only=a)


def _expect(core: TableCore) -> str:
    """What the person is expected to do (or wait for) in the current mode; where no player line shows
    a running clock (the trump choice, between deals: the next deal's first move may be timed while its
    elder still reads "Deal over") it is said here, whose ever it is (protocol/wire.md §16)."""
    s = core.state
    text = _expect_mode(core)
    if s.clock is None:
        return text
    seat, left = s.clock
    mine = seat == s.my_seat and s.mode in (Mode.TRUMP, Mode.DEAL_END, Mode.IDLE)
    theirs = seat != s.my_seat and (s.mode == Mode.DEAL_END or (s.mode == Mode.IDLE and s.position is None))
    if mine or theirs:
        warn = "!" if left <= CLOCK_WARN_S else ""
        clock = f"{warn}{clock_text(left)}{warn}"
        said = _("Your time: %(clock)s", clock=clock) if mine else _("%(name)s's time: %(clock)s",
                                                                      name=core.opponent_name, clock=clock)
        text = (text + " " if text else "") + said
    return text


def _expect_mode(core: TableCore) -> str:
    s = core.state
    # Before the first deal no opponent line shows the connection: a lost one is said here.
    link = f" ({tr(s.connection)})" if s.connection not in ("", "connected") else ""
    if s.mode == Mode.TRUMP:
        return _("Your trump stays yours for every deal of the match.") + link
    if s.mode in (Mode.TURN, Mode.SECOND) and s.position is not None:
        return expect_text(s.position, s.my_seat, s.pending_beat if s.mode == Mode.SECOND else None,
                           core.opponent_name)
    if s.mode == Mode.WAIT or (
            s.mode == Mode.IDLE and s.position is not None and s.position.outcome is None
            and s.position.to_move != s.my_seat):
        if s.confirm is not None:  # the opponent's draw offer, a claim: the wait is on us, not on them
            return _("Answer the question above: y or n.")
        return _(core.options.waiting_text).replace("{name}", core.opponent_name)
    if s.mode == Mode.IDLE and s.position is None and s.connection:
        return _("Waiting for %(name)s…", name=core.opponent_name) + link
    if s.mode == Mode.DEAL_END:
        return _("Deal over. Enter starts the next deal.")
    if s.mode == Mode.MATCH_END:
        return _("Match over.")
    return ""


def keys_items(core: TableCore) -> list[str]:
    """The key hints of the current mode, most useful first (``fit_keys`` drops some)."""
    s = core.state
    o = core.options
    if s.confirm is not None:  # an open question takes only y, n and Esc (bindings.dialog_keys), and a when offered
        if s.confirm.on_adjourn is not None:
            return [_("y leave"), _("a adjourn"), _("n play on")]
        return [_("y yes"), _("n no")]
    if s.rules_top is not None:
        return [_("↑↓ PgUp PgDn scroll"), "Home End", _("q Esc close the rules")]
    if s.prompt_kind == "move":
        items = [_("Tab complete"), _("Enter play"), _("Esc close")]
    elif s.prompt_kind == "chat":
        items = [_("Enter send"), _("Esc close")]
    elif s.mode == Mode.TURN:
        items = [_("←→↑↓ select"), _("Enter play"), _("p pick up"), _(": type")]
        if o.allow_undo:
            items.append(_("u undo"))
        if o.allow_hint:
            items.append(_("i hint"))
        if o.allow_draw_offer:
            items.append(_("d draw"))
        items += [_("o hand"), _("R resign"), _("? help"), _("q quit")]
    elif s.mode == Mode.SECOND:
        items = [_("←→↑↓ select"), _("Enter second card"), _("Esc back"), _(": type"), _("? help"), _("q quit")]
    elif s.mode == Mode.WAIT:
        items = [_("o hand"), _("? help"), _("q quit")]
    elif s.mode == Mode.TRUMP:
        items = [_("↑↓ or c d h s mark"), _("Enter choose"), _("q quit")]
    elif s.mode == Mode.DEAL_END:
        items = [_("Enter next deal"), _("q quit")]
    elif s.mode == Mode.MATCH_END:
        items = ["Enter " + match_end_enter(core)]
        if o.allow_play_again:
            items.insert(0, _("a play again"))
    else:
        items = [_("q quit")]
    if o.allow_chat and s.mode != Mode.MATCH_END and s.prompt_kind is None:
        items.insert(-1, _("t chat"))
    return items


def match_end_enter(core: TableCore) -> str:
    """What Enter does on the end-of-match screen (``UIOptions.match_end_enter``), in the person's language."""
    said = core.options.match_end_enter
    return tr(MATCH_END_ENTER.get(said, said))


def what_helps(core: TableCore) -> str:
    """For a key that does nothing now: what would help in the current mode."""
    s = core.state
    if s.mode == Mode.TURN:
        if s.position is not None and s.position.can_pick_up():
            return _("choose a card with the arrows and press Enter, p picks up; ? lists every key")
        return _("choose a card with the arrows and press Enter; ? lists every key")
    if s.mode == Mode.SECOND:
        return _("choose the second card and press Enter, Esc takes the beat back; ? lists every key")
    if s.mode == Mode.TRUMP:
        return _("mark a suit with c d h s or the arrows, then press Enter; q quits")
    if s.mode == Mode.DEAL_END:
        return _("Enter starts the next deal, q quits")
    if s.mode == Mode.MATCH_END:
        if core.options.allow_play_again:
            return _("a: play again; Enter: %(what)s", what=match_end_enter(core))
        return _("Enter: %(what)s", what=match_end_enter(core))
    if s.mode == Mode.WAIT:
        return _("it is %(name)s's move; ? lists the keys, q quits", name=core.opponent_name)
    return _("? lists the keys, q quits")
