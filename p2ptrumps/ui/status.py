"""The status lines at the bottom of the table: what is expected of the person now, the
message line, and the keys that work now (fitted to the width).

:func:`status_view` makes the :class:`~.view.StatusView` snapshot that
:func:`~.view.render_status` draws; :func:`keys_items` lists the key hints of each mode and
:func:`what_helps` says, for a key that does nothing, what would.  A new line at the bottom
(e.g. a move clock) is a field of :class:`~.view.StatusView` filled here.
"""

from __future__ import annotations

from prompt_toolkit.utils import get_cwidth

from ..text import clock_text
from .overlays import RuleBook
from .state import Mode, TableCore
from .view import CLOCK_WARN_S, StatusView, expect_text, wrapped_lines

#: Key hints dropped first when the keys line is too narrow (``? help`` lists them all).
_DROPPABLE = ("o hand", "R resign", "d draw", ": type", "u undo", "i hint", "t chat", "Esc back")


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


def status_view(core: TableCore, rules: RuleBook, width: int = 80) -> StatusView:
    """The bottom lines for the current mode, the keys line fitted to ``width`` columns."""
    s = core.state
    a = core.options.ascii_only
    keys = fit_keys(keys_items(core), width - 1)
    if s.rules_top is not None:
        total = len(wrapped_lines(rules.lines(), width))
        return StatusView(expect=f"The rule book, line {s.rules_top + 1} of {total}; the game waits.",
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
        who = "Your time" if mine else f"{core.opponent_name}'s time"
        text = (text + " " if text else "") + f"{who}: {warn}{clock_text(left)}{warn}"
    return text


def _expect_mode(core: TableCore) -> str:
    s = core.state
    # Before the first deal no opponent line shows the connection: a lost one is said here.
    link = f" ({s.connection})" if s.connection not in ("", "connected") else ""
    if s.mode == Mode.TRUMP:
        return f"Your trump stays yours for every deal of the match.{link}"
    if s.mode in (Mode.TURN, Mode.SECOND) and s.position is not None:
        return expect_text(s.position, s.my_seat, s.pending_beat if s.mode == Mode.SECOND else None)
    if s.mode == Mode.WAIT or (
            s.mode == Mode.IDLE and s.position is not None and s.position.outcome is None
            and s.position.to_move != s.my_seat):
        if s.confirm is not None:  # the opponent's draw offer, a claim: the wait is on us, not on them
            return "Answer the question above: y or n."
        return core.options.waiting_text.format(name=core.opponent_name)
    if s.mode == Mode.IDLE and s.position is None and s.connection:
        return f"Waiting for {core.opponent_name}…{link}"
    if s.mode == Mode.DEAL_END:
        return "Deal over. Enter starts the next deal."
    if s.mode == Mode.MATCH_END:
        return "Match over."
    return ""


def keys_items(core: TableCore) -> list[str]:
    """The key hints of the current mode, most useful first (``fit_keys`` drops some)."""
    s = core.state
    o = core.options
    if s.confirm is not None:  # an open question takes only y, n and Esc (bindings.dialog_keys)
        return ["y yes", "n no"]
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
        items = ["↑↓ or c d h s mark", "Enter choose", "q quit"]
    elif s.mode == Mode.DEAL_END:
        items = ["Enter next deal", "q quit"]
    elif s.mode == Mode.MATCH_END:
        items = [f"Enter {o.match_end_enter}"]
        if o.allow_play_again:
            items.insert(0, "a play again")
    else:
        items = ["q quit"]
    if o.allow_chat and s.mode != Mode.MATCH_END and s.prompt_kind is None:
        items.insert(-1, "t chat")
    return items


def what_helps(core: TableCore) -> str:
    """For a key that does nothing now: what would help in the current mode."""
    s = core.state
    if s.mode == Mode.TURN:
        pick = ", p picks up" if s.position is not None and s.position.can_pick_up() else ""
        return f"choose a card with the arrows and press Enter{pick}; ? lists every key"
    if s.mode == Mode.SECOND:
        return "choose the second card and press Enter, Esc takes the beat back; ? lists every key"
    if s.mode == Mode.TRUMP:
        return "mark a suit with c d h s or the arrows, then press Enter; q quits"
    if s.mode == Mode.DEAL_END:
        return "Enter starts the next deal, q quits"
    if s.mode == Mode.MATCH_END:
        again = "a: play again; " if core.options.allow_play_again else ""
        return f"{again}Enter: {core.options.match_end_enter}"
    if s.mode == Mode.WAIT:
        return f"it is {core.opponent_name}'s move; ? lists the keys, q quits"
    return "? lists the keys, q quits"
