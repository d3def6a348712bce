"""What match events do to the table (RULES.md §4-§8): the position and history follow the
match, the message line says what happened, and the end of a deal or of the match opens its
screen (:class:`~.view.EndView`, drawn by :func:`~.view.render_end`).

:func:`show_event` is called for every :class:`~p2ptrumps.events.MatchEvent` the person's
:class:`~.app.HumanPlayer` observes; :func:`show_end` opens the end screens.  Further
end-of-match screens (play again, the match history) belong beside :func:`show_end`, as
modes of :class:`~.state.Mode` with their keys in :func:`.bindings.end_keys`.
"""

from __future__ import annotations

from ..events import DealEnded, DealStarted, MatchEnded, MatchEvent, MovePlayed, MovesTakenBack, Withdrawn
from ..i18n import _, ngettext, tr
from ..record import match_winner
from ..rules import PICK_UP, Outcome
from .state import Mode, TableCore
from .view import EndView, HistoryEntry


def show_event(core: TableCore, event: MatchEvent) -> None:
    """Update the table for a match event (called by :meth:`~.app.HumanPlayer.observe`)."""
    s = core.state
    if isinstance(event, DealStarted):
        _deal_started(core, event)
    elif isinstance(event, MovePlayed):
        _move_played(core, event)
    elif isinstance(event, MovesTakenBack):
        s.position = event.position
        del s.history[len(s.history) - event.count:]
        if event.count:
            core.show_message(ngettext("Took back %(n)d move.", "Took back %(n)d moves.", event.count))
        else:
            core.show_message(_("Nothing to take back yet."), "error")
    elif isinstance(event, Withdrawn):  # our crossing moves gave way to the host's message (wire.md §8.3)
        s.position = event.position
        del s.history[len(s.history) - event.count:]
    elif isinstance(event, DealEnded):
        s.position = event.position
        s.score_halves = event.score_halves
    elif isinstance(event, MatchEnded):
        s.score_halves = event.score_halves
    core.invalidate()


def _deal_started(core: TableCore, event: DealStarted) -> None:
    s = core.state
    s.position = event.position
    s.trumps = event.position.trumps
    s.deal_number = event.number
    s.deals = event.position.rules.deals
    s.history = []
    s.end = None
    s.mode = Mode.IDLE
    s.selected = None
    number, deals = event.number, s.deals
    if event.position.pile or event.position.turn:  # a deal set up from a position (play --position)
        if event.position.to_move == s.my_seat:
            text = _("Deal %(number)d of %(deals)d: from a set-up position; you are to move.", number=number,
                     deals=deals)
        else:
            text = _("Deal %(number)d of %(deals)d: from a set-up position; %(name)s is to move.", number=number,
                     deals=deals, name=s.names[event.position.to_move])
    elif event.dealer == s.my_seat:
        text = _("Deal %(number)d of %(deals)d: you dealt; %(name)s leads.", number=number, deals=deals,
                 name=s.names[1 - event.dealer])
    else:
        text = _("Deal %(number)d of %(deals)d: %(name)s dealt; you lead.", number=number, deals=deals,
                 name=s.names[event.dealer])
    core.show_message(text)


def _move_played(core: TableCore, event: MovePlayed) -> None:
    s = core.state
    before = s.position
    picked = 0
    if event.move.kind == PICK_UP and before is not None:
        picked = len(before.pile) - len(event.position.pile)
    s.position = event.position
    s.history.append(HistoryEntry(len(s.history) + 1, event.seat, event.move, picked))
    if event.seat != s.my_seat:
        what = tr(event.move.label())
        if picked:
            what += " (" + ngettext("%(n)d card", "%(n)d cards", picked) + ")"
        # My own pick-up stays said beside the reply that follows it.
        before_reply = f"{s.pickup_note} " if s.pickup_note else ""
        core.show_message(f"{before_reply}{s.names[event.seat]}: {what}")
        s.pickup_note = ""
    elif picked:
        n = bin(event.position.hands[event.seat]).count("1")
        s.pickup_note = ngettext("You picked up %(n)d card (now %(hand)d in hand).",
                                 "You picked up %(n)d cards (now %(hand)d in hand).", picked, hand=n)
        core.show_message(s.pickup_note)
    else:
        s.pickup_note = ""
        core.show_message("")


def show_end(core: TableCore, event: DealEnded | MatchEnded, record_path: str | None, record_label: str) -> None:
    """Show the end-of-deal screen (for :class:`~p2ptrumps.events.DealEnded`) or the end of the
    match; ``record_path`` (None: not shown) follows ``record_label`` on the match's end."""
    s = core.state
    pos = s.position
    if pos is None or s.trumps is None:
        return
    if isinstance(event, DealEnded):
        text = _deal_result(core, event.outcome)
        title = text[0].upper() + text[1:] + "."
        match_over = False
        s.mode = Mode.DEAL_END
    else:
        deals = event.record.rules.deals if event.record is not None else s.deals
        decided, winner = match_winner(event.score_halves, deals)  # verify.md §5
        verdict = (_("The match has no winner: deals without a result could change it") if not decided
                   else _("The match is drawn") if winner is None
                   else _("You won the match") if winner == s.my_seat else _("You lost the match"))
        last = event.record.deals[-1] if event.record is not None and event.record.deals else None
        title = verdict
        if last is not None and last.outcome is not None and not s.end_note:  # a note says how it ended
            title = _("%(verdict)s. Last deal: %(result)s", verdict=verdict, result=_deal_result(core, last.outcome))
        match_over = True
        s.mode = Mode.MATCH_END
    s.end = EndView(
        title=core.t(title), names=s.names, trumps=s.trumps, hands=(pos.hands[0], pos.hands[1]),
        pile=pos.pile, deal_number=s.deal_number, deals=s.deals, score_halves=event.score_halves,
        my_seat=s.my_seat, match_over=match_over, record_path=record_path,
        ascii_only=core.options.ascii_only, record_label=record_label, history=tuple(s.history),
        note=core.t(s.end_note) if match_over else "",
    )
    s.selected = None
    s.prompt_kind = None
    core.show_message(s.end_note if match_over else "")


def _deal_result(core: TableCore, outcome: Outcome) -> str:
    """How a deal ended, the person called "you": ``"you went out and won"``, ``"Gus resigned; you won"``."""
    if outcome.winner is None:
        return tr(outcome.describe())
    other = core.opponent_name
    if outcome.winner == core.state.my_seat:
        if outcome.reason == "out":
            return _("you went out and won")
        if outcome.reason == "resign":
            return _("%(name)s resigned; you won", name=other)
        return _("%(name)s ran out of time; you claimed the deal", name=other)
    if outcome.reason == "out":
        return _("%(name)s went out and won", name=other)
    if outcome.reason == "resign":
        return _("you resigned; %(name)s won", name=other)
    return _("you ran out of time; %(name)s claimed the deal", name=other)
